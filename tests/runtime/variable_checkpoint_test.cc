// Variables saved with SaveV2 and restored with RestoreV2 into a new
// session, as TensorFlow's Saver does: a TF1 variable and a resource
// variable come back bit for bit, and a damaged checkpoint is a clear
// error naming the file, never a crash.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tf1_graph_builder.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::minflow::testing::Tf1GraphBuilder;
using ::testing::AllOf;
using ::testing::HasSubstr;

Tensor Strings(std::vector<std::string> values) {
  Tensor t(DT_STRING, TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i)
    t.flat<std::string>()(i) = values[i];
  return t;
}

// Values with awkward bits: NaN with a payload, -0, denormals, infinity.
Tensor AwkwardFloats() {
  Tensor t(DT_FLOAT, TensorShape({2, 3}));
  uint32_t nan_bits = 0x7fc12345;
  float nan;
  std::memcpy(&nan, &nan_bits, sizeof(nan));
  const float values[] = {nan,
                          -0.0f,
                          std::numeric_limits<float>::denorm_min(),
                          std::numeric_limits<float>::infinity(),
                          1.0f / 3,
                          -12345.678f};
  for (int i = 0; i < 6; ++i) t.flat<float>()(i) = values[i];
  return t;
}

// "w" (VariableV2, float [2,3]) and "r" (VarHandleOp, int64 [4]), with
// initialisers from `w_init`/`r_init`; "save" writes both to the fed
// "prefix", "restore" assigns them from it; "read_w"/"read_r" read them.
GraphDef SaverGraph(const Tensor& w_init, const Tensor& r_init) {
  Tf1GraphBuilder b;
  NodeDef* w = b.Node("w", "VariableV2");
  AddNodeAttr("dtype", DT_FLOAT, w);
  AddNodeAttr("shape", PartialTensorShape({2, 3}), w);
  NodeDef* r = b.Node("r", "VarHandleOp");
  AddNodeAttr("dtype", DT_INT64, r);
  AddNodeAttr("shape", PartialTensorShape({4}), r);
  b.Const("w_init", w_init);
  b.Const("r_init", r_init);
  b.Add("init_w", "Assign", {"w", "w_init"}, DT_FLOAT);
  AddNodeAttr("dtype", DT_INT64,
              b.Node("init_r", "AssignVariableOp", {"r", "r_init"}));
  b.Add("read_w", "Identity", {"w"}, DT_FLOAT);
  AddNodeAttr("dtype", DT_INT64, b.Node("read_r", "ReadVariableOp", {"r"}));
  b.Placeholder("prefix", DT_STRING);
  b.Const("names", Strings({"w", "r"}));
  b.Const("slices", Strings({"", ""}));
  NodeDef* save = b.Node("save", "SaveV2",
                         {"prefix", "names", "slices", "read_w", "read_r"});
  AddNodeAttr("dtypes", std::vector<DataType>{DT_FLOAT, DT_INT64}, save);
  NodeDef* restore =
      b.Node("restored", "RestoreV2", {"prefix", "names", "slices"});
  AddNodeAttr("dtypes", std::vector<DataType>{DT_FLOAT, DT_INT64}, restore);
  b.Add("restore_w", "Assign", {"w", "restored:0"}, DT_FLOAT);
  AddNodeAttr("dtype", DT_INT64,
              b.Node("restore_r", "AssignVariableOp", {"r", "restored:1"}));
  b.Node("restore", "NoOp", {"^restore_w", "^restore_r"});
  return b.graph();
}

std::unique_ptr<Session> MakeSession(const GraphDef& graph) {
  auto session = Session::Create(graph, SessionOptions());
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(session).value() : nullptr;
}

std::string TempPrefix(const std::string& name) {
  return ::testing::TempDir() + "/variable_checkpoint_" + name;
}

Tensor Int64s() {
  Tensor t(DT_INT64, TensorShape({4}));
  const int64_t values[] = {std::numeric_limits<int64_t>::min(), -1, 0,
                            std::numeric_limits<int64_t>::max()};
  for (int i = 0; i < 4; ++i) t.flat<int64_t>()(i) = values[i];
  return t;
}

TEST(VariableCheckpointTest, SaveThenRestoreInANewSessionIsBitIdentical) {
  const Tensor w_value = AwkwardFloats();
  const Tensor r_value = Int64s();
  const GraphDef graph = SaverGraph(w_value, r_value);
  const std::string prefix = TempPrefix("round_trip");
  const Tensor prefix_tensor(prefix);
  {
    auto session = MakeSession(graph);
    ASSERT_NE(session, nullptr);
    std::vector<Tensor> out;
    MF_ASSERT_OK(session->Run({}, {}, {"init_w", "init_r"}, &out));
    MF_ASSERT_OK(session->Run({{"prefix", prefix_tensor}}, {}, {"save"}, &out));
  }
  auto session = MakeSession(graph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  EXPECT_THAT(session->Run({}, {"read_w"}, {}, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  MF_ASSERT_OK(
      session->Run({{"prefix", prefix_tensor}}, {}, {"restore"}, &out));
  MF_ASSERT_OK(session->Run({}, {"read_w", "read_r"}, {}, &out));
  ASSERT_EQ(out[0].shape().DebugString(), "[2,3]");
  EXPECT_EQ(out[0].tensor_data(), w_value.tensor_data());  // every bit
  ASSERT_EQ(out[1].shape().DebugString(), "[4]");
  EXPECT_EQ(out[1].tensor_data(), r_value.tensor_data());
}

TEST(VariableCheckpointTest, DamagedCheckpointIsAnErrorNamingTheFile) {
  const GraphDef graph = SaverGraph(AwkwardFloats(), Int64s());
  const std::string prefix = TempPrefix("damaged");
  const Tensor prefix_tensor(prefix);
  auto session = MakeSession(graph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({}, {}, {"init_w", "init_r"}, &out));
  MF_ASSERT_OK(session->Run({{"prefix", prefix_tensor}}, {}, {"save"}, &out));

  // A flipped byte in the data: the entry's checksum catches it.
  const std::string data = prefix + ".data-00000-of-00001";
  {
    std::fstream f(data, std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f.good());
    f.seekg(5);
    char c = 0;
    f.read(&c, 1);
    c ^= 0x20;
    f.seekp(5);
    f.write(&c, 1);
  }
  EXPECT_THAT(
      session->Run({{"prefix", prefix_tensor}}, {}, {"restore"}, &out),
      StatusIs(absl::StatusCode::kDataLoss,
               AllOf(HasSubstr(prefix), HasSubstr("{{node restored}}"))));

  // A truncated index.
  MF_ASSERT_OK(session->Run({{"prefix", prefix_tensor}}, {}, {"save"}, &out));
  const std::string index = prefix + ".index";
  std::string bytes;
  {
    std::ifstream in(index, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(bytes.size(), 20u);
  {
    std::ofstream truncated(index, std::ios::binary | std::ios::trunc);
    truncated.write(bytes.data(),
                    static_cast<std::streamsize>(bytes.size() / 2));
  }
  const Status s =
      session->Run({{"prefix", prefix_tensor}}, {}, {"restore"}, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(index));
  // The variables keep their values.
  MF_ASSERT_OK(session->Run({}, {"read_r"}, {}, &out));
  EXPECT_EQ(out[0].tensor_data(), Int64s().tensor_data());
}

}  // namespace
}  // namespace minflow
