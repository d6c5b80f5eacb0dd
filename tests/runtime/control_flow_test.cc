// TensorFlow 1 control flow in the executor, through Session on the
// built-in ops: conditionals (Switch/Merge, dead tensors), while loops
// (Enter/Exit/NextIteration/LoopCond frames and iterations), nesting, and
// the errors for graphs whose control flow is malformed. The graphs are
// shaped the way tf.cond and tf.while_loop build them.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/attr_value.pb.h"
#include "minflow/config.pb.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

// Appends NodeDefs to a GraphDef, the way TF's Python builders shape them.
class GraphBuilder {
 public:
  std::string Add(const std::string& name, const std::string& op,
                  std::vector<std::string> inputs, DataType t = DT_INT32,
                  bool typed = true) {
    NodeDef* n = graph_.add_node();
    n->set_name(name);
    n->set_op(op);
    for (const std::string& in : inputs) n->add_input(in);
    if (typed) AddNodeAttr("T", t, n);
    return name;
  }
  std::string Const(const std::string& name, int32_t value,
                    std::vector<std::string> controls = {}) {
    NodeDef* n = graph_.add_node();
    n->set_name(name);
    n->set_op("Const");
    for (const std::string& c : controls) n->add_input("^" + c);
    AddNodeAttr("dtype", DT_INT32, n);
    Tensor t(value);
    AttrValue v;
    t.AsProtoTensorContent(v.mutable_tensor());
    AddNodeAttr("value", v, n);
    return name;
  }
  std::string Placeholder(const std::string& name, DataType dtype) {
    NodeDef* n = graph_.add_node();
    n->set_name(name);
    n->set_op("Placeholder");
    AddNodeAttr("dtype", dtype, n);
    return name;
  }
  std::string Merge(const std::string& name, std::vector<std::string> inputs) {
    const int64_t n = static_cast<int64_t>(inputs.size());
    Add(name, "Merge", std::move(inputs));
    AddNodeAttr("N", n, graph_.mutable_node(graph_.node_size() - 1));
    return name;
  }
  std::string Enter(const std::string& name, const std::string& input,
                    const std::string& frame, bool is_constant = false,
                    int parallel_iterations = 10) {
    Add(name, "Enter", {input});
    NodeDef* n = graph_.mutable_node(graph_.node_size() - 1);
    AddNodeAttr("frame_name", frame, n);
    AddNodeAttr("is_constant", is_constant, n);
    AddNodeAttr("parallel_iterations", int64_t{parallel_iterations}, n);
    return name;
  }

  // tf.while_loop: loop variables start at `inits` (tensors of the current
  // frame); `cond` makes the predicate from the variables, `body` their
  // next values. Both get the variables' tensor names in the frame and a
  // node to hang Consts on (a Const inside a frame needs a control input
  // from it). Returns the Exit nodes, one per variable.
  using CondFn = std::function<std::string(const std::vector<std::string>& vars,
                                           const std::string& pivot)>;
  using BodyFn = std::function<std::vector<std::string>(
      const std::vector<std::string>& vars, const std::string& pivot)>;
  std::vector<std::string> While(const std::string& frame,
                                 const std::vector<std::string>& inits,
                                 const CondFn& cond, const BodyFn& body,
                                 int parallel_iterations = 10) {
    const std::string p = frame + "/";
    std::vector<std::string> merges, idents, exits;
    for (size_t k = 0; k < inits.size(); ++k) {
      const std::string enter = Enter(absl::StrCat(p, "enter", k), inits[k],
                                      frame, false, parallel_iterations);
      merges.push_back(Merge(absl::StrCat(p, "merge", k),
                             {enter, absl::StrCat(p, "next", k)}));
    }
    const std::string pred = cond(merges, merges[0]);
    const std::string loop_cond =
        Add(p + "loop_cond", "LoopCond", {pred}, DT_INT32, /*typed=*/false);
    for (size_t k = 0; k < inits.size(); ++k) {
      const std::string sw =
          Add(absl::StrCat(p, "switch", k), "Switch", {merges[k], loop_cond});
      exits.push_back(Add(absl::StrCat(p, "exit", k), "Exit", {sw + ":0"}));
      idents.push_back(
          Add(absl::StrCat(p, "ident", k), "Identity", {sw + ":1"}));
    }
    const std::vector<std::string> next = body(idents, idents[0]);
    for (size_t k = 0; k < inits.size(); ++k) {
      Add(absl::StrCat(p, "next", k), "NextIteration", {next[k]});
    }
    return exits;
  }

  const GraphDef& graph() const { return graph_; }

 private:
  GraphDef graph_;
};

std::unique_ptr<Session> MakeSession(const GraphDef& graph, int inter_op = 2) {
  SessionOptions options;
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

// i = start; while i < limit: i += 1
GraphDef CountingLoop(int parallel_iterations = 10) {
  GraphBuilder b;
  b.Placeholder("start", DT_INT32);
  b.Placeholder("limit", DT_INT32);
  b.While(
      "count", {"start"},
      [&](const std::vector<std::string>& v, const std::string&) {
        const std::string limit =
            b.Enter("count/limit", "limit", "count", /*is_constant=*/true);
        return b.Add("count/less", "Less", {v[0], limit});
      },
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("count/one", 1, {pivot});
        return std::vector<std::string>{
            b.Add("count/add", "AddV2", {v[0], "count/one"})};
      },
      parallel_iterations);
  return b.graph();
}

TEST(ControlFlowTest, WhileLoopCountsToTen) {
  auto session = MakeSession(CountingLoop());
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
    auto session = MakeSession(CountingLoop(parallel));
    ASSERT_NE(session, nullptr);
    std::vector<Tensor> out;
    MF_ASSERT_OK(session->Run(
        {{"start", Tensor(int32_t{0})}, {"limit", Tensor(int32_t{200000})}},
        {"count/exit0"}, {}, &out));
    EXPECT_EQ(Int(out[0]), 200000) << "parallel_iterations " << parallel;
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
  auto session = MakeSession(CountingLoop());
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
    auto session = Session::Create(b.graph(), SessionOptions());
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
    auto session = Session::Create(b.graph(), SessionOptions());
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
  MF_EXPECT_OK(Session::Create(CountingLoop(), SessionOptions()).status());
  GraphBuilder b;
  b.Add("a", "Identity", {"b"});
  b.Add("b", "Identity", {"a"});
  EXPECT_THAT(Session::Create(b.graph(), SessionOptions()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cycle")));
}

}  // namespace
}  // namespace minflow
