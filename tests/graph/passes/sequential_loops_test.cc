// The sequential_loops pass and the _SequentialLoop kernel: which loops are
// handed over (Note [Sequential loops]), that they give what the executor's
// frames give, and the kernel's errors.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/config.pb.h"
#include "minflow/framework/device.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/runtime/device_factory.h"
#include "minflow/runtime/session.h"
#include "tests/graph/passes/pass_test_util.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tf1_graph_builder.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using GraphBuilder = ::minflow::testing::Tf1GraphBuilder;
using ::testing::AllOf;
using ::testing::HasSubstr;

// How many nodes of each kind the prepared signature has.
struct Counts {
  int sequential_loops = 0;
  int frame_nodes = 0;  // Enter, Merge, Switch, NextIteration, Exit, LoopCond
};

Counts PrepareAndCount(const GraphDef& graph,
                       const std::vector<std::string>& feeds,
                       const std::vector<std::string>& fetches) {
  const test::PlacedSignature placed =
      test::PrepareSignatureOnDevices(graph, feeds, fetches, PassSelection());
  Counts counts;
  for (const Node* n : placed.prepared.graph.graph->nodes()) {
    const std::string& op = n->type_string();
    counts.sequential_loops += op == "_SequentialLoop";
    counts.frame_nodes += op == "Enter" || op == "Merge" || op == "Switch" ||
                          op == "NextIteration" || op == "Exit" ||
                          op == "LoopCond";
  }
  return counts;
}

std::unique_ptr<Session> MakeSession(const GraphDef& graph, bool loops_pass) {
  SessionOptions options;
  options.config.set_inter_op_parallelism_threads(2);
  if (!loops_pass) {
    options.config.mutable_graph_options()
        ->mutable_rewrite_options()
        ->set_loop_optimization(RewriterConfig::OFF);
  }
  auto session = Session::Create(graph, options);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(session).value() : nullptr;
}

using Feeds = std::vector<std::pair<std::string, Tensor>>;

// Runs `graph` with the pass on and off; both must succeed and agree
// exactly. Returns the results with the pass on.
std::vector<Tensor> RunBothWays(const GraphDef& graph, const Feeds& feeds,
                                const std::vector<std::string>& fetches) {
  std::vector<Tensor> with_pass, without_pass;
  auto on = MakeSession(graph, true);
  auto off = MakeSession(graph, false);
  if (on == nullptr || off == nullptr) return {};
  MF_EXPECT_OK(on->Run(feeds, fetches, {}, &with_pass));
  MF_EXPECT_OK(off->Run(feeds, fetches, {}, &without_pass));
  EXPECT_EQ(with_pass.size(), without_pass.size());
  for (size_t i = 0; i < with_pass.size() && i < without_pass.size(); ++i) {
    EXPECT_EQ(with_pass[i].DebugString(), without_pass[i].DebugString())
        << fetches[i];
  }
  return with_pass;
}

int32_t Int(const Tensor& t) { return t.scalar<int32_t>()(); }

TEST(SequentialLoopsTest, CountingLoopBecomesOneNode) {
  const Counts counts = PrepareAndCount(::minflow::testing::CountingLoopGraph(),
                                        {"start", "limit"}, {"count/exit0"});
  EXPECT_EQ(counts.sequential_loops, 1);
  EXPECT_EQ(counts.frame_nodes, 0);
  for (int32_t limit : {0, 1, 10, 1000}) {
    const std::vector<Tensor> out =
        RunBothWays(::minflow::testing::CountingLoopGraph(),
                    {{"start", Tensor(int32_t{0})}, {"limit", Tensor(limit)}},
                    {"count/exit0"});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(Int(out[0]), limit);
  }
}

TEST(SequentialLoopsTest, HeavyIndependentIterationsStayInTheExecutor) {
  // The MatMul does not lead to the condition: with parallel_iterations 2
  // iterations overlap in the executor, so the loop stays; with 1 they
  // cannot, so it is handed over.
  const Counts parallel =
      PrepareAndCount(::minflow::testing::IndependentMatMulLoopGraph(8, 2), {},
                      {"loop/exit0", "loop/exit1"});
  EXPECT_EQ(parallel.sequential_loops, 0);
  EXPECT_GT(parallel.frame_nodes, 0);
  const Counts serial =
      PrepareAndCount(::minflow::testing::IndependentMatMulLoopGraph(8, 1), {},
                      {"loop/exit0", "loop/exit1"});
  EXPECT_EQ(serial.sequential_loops, 1);
  const std::vector<Tensor> out =
      RunBothWays(::minflow::testing::IndependentMatMulLoopGraph(8, 1), {},
                  {"loop/exit0", "loop/exit1"});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Int(out[0]), 16);
  EXPECT_EQ(out[1].flat<float>()(0), 2.0f);
}

// i, a, b = 0, 0, 1; while i < n: i, a, b = i + 1, b, a + b: the next
// values are other variables' current ones.
GraphDef FibonacciGraph() {
  GraphBuilder b;
  b.Placeholder("n", DT_INT32);
  b.Const("zero", 0);
  b.Const("one", 1);
  b.While(
      "fib", {"zero", "zero", "one"},
      [&](const std::vector<std::string>& v, const std::string&) {
        const std::string n = b.Enter("fib/n", "n", "fib", true);
        return b.Add("fib/less", "Less", {v[0], n});
      },
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("fib/step", 1, {pivot});
        return std::vector<std::string>{
            b.Add("fib/i_next", "AddV2", {v[0], "fib/step"}), v[2],
            b.Add("fib/sum", "AddV2", {v[1], v[2]})};
      });
  return b.graph();
}

TEST(SequentialLoopsTest, NextValuesThatAreOtherVariablesSwapCorrectly) {
  EXPECT_EQ(
      PrepareAndCount(FibonacciGraph(), {"n"}, {"fib/exit1"}).sequential_loops,
      1);
  const std::vector<Tensor> out =
      RunBothWays(FibonacciGraph(), {{"n", Tensor(int32_t{20})}},
                  {"fib/exit0", "fib/exit1", "fib/exit2"});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(Int(out[0]), 20);
  EXPECT_EQ(Int(out[1]), 6765);   // F(20)
  EXPECT_EQ(Int(out[2]), 10946);  // F(21)
}

// for i in range(outer): for j in range(inner): total += i * j + 1.
GraphDef NestedLoopsGraph() {
  GraphBuilder b;
  b.Placeholder("outer_n", DT_INT32);
  b.Placeholder("inner_n", DT_INT32);
  b.Const("zero", 0);
  b.While(
      "outer", {"zero", "zero"},
      [&](const std::vector<std::string>& v, const std::string&) {
        const std::string n = b.Enter("outer/n", "outer_n", "outer", true);
        return b.Add("outer/less", "Less", {v[0], n});
      },
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("outer/zero", 0, {pivot});
        const std::string i = b.Enter("outer/i_in", v[0], "inner", true);
        const std::string inner_n_outer =
            b.Enter("outer/inner_n", "inner_n", "outer", true);
        const std::vector<std::string> inner = b.While(
            "inner", {"outer/zero", v[1]},
            [&](const std::vector<std::string>& w, const std::string&) {
              const std::string n =
                  b.Enter("inner/n", inner_n_outer, "inner", true);
              return b.Add("inner/less", "Less", {w[0], n});
            },
            [&](const std::vector<std::string>& w, const std::string& p) {
              b.Const("inner/one", 1, {p});
              const std::string ij = b.Add("inner/ij", "Mul", {i, w[0]});
              const std::string term =
                  b.Add("inner/term", "AddV2", {ij, "inner/one"});
              return std::vector<std::string>{
                  b.Add("inner/j_next", "AddV2", {w[0], "inner/one"}),
                  b.Add("inner/total", "AddV2", {w[1], term})};
            });
        b.Const("outer/one", 1, {pivot});
        return std::vector<std::string>{
            b.Add("outer/i_next", "AddV2", {v[0], "outer/one"}), inner[1]};
      });
  return b.graph();
}

TEST(SequentialLoopsTest, NestedLoopsBecomeOneNode) {
  const Counts counts = PrepareAndCount(
      NestedLoopsGraph(), {"outer_n", "inner_n"}, {"outer/exit1"});
  EXPECT_EQ(counts.sequential_loops, 1);
  EXPECT_EQ(counts.frame_nodes, 0);
  const std::vector<Tensor> out = RunBothWays(
      NestedLoopsGraph(),
      {{"outer_n", Tensor(int32_t{5})}, {"inner_n", Tensor(int32_t{7})}},
      {"outer/exit0", "outer/exit1"});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Int(out[0]), 5);
  // sum over i<5, j<7 of (i*j + 1) = 10 * 21 + 35
  EXPECT_EQ(Int(out[1]), 245);
}

TEST(SequentialLoopsTest, LoopWithACondInsideStaysInTheExecutor) {
  // total += (i if i > 0 else 10) for i in range(n): the body's Switch and
  // Merge need dead tensors, which only the executor has.
  GraphBuilder b;
  b.Placeholder("n", DT_INT32);
  b.Const("zero", 0);
  b.While(
      "loop", {"zero", "zero"},
      [&](const std::vector<std::string>& v, const std::string&) {
        const std::string n = b.Enter("loop/n", "n", "loop", true);
        return b.Add("loop/less", "Less", {v[0], n});
      },
      [&](const std::vector<std::string>& v, const std::string& p) {
        b.Const("loop/zero", 0, {p});
        const std::string pred =
            b.Add("loop/positive", "Greater", {v[0], "loop/zero"});
        b.Add("loop/sw", "Switch", {v[0], pred});
        b.Add("loop/pivot_f", "Identity", {"loop/sw:0"});
        b.Const("loop/ten", 10, {"loop/pivot_f"});
        b.Merge("loop/i_or_ten", {"loop/ten", "loop/sw:1"});
        b.Const("loop/one", 1, {p});
        return std::vector<std::string>{
            b.Add("loop/i_next", "AddV2", {v[0], "loop/one"}),
            b.Add("loop/total", "AddV2", {v[1], "loop/i_or_ten"})};
      });
  EXPECT_EQ(PrepareAndCount(b.graph(), {"n"}, {"loop/exit1"}).sequential_loops,
            0);
  const std::vector<Tensor> out =
      RunBothWays(b.graph(), {{"n", Tensor(int32_t{5})}}, {"loop/exit1"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Int(out[0]), 20);  // 10 + 1 + 2 + 3 + 4
}

TEST(SequentialLoopsTest, NodesBeforeTheSwitchRunInTheLastIterationToo) {
  // The AssignAddVariableOp reads no Switch, so the executor runs it in
  // every iteration, the last (whose condition is false) included: n + 1
  // times. The loop run in order must do the same.
  GraphBuilder b;
  NodeDef* var = b.Node("counter", "VarHandleOp");
  AddNodeAttr("dtype", DT_INT32, var);
  AddNodeAttr("shape", PartialTensorShape({}), var);
  b.Const("zero", 0);
  AddNodeAttr("dtype", DT_INT32,
              b.Node("init", "AssignVariableOp", {"counter", "zero"}));
  b.Placeholder("n", DT_INT32);
  b.While(
      "loop", {"zero"},
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        const std::string n = b.Enter("loop/n", "n", "loop", true);
        const std::string handle =
            b.Enter("loop/counter", "counter", "loop", true, 10, DT_RESOURCE);
        b.Const("loop/tick", 1, {pivot});
        AddNodeAttr("dtype", DT_INT32,
                    b.Node("loop/count_test", "AssignAddVariableOp",
                           {handle, "loop/tick"}));
        return b.Add("loop/less", "Less", {v[0], n, "^loop/count_test"});
      },
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("loop/one", 1, {pivot});
        return std::vector<std::string>{
            b.Add("loop/add", "AddV2", {v[0], "loop/one"})};
      });
  AddNodeAttr("dtype", DT_INT32,
              b.Node("read", "ReadVariableOp", {"counter", "^loop/exit0"}));
  EXPECT_EQ(PrepareAndCount(b.graph(), {"n"}, {"read"}).sequential_loops, 1);
  for (bool loops_pass : {true, false}) {
    auto session = MakeSession(b.graph(), loops_pass);
    ASSERT_NE(session, nullptr);
    std::vector<Tensor> out;
    MF_ASSERT_OK(session->Run({}, {}, {"init"}, &out));
    MF_ASSERT_OK(session->Run({{"n", Tensor(int32_t{6})}}, {"read"}, {}, &out));
    EXPECT_EQ(Int(out[0]), 7) << "pass " << loops_pass;
  }
}

TEST(SequentialLoopsTest, LoweredFunctionalWhileBecomesOneNode) {
  EXPECT_EQ(PrepareAndCount(::minflow::testing::FunctionalCountingLoopGraph(),
                            {"start", "limit"}, {"loop:0"})
                .sequential_loops,
            1);
  const std::vector<Tensor> out = RunBothWays(
      ::minflow::testing::FunctionalCountingLoopGraph(),
      {{"start", Tensor(int32_t{3})}, {"limit", Tensor(int32_t{1000})}},
      {"loop:0", "loop:1"});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Int(out[0]), 1000);
  EXPECT_EQ(Int(out[1]), 1000);
}

TEST(SequentialLoopsTest, AnErrorInsideNamesTheNodeThatFailed) {
  // i = 1; while i < 10: i = i + reshape(i, [i]): the Reshape fails when i
  // is 2 (one element cannot take shape [2]).
  GraphBuilder b;
  b.Const("start", 1);
  b.While(
      "loop", {"start"},
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("loop/ten", 10, {pivot});
        return b.Add("loop/less", "Less", {v[0], "loop/ten"});
      },
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("loop/axis", 0, {pivot});
        NodeDef* dims = b.Node("loop/dims", "ExpandDims", {v[0], "loop/axis"});
        AddNodeAttr("T", DT_INT32, dims);
        AddNodeAttr("Tdim", DT_INT32, dims);
        NodeDef* reshape =
            b.Node("loop/reshape", "Reshape", {v[0], "loop/dims"});
        AddNodeAttr("T", DT_INT32, reshape);
        AddNodeAttr("Tshape", DT_INT32, reshape);
        NodeDef* sum = b.Node("loop/sum", "Sum", {"loop/reshape", "loop/axis"});
        AddNodeAttr("T", DT_INT32, sum);
        AddNodeAttr("Tidx", DT_INT32, sum);
        return std::vector<std::string>{
            b.Add("loop/add", "AddV2", {v[0], "loop/sum"})};
      });
  EXPECT_EQ(PrepareAndCount(b.graph(), {}, {"loop/exit0"}).sequential_loops, 1);
  for (bool loops_pass : {true, false}) {
    auto session = MakeSession(b.graph(), loops_pass);
    ASSERT_NE(session, nullptr);
    std::vector<Tensor> out;
    EXPECT_THAT(session->Run({}, {"loop/exit0"}, {}, &out),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("{{node loop/reshape}}")))
        << "pass " << loops_pass;
  }
}

// A hand-written _SequentialLoop (the op is internal, but a GraphDef may
// still name it): its kernel checks what it is given.
NodeDef LoopNode(std::vector<std::string> body_nodes, std::string cond,
                 std::vector<std::string> next_values) {
  NodeDef def;
  def.set_name("loop");
  def.set_op("_SequentialLoop");
  def.add_input("x");
  AddNodeAttr("T", DataTypeVector{DT_INT32}, &def);
  AddNodeAttr("Tinvariant", DataTypeVector{}, &def);
  AddNodeAttr("frame_name", "f", &def);
  AddNodeAttr("body_nodes", body_nodes, &def);
  AddNodeAttr("var_merges", std::vector<std::string>{"m"}, &def);
  AddNodeAttr("var_switches", std::vector<std::string>{"s"}, &def);
  AddNodeAttr("invariant_enters", std::vector<std::string>{}, &def);
  AddNodeAttr("cond", cond, &def);
  AddNodeAttr("next_values", next_values, &def);
  return def;
}

Status MakeLoopKernel(const NodeDef& def) {
  CpuDevice device{CpuDeviceOptions()};
  std::unique_ptr<OpKernel> kernel;
  return CreateOpKernel(DEVICE_CPU, &device, nullptr, def, 0, &kernel);
}

TEST(SequentialLoopKernelTest, MalformedAttrsAreErrorsNamingTheFrame) {
  EXPECT_THAT(MakeLoopKernel(LoopNode({"not a NodeDef \xff"}, "m:0", {"s:1"})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("'f'"), HasSubstr("NodeDef"))));
  NodeDef less;
  less.set_name("lt");
  less.set_op("Less");
  less.add_input("m:0");
  less.add_input("nowhere:0");
  AddNodeAttr("T", DT_INT32, &less);
  EXPECT_THAT(
      MakeLoopKernel(LoopNode({less.SerializeAsString()}, "lt:0", {"s:1"})),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("nowhere:0"), HasSubstr("{{node lt}}"))));
  // The condition must be a bool.
  EXPECT_THAT(MakeLoopKernel(LoopNode({}, "m:0", {"s:1"})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must be a bool")));
  // One next value per variable.
  less.set_input(1, "m:0");
  EXPECT_THAT(
      MakeLoopKernel(LoopNode({less.SerializeAsString()}, "lt:0", {})),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("1 variables")));
  // A next value of another type.
  EXPECT_THAT(
      MakeLoopKernel(LoopNode({less.SerializeAsString()}, "lt:0", {"lt:0"})),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("next value 'lt:0' is bool")));
  MF_EXPECT_OK(
      MakeLoopKernel(LoopNode({less.SerializeAsString()}, "lt:0", {"s:1"})));
}

TEST(SequentialLoopKernelTest, NodesThatCannotRunInALoopAreRefused) {
  NodeDef placeholder;
  placeholder.set_name("p");
  placeholder.set_op("Placeholder");
  AddNodeAttr("dtype", DT_INT32, &placeholder);
  EXPECT_THAT(MakeLoopKernel(
                  LoopNode({placeholder.SerializeAsString()}, "m:0", {"s:1"})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("cannot run inside the sequential loop"),
                             HasSubstr("{{node p}}"))));
}

TEST(SequentialLoopKernelTest, ANestTooDeepIsRefusedWithoutRecursingOn) {
  // 100 loops, each the only body node of the one around it.
  NodeDef inner = LoopNode({}, "m:0", {"s:1"});
  for (int level = 0; level < 100; ++level) {
    inner.set_input(0, "m:0");  // the loop around it reads its variable
    NodeDef outer = LoopNode({inner.SerializeAsString()}, "m:0", {"s:1"});
    outer.set_name(absl::StrCat("loop", level));
    inner = outer;
  }
  EXPECT_THAT(MakeLoopKernel(inner),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("nest more than 64 deep")));
}

}  // namespace
}  // namespace minflow
