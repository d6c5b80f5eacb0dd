// The arithmetic_optimizer pass, run through the graph pipeline as a session
// runs it: what each rewrite removes, where it must not fire, and results
// equal to the unoptimised graph's.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/config.pb.h"
#include "minflow/core/logging.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/graph/optimization_registry.h"
#include "minflow/runtime/session.h"
#include "tests/graph/passes/pass_test_util.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tf1_graph_builder.h"

namespace minflow {
namespace {

constexpr char kPass[] = "arithmetic_optimizer";

// Appends nodes to a GraphDef; names are returned so calls nest.
class Builder {
 public:
  std::string Placeholder(const std::string& name, DataType dtype,
                          const PartialTensorShape& shape) {
    NodeDef* n = Node(name, "Placeholder", {});
    AddNodeAttr("dtype", dtype, n);
    AddNodeAttr("shape", shape, n);
    return name;
  }
  std::string Const(const std::string& name, const Tensor& value,
                    std::vector<std::string> controls = {}) {
    std::vector<std::string> inputs;
    for (const std::string& c : controls) inputs.push_back("^" + c);
    NodeDef* n = Node(name, "Const", inputs);
    AddNodeAttr("dtype", value.dtype(), n);
    AddNodeAttr("value", value, n);
    return name;
  }
  template <typename T>
  std::string Const(const std::string& name, std::vector<T> values,
                    const TensorShape& shape,
                    std::vector<std::string> controls = {}) {
    Tensor t(DataTypeToEnum<T>::value, shape);
    MF_CHECK_EQ(t.NumElements(), static_cast<int64_t>(values.size()));
    for (size_t i = 0; i < values.size(); ++i) t.flat<T>()(i) = values[i];
    return Const(name, t, std::move(controls));
  }
  std::string Ints(const std::string& name, std::vector<int32_t> values) {
    const int64_t size = static_cast<int64_t>(values.size());
    return Const<int32_t>(name, std::move(values), TensorShape({size}));
  }
  // An op with attr T = `t` (none when DT_INVALID).
  std::string Op(const std::string& name, const std::string& op,
                 std::vector<std::string> inputs, DataType t = DT_FLOAT,
                 const std::string& device = "") {
    NodeDef* n = Node(name, op, std::move(inputs));
    if (t != DT_INVALID) AddNodeAttr("T", t, n);
    n->set_device(device);
    return name;
  }
  NodeDef* Node(const std::string& name, const std::string& op,
                std::vector<std::string> inputs) {
    NodeDef* n = graph_.add_node();
    n->set_name(name);
    n->set_op(op);
    for (const std::string& in : inputs) n->add_input(in);
    return n;
  }
  NodeDef* Last() { return graph_.mutable_node(graph_.node_size() - 1); }
  const GraphDef& graph() const { return graph_; }

 private:
  GraphDef graph_;
};

using Prepared = test::PreparedSignature;

Prepared Prepare(const GraphDef& graph, const std::vector<std::string>& feeds,
                 const std::vector<std::string>& fetches,
                 const std::vector<std::string>& targets = {},
                 bool enabled = true) {
  PassSelection passes;
  // The other rewriting passes off, so each case sees this pass alone.
  passes.disabled = {"common_subexpression_elimination", "dependency_optimizer",
                     "remapper"};
  if (!enabled) passes.disabled.push_back(kPass);
  return test::PrepareSignature(graph, feeds, fetches, targets, passes);
}

// The graph's ops, sorted, with _Arg and _Retval left out.
std::string Ops(const Graph& graph) {
  std::vector<std::string> ops;
  for (const Node* n : graph.nodes()) {
    if (!n->IsOp("_Arg") && !n->IsOp("_Retval"))
      ops.push_back(n->type_string());
  }
  std::sort(ops.begin(), ops.end());
  return absl::StrJoin(ops, ",");
}

const GraphPassRecord* Record(const std::vector<GraphPassRecord>& records) {
  return test::FindPassRecord(records, kPass);
}

// The node feeding data input `index` of `name`.
const Node* InputOf(const Graph& graph, const std::string& name, int index) {
  const Node* n = graph.FindNodeByName(name);
  if (n == nullptr) return nullptr;
  const Edge* e = nullptr;
  if (!n->input_edge(index, &e).ok()) return nullptr;
  return e->src;
}

bool WaitsFor(const Graph& graph, const std::string& waiter,
              const std::string& source) {
  const Node* n = graph.FindNodeByName(waiter);
  if (n == nullptr) return false;
  for (const Edge* e : n->in_edges()) {
    if (e->IsControlEdge() && e->src->name() == source) return true;
  }
  return false;
}

// Runs `graph` with the pass on and off and expects the same bytes, dtypes
// and shapes; returns the optimised run's outputs.
std::vector<Tensor> ExpectSameResults(
    const GraphDef& graph,
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches) {
  std::vector<std::vector<Tensor>> results;
  for (RewriterConfig::Toggle toggle :
       {RewriterConfig::DEFAULT, RewriterConfig::OFF}) {
    SessionOptions options;
    options.config.mutable_graph_options()
        ->mutable_rewrite_options()
        ->set_arithmetic_optimization(toggle);
    auto session = Session::Create(graph, options);
    EXPECT_TRUE(session.ok()) << session.status();
    if (!session.ok()) return {};
    std::vector<Tensor> out;
    RunMetadata metadata;
    const Status s =
        (*session)->Run(RunOptions(), feeds, fetches, {}, &out, &metadata);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return {};
    const std::vector<GraphPassRecord> records(metadata.graph_passes().begin(),
                                               metadata.graph_passes().end());
    const GraphPassRecord* record = Record(records);
    EXPECT_NE(nullptr, record);
    if (record != nullptr) {
      EXPECT_EQ(toggle == RewriterConfig::DEFAULT, record->ran());
    }
    results.push_back(std::move(out));
  }
  EXPECT_EQ(results[0].size(), results[1].size());
  for (size_t i = 0; i < results[0].size() && i < results[1].size(); ++i) {
    const Tensor& on = results[0][i];
    const Tensor& off = results[1][i];
    EXPECT_EQ(on.dtype(), off.dtype()) << fetches[i];
    EXPECT_EQ(on.shape().DebugString(), off.shape().DebugString())
        << fetches[i];
    EXPECT_EQ(on.tensor_data(), off.tensor_data()) << fetches[i];
  }
  return results[0];
}

Tensor Floats(std::vector<float> values, const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  for (size_t i = 0; i < values.size(); ++i) t.flat<float>()(i) = values[i];
  return t;
}

Tensor Iota(DataType dtype, const TensorShape& shape) {
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (dtype == DT_FLOAT) t.flat<float>()(i) = 0.5f * i - 1.25f;
    if (dtype == DT_INT32) t.flat<int32_t>()(i) = static_cast<int32_t>(i) - 2;
  }
  return t;
}

// x[?,3] read through identity arithmetic by five fetched nodes.
GraphDef IdentityElementsGraph() {
  Builder b;
  b.Placeholder("x", DT_FLOAT, PartialTensorShape({-1, 3}));
  b.Const<float>("ones", {1, 1, 1}, TensorShape({3}));
  b.Const<float>("one", {1}, TensorShape({}));
  b.Const<float>("zeros", {0, 0, 0}, TensorShape({1, 3}));
  b.Const<float>("zero", {0}, TensorShape({}));
  b.Op("mul", "Mul", {"ones", "x"});
  b.Op("add", "AddV2", {"x", "zeros"});
  b.Op("add1", "Add", {"zero", "x"});
  b.Op("sub", "Sub", {"x", "zero"});
  b.Op("div", "RealDiv", {"x", "one"});
  b.Op("div1", "Div", {"x", "ones"});
  b.Op("bias", "BiasAdd", {"x", "ones"});  // not zeros: stays
  b.Op("bias0", "BiasAdd", {"x", "zeros_c"});
  b.Const<float>("zeros_c", {0, 0, 0}, TensorShape({3}));
  for (const char* name :
       {"mul", "add", "add1", "sub", "div", "div1", "bias", "bias0"}) {
    b.Op(absl::StrCat(name, "_relu"), "Relu", {name});
  }
  return b.graph();
}

const std::vector<std::string> kIdentityFetches = {
    "mul_relu", "add_relu",  "add1_relu", "sub_relu",
    "div_relu", "div1_relu", "bias_relu", "bias0_relu"};

TEST(ArithmeticOptimizerTest, IdentityElementsLeaveTheirInput) {
  Prepared p = Prepare(IdentityElementsGraph(), {"x"}, kIdentityFetches);
  const Graph& g = *p.graph.graph;
  // Only BiasAdd(x, ones) is left of the arithmetic, and its constant.
  EXPECT_EQ("BiasAdd,Const,Relu,Relu,Relu,Relu,Relu,Relu,Relu,Relu", Ops(g));
  for (const char* relu : {"mul_relu", "add_relu", "add1_relu", "sub_relu",
                           "div_relu", "div1_relu", "bias0_relu"}) {
    const Node* in = InputOf(g, relu, 0);
    ASSERT_NE(nullptr, in) << relu;
    EXPECT_EQ("_Arg", in->type_string()) << relu;
  }
  const GraphPassRecord* record = Record(p.graph.passes);
  ASSERT_NE(nullptr, record);
  EXPECT_TRUE(record->ran());
  // 1 _Arg + 8 _Retval + 8 Relu + 8 ops + 5 Consts, less 7 ops, 4 Consts.
  EXPECT_EQ(30, record->nodes_before());
  EXPECT_EQ(19, record->nodes_after());
  ExpectSameResults(IdentityElementsGraph(),
                    {{"x", Iota(DT_FLOAT, TensorShape({2, 3}))}},
                    kIdentityFetches);
}

TEST(ArithmeticOptimizerTest, SwitchedOffByItsToggleAndByName) {
  Prepared p = Prepare(IdentityElementsGraph(), {"x"}, kIdentityFetches, {},
                       /*enabled=*/false);
  EXPECT_NE(nullptr, p.graph.graph->FindNodeByName("mul"));
  const GraphPassRecord* record = Record(p.graph.passes);
  ASSERT_NE(nullptr, record);
  EXPECT_FALSE(record->ran());
  const auto* entry = OptimizationPassRegistry::Global()->Find(kPass);
  ASSERT_NE(nullptr, entry);
  EXPECT_EQ(OptimizationPhase::kPrePlacement, entry->phase);
  EXPECT_EQ(15, entry->order);
  EXPECT_FALSE(entry->pass->preserves().empty());
  RewriterConfig off;
  off.set_arithmetic_optimization(RewriterConfig::OFF);
  EXPECT_FALSE(entry->pass->EnabledBy(off));
  EXPECT_TRUE(entry->pass->EnabledBy(RewriterConfig()));
  // After constant folding, whose constants it reads.
  const auto* folding =
      OptimizationPassRegistry::Global()->Find("constant_folding");
  ASSERT_NE(nullptr, folding);
  EXPECT_LT(folding->order, entry->order);
}

TEST(ArithmeticOptimizerTest, ConstantsThatWidenXOrAreNotIdentityStay) {
  Builder b;
  b.Placeholder("x", DT_FLOAT, PartialTensorShape({-1, 3}));
  b.Placeholder("v", DT_FLOAT, PartialTensorShape({3}));
  b.Placeholder("i", DT_INT32, PartialTensorShape({3}));
  b.Const<float>("ones23", {1, 1, 1, 1, 1, 1}, TensorShape({2, 3}));
  b.Const<float>("zeros13", {0, 0, 0}, TensorShape({1, 3}));
  b.Const<float>("zero", {0}, TensorShape({}));
  b.Const<float>("one", {1}, TensorShape({}));
  b.Const<float>("almost", {1, 1, 2}, TensorShape({3}));
  b.Const<int32_t>("izero", {0}, TensorShape({}));
  b.Op("widen_v", "Mul", {"v", "ones23"});      // [3] -> [2,3]
  b.Op("widen_x", "Mul", {"x", "ones23"});      // x's ? may be 1
  b.Op("widen_v0", "AddV2", {"v", "zeros13"});  // [3] -> [1,3]
  b.Op("not_ones", "Mul", {"x", "almost"});
  b.Op("zero_minus", "Sub", {"zero", "x"});
  b.Op("one_over", "RealDiv", {"one", "x"});
  b.Op("times_zero", "Mul", {"x", "zero"});
  b.Op("itimes_zero", "Mul", {"i", "izero"}, DT_INT32);
  b.Op("floor_div", "FloorDiv", {"x", "one"});
  const std::vector<std::string> fetches = {
      "widen_v",  "widen_x",    "widen_v0",    "not_ones", "zero_minus",
      "one_over", "times_zero", "itimes_zero", "floor_div"};
  Prepared p = Prepare(b.graph(), {"x", "v", "i"}, fetches);
  for (const std::string& name : fetches) {
    EXPECT_NE(nullptr, p.graph.graph->FindNodeByName(name)) << name;
  }
  const GraphPassRecord* record = Record(p.graph.passes);
  ASSERT_NE(nullptr, record);
  EXPECT_EQ(record->nodes_before(), record->nodes_after());
}

TEST(ArithmeticOptimizerTest, PreservedNodesStay) {
  // mul is a target; x is fed and fetched as it is.
  Builder b;
  b.Placeholder("x", DT_FLOAT, PartialTensorShape({3}));
  b.Const<float>("one", {1}, TensorShape({}));
  b.Op("mul", "Mul", {"x", "one"});
  b.Op("neg", "Neg", {"x"});
  b.Op("neg2", "Neg", {"neg"});
  Prepared p = Prepare(b.graph(), {"x"}, {"neg2"}, {"mul", "neg"});
  EXPECT_NE(nullptr, p.graph.graph->FindNodeByName("mul"));
  // neg is a target: neg2 may not read past it.
  EXPECT_NE(nullptr, p.graph.graph->FindNodeByName("neg2"));
}

TEST(ArithmeticOptimizerTest, ControlInputsMoveOntoTheConsumers) {
  // mul waits for `first`, its constant for `second`; relu read mul and
  // `after` waited for it.
  Builder b;
  b.Placeholder("x", DT_FLOAT, PartialTensorShape({3}));
  b.Placeholder("y", DT_FLOAT, PartialTensorShape({3}));
  b.Op("first", "Identity", {"y"});
  b.Op("second", "Identity", {"y"});
  b.Const<float>("one", {1}, TensorShape({}), {"second"});
  b.Op("mul", "Mul", {"x", "one", "^first"});
  b.Op("relu", "Relu", {"mul"});
  b.Op("after", "Identity", {"y", "^mul"});
  Prepared p = Prepare(b.graph(), {"x", "y"}, {"relu", "after"});
  const Graph& g = *p.graph.graph;
  EXPECT_EQ(nullptr, g.FindNodeByName("mul"));
  EXPECT_EQ(nullptr, g.FindNodeByName("one"));
  EXPECT_EQ("_Arg", InputOf(g, "relu", 0)->type_string());
  EXPECT_TRUE(WaitsFor(g, "relu", "first"));
  EXPECT_TRUE(WaitsFor(g, "relu", "second"));
  // What waited for mul waits for its replacement's producer and what mul
  // waited for.
  EXPECT_TRUE(WaitsFor(g, "after", InputOf(g, "relu", 0)->name()));
  EXPECT_TRUE(WaitsFor(g, "after", "first"));
  EXPECT_TRUE(WaitsFor(g, "after", "second"));
  ExpectSameResults(b.graph(),
                    {{"x", Floats({1, -2, 3}, TensorShape({3}))},
                     {"y", Floats({4, 5, 6}, TensorShape({3}))}},
                    {"relu", "after"});
}

TEST(ArithmeticOptimizerTest, NodesOnOtherDevicesStay) {
  Builder b;
  b.Placeholder("x", DT_FLOAT, PartialTensorShape({3}));
  b.Const<float>("one", {1}, TensorShape({}));
  b.Op("mul", "Mul", {"x", "one"}, DT_FLOAT, "/device:CPU:0");
  b.Op("neg", "Neg", {"x"});
  b.Op("neg2", "Neg", {"neg"}, DT_FLOAT, "/device:CPU:0");
  Prepared p = Prepare(b.graph(), {"x"}, {"mul", "neg2"});
  EXPECT_NE(nullptr, p.graph.graph->FindNodeByName("mul"));
  EXPECT_NE(nullptr, p.graph.graph->FindNodeByName("neg2"));
}

TEST(ArithmeticOptimizerTest, RefEdgesAndStatefulNodesStay) {
  // var * 1 reads a TF1 variable through a ref edge; RandomUniform is
  // stateful.
  Builder b;
  b.Node("var", "VariableV2", {});
  AddNodeAttr("dtype", DT_FLOAT, b.Last());
  AddNodeAttr("shape", PartialTensorShape({3}), b.Last());
  b.Const<float>("one", {1}, TensorShape({}));
  b.Op("mul", "Mul", {"var", "one"});
  b.Ints("shape", {3});
  b.Node("random", "RandomUniform", {"shape"});
  AddNodeAttr("dtype", DT_FLOAT, b.Last());
  AddNodeAttr("T", DT_INT32, b.Last());
  b.Op("neg", "Neg", {"random"});
  b.Op("neg2", "Neg", {"neg"});
  Prepared p = Prepare(b.graph(), {}, {"mul", "neg2"});
  const Graph& g = *p.graph.graph;
  EXPECT_NE(nullptr, g.FindNodeByName("mul"));
  // neg2 goes (it reads Neg(random)); random stays, read directly.
  EXPECT_EQ(nullptr, g.FindNodeByName("neg2"));
  EXPECT_NE(nullptr, g.FindNodeByName("random"));
}

TEST(ArithmeticOptimizerTest, NoControlEdgeFromASwitch) {
  // after waits for mul by control; mul reads a Switch, whose control
  // edges are live on both branches, so mul stays.
  Builder b;
  b.Placeholder("x", DT_FLOAT, PartialTensorShape({3}));
  b.Placeholder("pred", DT_BOOL, PartialTensorShape({}));
  b.Op("switch", "Switch", {"x", "pred"});
  b.Const<float>("one", {1}, TensorShape({}));
  b.Op("mul", "Mul", {"switch:1", "one"});
  b.Op("relu", "Relu", {"mul"});
  b.Op("after", "Identity", {"x", "^mul"});
  Prepared p = Prepare(b.graph(), {"x", "pred"}, {"relu", "after"});
  EXPECT_NE(nullptr, p.graph.graph->FindNodeByName("mul"));
  // Without the control consumer it goes.
  Prepared q = Prepare(b.graph(), {"x", "pred"}, {"relu"});
  EXPECT_EQ(nullptr, q.graph.graph->FindNodeByName("mul"));
  EXPECT_EQ("Switch", InputOf(*q.graph.graph, "relu", 0)->type_string());
}

TEST(ArithmeticOptimizerTest, InvolutionsCancel) {
  Builder b;
  b.Placeholder("x", DT_FLOAT, PartialTensorShape({4}));
  b.Placeholder("c", DT_BOOL, PartialTensorShape({2}));
  b.Op("n1", "Neg", {"x"});
  b.Op("n2", "Neg", {"n1"});
  b.Op("n3", "Neg", {"n2"});
  b.Op("n4", "Neg", {"n3"});
  b.Op("not1", "LogicalNot", {"c"}, DT_INVALID);
  b.Op("not2", "LogicalNot", {"not1"}, DT_INVALID);
  b.Op("r1", "Reciprocal", {"x"});  // 1/(1/x) is not x for floats
  b.Op("r2", "Reciprocal", {"r1"});
  b.Op("neg_once", "Neg", {"x"});
  const std::vector<std::string> fetches = {"n4", "not2", "r2", "n3",
                                            "neg_once"};
  Prepared p = Prepare(b.graph(), {"x", "c"}, fetches);
  // n3 is fetched: it stays as Neg(x) (n1, n2 cancelled); n4 is x.
  EXPECT_EQ("Neg,Neg,Reciprocal,Reciprocal", Ops(*p.graph.graph));
  Tensor c(DT_BOOL, TensorShape({2}));
  c.flat<bool>()(0) = true;
  c.flat<bool>()(1) = false;
  ExpectSameResults(
      b.graph(),
      {{"x", Floats({3, -0.0f, 7, 1e-30f}, TensorShape({4}))}, {"c", c}},
      fetches);
}

TEST(ArithmeticOptimizerTest, TransposesCompose) {
  Builder b;
  b.Placeholder("x", DT_FLOAT, PartialTensorShape({2, 3, 4}));
  b.Ints("p120", {1, 2, 0});
  b.Ints("p201", {2, 0, 1});
  b.Ints("p012", {0, 1, 2});
  b.Op("t1", "Transpose", {"x", "p120"});
  b.Op("back", "Transpose", {"t1", "p201"});  // identity: x
  b.Op("t2", "Transpose", {"x", "p120"});
  b.Op("twice", "Transpose", {"t2", "p120"});  // one Transpose by [2,0,1]
  b.Op("same", "Transpose", {"x", "p012"});    // identity: x
  for (const char* name : {"back", "twice", "same"}) {
    b.Op(absl::StrCat(name, "_relu"), "Relu", {name});
  }
  const std::vector<std::string> fetches = {"back_relu", "twice_relu",
                                            "same_relu"};
  Prepared p = Prepare(b.graph(), {"x"}, fetches);
  const Graph& g = *p.graph.graph;
  EXPECT_EQ("Const,Relu,Relu,Relu,Transpose", Ops(g));
  EXPECT_EQ("_Arg", InputOf(g, "back_relu", 0)->type_string());
  EXPECT_EQ("_Arg", InputOf(g, "same_relu", 0)->type_string());
  const Node* twice = g.FindNodeByName("twice");
  ASSERT_NE(nullptr, twice);
  EXPECT_EQ("_Arg", InputOf(g, "twice", 0)->type_string());
  const Node* perm = InputOf(g, "twice", 1);
  ASSERT_NE(nullptr, perm);
  Tensor value;
  MF_ASSERT_OK(
      TensorFromProto(perm->def().attr().at("value").tensor(), &value));
  ASSERT_EQ(3, value.NumElements());
  EXPECT_EQ(2, value.flat<int32_t>()(0));
  EXPECT_EQ(0, value.flat<int32_t>()(1));
  EXPECT_EQ(1, value.flat<int32_t>()(2));
  EXPECT_EQ("[4,2,3]", twice->output_shape(0).DebugString());
  ExpectSameResults(b.graph(), {{"x", Iota(DT_FLOAT, TensorShape({2, 3, 4}))}},
                    fetches);
}

TEST(ArithmeticOptimizerTest, TransposesByAFedPermutationStay) {
  Builder b;
  b.Placeholder("x", DT_FLOAT, PartialTensorShape({2, 3}));
  b.Placeholder("perm", DT_INT32, PartialTensorShape({2}));
  b.Op("t1", "Transpose", {"x", "perm"});
  b.Op("t2", "Transpose", {"t1", "perm"});
  Prepared p = Prepare(b.graph(), {"x", "perm"}, {"t2"});
  EXPECT_EQ("Transpose,Transpose", Ops(*p.graph.graph));
}

TEST(ArithmeticOptimizerTest, ReshapesMergeOrGo) {
  Builder b;
  b.Placeholder("x", DT_FLOAT, PartialTensorShape({-1, 3}));
  b.Placeholder("y", DT_FLOAT, PartialTensorShape({2, 3}));
  b.Placeholder("u", DT_FLOAT, PartialTensorShape({-1, -1}));
  b.Ints("m1_3", {-1, 3});
  b.Ints("s3_2", {3, 2});
  b.Ints("s6", {6});
  b.Ints("axis", {1});
  b.Op("own", "Reshape", {"x", "m1_3"});  // x's own shape: x
  b.Op("r1", "Reshape", {"y", "s6"});
  b.Op("r2", "Reshape", {"r1", "s3_2"});    // Reshape(y, [3,2])
  b.Op("other", "Reshape", {"u", "m1_3"});  // u may not be [?,3]: stays
  b.Op("e", "ExpandDims", {"y", "axis"});
  b.Op("sq", "Squeeze", {"e"});  // squeezes the dim e added: y
  AddNodeAttr("squeeze_dims", std::vector<int64_t>{-2}, b.Last());
  b.Op("sq_none", "Squeeze", {"y"});  // y has no dim of 1: y
  b.Op("sq_some", "Squeeze", {"e"});  // squeezes e's 1: stays
  const std::vector<std::string> fetches = {"own", "r2",      "other",
                                            "sq",  "sq_none", "sq_some"};
  Prepared p = Prepare(b.graph(), {"x", "y", "u"}, fetches);
  const Graph& g = *p.graph.graph;
  EXPECT_EQ("Const,Const,Const,ExpandDims,Reshape,Reshape,Squeeze", Ops(g));
  EXPECT_EQ(nullptr, g.FindNodeByName("r1"));
  EXPECT_EQ("_Arg", InputOf(g, "r2", 0)->type_string());
  EXPECT_NE(nullptr, g.FindNodeByName("other"));
  EXPECT_NE(nullptr, g.FindNodeByName("sq_some"));
  ExpectSameResults(b.graph(),
                    {{"x", Iota(DT_FLOAT, TensorShape({4, 3}))},
                     {"y", Iota(DT_FLOAT, TensorShape({2, 3}))},
                     {"u", Iota(DT_FLOAT, TensorShape({2, 6}))}},
                    fetches);
}

TEST(ArithmeticOptimizerTest, CastsThatRoundTripExactly) {
  Builder b;
  b.Placeholder("i", DT_INT32, PartialTensorShape({3}));
  b.Placeholder("f", DT_FLOAT, PartialTensorShape({3}));
  auto cast = [&](const std::string& name, const std::string& in, DataType from,
                  DataType to) {
    b.Op(name, "Cast", {in}, DT_INVALID);
    AddNodeAttr("SrcT", from, b.Last());
    AddNodeAttr("DstT", to, b.Last());
  };
  cast("same", "i", DT_INT32, DT_INT32);  // i
  cast("wide", "i", DT_INT32, DT_INT64);
  cast("back", "wide", DT_INT64, DT_INT32);  // i
  cast("to_f", "i", DT_INT32, DT_FLOAT);
  cast("from_f", "to_f", DT_FLOAT, DT_INT32);  // 2^24 + 1 is not a float
  cast("f_to_i", "f", DT_FLOAT, DT_INT32);
  cast("i_to_f", "f_to_i", DT_INT32, DT_FLOAT);  // truncates
  cast("f_to_d", "f", DT_FLOAT, DT_DOUBLE);
  cast("d_to_f", "f_to_d", DT_DOUBLE, DT_FLOAT);  // f
  b.Op("same_neg", "Neg", {"same"}, DT_INT32);
  b.Op("back_neg", "Neg", {"back"}, DT_INT32);
  b.Op("d_to_f_neg", "Neg", {"d_to_f"});
  const std::vector<std::string> fetches = {"same_neg", "back_neg", "from_f",
                                            "i_to_f", "d_to_f_neg"};
  Prepared p = Prepare(b.graph(), {"i", "f"}, fetches);
  const Graph& g = *p.graph.graph;
  EXPECT_EQ("Cast,Cast,Cast,Cast,Neg,Neg,Neg", Ops(g));
  EXPECT_EQ(nullptr, g.FindNodeByName("wide"));
  EXPECT_EQ(nullptr, g.FindNodeByName("f_to_d"));
  EXPECT_NE(nullptr, g.FindNodeByName("from_f"));
  EXPECT_NE(nullptr, g.FindNodeByName("i_to_f"));
  Tensor i(DT_INT32, TensorShape({3}));
  i.flat<int32_t>()(0) = (1 << 24) + 1;
  i.flat<int32_t>()(1) = -7;
  i.flat<int32_t>()(2) = 2147483647;
  ExpectSameResults(
      b.graph(),
      {{"i", i}, {"f", Floats({2.75f, -1.5f, 1e-40f}, TensorShape({3}))}},
      fetches);
}

TEST(ArithmeticOptimizerTest, CopyLikeOpsThatChangeNothingGo) {
  Builder b;
  b.Placeholder("x", DT_FLOAT, PartialTensorShape({2, 3}));
  b.Const<int32_t>("pad0", {0, 0, 0, 0}, TensorShape({2, 2}));
  b.Const<int32_t>("pad1", {0, 1, 0, 0}, TensorShape({2, 2}));
  b.Const<float>("fill", {5}, TensorShape({}));
  b.Ints("ones", {1, 1});
  b.Ints("twos", {2, 1});
  b.Ints("zeros", {0, 0});
  b.Ints("all", {-1, 3});
  b.Ints("part", {1, 3});
  b.Ints("end", {2, 3});
  b.Ints("end_small", {1, 3});
  b.Op("addn", "AddN", {"x"});
  AddNodeAttr("N", int64_t{1}, b.Last());
  b.Op("pad", "Pad", {"x", "pad0"});
  b.Op("padv2", "PadV2", {"x", "pad0", "fill"});
  b.Op("mirror", "MirrorPad", {"x", "pad0"});
  AddNodeAttr("mode", "REFLECT", b.Last());
  b.Op("pad_more", "Pad", {"x", "pad1"});  // stays
  b.Op("tile", "Tile", {"x", "ones"});
  b.Op("tile_more", "Tile", {"x", "twos"});  // stays
  b.Op("slice", "Slice", {"x", "zeros", "all"});
  AddNodeAttr("Index", DT_INT32, b.Last());
  b.Op("slice_part", "Slice", {"x", "zeros", "part"});  // stays
  AddNodeAttr("Index", DT_INT32, b.Last());
  auto strided = [&](const std::string& name, const std::string& end,
                     int64_t end_mask) {
    b.Op(name, "StridedSlice", {"x", "zeros", end, "ones"});
    AddNodeAttr("Index", DT_INT32, b.Last());
    AddNodeAttr("end_mask", end_mask, b.Last());
  };
  strided("ss", "end", 0);
  strided("ss_mask", "zeros", 3);
  strided("ss_part", "end_small", 0);  // stays
  const std::vector<std::string> gone = {"addn", "pad",   "padv2", "mirror",
                                         "tile", "slice", "ss",    "ss_mask"};
  const std::vector<std::string> stay = {"pad_more", "tile_more", "slice_part",
                                         "ss_part"};
  std::vector<std::string> fetches;
  for (const std::string& name : gone) {
    fetches.push_back(b.Op(name + "_relu", "Relu", {name}));
  }
  for (const std::string& name : stay) fetches.push_back(name);
  Prepared p = Prepare(b.graph(), {"x"}, fetches);
  const Graph& g = *p.graph.graph;
  for (const std::string& name : gone) {
    EXPECT_EQ(nullptr, g.FindNodeByName(name)) << name;
    const Node* in = InputOf(g, name + "_relu", 0);
    ASSERT_NE(nullptr, in) << name;
    EXPECT_EQ("_Arg", in->type_string()) << name;
  }
  for (const std::string& name : stay) {
    EXPECT_NE(nullptr, g.FindNodeByName(name)) << name;
  }
  EXPECT_EQ(nullptr, g.FindNodeByName("fill"));
  ExpectSameResults(b.graph(), {{"x", Iota(DT_FLOAT, TensorShape({2, 3}))}},
                    fetches);
}

// i = 0; while i < limit: i = (i * 1 + 1) * 1, in TF1 control flow, the
// body's constants waiting on the pivot.
GraphDef LoopGraph() {
  testing::Tf1GraphBuilder b;
  b.Placeholder("limit", DT_INT32);
  b.Const("zero", 0);
  b.While(
      "loop", {"zero"},
      [&](const std::vector<std::string>& v, const std::string&) {
        const std::string limit =
            b.Enter("loop/limit", "limit", "loop", /*is_constant=*/true);
        return b.Add("loop/less", "Less", {v[0], limit});
      },
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("loop/one", 1, {pivot});
        b.Const("loop/unit", 1, {pivot});
        b.Add("loop/mul", "Mul", {v[0], "loop/unit"});
        b.Add("loop/add", "AddV2", {"loop/mul", "loop/one"});
        // Read by NextIteration: moving the pivot's control edge onto it
        // would change the loop, so this one stays.
        return std::vector<std::string>{
            b.Add("loop/mul2", "Mul", {"loop/add", "loop/unit"})};
      });
  return b.graph();
}

TEST(ArithmeticOptimizerTest, InsideALoopOnlyWhereControlEdgesCanMove) {
  const GraphDef graph = LoopGraph();
  Prepared p = Prepare(graph, {"limit"}, {"loop/exit0"});
  const Graph& g = *p.graph.graph;
  EXPECT_EQ(nullptr, g.FindNodeByName("loop/mul"));
  EXPECT_EQ("Identity", InputOf(g, "loop/add", 0)->type_string());
  // loop/add now waits for the pivot, as the removed constant did.
  EXPECT_TRUE(WaitsFor(g, "loop/add", "loop/ident0"));
  EXPECT_NE(nullptr, g.FindNodeByName("loop/mul2"));
  Tensor limit(DT_INT32, TensorShape({}));
  limit.scalar<int32_t>()() = 7;
  const std::vector<Tensor> out =
      ExpectSameResults(graph, {{"limit", limit}}, {"loop/exit0"});
  ASSERT_EQ(1u, out.size());
  EXPECT_EQ(7, out[0].scalar<int32_t>()());
}

TEST(ArithmeticOptimizerTest, BundledTfGraphsGiveTheSameResults) {
  auto load = [](const std::string& file) {
    GraphDef graph;
    MF_CHECK_OK(ReadGraphDefFile(absl::StrCat(MINFLOW_TF_GRAPHS_DIR, "/", file),
                                 &graph));
    return graph;
  };
  Tensor a(DT_FLOAT, TensorShape({}));
  a.scalar<float>()() = 2.5f;
  Tensor b(DT_FLOAT, TensorShape({}));
  b.scalar<float>()() = -4.0f;
  ExpectSameResults(load("functional-if-ops.pbtxt"), {{"a", a}, {"b", b}},
                    {"StatefulIf", "StatelessIf"});
  Tensor iter(DT_INT32, TensorShape({}));
  iter.scalar<int32_t>()() = 3;
  ExpectSameResults(load("functional-while-ops.pbtxt"),
                    {{"iter", iter}, {"val", a}},
                    {"StatefulWhile:1", "StatelessWhile:1"});
  ExpectSameResults(load("case_op.pbtxt"), {}, {"indexed_case/Identity"});
  ExpectSameResults(load("graph-while-loop.pbtxt"), {}, {"while/Exit"});
}

}  // namespace
}  // namespace minflow
