// The dependency_optimizer pass, run through the graph pipeline as a session
// runs it, and TensorFlow's test graphs (tests/testdata/tf_graphs) run with
// it on and off.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/config.pb.h"
#include "minflow/core/logging.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/runtime/session.h"
#include "tests/graph/passes/pass_test_util.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::testing::UnorderedElementsAre;

constexpr char kPass[] = "dependency_optimizer";

std::string Op(const std::string& name, const std::string& op,
               const std::vector<std::string>& inputs,
               const std::string& extra = "",
               const std::string& type_attr =
                   "attr { key: 'T' value { type: DT_FLOAT } }") {
  std::string s = absl::StrCat("node { name: '", name, "' op: '", op, "' ");
  for (const std::string& in : inputs)
    absl::StrAppend(&s, "input: '", in, "' ");
  absl::StrAppend(&s, extra, " ", type_attr, " }\n");
  return s;
}

std::string NoOp(const std::string& name,
                 const std::vector<std::string>& inputs) {
  return Op(name, "NoOp", inputs, "", "");
}

std::string IdentityN(const std::string& name,
                      const std::vector<std::string>& inputs) {
  std::string types;
  for (size_t i = 0; i < inputs.size(); ++i) {
    absl::StrAppend(&types, "type: DT_FLOAT ");
  }
  return Op(name, "IdentityN", inputs, "",
            absl::StrCat("attr { key: 'T' value { list { ", types, "} } }"));
}

std::string Placeholder(const std::string& name,
                        const std::string& type = "DT_FLOAT") {
  return absl::StrCat(
      "node { name: '", name,
      "' op: 'Placeholder' attr { key: 'dtype' value { type: ", type,
      " } } attr { key: 'shape' value { shape {} } } }\n");
}

using Prepared = test::PreparedSignature;

// Prepares the signature with only this pass.
Prepared Prepare(const std::string& text, const std::vector<std::string>& feeds,
                 const std::vector<std::string>& fetches,
                 const std::vector<std::string>& targets = {}) {
  PassSelection passes;
  passes.rewriter.add_optimizers(kPass);
  return test::PrepareSignature(ParseTextProtoOrDie<GraphDef>(text), feeds,
                                fetches, targets, passes);
}

int CountOp(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node* node : g.nodes()) n += node->IsOp(op);
  return n;
}

const Node* Find(const Graph& g, const std::string& name) {
  const Node* n = g.FindNodeByName(name);
  MF_CHECK(n != nullptr) << name;
  return n;
}

const Node* DataInput(const Graph& g, const std::string& name, int index) {
  const Edge* e = nullptr;
  MF_CHECK_OK(Find(g, name)->input_edge(index, &e));
  return e->src;
}

// The names of the nodes `name` waits for by control edges, one per edge.
std::vector<std::string> ControlInputs(const Graph& g,
                                       const std::string& name) {
  std::vector<std::string> names;
  for (const Edge* e : Find(g, name)->in_edges()) {
    if (e->IsControlEdge()) names.push_back(e->src->name());
  }
  return names;
}

TEST(DependencyOptimizerTest, RemovesAChainOfForwardingNodes) {
  const std::string text =
      Placeholder("x") + Op("i", "Identity", {"x"}) +
      Op("s", "StopGradient", {"i"}) + Op("e", "Exp", {"s"}) +
      Op("snap", "Snapshot", {"e"}) + IdentityN("idn", {"snap"}) +
      Op("out", "Neg", {"idn"});
  Prepared p = Prepare(text, {"x"}, {"out"});
  const Graph& g = *p.graph.graph;
  // _arg, e, out, _retval.
  EXPECT_EQ(4, g.num_nodes());
  EXPECT_EQ("_Arg", DataInput(g, "e", 0)->type_string());
  EXPECT_EQ("e", DataInput(g, "out", 0)->name());
  const GraphPassRecord* record = nullptr;
  for (const GraphPassRecord& r : p.graph.passes) {
    if (r.name() == kPass) record = &r;
  }
  ASSERT_NE(nullptr, record);
  EXPECT_TRUE(record->ran());
  EXPECT_EQ(8, record->nodes_before());
  EXPECT_EQ(4, record->nodes_after());
}

TEST(DependencyOptimizerTest, ControlInputsMoveOntoConsumers) {
  // i waits for a; b waits for i. Without i, out waits for a, and b waits
  // for a and for x (what i read).
  const std::string text =
      Placeholder("x") + Placeholder("y") + Op("a", "Exp", {"y"}) +
      Op("i", "Identity", {"x", "^a"}) + Op("out", "Neg", {"i"}) +
      Op("b", "Tanh", {"y", "^i"});
  Prepared p = Prepare(text, {"x", "y"}, {"out", "b"});
  const Graph& g = *p.graph.graph;
  EXPECT_EQ(0, CountOp(g, "Identity"));
  EXPECT_EQ("_Arg", DataInput(g, "out", 0)->type_string());
  EXPECT_THAT(ControlInputs(g, "out"), UnorderedElementsAre("a"));
  EXPECT_THAT(ControlInputs(g, "b"),
              UnorderedElementsAre("a", DataInput(g, "out", 0)->name()));
}

TEST(DependencyOptimizerTest, NoOpControlsGoStraightToItsConsumers) {
  const std::string text = Placeholder("x") + Op("a", "Exp", {"x"}) +
                           Op("b", "Tanh", {"x"}) + NoOp("wait", {"^a", "^b"}) +
                           Op("out", "Neg", {"x", "^wait"});
  Prepared p = Prepare(text, {"x"}, {"out", "a", "b"});
  const Graph& g = *p.graph.graph;
  EXPECT_EQ(0, CountOp(g, "NoOp"));
  EXPECT_THAT(ControlInputs(g, "out"), UnorderedElementsAre("a", "b"));
}

TEST(DependencyOptimizerTest, ANoOpThatSavesEdgesStays) {
  // 3 inputs to 3 consumers: 6 edges now, 9 without the NoOp.
  const std::string text =
      Placeholder("x") + Op("a", "Exp", {"x"}) + Op("b", "Tanh", {"x"}) +
      Op("c", "Sigmoid", {"x"}) + NoOp("wait", {"^a", "^b", "^c"}) +
      Op("o1", "Neg", {"x", "^wait"}) + Op("o2", "Abs", {"x", "^wait"}) +
      Op("o3", "Sign", {"x", "^wait"});
  Prepared p = Prepare(text, {"x"}, {"o1", "o2", "o3", "a", "b", "c"});
  EXPECT_EQ(1, CountOp(*p.graph.graph, "NoOp"));
}

TEST(DependencyOptimizerTest, TargetsStay) {
  const std::string text = Placeholder("x") + Op("i", "Identity", {"x"}) +
                           NoOp("done", {"^i"}) + Op("out", "Neg", {"i"});
  Prepared p = Prepare(text, {"x"}, {"out"}, {"done", "i"});
  const Graph& g = *p.graph.graph;
  EXPECT_EQ(1, CountOp(g, "Identity"));
  EXPECT_EQ(1, CountOp(g, "NoOp"));
}

TEST(DependencyOptimizerTest, ColocationPeersStay) {
  // n asks to sit with i: removing i would leave the placer a name that is
  // not in the graph.
  const std::string text =
      Placeholder("x") + Op("i", "Identity", {"x"}) +
      Op("n", "Neg", {"i"},
         "attr { key: '_class' value { list { s: 'loc:@i' } } }");
  Prepared p = Prepare(text, {"x"}, {"n"});
  EXPECT_EQ(1, CountOp(*p.graph.graph, "Identity"));
  auto session =
      Session::Create(ParseTextProtoOrDie<GraphDef>(text), SessionOptions());
  MF_ASSERT_OK(session.status());
  std::vector<Tensor> out;
  MF_ASSERT_OK((*session)->Run({{"x", Tensor(2.0f)}}, {"n"}, {}, &out));
  EXPECT_EQ(-2.0f, out[0].scalar<float>()());
}

TEST(DependencyOptimizerTest, IdentitiesOfSwitchesRefsAndOtherDevicesStay) {
  const std::string text =
      Placeholder("x") + Placeholder("p", "DT_BOOL") +
      // A cond's pivot: dead with its branch.
      Op("sw", "Switch", {"x", "p"}) + Op("pivot", "Identity", {"sw:1"}) +
      Op("branch", "Neg", {"x", "^pivot"}) +
      // A TF1 variable's value, read at the Identity.
      "node { name: 'v' op: 'VariableV2' attr { key: 'dtype' value { type: "
      "DT_FLOAT } } attr { key: 'shape' value { shape {} } } }\n" +
      Op("read", "Identity", {"v"}) + Op("r", "Neg", {"read"}) +
      // A device crossing.
      Op("moved", "Identity", {"x"}, "device: '/device:CPU:0'") +
      Op("m", "Neg", {"moved"}, "device: '/device:CPU:0'") +
      // A Snapshot of a stateful node.
      Op("draw", "RandomUniform", {"dims"},
         "attr { key: 'dtype' value { type: DT_FLOAT } }",
         "attr { key: 'T' value { type: DT_INT32 } }") +
      "node { name: 'dims' op: 'Const' attr { key: 'dtype' value { type: "
      "DT_INT32 } } attr { key: 'value' value { tensor { dtype: DT_INT32 "
      "tensor_shape { dim { size: 1 } } int_val: 2 } } } }\n" +
      Op("snap", "Snapshot", {"draw"}) + Op("s", "Neg", {"snap"});
  Prepared p = Prepare(text, {"x", "p"}, {"branch", "r", "m", "s"});
  const Graph& g = *p.graph.graph;
  EXPECT_EQ(3, CountOp(g, "Identity"));
  EXPECT_EQ(1, CountOp(g, "Snapshot"));
}

TEST(DependencyOptimizerTest, ControlFlowConsumersAndLoopBodiesStay) {
  // i feeds a Merge; the loop's body Identity is in a frame.
  const std::string text =
      Placeholder("x") + Placeholder("p", "DT_BOOL") +
      Op("sw", "Switch", {"x", "p"}) + Op("t", "Neg", {"sw:1"}) +
      Op("i", "Identity", {"t"}) +
      Op("merge", "Merge", {"sw", "i"}, "attr { key: 'N' value { i: 2 } }");
  Prepared p = Prepare(text, {"x", "p"}, {"merge"});
  EXPECT_EQ(1, CountOp(*p.graph.graph, "Identity"));

  // TensorFlow's counting loop with an Identity between two Adds of its
  // body: in the loop's frame, it stays.
  GraphDef loop;
  MF_ASSERT_OK(ReadGraphDefFile(
      std::string(MINFLOW_TF_GRAPHS_DIR) + "/graph-while-loop.pbtxt", &loop));
  const std::string int_type = "attr { key: 'T' value { type: DT_INT32 } }";
  for (NodeDef& n : *loop.mutable_node()) {
    if (n.name() == "while/NextIteration") n.set_input(0, "while/Add2");
  }
  const std::string with_id =
      loop.DebugString() +
      Op("while/id", "Identity", {"while/Add"}, "", int_type) +
      Op("while/Add2", "Add", {"while/id", "while/Add/y"}, "", int_type);
  Prepared in_loop = Prepare(with_id, {}, {"while/Exit"});
  EXPECT_NE(nullptr, in_loop.graph.graph->FindNodeByName("while/id"));
  EXPECT_EQ(2, CountOp(*in_loop.graph.graph, "Identity"));
}

TEST(DependencyOptimizerTest, IdentityNOfSeveralInputs) {
  // Bypassed where its outputs feed ordinary ops, kept before a _Retval.
  const std::string text = Placeholder("x") + Placeholder("y") +
                           IdentityN("idn", {"x", "y"}) +
                           Op("out", "Sub", {"idn:1", "idn"});
  Prepared p = Prepare(text, {"x", "y"}, {"out"});
  const Graph& g = *p.graph.graph;
  EXPECT_EQ(0, CountOp(g, "IdentityN"));
  EXPECT_EQ("_arg_y_0_1", DataInput(g, "out", 0)->name());
  EXPECT_EQ("_arg_x_0_0", DataInput(g, "out", 1)->name());

  Prepared fetched = Prepare(text, {"x", "y"}, {"idn:0", "idn:1"});
  EXPECT_EQ(1, CountOp(*fetched.graph.graph, "IdentityN"));
}

TEST(DependencyOptimizerTest, DropsControlEdgesThatADataEdgeImplies) {
  const std::string text = Placeholder("x") + Op("a", "Exp", {"x"}) +
                           Op("b", "Tanh", {"x"}) +
                           Op("out", "AddV2", {"a", "x", "^a", "^b", "^b"});
  Prepared p = Prepare(text, {"x"}, {"out"});
  EXPECT_THAT(ControlInputs(*p.graph.graph, "out"), UnorderedElementsAre("b"));
}

TEST(DependencyOptimizerTest, SwitchedOffByToggleAndByName) {
  const std::string text =
      Placeholder("x") + Op("i", "Identity", {"x"}) + Op("out", "Neg", {"i"});
  std::unique_ptr<GraphPipeline> pipeline;
  MF_ASSERT_OK(GraphPipeline::Prepare(ParseTextProtoOrDie<GraphDef>(text),
                                      GraphPipelineOptions(), &pipeline));
  SignatureOptions toggle, by_name;
  toggle.passes.rewriter.set_dependency_optimization(RewriterConfig::OFF);
  by_name.passes.disabled = {kPass};
  for (const SignatureOptions& options : {toggle, by_name}) {
    PreparedGraph prepared;
    MF_ASSERT_OK(
        pipeline->PrepareForSignature({"x"}, {"out"}, {}, options, &prepared));
    EXPECT_EQ(1, CountOp(*prepared.graph, "Identity"));
  }
}

// TensorFlow's test graphs, run as tf_graphs_test runs them, with every
// pass on and with this one (and common_subexpression_elimination) off: the
// same values come out.
struct TfGraphRun {
  std::string file;
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> init_targets;  // run once first
};

template <typename T>
Tensor Scalar(T v) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape({}));
  t.scalar<T>()() = v;
  return t;
}

std::vector<Tensor> RunTfGraph(const TfGraphRun& run, bool optimized,
                               int* nodes_removed) {
  GraphDef graph;
  MF_CHECK_OK(ReadGraphDefFile(
      std::string(MINFLOW_TF_GRAPHS_DIR) + "/" + run.file, &graph));
  SessionOptions options;
  RewriterConfig* rewriter =
      options.config.mutable_graph_options()->mutable_rewrite_options();
  if (!optimized) {
    rewriter->set_dependency_optimization(RewriterConfig::OFF);
    rewriter->set_common_subgraph_elimination(RewriterConfig::OFF);
  }
  auto session = Session::Create(graph, options);
  MF_CHECK_OK(session.status());
  std::vector<Tensor> out;
  if (!run.init_targets.empty()) {
    MF_CHECK_OK((*session)->Run({}, {}, run.init_targets, &out));
  }
  RunMetadata metadata;
  MF_CHECK_OK((*session)->Run(RunOptions(), run.feeds, run.fetches, {}, &out,
                              &metadata));
  for (const GraphPassRecord& r : metadata.graph_passes()) {
    if (r.ran() &&
        (r.name() == kPass || r.name() == "common_subexpression_elimination")) {
      *nodes_removed += r.nodes_before() - r.nodes_after();
    }
  }
  return out;
}

TEST(DependencyOptimizerTest, TfGraphsGiveTheSameResultsWithAndWithout) {
  Tensor input(DT_FLOAT, TensorShape({1}));
  input.flat<float>()(0) = 7;
  const std::vector<TfGraphRun> runs = {
      {"graph-function-call.pbtxt", {}, {"func_call"}, {}},
      {"functional-if-ops.pbtxt",
       {{"a", Scalar(2.0f)}, {"b", Scalar(3.0f)}},
       {"StatefulIf", "StatelessIf"},
       {}},
      {"functional-if-ops.pbtxt",
       {{"a", Scalar(5.0f)}, {"b", Scalar(3.0f)}},
       {"StatefulIf", "StatelessIf"},
       {}},
      {"functional-while-ops.pbtxt",
       {{"iter", Scalar<int32_t>(5)}, {"val", Scalar(1.5f)}},
       {"StatefulWhile:0", "StatefulWhile:1", "StatelessWhile:1"},
       {}},
      {"case_op.pbtxt", {}, {"indexed_case/Identity"}, {}},
      {"case_op.pbtxt",
       {{"Const_1", Scalar<int32_t>(1)}},
       {"indexed_case/Identity"},
       {}},
      {"graph-while-loop.pbtxt", {}, {"while/Exit"}, {}},
      {"feed-control-dep.pbtxt", {{"input", input}}, {"output_node"}, {}},
      {"merge_node_with_function.pbtxt",
       {{"input", Scalar(true)}},
       {"Merge"},
       {}},
      {"merge_node_with_function.pbtxt",
       {{"input", Scalar(false)}},
       {"Merge"},
       {}},
      {"multi-output-feeds.pbtxt",
       {},
       {"z:0", "z:1", "z:2", "a"},
       {"var/Assign"}},
  };
  int removed = 0;
  for (const TfGraphRun& run : runs) {
    SCOPED_TRACE(run.file);
    int unused = 0;
    const std::vector<Tensor> on = RunTfGraph(run, true, &removed);
    const std::vector<Tensor> off = RunTfGraph(run, false, &unused);
    EXPECT_EQ(0, unused);
    ASSERT_EQ(on.size(), off.size());
    for (size_t i = 0; i < on.size(); ++i) {
      EXPECT_EQ(on[i].DebugString(), off[i].DebugString()) << run.fetches[i];
    }
  }
  // The lowered Case loses its input NoOps and the Identity after its Merge.
  EXPECT_GT(removed, 0);
}

}  // namespace
}  // namespace minflow
