// TensorFlow's own test graphs (tests/testdata/tf_graphs, see its README)
// run through a Session, each checked against the values the graph computes
// for a few inputs.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/runtime/session.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

std::unique_ptr<Session> Load(const std::string& file) {
  GraphDef graph;
  const Status read =
      ReadGraphDefFile(std::string(MINFLOW_TF_GRAPHS_DIR) + "/" + file, &graph);
  EXPECT_TRUE(read.ok()) << read;
  auto session = Session::Create(graph, SessionOptions());
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(session).value() : nullptr;
}

template <typename T>
Tensor Scalar(T v) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape({}));
  t.scalar<T>()() = v;
  return t;
}

TEST(TfGraphsTest, NodeWhoseOpIsAFunction) {
  auto session = Load("graph-function-call.pbtxt");
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({}, {"func_call"}, {}, &out));
  ASSERT_EQ(out[0].NumElements(), 1);
  EXPECT_EQ(out[0].flat<int32_t>()(0), 1);
}

TEST(TfGraphsTest, FunctionalIfOps) {
  auto session = Load("functional-if-ops.pbtxt");
  ASSERT_NE(session, nullptr);
  // a < b: cond_true adds; otherwise cond_false multiplies.
  for (const auto& [a, b] :
       std::vector<std::pair<float, float>>{{2, 3}, {5, 3}, {-1, -1}}) {
    std::vector<Tensor> out;
    MF_ASSERT_OK(session->Run({{"a", Scalar(a)}, {"b", Scalar(b)}},
                              {"StatefulIf", "StatelessIf"}, {}, &out));
    const float expected = a < b ? a + b : a * b;
    EXPECT_EQ(out[0].scalar<float>()(), expected) << a << ", " << b;
    EXPECT_EQ(out[1].scalar<float>()(), expected) << a << ", " << b;
  }
}

TEST(TfGraphsTest, FunctionalWhileOps) {
  auto session = Load("functional-while-ops.pbtxt");
  ASSERT_NE(session, nullptr);
  // while iter > 0: iter -= 1; val += val.
  for (int iter : {0, 1, 5}) {
    std::vector<Tensor> out;
    MF_ASSERT_OK(session->Run(
        {{"iter", Scalar<int32_t>(iter)}, {"val", Scalar(1.5f)}},
        {"StatefulWhile:0", "StatefulWhile:1", "StatelessWhile:1"}, {}, &out));
    const float expected = 1.5f * static_cast<float>(1 << iter);
    EXPECT_EQ(out[0].scalar<int32_t>()(), 0);
    EXPECT_EQ(out[1].scalar<float>()(), expected) << iter;
    EXPECT_EQ(out[2].scalar<float>()(), expected) << iter;
  }
}

TEST(TfGraphsTest, StatelessCase) {
  auto session = Load("case_op.pbtxt");
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  // Index 0 (Const_1) picks branch 0, which adds 1 to Const (1).
  MF_ASSERT_OK(session->Run({}, {"indexed_case/Identity"}, {}, &out));
  EXPECT_EQ(out[0].scalar<int32_t>()(), 2);
  // Feeding the index picks the other branch, which adds 2.
  MF_ASSERT_OK(session->Run({{"Const_1", Scalar<int32_t>(1)}},
                            {"indexed_case/Identity"}, {}, &out));
  EXPECT_EQ(out[0].scalar<int32_t>()(), 3);
}

TEST(TfGraphsTest, Tf1WhileLoopCountsToTen) {
  auto session = Load("graph-while-loop.pbtxt");
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({}, {"while/Exit"}, {}, &out));
  EXPECT_EQ(out[0].scalar<int32_t>()(), 10);
}

TEST(TfGraphsTest, ControlInputsOnAFedPlaceholder) {
  auto session = Load("feed-control-dep.pbtxt");
  ASSERT_NE(session, nullptr);
  Tensor input(DT_FLOAT, TensorShape({1}));
  input.flat<float>()(0) = 7;
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({{"input", input}}, {"output_node"}, {}, &out));
  EXPECT_EQ(out[0].scalar<float>()(), 1);
}

TEST(TfGraphsTest, Tf1CondWithAFunctionCallOnOneSide) {
  auto session = Load("merge_node_with_function.pbtxt");
  ASSERT_NE(session, nullptr);
  // The Merge forwards whichever side of Switch0 is live: the input.
  for (bool input : {true, false}) {
    std::vector<Tensor> out;
    MF_ASSERT_OK(session->Run({{"input", Scalar(input)}}, {"Merge"}, {}, &out));
    EXPECT_EQ(out[0].scalar<bool>()(), input);
  }
}

// var = 2 (var/Assign); z = IdentityN(w, x, y) waits on var_add (+1).
TEST(TfGraphsTest, Tf1VariableWithAssignAddOrderedByControlDependency) {
  auto session = Load("multi-output-feeds.pbtxt");
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  // Nothing has assigned the variable yet.
  EXPECT_THAT(
      session->Run({}, {"z:0"}, {}, &out),
      testing::StatusIs(
          absl::StatusCode::kFailedPrecondition,
          ::testing::HasSubstr("Attempting to use uninitialized value var")));
  MF_ASSERT_OK(session->Run({}, {}, {"var/Assign"}, &out));
  MF_ASSERT_OK(session->Run({}, {"var/read"}, {}, &out));
  EXPECT_EQ(out[0].scalar<float>()(), 2);
  // Fetching z runs var_add first; each run adds one.
  for (int run = 1; run <= 3; ++run) {
    MF_ASSERT_OK(session->Run({}, {"z:0", "z:1", "z:2", "a"}, {}, &out));
    EXPECT_EQ(out[0].scalar<float>()(), 2);
    EXPECT_EQ(out[1].scalar<float>()(), 3);
    EXPECT_EQ(out[2].scalar<float>()(), 4);
    EXPECT_EQ(out[3].scalar<float>()(), 7);
    MF_ASSERT_OK(session->Run({}, {"var/read"}, {}, &out));
    EXPECT_EQ(out[0].scalar<float>()(), 2 + run);
  }
  // TensorFlow's test: z:1 and z:2 fed, z:2, z:1 and a:0 fetched. The fed
  // outputs come back as fed, `a` adds them, and nothing needs var_add.
  MF_ASSERT_OK(session->Run({{"z:1", Scalar(10.0f)}, {"z:2", Scalar(20.0f)}},
                            {"z:2", "z:1", "a:0"}, {}, &out));
  EXPECT_EQ(out[0].scalar<float>()(), 20);
  EXPECT_EQ(out[1].scalar<float>()(), 10);
  EXPECT_EQ(out[2].scalar<float>()(), 30);
  MF_ASSERT_OK(session->Run({}, {"var/read"}, {}, &out));
  EXPECT_EQ(out[0].scalar<float>()(), 5);
}

}  // namespace
}  // namespace minflow
