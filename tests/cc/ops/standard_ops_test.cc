// The generated wrappers (minflow/cc/ops/standard_ops.h), a sample of every
// op family: each is built through its class and most are run, against
// values worked out by hand. That every wrapper compiles is shown by
// libminflow_cc itself, which compiles them all.
#include "minflow/cc/ops/standard_ops.h"

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "minflow/attr_value.pb.h"
#include "minflow/cc/framework/client_session.h"
#include "minflow/framework/function.h"
#include "minflow/framework/op.h"
#include "minflow/function.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/op_def.pb.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using ::testing::HasSubstr;

// Runs `fetches` of `root`'s graph.
std::vector<Tensor> RunAll(const Scope& root,
                           const std::vector<Output>& fetches) {
  ClientSession session(root);
  std::vector<Tensor> outputs;
  Status s = session.Run(fetches, &outputs);
  EXPECT_TRUE(s.ok()) << s;
  return outputs;
}

TEST(StandardOpsTest, ArrayOps) {
  Scope root = Scope::NewRootScope();
  auto m = ops::Const(root, {{1, 2, 3}, {4, 5, 6}});
  auto reshaped = ops::Reshape(root, m, {3, 2});
  auto transposed = ops::Transpose(root, m, {1, 0});
  auto concat = ops::ConcatV2(root, {m, m}, 0);
  auto packed = ops::Pack(root, {1, 2}, ops::Pack::Axis(0));
  auto unpacked = ops::Unpack(root, m, 2);
  auto split = ops::Split(root, 1, m, 3);
  auto gathered = ops::GatherV2(root, m, {1}, 0);
  auto sliced = ops::StridedSlice(root, m, {0, 1}, {2, 3}, {1, 1});
  auto hot = ops::OneHot(root, {0, 2}, 3, 1.f, 0.f);
  MF_ASSERT_OK(root.status());
  ASSERT_EQ(unpacked.output.size(), 2u);
  ASSERT_EQ(split.output.size(), 3u);
  EXPECT_TRUE(concat.output.shape().IsIdenticalTo(PartialTensorShape({4, 3})));
  std::vector<Tensor> out =
      RunAll(root, {reshaped, transposed, packed, unpacked.output[1],
                    split.output[2], gathered, sliced, hot});
  test::ExpectTensorEqual<int32_t>(
      out[0], test::AsTensor<int32_t>({1, 2, 3, 4, 5, 6}, {3, 2}));
  test::ExpectTensorEqual<int32_t>(
      out[1], test::AsTensor<int32_t>({1, 4, 2, 5, 3, 6}, {3, 2}));
  test::ExpectTensorEqual<int32_t>(out[2], test::AsTensor<int32_t>({1, 2}));
  test::ExpectTensorEqual<int32_t>(out[3], test::AsTensor<int32_t>({4, 5, 6}));
  test::ExpectTensorEqual<int32_t>(out[4],
                                   test::AsTensor<int32_t>({3, 6}, {2, 1}));
  test::ExpectTensorEqual<int32_t>(out[5],
                                   test::AsTensor<int32_t>({4, 5, 6}, {1, 3}));
  test::ExpectTensorEqual<int32_t>(
      out[6], test::AsTensor<int32_t>({2, 3, 5, 6}, {2, 2}));
  test::ExpectTensorEqual<float>(
      out[7], test::AsTensor<float>({1, 0, 0, 0, 0, 1}, {2, 3}));
}

TEST(StandardOpsTest, MathOps) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, {{1.f, 2.f}, {3.f, 4.f}});
  auto product = ops::MatMul(root, a, a, ops::MatMul::TransposeB(true));
  auto sum = ops::Sum(root, a, 1, ops::Sum::KeepDims(true));
  auto added = ops::AddN(root, {a, a, a});
  auto as_int = ops::Cast(root, a, DT_INT64);
  auto arg = ops::ArgMax(root, a, 0);
  auto chosen = ops::Select(root, {true, false}, {1, 2}, {10, 20});
  MF_ASSERT_OK(root.status());
  EXPECT_EQ(arg.output.type(), DT_INT64);
  std::vector<Tensor> out =
      RunAll(root, {product, sum, added, as_int, arg, chosen});
  // a * a^T = [1*1+2*2, 1*3+2*4; 3*1+4*2, 3*3+4*4]
  test::ExpectTensorEqual<float>(
      out[0], test::AsTensor<float>({5, 11, 11, 25}, {2, 2}));
  test::ExpectTensorEqual<float>(out[1], test::AsTensor<float>({3, 7}, {2, 1}));
  test::ExpectTensorEqual<float>(out[2],
                                 test::AsTensor<float>({3, 6, 9, 12}, {2, 2}));
  test::ExpectTensorEqual<int64_t>(
      out[3], test::AsTensor<int64_t>({1, 2, 3, 4}, {2, 2}));
  test::ExpectTensorEqual<int64_t>(out[4], test::AsTensor<int64_t>({1, 1}));
  test::ExpectTensorEqual<int32_t>(out[5], test::AsTensor<int32_t>({1, 20}));
}

TEST(StandardOpsTest, NnOps) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, {{-1.f, 2.f}});
  auto relu = ops::Relu(root, x);
  auto biased = ops::BiasAdd(root, x, {1.f, 1.f});
  auto soft = ops::Softmax(root, {{0.f, 0.f}});
  // One 2x2 image, one channel; a 2x2 filter of ones sums it.
  auto image = ops::Const(root, {{{{1.f}, {2.f}}, {{3.f}, {4.f}}}});
  auto filter = ops::Const(root, {{{{1.f}}, {{1.f}}}, {{{1.f}}, {{1.f}}}});
  auto conv = ops::Conv2D(root, image, filter, {1, 1, 1, 1}, "VALID");
  auto pool = ops::MaxPool(root, image, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID");
  MF_ASSERT_OK(root.status());
  EXPECT_TRUE(
      conv.output.shape().IsIdenticalTo(PartialTensorShape({1, 1, 1, 1})));
  std::vector<Tensor> out = RunAll(root, {relu, biased, soft, conv, pool});
  test::ExpectTensorEqual<float>(out[0], test::AsTensor<float>({0, 2}, {1, 2}));
  test::ExpectTensorEqual<float>(out[1], test::AsTensor<float>({0, 3}, {1, 2}));
  test::ExpectTensorNear<float>(
      out[2], test::AsTensor<float>({0.5f, 0.5f}, {1, 2}), 1e-6);
  test::ExpectTensorEqual<float>(out[3],
                                 test::AsTensor<float>({10}, {1, 1, 1, 1}));
  test::ExpectTensorEqual<float>(out[4],
                                 test::AsTensor<float>({4}, {1, 1, 1, 1}));
}

TEST(StandardOpsTest, ControlFlowOps) {
  Scope root = Scope::NewRootScope();
  auto data = ops::Const(root, 7.f);
  auto sw = ops::Switch(root, data, true);
  auto negated = ops::Neg(root, sw.output_true);
  auto doubled = ops::Mul(root, sw.output_false, 2.f);
  auto merged = ops::Merge(root, {negated, doubled});
  MF_ASSERT_OK(root.status());
  std::vector<Tensor> out = RunAll(root, {merged.output, merged.value_index});
  test::ExpectTensorEqual<float>(out[0], test::AsScalar<float>(-7.f));
  test::ExpectTensorEqual<int32_t>(out[1], test::AsScalar<int32_t>(0));
}

// Functional control flow: the branches are functions of the graph's
// library, set on the scope's graph before the op is made (shape inference
// reads the bodies).
TEST(StandardOpsTest, FunctionalIf) {
  FunctionDefLibrary library;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        function {
          signature {
            name: "negate"
            input_arg { name: "x" type: DT_FLOAT }
            output_arg { name: "y" type: DT_FLOAT }
          }
          node_def {
            name: "neg"
            op: "Neg"
            input: "x"
            attr {
              key: "T"
              value { type: DT_FLOAT }
            }
          }
          ret { key: "y" value: "neg:y:0" }
        }
        function {
          signature {
            name: "same"
            input_arg { name: "x" type: DT_FLOAT }
            output_arg { name: "y" type: DT_FLOAT }
          }
          ret { key: "y" value: "x" }
        }
      )pb",
      &library));
  Scope root = Scope::NewRootScope();
  auto functions =
      std::make_shared<FunctionLibraryDefinition>(OpRegistry::Global());
  MF_ASSERT_OK(functions->AddLibrary(library));
  root.graph()->set_flib_def(functions);
  NameAttrList negate, same;
  negate.set_name("negate");
  same.set_name("same");
  auto x = ops::Placeholder(root, DT_BOOL);
  auto branch =
      ops::If(root, x, {ops::Neg(root, {1.f, 2.f})}, {DT_FLOAT}, negate, same);
  MF_ASSERT_OK(root.status());
  ASSERT_EQ(branch.output.size(), 1u);
  EXPECT_TRUE(branch.output[0].shape().IsIdenticalTo(PartialTensorShape({2})));
  ClientSession session(root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session.Run({{x, true}}, {branch.output[0]}, &out));
  test::ExpectTensorEqual<float>(out[0], test::AsTensor<float>({1.f, 2.f}));
  MF_ASSERT_OK(session.Run({{x, false}}, {branch.output[0]}, &out));
  test::ExpectTensorEqual<float>(out[0], test::AsTensor<float>({-1.f, -2.f}));
}

TEST(StandardOpsTest, ImageOps) {
  Scope root = Scope::NewRootScope();
  auto image = ops::Const(root, {{{{5.f}}}});  // [1,1,1,1]
  auto resized = ops::ResizeNearestNeighbor(root, image, {2, 2});
  MF_ASSERT_OK(root.status());
  std::vector<Tensor> out = RunAll(root, {resized});
  test::ExpectTensorEqual<float>(
      out[0], test::AsTensor<float>({5, 5, 5, 5}, {1, 2, 2, 1}));
}

TEST(StandardOpsTest, RandomOps) {
  Scope root = Scope::NewRootScope();
  auto r = ops::RandomUniform(root, {3, 4}, DT_FLOAT,
                              ops::RandomUniform::Seed(1).Seed2(2));
  MF_ASSERT_OK(root.status());
  EXPECT_TRUE(r.output.shape().IsIdenticalTo(PartialTensorShape({3, 4})));
  std::vector<Tensor> out = RunAll(root, {r});
  ASSERT_EQ(out[0].NumElements(), 12);
  for (int i = 0; i < 12; ++i) {
    EXPECT_GE(out[0].flat<float>()(i), 0.f);
    EXPECT_LT(out[0].flat<float>()(i), 1.f);
  }
  // Seeded: the same values again.
  std::vector<Tensor> again = RunAll(root, {r});
  test::ExpectTensorEqual<float>(out[0], again[0]);
}

TEST(StandardOpsTest, LinalgScanBitwiseAndSpatialOps) {
  Scope root = Scope::NewRootScope();
  auto m = ops::Const(root, {{1, 2}, {3, 4}});
  auto lower = ops::MatrixBandPart(root, m, -1, 0);
  auto cumsum = ops::Cumsum(root, {1, 2, 3}, 0, ops::Cumsum::Reverse(true));
  auto inverted = ops::Invert(root, {0});
  auto depth = ops::Const(root, {{{{1.f, 2.f, 3.f, 4.f}}}});  // [1,1,1,4]
  auto space = ops::DepthToSpace(root, depth, 2);
  auto dense = ops::SparseToDense(root, {1, 3}, {4}, 9, 0);
  MF_ASSERT_OK(root.status());
  std::vector<Tensor> out =
      RunAll(root, {lower, cumsum, inverted, space, dense});
  test::ExpectTensorEqual<int32_t>(
      out[0], test::AsTensor<int32_t>({1, 0, 3, 4}, {2, 2}));
  test::ExpectTensorEqual<int32_t>(out[1], test::AsTensor<int32_t>({6, 5, 3}));
  test::ExpectTensorEqual<int32_t>(out[2], test::AsTensor<int32_t>({-1}));
  test::ExpectTensorEqual<float>(
      out[3], test::AsTensor<float>({1, 2, 3, 4}, {1, 2, 2, 1}));
  test::ExpectTensorEqual<int32_t>(out[4],
                                   test::AsTensor<int32_t>({0, 9, 0, 9}));
}

TEST(StandardOpsTest, StringLoggingIoAndGuideOps) {
  Scope root = Scope::NewRootScope();
  auto joined =
      ops::StringJoin(root, {"a", "b"}, ops::StringJoin::Separator("-"));
  auto checked = ops::CheckNumerics(root, {1.f}, "finite");
  auto filename = ops::ShardedFilename(root, "ckpt", 1, 2);
  auto zeroed = ops::ZeroOut(root, {5, 3, 2});
  auto quant = ops::FakeQuantWithMinMaxArgs(root, {0.f, 6.f});
  MF_ASSERT_OK(root.status());
  std::vector<Tensor> out = RunAll(root, {joined, checked, filename, zeroed});
  EXPECT_EQ(out[0].flat<std::string>()(0), "a-b");
  test::ExpectTensorEqual<float>(out[1], test::AsTensor<float>({1.f}));
  EXPECT_EQ(out[2].flat<std::string>()(0), "ckpt-00001-of-00002");
  test::ExpectTensorEqual<int32_t>(out[3], test::AsTensor<int32_t>({5, 0, 0}));
  EXPECT_EQ(quant.outputs.type(), DT_FLOAT);
}

TEST(StandardOpsTest, StateDataFlowAndListOpsBuild) {
  Scope root = Scope::NewRootScope();
  auto var = ops::VarHandleOp(root, DT_FLOAT, PartialTensorShape({2}));
  auto assign = ops::AssignAddVariableOp(root, var, {1.f, 2.f});
  auto array = ops::TensorArrayV3(root, 3, DT_FLOAT);
  auto list = ops::EmptyTensorList(root, -1, 4, DT_FLOAT);
  auto pushed = ops::TensorListPushBack(root, list, 1.f);
  auto length = ops::TensorListLength(root, pushed);
  MF_ASSERT_OK(root.status());
  EXPECT_EQ(assign.operation.num_inputs(), 2);
  EXPECT_EQ(array.handle.type(), DT_RESOURCE);
  EXPECT_EQ(array.flow.type(), DT_FLOAT);
  std::vector<Tensor> out = RunAll(root, {length});
  test::ExpectTensorEqual<int32_t>(out[0], test::AsScalar<int32_t>(1));
}

TEST(StandardOpsTest, EveryPublicOpHasAClass) {
  std::ifstream in(MINFLOW_CC_OPS_HEADER);
  ASSERT_TRUE(in) << MINFLOW_CC_OPS_HEADER;
  std::stringstream header;
  header << in.rdbuf();
  OpList ops;
  OpRegistry::Global()->Export(/*include_internal=*/false, &ops);
  ASSERT_GT(ops.op_size(), 200);
  for (const OpDef& op : ops.op()) {
    if (op.name() == "Const") continue;  // written by hand
    EXPECT_THAT(header.str(), HasSubstr("\nclass " + op.name() + " {\n"))
        << op.name();
  }
}

// The doc comment of each class carries its OpDef's summary and the first
// line of its description (tests/ops/op_docs_test checks that every op has
// them), between the previous class and this one.
TEST(StandardOpsTest, EveryClassCarriesItsOpDoc) {
  std::ifstream in(MINFLOW_CC_OPS_HEADER);
  ASSERT_TRUE(in) << MINFLOW_CC_OPS_HEADER;
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string header = buffer.str();
  OpList ops;
  OpRegistry::Global()->Export(/*include_internal=*/false, &ops);
  for (const OpDef& op : ops.op()) {
    if (op.name() == "Const") continue;  // written by hand
    const size_t cls = header.find("\nclass " + op.name() + " {\n");
    ASSERT_NE(cls, std::string::npos) << op.name();
    const size_t previous = header.rfind("\nclass ", cls - 1);
    const std::string comment = header.substr(
        previous == std::string::npos ? 0 : previous, cls - previous);
    ASSERT_FALSE(op.summary().empty()) << op.name();
    EXPECT_THAT(comment, HasSubstr("/// " + op.summary() + "\n")) << op.name();
    const std::string first_line =
        op.description().substr(0, op.description().find('\n'));
    if (!first_line.empty()) {
      EXPECT_THAT(comment, HasSubstr("/// " + first_line + "\n")) << op.name();
    }
  }
}

}  // namespace
}  // namespace minflow
