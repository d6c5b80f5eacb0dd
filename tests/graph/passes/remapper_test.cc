// The remapper pass, run through the graph pipeline as a session runs it:
// which patterns become fused ops, which stay, and that sessions give the
// same results with and without it.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/config.pb.h"
#include "minflow/core/logging.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/runtime/session.h"
#include "minflow/saved_model/freeze.h"
#include "tests/graph/passes/pass_test_util.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"
#include "tests/testlib/text_proto.h"
#include "tests/testlib/tf1_graph_builder.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::testing::ElementsAre;
using Feeds = std::vector<std::pair<std::string, Tensor>>;

// Deterministic values in [lo, hi).
Tensor Values(const TensorShape& shape, int seed, float lo = -1, float hi = 1,
              DataType dtype = DT_FLOAT) {
  Tensor t(dtype, shape);
  uint32_t state = 2463534242u + 7919u * static_cast<uint32_t>(seed);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    const double v = lo + (hi - lo) * (state % 100000) / 100000.0;
    if (dtype == DT_DOUBLE) {
      t.flat<double>()(i) = v;
    } else {
      t.flat<float>()(i) = static_cast<float>(v);
    }
  }
  return t;
}

// Appends TensorFlow-shaped NodeDefs to a GraphDef.
class Builder {
 public:
  NodeDef* Op(const std::string& name, const std::string& op,
              std::vector<std::string> inputs, DataType t = DT_FLOAT) {
    NodeDef* n = graph_.add_node();
    n->set_name(name);
    n->set_op(op);
    for (const std::string& in : inputs) n->add_input(in);
    AddNodeAttr("T", t, n);
    return n;
  }
  NodeDef* Placeholder(const std::string& name, DataType t = DT_FLOAT) {
    NodeDef* n = graph_.add_node();
    n->set_name(name);
    n->set_op("Placeholder");
    AddNodeAttr("dtype", t, n);
    return n;
  }
  NodeDef* Const(const std::string& name, const Tensor& value) {
    NodeDef* n = graph_.add_node();
    n->set_name(name);
    n->set_op("Const");
    AddNodeAttr("dtype", value.dtype(), n);
    AttrValue v;
    value.AsProtoTensorContent(v.mutable_tensor());
    AddNodeAttr("value", v, n);
    return n;
  }
  NodeDef* Conv(const std::string& name, const std::string& op,
                const std::string& input, const std::string& filter,
                DataType t = DT_FLOAT, int stride = 1) {
    NodeDef* n = Op(name, op, {input, filter}, t);
    AddNodeAttr("strides", std::vector<int64_t>{1, stride, stride, 1}, n);
    AddNodeAttr("padding", std::string("SAME"), n);
    return n;
  }
  NodeDef* BatchNorm(const std::string& name, const std::string& op,
                     const std::string& x, const std::string& prefix,
                     bool is_training = false) {
    NodeDef* n = Op(name, op,
                    {x, prefix + "scale", prefix + "offset", prefix + "mean",
                     prefix + "variance"});
    if (op != "FusedBatchNorm") AddNodeAttr("U", DT_FLOAT, n);
    AddNodeAttr("is_training", is_training, n);
    AddNodeAttr("epsilon", 0.001f, n);
    return n;
  }
  // scale, offset, mean and variance Consts of `channels` elements.
  void BatchNormParams(const std::string& prefix, int64_t channels) {
    Const(prefix + "scale", Values(TensorShape({channels}), 11, 0.5, 1.5));
    Const(prefix + "offset", Values(TensorShape({channels}), 12));
    Const(prefix + "mean", Values(TensorShape({channels}), 13));
    Const(prefix + "variance", Values(TensorShape({channels}), 14, 0.1, 2));
  }
  const GraphDef& graph() const { return graph_; }

 private:
  GraphDef graph_;
};

// x [2,8,8,3] -> conv (3x3x3x4 filter) -> BiasAdd -> activation.
GraphDef ConvGraph(const std::string& conv_op = "Conv2D",
                   const std::string& activation = "Relu",
                   DataType t = DT_FLOAT) {
  Builder b;
  b.Placeholder("x", t);
  b.Const("filter", Values(TensorShape({3, 3, 3, conv_op == "Conv2D" ? 4 : 2}),
                           1, -1, 1, t));
  b.Const("bias",
          Values(TensorShape({conv_op == "Conv2D" ? 4 : 6}), 2, -1, 1, t));
  b.Conv("conv", conv_op, "x", "filter", t);
  b.Op("bias_add", "BiasAdd", {"conv", "bias"}, t);
  NodeDef* act = b.Op("act", activation, {"bias_add"}, t);
  if (activation == "LeakyRelu") AddNodeAttr("alpha", 0.3f, act);
  return b.graph();
}

// x [3,5] -> MatMul (w [5,4]) -> bias (BiasAdd or Add of a Const) -> act.
GraphDef MatMulGraph(const std::string& bias_op = "BiasAdd",
                     const std::string& activation = "Relu",
                     DataType t = DT_FLOAT) {
  Builder b;
  b.Placeholder("x", t);
  b.Const("w", Values(TensorShape({5, 4}), 3, -1, 1, t));
  b.Const("bias", Values(TensorShape({4}), 4, -1, 1, t));
  b.Op("matmul", "MatMul", {"x", "w"}, t);
  b.Op("bias_add", bias_op, {"matmul", "bias"}, t);
  if (!activation.empty()) {
    NodeDef* act = b.Op("act", activation, {"bias_add"}, t);
    if (activation == "LeakyRelu") AddNodeAttr("alpha", 0.3f, act);
  }
  return b.graph();
}

// x -> conv (Const filter, 4 channels) -> FusedBatchNorm* -> Relu.
GraphDef ConvBatchNormGraph(const std::string& conv_op = "Conv2D",
                            const std::string& bn_op = "FusedBatchNormV3") {
  Builder b;
  b.Placeholder("x");
  b.Const("filter", Values(TensorShape({3, 3, 3, conv_op == "Conv2D" ? 4 : 2}),
                           5, -1, 1));
  b.Conv("conv", conv_op, "x", "filter");
  b.BatchNormParams("bn/", conv_op == "Conv2D" ? 4 : 6);
  b.BatchNorm("bn", bn_op, "conv", "bn/");
  b.Op("act", "Relu", {"bn"});
  return b.graph();
}

using Prepared = test::PreparedSignature;

Prepared Prepare(const GraphDef& graph, const std::vector<std::string>& feeds,
                 const std::vector<std::string>& fetches,
                 const std::vector<std::string>& targets = {},
                 bool remap = true) {
  PassSelection passes;
  // The other rewriting passes off, so each case sees the remapper alone.
  passes.disabled = {"arithmetic_optimizer", "common_subexpression_elimination",
                     "dependency_optimizer"};
  if (!remap) passes.disabled.push_back("remapper");
  return test::PrepareSignature(graph, feeds, fetches, targets, passes);
}

const GraphPassRecord* RemapperRecord(
    const std::vector<GraphPassRecord>& records) {
  return test::FindPassRecord(records, "remapper");
}

std::vector<std::string> Ops(const Graph& g) {
  std::vector<std::string> ops;
  for (const Node* n : g.nodes()) ops.push_back(n->type_string());
  std::sort(ops.begin(), ops.end());
  return ops;
}

std::vector<std::string> StringsAttr(const Node& n, const char* name) {
  std::vector<std::string> v;
  MF_CHECK_OK(GetNodeAttr(AttrSlice(n.def()), name, &v));
  return v;
}

// The op of node `name`, or "(none)" when the graph has no such node.
std::string OpOf(const Prepared& p, const std::string& name) {
  const Node* n = p.graph.graph->FindNodeByName(name);
  return n == nullptr ? "(none)" : n->type_string();
}

bool HasControlEdge(const Node& src, const Node& dst) {
  for (const Edge* e : dst.in_edges()) {
    if (e->IsControlEdge() && e->src == &src) return true;
  }
  return false;
}

// Runs `graph` in a session with the remapper on or off; checks that the
// pipeline recorded the pass as run or not.
std::vector<Tensor> RunSession(const GraphDef& graph, const Feeds& feeds,
                               const std::vector<std::string>& fetches,
                               bool remap) {
  SessionOptions options;
  options.config.mutable_graph_options()
      ->mutable_rewrite_options()
      ->set_remapping(remap ? RewriterConfig::DEFAULT : RewriterConfig::OFF);
  auto session = Session::Create(graph, options);
  MF_CHECK_OK(session.status());
  std::vector<Tensor> out;
  RunMetadata metadata;
  MF_CHECK_OK(
      (*session)->Run(RunOptions(), feeds, fetches, {}, &out, &metadata));
  const std::vector<GraphPassRecord> records(metadata.graph_passes().begin(),
                                             metadata.graph_passes().end());
  const GraphPassRecord* record = RemapperRecord(records);
  MF_CHECK(record != nullptr);
  EXPECT_EQ(remap, record->ran());
  return out;
}

// The fetches agree with the pass on and off, up to float rounding.
void ExpectSameWithAndWithout(const GraphDef& graph, const Feeds& feeds,
                              const std::vector<std::string>& fetches) {
  const std::vector<Tensor> on = RunSession(graph, feeds, fetches, true);
  const std::vector<Tensor> off = RunSession(graph, feeds, fetches, false);
  ASSERT_EQ(on.size(), off.size());
  for (size_t i = 0; i < on.size(); ++i) {
    SCOPED_TRACE(fetches[i]);
    test::ExpectClose(on[i], off[i], /*atol=*/1e-5, /*rtol=*/1e-5);
  }
}

const Feeds kImage = {{"x", Values(TensorShape({2, 8, 8, 3}), 7, -2, 2)}};
const Feeds kRows = {{"x", Values(TensorShape({3, 5}), 8, -2, 2)}};

TEST(RemapperTest, FusesConv2DBiasAddRelu) {
  Prepared p = Prepare(ConvGraph(), {"x"}, {"act"});
  const Graph& g = *p.graph.graph;
  EXPECT_EQ(nullptr, g.FindNodeByName("conv"));
  EXPECT_EQ(nullptr, g.FindNodeByName("bias_add"));
  const Node* fused = g.FindNodeByName("act");
  ASSERT_NE(nullptr, fused);
  EXPECT_EQ("_FusedConv2D", fused->type_string());
  EXPECT_THAT(StringsAttr(*fused, "fused_ops"), ElementsAre("BiasAdd", "Relu"));
  int64_t num_args = 0;
  MF_ASSERT_OK(GetNodeAttr(AttrSlice(fused->def()), "num_args", &num_args));
  EXPECT_EQ(1, num_args);
  EXPECT_EQ("[?,?,?,4]", fused->output_shape(0).DebugString());
  EXPECT_THAT(Ops(g),
              ElementsAre("Const", "Const", "_Arg", "_FusedConv2D", "_Retval"));
  const GraphPassRecord* record = RemapperRecord(p.graph.passes);
  ASSERT_NE(nullptr, record);
  EXPECT_TRUE(record->ran());
  EXPECT_EQ(7, record->nodes_before());
  EXPECT_EQ(5, record->nodes_after());
  ExpectSameWithAndWithout(ConvGraph(), kImage, {"act"});
}

TEST(RemapperTest, FusesDepthwiseConvWithEachActivation) {
  for (const char* act : {"Relu", "Relu6", "Elu", "LeakyRelu"}) {
    SCOPED_TRACE(act);
    const GraphDef graph = ConvGraph("DepthwiseConv2dNative", act);
    Prepared p = Prepare(graph, {"x"}, {"act"});
    const Node* fused = p.graph.graph->FindNodeByName("act");
    ASSERT_NE(nullptr, fused);
    EXPECT_EQ("_FusedDepthwiseConv2dNative", fused->type_string());
    EXPECT_THAT(StringsAttr(*fused, "fused_ops"), ElementsAre("BiasAdd", act));
    EXPECT_EQ(5, p.graph.graph->num_nodes());
    ExpectSameWithAndWithout(graph, kImage, {"act"});
  }
}

TEST(RemapperTest, FusesDoubleConvolutions) {
  const GraphDef graph = ConvGraph("Conv2D", "Elu", DT_DOUBLE);
  Prepared p = Prepare(graph, {"x"}, {"act"});
  EXPECT_EQ("_FusedConv2D", OpOf(p, "act"));
  const Feeds feeds = {
      {"x", Values(TensorShape({2, 8, 8, 3}), 7, -2, 2, DT_DOUBLE)}};
  ExpectSameWithAndWithout(graph, feeds, {"act"});
}

TEST(RemapperTest, FusesMatMulWithEachActivationKeepingLeakyReluAlpha) {
  for (const char* act : {"Relu", "Relu6", "Elu", "LeakyRelu"}) {
    SCOPED_TRACE(act);
    const GraphDef graph = MatMulGraph("BiasAdd", act);
    Prepared p = Prepare(graph, {"x"}, {"act"});
    const Node* fused = p.graph.graph->FindNodeByName("act");
    ASSERT_NE(nullptr, fused);
    EXPECT_EQ("_FusedMatMul", fused->type_string());
    EXPECT_THAT(StringsAttr(*fused, "fused_ops"), ElementsAre("BiasAdd", act));
    float alpha = 0;
    MF_ASSERT_OK(
        GetNodeAttr(AttrSlice(fused->def()), "leakyrelu_alpha", &alpha));
    EXPECT_EQ(std::string(act) == "LeakyRelu" ? 0.3f : 0.2f, alpha);
    ExpectSameWithAndWithout(graph, kRows, {"act"});
  }
}

TEST(RemapperTest, FusesMatMulBiasAddAloneKeepingTranspose) {
  GraphDef graph = MatMulGraph("BiasAdd", "");
  // x^T with x [5,3].
  AddNodeAttr("transpose_a", true, graph.mutable_node(3));
  Prepared p = Prepare(graph, {"x"}, {"bias_add"});
  const Node* fused = p.graph.graph->FindNodeByName("bias_add");
  ASSERT_NE(nullptr, fused);
  EXPECT_EQ("_FusedMatMul", fused->type_string());
  EXPECT_THAT(StringsAttr(*fused, "fused_ops"), ElementsAre("BiasAdd"));
  bool transpose_a = false;
  MF_ASSERT_OK(
      GetNodeAttr(AttrSlice(fused->def()), "transpose_a", &transpose_a));
  EXPECT_TRUE(transpose_a);
  ExpectSameWithAndWithout(
      graph, {{"x", Values(TensorShape({5, 3}), 9, -2, 2)}}, {"bias_add"});
}

TEST(RemapperTest, SigmoidAndTanhStayAfterAFusedBias) {
  // The CPU kernels fuse neither: BiasAdd is fused, the activation stays.
  for (const char* act : {"Sigmoid", "Tanh"}) {
    SCOPED_TRACE(act);
    const GraphDef graph = MatMulGraph("BiasAdd", act);
    Prepared p = Prepare(graph, {"x"}, {"act"});
    const Graph& g = *p.graph.graph;
    EXPECT_EQ(act, OpOf(p, "act"));
    const Node* fused = g.FindNodeByName("bias_add");
    ASSERT_NE(nullptr, fused);
    EXPECT_EQ("_FusedMatMul", fused->type_string());
    EXPECT_THAT(StringsAttr(*fused, "fused_ops"), ElementsAre("BiasAdd"));
    ExpectSameWithAndWithout(graph, kRows, {"act"});
  }
}

TEST(RemapperTest, AddOfAVectorConstIsABiasOnEitherSide) {
  for (const char* op : {"Add", "AddV2"}) {
    SCOPED_TRACE(op);
    GraphDef graph = MatMulGraph(op, "Relu");
    Prepared p = Prepare(graph, {"x"}, {"act"});
    EXPECT_EQ("_FusedMatMul", OpOf(p, "act"));
    ExpectSameWithAndWithout(graph, kRows, {"act"});
    // bias + matmul.
    graph.mutable_node(4)->set_input(0, "bias");
    graph.mutable_node(4)->set_input(1, "matmul");
    p = Prepare(graph, {"x"}, {"act"});
    EXPECT_EQ("_FusedMatMul", OpOf(p, "act"));
    ExpectSameWithAndWithout(graph, kRows, {"act"});
  }
}

TEST(RemapperTest, AddThatIsNotABiasStays) {
  // A [1,4] Const broadcasts like a bias but is not 1-D; a scalar and a
  // fed vector are not biases either.
  Builder b;
  b.Placeholder("x");
  b.Placeholder("v");
  b.Const("w", Values(TensorShape({5, 4}), 3));
  b.Const("row", Values(TensorShape({1, 4}), 4));
  b.Const("scalar", Values(TensorShape({}), 4));
  for (const char* other : {"row", "scalar", "v"}) {
    const std::string m = absl::StrCat("m_", other);
    b.Op(m, "MatMul", {"x", "w"});
    b.Op(absl::StrCat("add_", other), "AddV2", {m, other});
  }
  Prepared p =
      Prepare(b.graph(), {"x", "v"}, {"add_row", "add_scalar", "add_v"});
  for (const char* other : {"row", "scalar", "v"}) {
    EXPECT_EQ("AddV2", OpOf(p, absl::StrCat("add_", other)));
    EXPECT_EQ("MatMul", OpOf(p, absl::StrCat("m_", other)));
  }
}

TEST(RemapperTest, ASecondConsumerKeepsTheIntermediate) {
  // conv also feeds `other`: nothing fuses. bias_add also feeds `other2`:
  // conv and bias fuse, the Relu stays and reads the fused node.
  GraphDef graph = ConvGraph();
  Builder extra;
  extra.Op("other", "Relu", {"conv"});
  graph.MergeFrom(extra.graph());
  Prepared p = Prepare(graph, {"x"}, {"act", "other"});
  EXPECT_EQ("Conv2D", OpOf(p, "conv"));
  EXPECT_EQ("BiasAdd", OpOf(p, "bias_add"));

  graph = ConvGraph();
  Builder extra2;
  extra2.Op("other2", "Relu6", {"bias_add"});
  graph.MergeFrom(extra2.graph());
  p = Prepare(graph, {"x"}, {"act", "other2"});
  const Graph& g = *p.graph.graph;
  EXPECT_EQ(nullptr, g.FindNodeByName("conv"));
  const Node* fused = g.FindNodeByName("bias_add");
  ASSERT_NE(nullptr, fused);
  EXPECT_EQ("_FusedConv2D", fused->type_string());
  EXPECT_THAT(StringsAttr(*fused, "fused_ops"), ElementsAre("BiasAdd"));
  EXPECT_EQ("Relu", OpOf(p, "act"));
  ExpectSameWithAndWithout(graph, kImage, {"act", "other2"});
}

TEST(RemapperTest, FetchedIntermediatesAndTargetsStay) {
  // Fetching conv gives it a second consumer (its _Retval).
  Prepared p = Prepare(ConvGraph(), {"x"}, {"act", "conv"});
  EXPECT_EQ("Conv2D", OpOf(p, "conv"));
  ExpectSameWithAndWithout(ConvGraph(), kImage, {"act", "conv"});
  // A target is kept as it is: the activation stays, what feeds it fuses.
  p = Prepare(ConvGraph(), {"x"}, {}, {"act"});
  EXPECT_EQ("Relu", OpOf(p, "act"));
  EXPECT_EQ("_FusedConv2D", OpOf(p, "bias_add"));
}

TEST(RemapperTest, NodesForAnotherDeviceStay) {
  for (const char* device : {"/device:GPU:0", "/job:localhost/device:GPU:1"}) {
    GraphDef graph = ConvGraph();
    for (NodeDef& n : *graph.mutable_node()) {
      if (n.name() == "conv") n.set_device(device);
    }
    Prepared p = Prepare(graph, {"x"}, {"act"});
    EXPECT_EQ("Conv2D", OpOf(p, "conv"));
  }
  // All on the CPU, by request: fused, on that device.
  GraphDef graph = ConvGraph();
  for (NodeDef& n : *graph.mutable_node()) n.set_device("/cpu:0");
  Prepared p = Prepare(graph, {"x"}, {"act"});
  const Node* fused = p.graph.graph->FindNodeByName("act");
  EXPECT_EQ("_FusedConv2D", fused->type_string());
  EXPECT_EQ("/cpu:0", fused->requested_device());
  // One node on a different (CPU) device from the others: not fused.
  graph = ConvGraph();
  for (NodeDef& n : *graph.mutable_node()) {
    if (n.name() == "bias_add") n.set_device("/cpu:0");
  }
  p = Prepare(graph, {"x"}, {"act"});
  EXPECT_EQ("Conv2D", OpOf(p, "conv"));
}

TEST(RemapperTest, DtypesAndLayoutsTheKernelsLackStay) {
  // _FusedMatMul has a float kernel only.
  Prepared p =
      Prepare(MatMulGraph("BiasAdd", "Relu", DT_DOUBLE), {"x"}, {"act"});
  EXPECT_EQ("MatMul", OpOf(p, "matmul"));
  // NCHW convolutions.
  GraphDef graph = ConvGraph();
  for (NodeDef& n : *graph.mutable_node()) {
    if (n.name() == "conv") AddNodeAttr("data_format", std::string("NCHW"), &n);
  }
  p = Prepare(graph, {"x"}, {"act"});
  EXPECT_EQ("Conv2D", OpOf(p, "conv"));
  // An NCHW BiasAdd after an NHWC convolution.
  graph = ConvGraph();
  AddNodeAttr("data_format", std::string("NCHW"), graph.mutable_node(4));
  p = Prepare(graph, {"x"}, {"act"});
  EXPECT_EQ("Conv2D", OpOf(p, "conv"));
}

TEST(RemapperTest, ControlEdgesMoveToTheFusedNode) {
  // `gate` orders bias_add; `after` waits for act. Both orders hold on the
  // fused node.
  GraphDef graph = ConvGraph();
  Builder extra;
  extra.Op("gate", "Identity", {"x"});
  graph.MergeFrom(extra.graph());
  for (NodeDef& n : *graph.mutable_node()) {
    if (n.name() == "bias_add") n.add_input("^gate");
  }
  NodeDef* after = graph.add_node();
  after->set_name("after");
  after->set_op("NoOp");
  after->add_input("^act");
  Prepared p = Prepare(graph, {"x"}, {"act"}, {"after"});
  const Graph& g = *p.graph.graph;
  const Node* fused = g.FindNodeByName("act");
  ASSERT_NE(nullptr, fused);
  EXPECT_EQ("_FusedConv2D", fused->type_string());
  EXPECT_TRUE(HasControlEdge(*g.FindNodeByName("gate"), *fused));
  EXPECT_TRUE(HasControlEdge(*fused, *g.FindNodeByName("after")));
}

TEST(RemapperTest, AnIntermediateOthersWaitForStays) {
  // `after` waits for conv itself: removing conv would lose that order.
  GraphDef graph = ConvGraph();
  NodeDef* after = graph.add_node();
  after->set_name("after");
  after->set_op("NoOp");
  after->add_input("^conv");
  Prepared p = Prepare(graph, {"x"}, {"act"}, {"after"});
  EXPECT_EQ("Conv2D", OpOf(p, "conv"));
}

TEST(RemapperTest, ColocatedNodesStay) {
  GraphDef graph = ConvGraph();
  for (NodeDef& n : *graph.mutable_node()) {
    if (n.name() == "filter") {
      AddNodeAttr("_class", std::vector<std::string>{"loc:@conv"}, &n);
    }
  }
  Prepared p = Prepare(graph, {"x"}, {"act"});
  EXPECT_EQ("Conv2D", OpOf(p, "conv"));
}

TEST(RemapperTest, FoldsInferenceBatchNormIntoTheFilter) {
  for (const char* bn :
       {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    for (const char* conv : {"Conv2D", "DepthwiseConv2dNative"}) {
      SCOPED_TRACE(absl::StrCat(conv, " + ", bn));
      const GraphDef graph = ConvBatchNormGraph(conv, bn);
      Prepared p = Prepare(graph, {"x"}, {"act"});
      const Graph& g = *p.graph.graph;
      EXPECT_EQ(nullptr, g.FindNodeByName("conv"));
      EXPECT_EQ(nullptr, g.FindNodeByName("bn"));
      // The old filter and parameters went with them.
      EXPECT_EQ(nullptr, g.FindNodeByName("filter"));
      EXPECT_EQ(nullptr, g.FindNodeByName("bn/scale"));
      const Node* fused = g.FindNodeByName("act");
      ASSERT_NE(nullptr, fused);
      EXPECT_EQ(std::string("_Fused") + conv, fused->type_string());
      EXPECT_THAT(StringsAttr(*fused, "fused_ops"),
                  ElementsAre("BiasAdd", "Relu"));
      EXPECT_NE(nullptr, g.FindNodeByName("conv/folded_filter"));
      EXPECT_NE(nullptr, g.FindNodeByName("bn/folded_bias"));
      EXPECT_EQ(5, g.num_nodes());  // _Arg, 2 Consts, fused, _Retval
      ExpectSameWithAndWithout(graph, kImage, {"act"});
    }
  }
}

TEST(RemapperTest, BatchNormAsTheLastNode) {
  // No activation: the fused node takes the batch norm's name.
  Builder b;
  b.Placeholder("x");
  b.Const("filter", Values(TensorShape({1, 1, 3, 4}), 5));
  b.Conv("conv", "Conv2D", "x", "filter", DT_FLOAT, 2);
  b.BatchNormParams("bn/", 4);
  b.BatchNorm("bn", "FusedBatchNormV3", "conv", "bn/");
  Prepared p = Prepare(b.graph(), {"x"}, {"bn"});
  const Node* fused = p.graph.graph->FindNodeByName("bn");
  ASSERT_NE(nullptr, fused);
  EXPECT_EQ("_FusedConv2D", fused->type_string());
  EXPECT_THAT(StringsAttr(*fused, "fused_ops"), ElementsAre("BiasAdd"));
  ExpectSameWithAndWithout(b.graph(), kImage, {"bn"});
}

TEST(RemapperTest, BatchNormsThatCannotFoldStay) {
  // Training mode.
  {
    Builder b;
    b.Placeholder("x");
    b.Const("filter", Values(TensorShape({3, 3, 3, 4}), 5));
    b.Conv("conv", "Conv2D", "x", "filter");
    b.BatchNormParams("bn/", 4);
    b.BatchNorm("bn", "FusedBatchNormV3", "conv", "bn/", /*is_training=*/true);
    Prepared p = Prepare(b.graph(), {"x"}, {"bn"});
    EXPECT_EQ("FusedBatchNormV3", OpOf(p, "bn"));
  }
  // A fed mean; a fed filter.
  for (const char* fed : {"bn/mean", "filter"}) {
    SCOPED_TRACE(fed);
    Prepared p = Prepare(ConvBatchNormGraph(), {"x", fed}, {"act"});
    EXPECT_EQ("FusedBatchNormV3", OpOf(p, "bn"));
    EXPECT_EQ("Relu", OpOf(p, "act"));
  }
  // Its batch statistics are read.
  Prepared p = Prepare(ConvBatchNormGraph(), {"x"}, {"act", "bn:1"});
  EXPECT_EQ("FusedBatchNormV3", OpOf(p, "bn"));
  // MatMul + batch norm is not a pattern (the batch norm needs 4-D data).
}

TEST(RemapperTest, ASharedFilterStaysForItsOtherReader) {
  GraphDef graph = ConvBatchNormGraph();
  Builder extra;
  extra.Conv("conv2", "Conv2D", "x", "filter");
  graph.MergeFrom(extra.graph());
  Prepared p = Prepare(graph, {"x"}, {"act", "conv2"});
  const Graph& g = *p.graph.graph;
  EXPECT_EQ("_FusedConv2D", OpOf(p, "act"));
  EXPECT_NE(nullptr, g.FindNodeByName("filter"));
  ExpectSameWithAndWithout(graph, kImage, {"act", "conv2"});
}

TEST(RemapperTest, SwitchedOffByNameAndByRewriterConfig) {
  Prepared p = Prepare(ConvGraph(), {"x"}, {"act"}, {}, /*remap=*/false);
  EXPECT_EQ("Conv2D", OpOf(p, "conv"));
  const GraphPassRecord* record = RemapperRecord(p.graph.passes);
  ASSERT_NE(nullptr, record);
  EXPECT_FALSE(record->ran());
  // RunSession checks the record for RewriterConfig.remapping = OFF.
  RunSession(ConvGraph(), kImage, {"act"}, /*remap=*/false);
}

// i = 0; x = x0; while i < 3: x = relu(batch_norm(conv(x, filter))), the
// filter and batch-norm parameters Consts in the loop's frame (waiting on
// its pivot).
GraphDef ConvBatchNormLoopGraph() {
  testing::Tf1GraphBuilder b;
  b.Placeholder("x", DT_FLOAT);
  b.Const("zero", 0);
  b.While(
      "loop", {"zero", "x"},
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("loop/three", 3, {pivot});
        return b.Add("loop/less", "Less", {v[0], "loop/three"});
      },
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("loop/one", 1, {pivot});
        b.Const("loop/filter", Values(TensorShape({3, 3, 3, 3}), 80, -0.4, 0.4),
                {pivot});
        const char* params[] = {"scale", "offset", "mean", "variance"};
        for (int i = 0; i < 4; ++i) {
          b.Const(absl::StrCat("loop/bn/", params[i]),
                  Values(TensorShape({3}), 81 + i, i == 3 ? 0.5 : -0.5, 1.5),
                  {pivot});
        }
        NodeDef* conv = b.Node("loop/conv", "Conv2D", {v[1], "loop/filter"});
        AddNodeAttr("T", DT_FLOAT, conv);
        AddNodeAttr("strides", std::vector<int64_t>{1, 1, 1, 1}, conv);
        AddNodeAttr("padding", std::string("SAME"), conv);
        NodeDef* bn = b.Node("loop/bn", "FusedBatchNormV3",
                             {"loop/conv", "loop/bn/scale", "loop/bn/offset",
                              "loop/bn/mean", "loop/bn/variance"});
        AddNodeAttr("T", DT_FLOAT, bn);
        AddNodeAttr("U", DT_FLOAT, bn);
        AddNodeAttr("is_training", false, bn);
        b.Add("loop/act", "Relu", {"loop/bn"}, DT_FLOAT);
        return std::vector<std::string>{
            b.Add("loop/add", "AddV2", {v[0], "loop/one"}), "loop/act"};
      },
      10, {DT_INT32, DT_FLOAT});
  return b.graph();
}

TEST(RemapperTest, FusesInsideALoopKeepingTheConstsInItsFrame) {
  const GraphDef graph = ConvBatchNormLoopGraph();
  Prepared p = Prepare(graph, {"x"}, {"loop/exit1"});
  const Graph& g = *p.graph.graph;
  EXPECT_EQ("_FusedConv2D", OpOf(p, "loop/act"));
  const Node* pivot = g.FindNodeByName("loop/ident0");
  ASSERT_NE(nullptr, pivot);
  for (const char* name : {"loop/conv/folded_filter", "loop/bn/folded_bias"}) {
    const Node* c = g.FindNodeByName(name);
    ASSERT_NE(nullptr, c) << name;
    EXPECT_TRUE(HasControlEdge(*pivot, *c)) << name;
  }
  ExpectSameWithAndWithout(
      graph, {{"x", Values(TensorShape({2, 6, 6, 3}), 90)}}, {"loop/exit1"});
}

TEST(RemapperTest, ReferenceInputsStay) {
  // A TF1 variable's reference read by MatMul directly.
  Builder b;
  b.Placeholder("x");
  NodeDef* w = b.Placeholder("unused");
  w->set_name("w");
  w->set_op("VariableV2");
  w->mutable_attr()->clear();
  AddNodeAttr("dtype", DT_FLOAT, w);
  AddNodeAttr("shape", TensorShape({5, 4}), w);
  b.Const("bias", Values(TensorShape({4}), 4));
  b.Op("matmul", "MatMul", {"x", "w"});
  b.Op("bias_add", "BiasAdd", {"matmul", "bias"});
  Prepared p = Prepare(b.graph(), {"x"}, {"bias_add"});
  EXPECT_EQ("MatMul", OpOf(p, "matmul"));
}

// A small CNN as the peer benchmark graph cnn_small has it: two
// conv + BiasAdd + Relu + MaxPool blocks, then Reshape, MatMul, Softmax.
GraphDef SmallCnn() {
  Builder b;
  b.Placeholder("x");
  std::string prev = "x";
  int64_t depth = 3;
  for (int i = 1; i <= 2; ++i) {
    const std::string p = absl::StrCat("block", i, "/");
    b.Const(p + "w",
            Values(TensorShape({3, 3, depth, 4 * i}), 20 + i, -0.5, 0.5));
    b.Const(p + "b", Values(TensorShape({4 * i}), 30 + i));
    b.Conv(p + "conv", "Conv2D", prev, p + "w");
    b.Op(p + "bias", "BiasAdd", {p + "conv", p + "b"});
    b.Op(p + "relu", "Relu", {p + "bias"});
    NodeDef* pool = b.Op(p + "pool", "MaxPool", {p + "relu"});
    AddNodeAttr("ksize", std::vector<int64_t>{1, 2, 2, 1}, pool);
    AddNodeAttr("strides", std::vector<int64_t>{1, 2, 2, 1}, pool);
    AddNodeAttr("padding", std::string("VALID"), pool);
    prev = p + "pool";
    depth = 4 * i;
  }
  b.Const("shape", test::AsTensor<int32_t>({-1, 2 * 2 * 8}));
  NodeDef* reshape = b.Op("flat", "Reshape", {prev, "shape"});
  AddNodeAttr("Tshape", DT_INT32, reshape);
  b.Const("fc/w", Values(TensorShape({32, 10}), 40));
  b.Op("fc/matmul", "MatMul", {"flat", "fc/w"});
  b.Op("y", "Softmax", {"fc/matmul"});
  return b.graph();
}

// Three dense layers as in mlp_b1: MatMul + BiasAdd (+ Relu), Softmax.
GraphDef SmallMlp() {
  Builder b;
  b.Placeholder("x");
  std::string prev = "x";
  const int64_t sizes[] = {5, 8, 6, 4};
  for (int i = 0; i < 3; ++i) {
    const std::string p = absl::StrCat("dense", i, "/");
    b.Const(p + "w", Values(TensorShape({sizes[i], sizes[i + 1]}), 50 + i));
    b.Const(p + "b", Values(TensorShape({sizes[i + 1]}), 60 + i));
    b.Op(p + "matmul", "MatMul", {prev, p + "w"});
    b.Op(p + "bias", "BiasAdd", {p + "matmul", p + "b"});
    prev = p + "bias";
    if (i < 2) {
      b.Op(p + "relu", "Relu", {prev});
      prev = p + "relu";
    }
  }
  b.Op("y", "Softmax", {prev});
  return b.graph();
}

TEST(RemapperTest, PeerShapedGraphsGiveTheSameResults) {
  Prepared cnn = Prepare(SmallCnn(), {"x"}, {"y"});
  const std::vector<std::string> cnn_ops = Ops(*cnn.graph.graph);
  EXPECT_EQ(2, std::count(cnn_ops.begin(), cnn_ops.end(), "_FusedConv2D"));
  EXPECT_EQ(RemapperRecord(cnn.graph.passes)->nodes_before() - 4,
            RemapperRecord(cnn.graph.passes)->nodes_after());
  ExpectSameWithAndWithout(SmallCnn(), kImage, {"y"});

  Prepared mlp = Prepare(SmallMlp(), {"x"}, {"y"});
  const std::vector<std::string> ops = Ops(*mlp.graph.graph);
  EXPECT_EQ(3, std::count(ops.begin(), ops.end(), "_FusedMatMul"));
  EXPECT_EQ(0, std::count(ops.begin(), ops.end(), "BiasAdd"));
  ExpectSameWithAndWithout(SmallMlp(), kRows, {"y"});
}

TEST(RemapperTest, BundledDigitsMlpGivesTheSameResults) {
  std::ifstream file(std::string(MINFLOW_EXAMPLES_DIR) +
                     "/graphs/digits_mlp.pbtxt");
  ASSERT_TRUE(file.good());
  std::stringstream text;
  text << file.rdbuf();
  const GraphDef graph = ParseTextProtoOrDie<GraphDef>(text.str());
  Prepared p = Prepare(graph, {"x"}, {"probs", "digit"});
  const std::vector<std::string> ops = Ops(*p.graph.graph);
  EXPECT_EQ(2, std::count(ops.begin(), ops.end(), "_FusedMatMul"));
  ExpectSameWithAndWithout(graph,
                           {{"x", Values(TensorShape({4, 35}), 70, 0, 1)}},
                           {"probs", "digit"});
}

TEST(RemapperTest, BundledKerasModelGivesTheSameResults) {
  // Its serving signature frozen: MatMul + BiasAdd over the variables'
  // values.
  FrozenSignature frozen;
  MF_ASSERT_OK(FreezeSavedModel(
      std::string(MINFLOW_SAVED_MODEL_TESTDATA) + "/keras_shaped", {"serve"},
      "serving_default", &frozen));
  const std::string in = frozen.inputs[0].tensor_name;
  const std::string out = frozen.outputs[0].tensor_name;
  Prepared p = Prepare(frozen.graph_def, {in}, {out});
  const std::vector<std::string> ops = Ops(*p.graph.graph);
  EXPECT_EQ(1, std::count(ops.begin(), ops.end(), "_FusedMatMul"));
  ExpectSameWithAndWithout(frozen.graph_def,
                           {{in, Values(TensorShape({3, 2}), 71)}}, {out});
}

}  // namespace
}  // namespace minflow
