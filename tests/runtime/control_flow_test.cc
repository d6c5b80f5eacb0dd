// TensorFlow 1 control flow in the executor, through Session on the
// built-in ops: conditionals (Switch/Merge, dead tensors), while loops
// (Enter/Exit/NextIteration/LoopCond frames and iterations), nesting, and
// the errors for graphs whose control flow is malformed. The graphs are
// shaped the way tf.cond and tf.while_loop build them.
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/config.pb.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tf1_graph_builder.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using GraphBuilder = ::minflow::testing::Tf1GraphBuilder;
using ::testing::AllOf;
using ::testing::HasSubstr;

// The ctest entry control_flow_test_executor_loops sets
// MINFLOW_TEST_LOOP_OPTIMIZATION=off, so the loops below also run frame by
// frame in the executor instead of as _SequentialLoop nodes (Note
// [Sequential loops] in graph/passes/sequential_loops.cc).
SessionOptions TestSessionOptions() {
  SessionOptions options;
  const char* loops = std::getenv("MINFLOW_TEST_LOOP_OPTIMIZATION");
  if (loops != nullptr && std::string(loops) == "off") {
    options.config.mutable_graph_options()
        ->mutable_rewrite_options()
        ->set_loop_optimization(RewriterConfig::OFF);
  }
  return options;
}

std::unique_ptr<Session> MakeSession(const GraphDef& graph, int inter_op = 2) {
  SessionOptions options = TestSessionOptions();
  options.config.set_inter_op_parallelism_threads(inter_op);
  auto session = Session::Create(graph, options);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(session).value() : nullptr;
}

int32_t Int(const Tensor& t) { return t.scalar<int32_t>()(); }

// tf.cond(pred, lambda: x + 1, lambda: x * 2), as TF 1 builds it.
GraphDef CondGraph() {
  GraphBuilder b;
  b.Placeholder("x", DT_INT32);
  b.Placeholder("pred", DT_BOOL);
  b.Add("cond/switch_pred", "Switch", {"pred", "pred"}, DT_BOOL);
  b.Add("cond/pivot_f", "Identity", {"cond/switch_pred:0"}, DT_BOOL);
  b.Add("cond/pivot_t", "Identity", {"cond/switch_pred:1"}, DT_BOOL);
  b.Add("cond/switch_x", "Switch", {"x", "pred"});
  b.Const("cond/one", 1, {"cond/pivot_t"});
  b.Add("cond/then", "AddV2", {"cond/switch_x:1", "cond/one"});
  b.Const("cond/two", 2, {"cond/pivot_f"});
  b.Add("cond/else", "Mul", {"cond/switch_x:0", "cond/two"});
  b.Merge("cond/merge", {"cond/else", "cond/then"});
  return b.graph();
}

TEST(ControlFlowTest, CondRunsTheBranchItsPredicatePicks) {
  auto session = MakeSession(CondGraph());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({{"x", Tensor(int32_t{5})}, {"pred", Tensor(true)}},
                            {"cond/merge", "cond/merge:1"}, {}, &out));
  EXPECT_EQ(Int(out[0]), 6);
  EXPECT_EQ(Int(out[1]), 1);  // value_index: the then branch
  MF_ASSERT_OK(
      session->Run({{"x", Tensor(int32_t{5})}, {"pred", Tensor(false)}},
                   {"cond/merge", "cond/merge:1"}, {}, &out));
  EXPECT_EQ(Int(out[0]), 10);
  EXPECT_EQ(Int(out[1]), 0);
}

TEST(ControlFlowTest, FetchingADeadTensorIsAnErrorNamingIt) {
  auto session = MakeSession(CondGraph());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  EXPECT_THAT(session->Run({{"x", Tensor(int32_t{5})}, {"pred", Tensor(false)}},
                           {"cond/then"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("'cond/then:0'"), HasSubstr("dead"))));
  // The session stays usable.
  MF_ASSERT_OK(session->Run({{"x", Tensor(int32_t{5})}, {"pred", Tensor(true)}},
                            {"cond/then"}, {}, &out));
  EXPECT_EQ(Int(out[0]), 6);
}

TEST(ControlFlowTest, MergeWithNoLiveInputIsDead) {
  GraphBuilder b;
  b.Placeholder("x", DT_INT32);
  b.Placeholder("pred", DT_BOOL);
  b.Add("sw", "Switch", {"x", "pred"});
  // Both inputs come from the same (false) output: dead when pred is true.
  b.Merge("merge", {"sw:0", "sw:0"});
  auto session = MakeSession(b.graph());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  EXPECT_THAT(session->Run({{"x", Tensor(int32_t{1})}, {"pred", Tensor(true)}},
                           {"merge"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("'merge:0'"), HasSubstr("dead"))));
  MF_ASSERT_OK(
      session->Run({{"x", Tensor(int32_t{1})}, {"pred", Tensor(false)}},
                   {"merge"}, {}, &out));
  EXPECT_EQ(Int(out[0]), 1);
}

TEST(ControlFlowTest, DeadnessFlowsThroughControlEdgesButNotControlTrigger) {
  GraphBuilder b;
  b.Placeholder("x", DT_INT32);
  b.Placeholder("pred", DT_BOOL);
  b.Add("sw", "Switch", {"x", "pred"});
  b.Add("taken", "Identity", {"sw:1"});
  b.Const("waits", 7, {"taken"});  // dead when taken is dead
  b.Add("trigger", "ControlTrigger", {"^taken"}, DT_INT32, /*typed=*/false);
  b.Const("after_trigger", 8, {"trigger"});  // never dead
  auto session = MakeSession(b.graph());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  EXPECT_THAT(session->Run({{"x", Tensor(int32_t{1})}, {"pred", Tensor(false)}},
                           {"waits"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("dead")));
  MF_ASSERT_OK(
      session->Run({{"x", Tensor(int32_t{1})}, {"pred", Tensor(false)}},
                   {"after_trigger"}, {}, &out));
  EXPECT_EQ(Int(out[0]), 8);
  MF_ASSERT_OK(session->Run({{"x", Tensor(int32_t{1})}, {"pred", Tensor(true)}},
                            {"waits", "after_trigger"}, {}, &out));
  EXPECT_EQ(Int(out[0]), 7);
  EXPECT_EQ(Int(out[1]), 8);
}

TEST(ControlFlowTest, WhileLoopCountsToTen) {
  auto session = MakeSession(::minflow::testing::CountingLoopGraph());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run(
      {{"start", Tensor(int32_t{0})}, {"limit", Tensor(int32_t{10})}},
      {"count/exit0"}, {}, &out));
  EXPECT_EQ(Int(out[0]), 10);
  // No iteration at all: the loop's first predicate is false.
  MF_ASSERT_OK(session->Run(
      {{"start", Tensor(int32_t{12})}, {"limit", Tensor(int32_t{10})}},
      {"count/exit0"}, {}, &out));
  EXPECT_EQ(Int(out[0]), 12);
}

TEST(ControlFlowTest, LongLoopRunsWithoutRecursionForAnyParallelism) {
  for (int parallel : {1, 2, 32}) {
    auto session = MakeSession(::minflow::testing::CountingLoopGraph(parallel));
    ASSERT_NE(session, nullptr);
    std::vector<Tensor> out;
    MF_ASSERT_OK(session->Run(
        {{"start", Tensor(int32_t{0})}, {"limit", Tensor(int32_t{200000})}},
        {"count/exit0"}, {}, &out));
    EXPECT_EQ(Int(out[0]), 200000) << "parallel_iterations " << parallel;
  }
}

// 16 iterations that do not depend on each other give the same results
// however many run at once.
TEST(ControlFlowTest, IndependentIterationsGiveTheSameResultsInParallel) {
  for (int parallel : {1, 2, 16}) {
    auto session = MakeSession(
        ::minflow::testing::IndependentMatMulLoopGraph(8, parallel));
    ASSERT_NE(session, nullptr);
    std::vector<Tensor> out;
    MF_ASSERT_OK(session->Run({}, {"loop/exit0", "loop/exit1"}, {}, &out));
    EXPECT_EQ(Int(out[0]), 16) << "parallel_iterations " << parallel;
    EXPECT_EQ(out[1].flat<float>()(0), 2.0f) << "8 * 0.5 * 0.5";
  }
}

TEST(ControlFlowTest, NestedLoopsAndACondInALoop) {
  // total = 0; for i in range(3): for j in range(4): total += (i if i > 0
  // else 10)  -> 4*10 + 4*1 + 4*2 = 52
  GraphBuilder b;
  b.Const("zero", 0);
  b.While(
      "outer", {"zero", "zero"},
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("outer/three", 3, {pivot});
        return b.Add("outer/less", "Less", {v[0], "outer/three"});
      },
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("outer/zero", 0, {pivot});
        const std::string i =
            b.Enter("outer/i_in", v[0], "inner", /*is_constant=*/true);
        const std::vector<std::string> inner = b.While(
            "inner", {"outer/zero", v[1]},
            [&](const std::vector<std::string>& w, const std::string& p) {
              b.Const("inner/four", 4, {p});
              return b.Add("inner/less", "Less", {w[0], "inner/four"});
            },
            [&](const std::vector<std::string>& w, const std::string& p) {
              // A cond inside the inner loop: i > 0 ? i : 10.
              b.Const("inner/zero", 0, {p});
              const std::string pred =
                  b.Add("inner/positive", "Greater", {i, "inner/zero"});
              b.Add("inner/sw", "Switch", {i, pred});
              b.Add("inner/pivot_f", "Identity", {"inner/sw:0"});
              b.Const("inner/ten", 10, {"inner/pivot_f"});
              b.Merge("inner/i_or_ten", {"inner/ten", "inner/sw:1"});
              b.Const("inner/one", 1, {p});
              return std::vector<std::string>{
                  b.Add("inner/j_next", "AddV2", {w[0], "inner/one"}),
                  b.Add("inner/total", "AddV2", {w[1], "inner/i_or_ten"})};
            });
        b.Const("outer/one", 1, {pivot});
        return std::vector<std::string>{
            b.Add("outer/i_next", "AddV2", {v[0], "outer/one"}), inner[1]};
      });
  auto session = MakeSession(b.graph());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({}, {"outer/exit1", "outer/exit0"}, {}, &out));
  EXPECT_EQ(Int(out[0]), 52);
  EXPECT_EQ(Int(out[1]), 3);
}

TEST(ControlFlowTest, LoopInADeadBranchPassesDeadOut) {
  GraphBuilder b;
  b.Placeholder("pred", DT_BOOL);
  b.Const("zero", 0);
  b.Add("sw", "Switch", {"zero", "pred"});
  b.While(
      "loop", {"sw:1"},
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("loop/five", 5, {pivot});
        return b.Add("loop/less", "Less", {v[0], "loop/five"});
      },
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("loop/one", 1, {pivot});
        return std::vector<std::string>{
            b.Add("loop/add", "AddV2", {v[0], "loop/one"})};
      });
  b.Add("pivot_f", "Identity", {"sw:0"});
  b.Const("minus_one", -1, {"pivot_f"});
  b.Merge("merge", {"loop/exit0", "minus_one"});
  auto session = MakeSession(b.graph());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({{"pred", Tensor(true)}}, {"merge"}, {}, &out));
  EXPECT_EQ(Int(out[0]), 5);
  MF_ASSERT_OK(session->Run({{"pred", Tensor(false)}}, {"merge"}, {}, &out));
  EXPECT_EQ(Int(out[0]), -1);
}

TEST(ControlFlowTest, EndlessLoopStopsAtTheTimeout) {
  auto session = MakeSession(::minflow::testing::CountingLoopGraph());
  ASSERT_NE(session, nullptr);
  RunOptions options;
  options.set_timeout_in_ms(200);
  std::vector<Tensor> out;
  // INT32_MAX iterations would take minutes.
  EXPECT_THAT(session->Run(options,
                           {{"start", Tensor(int32_t{0})},
                            {"limit", Tensor(int32_t{2147483647})}},
                           {"count/exit0"}, {}, &out, nullptr),
              StatusIs(absl::StatusCode::kDeadlineExceeded));
}

TEST(ControlFlowTest, MalformedFramesAreClearErrorsNamingTheNode) {
  {
    GraphBuilder b;
    b.Const("c", 1);
    b.Add("exit", "Exit", {"c"});
    auto session = Session::Create(b.graph(), TestSessionOptions());
    ASSERT_TRUE(session.ok());
    std::vector<Tensor> out;
    EXPECT_THAT((*session)->Run({}, {"exit"}, {}, &out),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr("not inside a loop"),
                               HasSubstr("exit"), HasSubstr("Exit"))));
  }
  {
    GraphBuilder b;
    b.Const("c", 1);
    b.Enter("enter", "c", "frame");
    b.Add("mixed", "AddV2", {"enter", "c"});
    auto session = Session::Create(b.graph(), TestSessionOptions());
    ASSERT_TRUE(session.ok());
    std::vector<Tensor> out;
    EXPECT_THAT((*session)->Run({}, {"mixed"}, {}, &out),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr("different frames"),
                               HasSubstr("frame 'frame'"),
                               HasSubstr("the root frame"))));
  }
}

TEST(ControlFlowTest, BackEdgesAreNotCyclesButRealCyclesAre) {
  // The counting loop imports (its NextIteration -> Merge edge is a back
  // edge); a cycle without a NextIteration does not.
  MF_EXPECT_OK(Session::Create(::minflow::testing::CountingLoopGraph(),
                               TestSessionOptions())
                   .status());
  GraphBuilder b;
  b.Add("a", "Identity", {"b"});
  b.Add("b", "Identity", {"a"});
  EXPECT_THAT(Session::Create(b.graph(), TestSessionOptions()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cycle")));
}

}  // namespace
}  // namespace minflow
