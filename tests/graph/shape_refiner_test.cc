#include "minflow/graph/shape_refiner.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/logging.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using shape_inference::InferenceContext;
using ::testing::AllOf;
using ::testing::HasSubstr;

// Text-proto snippets for the nodes the tests use.
std::string Placeholder(const std::string& name, const std::string& dims,
                        const std::string& dtype = "DT_FLOAT") {
  return absl::StrCat(
      "node { name: '", name,
      "' op: 'Placeholder' attr { key: 'dtype' value { type: ", dtype,
      " } } attr { key: 'shape' value { shape { ", dims, " } } } }\n");
}

std::string IntConst(const std::string& name, const std::vector<int>& values,
                     bool scalar = false) {
  std::string vals;
  for (int v : values) absl::StrAppend(&vals, " int_val: ", v);
  return absl::StrCat(
      "node { name: '", name,
      "' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr { "
      "key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { ",
      scalar ? "" : absl::StrCat("dim { size: ", values.size(), " }"), " } ",
      vals, " } } } }\n");
}

std::string NodeText(const std::string& name, const std::string& op,
                     const std::vector<std::string>& inputs,
                     const std::string& attrs = "") {
  std::string in;
  for (const std::string& i : inputs) absl::StrAppend(&in, " input: '", i, "'");
  return absl::StrCat("node { name: '", name, "' op: '", op, "'", in, " ",
                      attrs, " }\n");
}

std::string TypeAttr(const std::string& key, const std::string& type) {
  return absl::StrCat("attr { key: '", key, "' value { type: ", type, " } }");
}
std::string IntAttr(const std::string& key, int v) {
  return absl::StrCat("attr { key: '", key, "' value { i: ", v, " } }");
}

class ShapeRefinerTest : public ::testing::Test {
 protected:
  // Imports `text` (the importer checks names, inputs, ports and dtypes)
  // and refines the graph.
  Status Refine(const std::string& text) {
    graph_ = std::make_unique<Graph>(OpRegistry::Global());
    MF_RETURN_IF_ERROR(ConvertGraphDefToGraph(
        GraphConstructorOptions(), ParseTextProtoOrDie<GraphDef>(text),
        graph_.get()));
    refiner_ = std::make_unique<ShapeRefiner>(2100, OpRegistry::Global());
    return refiner_->RefineGraph(*graph_);
  }
  int Id(const std::string& name) {
    const minflow::Node* n = graph_->FindNodeByName(name);
    return n == nullptr ? -1 : n->id();
  }
  std::string Shape(const std::string& name, int output = 0) {
    return refiner_->ShapeString(refiner_->output_shape(Id(name), output));
  }
  shape_inference::ShapeHandle Handle(const std::string& name, int output = 0) {
    return refiner_->output_shape(Id(name), output);
  }
  // Whether dim `da` of node a's output is the very dim object of dim `db`
  // of b's (read through an InferenceContext sharing the refiner's).
  bool SameDim(const std::string& a, int da, const std::string& b, int db) {
    NodeDef probe;
    probe.set_name("probe");
    probe.set_op("IdentityN");
    probe.add_input("a");
    probe.add_input("b");
    AddNodeAttr("T", std::vector<DataType>{DT_FLOAT, DT_FLOAT}, &probe);
    const OpDef* op_def = nullptr;
    MF_CHECK_OK(OpRegistry::Global()->LookUpOpDef("IdentityN", &op_def));
    InferenceContext c(2100, probe, *op_def, {Handle(a), Handle(b)}, {}, {});
    MF_CHECK_OK(c.construction_status());
    return c.Dim(c.input(0), da).SameHandle(c.Dim(c.input(1), db));
  }
  std::vector<int> Ints(const std::string& name) {
    const Tensor* t = refiner_->output_value(Id(name), 0);
    if (t == nullptr) return {};
    std::vector<int> v;
    for (int64_t i = 0; i < t->NumElements(); ++i) {
      v.push_back(t->dtype() == DT_INT32
                      ? t->flat<int32_t>()(i)
                      : static_cast<int>(t->flat<int64_t>()(i)));
    }
    return v;
  }

  std::unique_ptr<Graph> graph_;
  std::unique_ptr<ShapeRefiner> refiner_;
};

// Adds a node from text to `graph` without edges (the importer refuses the
// cyclic graphs some tests need).
minflow::Node* AddNodeText(Graph* graph, const std::string& text) {
  NodeDef def = ParseTextProtoOrDie<NodeDef>(text);
  const OpDef* op_def = nullptr;
  MF_CHECK_OK(OpRegistry::Global()->LookUpOpDef(def.op(), &op_def));
  AddDefaultsToNodeDef(*op_def, &def);
  StatusOr<minflow::Node*> node = graph->AddNode(std::move(def));
  MF_CHECK_OK(node.status());
  return *node;
}

TEST_F(ShapeRefinerTest, InfersAChainOfOps) {
  const std::string f = TypeAttr("T", "DT_FLOAT");
  MF_ASSERT_OK(Refine(Placeholder("x", "dim { size: -1 } dim { size: 3 }") +
                      Placeholder("w", "dim { size: 3 } dim { size: 4 }") +
                      Placeholder("b", "dim { size: 4 }") +
                      NodeText("mm", "MatMul", {"x", "w"}, f) +
                      NodeText("ba", "BiasAdd", {"mm", "b"}, f) +
                      NodeText("r", "Relu", {"ba"}, f) +
                      NodeText("s", "Shape", {"r"}, f)));
  EXPECT_EQ("[?,4]", Shape("mm"));
  EXPECT_EQ("[?,4]", Shape("r"));
  EXPECT_EQ(DT_FLOAT, refiner_->output_type(Id("r"), 0));
  EXPECT_EQ(DT_INT32, refiner_->output_type(Id("s"), 0));
  EXPECT_EQ("[2]", Shape("s"));
  EXPECT_TRUE(Handle("r").SameHandle(Handle("ba")));
  EXPECT_TRUE(refiner_->OutputPartialShape(Id("mm"), 0)
                  .IsIdenticalTo(PartialTensorShape({-1, 4})));
  EXPECT_EQ(7, refiner_->num_nodes_refined());
}

TEST_F(ShapeRefinerTest, HandleIdentityFlowsThroughTheGraph) {
  const std::string f = TypeAttr("T", "DT_FLOAT");
  MF_ASSERT_OK(Refine(Placeholder("x", "dim { size: -1 } dim { size: 3 }") +
                      NodeText("i", "Identity", {"x"}, f) +
                      NodeText("n", "Neg", {"i"}, f)));
  EXPECT_TRUE(Handle("n").SameHandle(Handle("x")));
}

TEST_F(ShapeRefinerTest, ReshapeWithAConstantShape) {
  MF_ASSERT_OK(Refine(
      Placeholder("x", "dim { size: 6 } dim { size: 4 }") +
      IntConst("shape", {-1, 8}) +
      NodeText("r", "Reshape", {"x", "shape"}, TypeAttr("T", "DT_FLOAT"))));
  EXPECT_EQ("[3,8]", Shape("r"));
  ASSERT_NE(nullptr, refiner_->output_value(Id("shape"), 0));
}

TEST_F(ShapeRefinerTest, ReshapeWithAShapeComputedFromShape) {
  // tf.reshape(x, [tf.shape(x)[0], -1]) keeps x's unknown batch dim.
  const std::string f = TypeAttr("T", "DT_FLOAT");
  const std::string i32 = TypeAttr("T", "DT_INT32");
  MF_ASSERT_OK(Refine(
      Placeholder("x", "dim { size: -1 } dim { size: 4 } dim { size: 5 }") +
      NodeText("s", "Shape", {"x"}, f) + IntConst("b", {0}) +
      IntConst("e", {1}) + IntConst("st", {1}) +
      NodeText("d0", "StridedSlice", {"s", "b", "e", "st"},
               i32 + TypeAttr("Index", "DT_INT32") +
                   IntAttr("shrink_axis_mask", 1)) +
      IntConst("m1", {-1}, /*scalar=*/true) +
      NodeText("p", "Pack", {"d0", "m1"}, i32 + IntAttr("N", 2)) +
      NodeText("r", "Reshape", {"x", "p"}, f)));
  EXPECT_EQ("[?,20]", Shape("r"));
  // The batch dim is x's own dim object.
  EXPECT_TRUE(SameDim("r", 0, "x", 0));
}

TEST_F(ShapeRefinerTest, FoldsShapeArithmetic) {
  // Fill(Concat(Shape(x)[1:], [2 * 3]), 0.0)
  const std::string f = TypeAttr("T", "DT_FLOAT");
  const std::string i32 = TypeAttr("T", "DT_INT32");
  MF_ASSERT_OK(Refine(
      Placeholder("x", "dim { size: 5 } dim { size: 7 }") +
      NodeText("s", "Shape", {"x"}, f) + IntConst("b", {1}) +
      IntConst("e", {0}) + IntConst("st", {1}) +
      NodeText("tail", "StridedSlice", {"s", "b", "e", "st"},
               i32 + TypeAttr("Index", "DT_INT32") + IntAttr("end_mask", 1)) +
      IntConst("two", {2}) + IntConst("three", {3}) +
      NodeText("six", "Mul", {"two", "three"}, i32) +
      IntConst("axis", {0}, true) +
      NodeText("dims", "ConcatV2", {"tail", "six", "axis"},
               i32 + IntAttr("N", 2)) +
      Placeholder("v", "", "DT_FLOAT") +
      NodeText("fill", "Fill", {"dims", "v"}, f)));
  EXPECT_EQ("[7,6]", Shape("fill"));
  const Tensor* dims = refiner_->output_value(Id("dims"), 0);
  ASSERT_NE(nullptr, dims);
  EXPECT_EQ(7, dims->flat<int32_t>()(0));
  EXPECT_EQ(6, dims->flat<int32_t>()(1));
}

TEST_F(ShapeRefinerTest, AddsMissingDefaultAttrs) {
  MF_ASSERT_OK(
      Refine(Placeholder("a", "dim { size: 2 } dim { size: 3 }") +
             Placeholder("b", "dim { size: 3 } dim { size: 5 }") +
             NodeText("mm", "MatMul", {"a", "b"}, TypeAttr("T", "DT_FLOAT"))));
  EXPECT_EQ("[2,5]", Shape("mm"));
}

TEST_F(ShapeRefinerTest, NodesMayComeInAnyOrder) {
  const std::string f = TypeAttr("T", "DT_FLOAT");
  MF_ASSERT_OK(Refine(NodeText("n", "Neg", {"i", "^c"}, f) +
                      NodeText("i", "Identity", {"x"}, f) +
                      NodeText("c", "NoOp", {"^x"}) +
                      Placeholder("x", "dim { size: 3 }")));
  EXPECT_EQ("[3]", Shape("n"));
  EXPECT_EQ(0, refiner_->num_outputs(Id("c")));
}

TEST_F(ShapeRefinerTest, MultipleOutputs) {
  MF_ASSERT_OK(
      Refine(Placeholder("x", "dim { size: 4 } dim { size: 6 }") +
             IntConst("dim", {1}, true) +
             NodeText("sp", "Split", {"dim", "x"},
                      TypeAttr("T", "DT_FLOAT") + IntAttr("num_split", 3)) +
             NodeText("n", "Neg", {"sp:2"}, TypeAttr("T", "DT_FLOAT"))));
  EXPECT_EQ(3, refiner_->num_outputs(Id("sp")));
  EXPECT_EQ("[4,2]", Shape("sp", 2));
  EXPECT_EQ("[4,2]", Shape("n"));
}

TEST_F(ShapeRefinerTest, ErrorsNameTheNodeAndOp) {
  const std::string f = TypeAttr("T", "DT_FLOAT");
  EXPECT_THAT(Refine(Placeholder("a", "dim { size: 2 } dim { size: 3 }") +
                     Placeholder("b", "dim { size: 4 } dim { size: 5 }") +
                     NodeText("mm", "MatMul", {"a", "b"}, f)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("Dimensions must be equal, but are 3 "
                                       "and 4"),
                             HasSubstr("{{node mm}} = MatMul"))));
  // Unknown ops, inputs, ports, dtypes and counts are the importer's to
  // report (graph_constructor_test.cc); the refiner gets valid graphs.
  EXPECT_THAT(
      Refine(
          Placeholder("x", "dim { size: 2 }") + IntConst("shape", {3}) +
          NodeText("r", "Reshape", {"x", "shape"}, TypeAttr("T", "DT_FLOAT"))),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("{{node r}} = Reshape")));
}

// Adds x -> a = AddV2(x, c) -> b = Neg(a) -> c = Neg(b) (back into a) -> d
// to `graph`.
void AddCycle(Graph* graph) {
  const std::string f = "attr { key: 'T' value { type: DT_FLOAT } }";
  minflow::Node* x = AddNodeText(
      graph,
      "name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: "
      "DT_FLOAT } } attr { key: 'shape' value { shape { dim { size: 2 } } } }");
  minflow::Node* a = AddNodeText(graph, "name: 'a' op: 'AddV2' " + f);
  minflow::Node* b = AddNodeText(graph, "name: 'b' op: 'Neg' " + f);
  minflow::Node* c = AddNodeText(graph, "name: 'c' op: 'Neg' " + f);
  minflow::Node* d = AddNodeText(graph, "name: 'd' op: 'Neg' " + f);
  graph->AddEdge(x, 0, a, 0);
  graph->AddEdge(c, 0, a, 1);
  graph->AddEdge(a, 0, b, 0);
  graph->AddEdge(b, 0, c, 0);
  graph->AddEdge(c, 0, d, 0);
}

std::unique_ptr<Graph> CyclicGraph() {
  auto graph = std::make_unique<Graph>(OpRegistry::Global());
  AddCycle(graph.get());
  return graph;
}

TEST_F(ShapeRefinerTest, CyclesAreErrorsNamingANodeOnThem) {
  const std::unique_ptr<Graph> graph = CyclicGraph();
  ShapeRefiner refiner(2100, OpRegistry::Global());
  const Status s = refiner.RefineGraph(*graph);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("Graph has a cycle")));
  const std::string message(s.message());
  EXPECT_TRUE(absl::StrContains(message, "node 'a'") ||
              absl::StrContains(message, "node 'b'") ||
              absl::StrContains(message, "node 'c'"))
      << message;
}

TEST_F(ShapeRefinerTest, CollectingErrorsReportsEachFailingNodeOnce) {
  const std::string f = TypeAttr("T", "DT_FLOAT");
  graph_ = std::make_unique<Graph>(OpRegistry::Global());
  MF_ASSERT_OK(ConvertGraphDefToGraph(
      GraphConstructorOptions(),
      ParseTextProtoOrDie<GraphDef>(
          Placeholder("pa", "dim { size: 2 } dim { size: 3 }") +
          Placeholder("pb", "dim { size: 4 } dim { size: 5 }") +
          NodeText("mm1", "MatMul", {"pa", "pb"}, f) +
          NodeText("after_mm1", "Relu", {"mm1"}, f) +
          NodeText("control_after_mm1", "NoOp", {"^mm1"}) +
          NodeText("mm2", "MatMul", {"pb", "pa"}, f) +
          NodeText("fine", "Relu", {"pa"}, f)),
      graph_.get()));
  AddCycle(graph_.get());  // the importer would refuse it
  ShapeRefiner refiner(2100, OpRegistry::Global());
  std::vector<Status> errors;
  const Status first = refiner.RefineGraphCollectingErrors(*graph_, &errors);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(first, errors[0]);
  EXPECT_THAT(errors[0], StatusIs(absl::StatusCode::kInvalidArgument,
                                  HasSubstr("Graph has a cycle")));
  EXPECT_THAT(errors[1], StatusIs(absl::StatusCode::kInvalidArgument,
                                  AllOf(HasSubstr("but are 3 and 4"),
                                        HasSubstr("{{node mm1}} = MatMul"))));
  EXPECT_THAT(errors[2], StatusIs(absl::StatusCode::kInvalidArgument,
                                  AllOf(HasSubstr("but are 5 and 2"),
                                        HasSubstr("{{node mm2}} = MatMul"))));
  // Downstream of mm1 by data: skipped. By control only: refined. On or
  // after the cycle: skipped.
  EXPECT_FALSE(refiner.has_node(Id("after_mm1")));
  EXPECT_TRUE(refiner.has_node(Id("control_after_mm1")));
  EXPECT_FALSE(refiner.has_node(Id("a")));
  EXPECT_FALSE(refiner.has_node(Id("d")));
  EXPECT_TRUE(refiner.has_node(Id("x")));
  EXPECT_EQ("[2,3]", refiner.ShapeString(refiner.output_shape(Id("fine"), 0)));
  // x, pa, pb, control_after_mm1, fine.
  EXPECT_EQ(5, refiner.num_nodes_refined());
}

TEST_F(ShapeRefinerTest, AttachShapesLeavesTheShapesOnTheNodes) {
  const std::string f = TypeAttr("T", "DT_FLOAT");
  MF_ASSERT_OK(Refine(Placeholder("x", "dim { size: -1 } dim { size: 3 }") +
                      NodeText("r", "Relu", {"x"}, f) +
                      NodeText("c", "NoOp", {"^r"})));
  refiner_->AttachShapes(graph_.get());
  const minflow::Node* r = graph_->FindNodeByName("r");
  ASSERT_EQ(1u, r->output_shapes().size());
  EXPECT_TRUE(r->output_shape(0).IsIdenticalTo(PartialTensorShape({-1, 3})));
  EXPECT_TRUE(graph_->FindNodeByName("c")->output_shapes().empty());
}

TEST_F(ShapeRefinerTest, ValuesComeFromTheOpsKernels) {
  // Range, Prod and Maximum have no special case in the refiner: their
  // kernels compute the values Fill's shape function reads.
  const std::string i32 = TypeAttr("T", "DT_INT32");
  const std::string tidx = TypeAttr("Tidx", "DT_INT32");
  MF_ASSERT_OK(Refine(
      IntConst("start", {1}, true) + IntConst("limit", {4}, true) +
      IntConst("delta", {1}, true) +
      NodeText("range", "Range", {"start", "limit", "delta"}, tidx) +
      IntConst("axis", {0}, true) +
      NodeText("prod", "Prod", {"range", "axis"},
               i32 + tidx + "attr { key: 'keep_dims' value { b: true } }") +
      IntConst("five", {5}) +
      NodeText("max", "Maximum", {"prod", "five"}, i32) +
      Placeholder("v", "", "DT_FLOAT") +
      NodeText("fill", "Fill", {"max", "v"}, TypeAttr("T", "DT_FLOAT"))));
  EXPECT_EQ(std::vector<int>({1, 2, 3}), Ints("range"));
  EXPECT_EQ(std::vector<int>({6}), Ints("prod"));
  EXPECT_EQ(std::vector<int>({6}), Ints("max"));
  EXPECT_EQ("[6]", Shape("fill"));
  EXPECT_GE(refiner_->num_values_evaluated(), 3);
}

TEST_F(ShapeRefinerTest, PartlyKnownShapesMoveThroughSliceGatherAndConcat) {
  // x: [?, 4, 5]. perm = Gather(Shape(x), [2, 0]) = [5, ?];
  // shape = Concat(perm, Slice(Shape(x), [1], [1])) = [5, ?, 4];
  // Fill(shape, v) has that shape.
  const std::string f = TypeAttr("T", "DT_FLOAT");
  const std::string i32 = TypeAttr("T", "DT_INT32");
  MF_ASSERT_OK(Refine(
      Placeholder("x", "dim { size: -1 } dim { size: 4 } dim { size: 5 }") +
      NodeText("s", "Shape", {"x"}, f) + IntConst("idx", {2, 0}) +
      IntConst("axis", {0}, true) +
      NodeText("perm", "GatherV2", {"s", "idx", "axis"},
               TypeAttr("Tparams", "DT_INT32") +
                   TypeAttr("Tindices", "DT_INT32") +
                   TypeAttr("Taxis", "DT_INT32")) +
      IntConst("b", {1}) + IntConst("n", {1}) +
      NodeText("mid", "Slice", {"s", "b", "n"},
               i32 + TypeAttr("Index", "DT_INT32")) +
      NodeText("shape", "ConcatV2", {"perm", "mid", "axis"},
               i32 + IntAttr("N", 2) + TypeAttr("Tidx", "DT_INT32")) +
      Placeholder("v", "", "DT_FLOAT") +
      NodeText("r", "Fill", {"shape", "v"}, f)));
  EXPECT_EQ("[5,?,4]", Shape("r"));
  // Nothing is fully known, so no value: the dims travelled as dims.
  EXPECT_EQ(nullptr, refiner_->output_value(Id("shape"), 0));
  // The unknown dim is x's own dim object.
  EXPECT_TRUE(SameDim("r", 1, "x", 0));
}

TEST_F(ShapeRefinerTest, AHugeComputedValueIsNeverEvaluated) {
  // Fill([1 << 30], 7): the output shape is known, but far over the limit,
  // so the kernel must not run (it would allocate 4 GiB).
  const std::string i32 = TypeAttr("T", "DT_INT32");
  MF_ASSERT_OK(Refine(IntConst("dims", {1 << 30}) +
                      IntConst("seven", {7}, true) +
                      NodeText("fill", "Fill", {"dims", "seven"},
                               i32 + TypeAttr("index_type", "DT_INT32"))));
  EXPECT_EQ("[1073741824]", Shape("fill"));
  EXPECT_EQ(nullptr, refiner_->output_value(Id("fill"), 0));
  EXPECT_EQ(0, refiner_->num_values_evaluated());
}

TEST_F(ShapeRefinerTest, LongChainNeedsNoRecursion) {
  constexpr int kLength = 100000;
  GraphDef graph;
  NodeDef* x = graph.add_node();
  x->set_name("n0");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(DT_FLOAT);
  (*x->mutable_attr())["shape"].mutable_shape()->add_dim()->set_size(2);
  // Listed last-first, so the order must be computed.
  std::vector<NodeDef> chain;
  for (int i = 1; i < kLength; ++i) {
    NodeDef n;
    n.set_name(absl::StrCat("n", i));
    n.set_op("Identity");
    n.add_input(absl::StrCat("n", i - 1));
    (*n.mutable_attr())["T"].set_type(DT_FLOAT);
    chain.push_back(std::move(n));
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    *graph.add_node() = *it;
  }
  Graph imported(OpRegistry::Global());
  MF_ASSERT_OK(
      ConvertGraphDefToGraph(GraphConstructorOptions(), graph, &imported));
  ShapeRefiner refiner(2100, OpRegistry::Global());
  MF_ASSERT_OK(refiner.RefineGraph(imported));
  const int last =
      imported.FindNodeByName(absl::StrCat("n", kLength - 1))->id();
  EXPECT_EQ("[2]", refiner.ShapeString(refiner.output_shape(last, 0)));
  EXPECT_EQ(kLength, refiner.num_nodes_refined());
}

TEST_F(ShapeRefinerTest, AddNodeRefinesOneNodeAtATime) {
  const std::string f = TypeAttr("T", "DT_FLOAT");
  graph_ = std::make_unique<Graph>(OpRegistry::Global());
  MF_ASSERT_OK(ConvertGraphDefToGraph(
      GraphConstructorOptions(),
      ParseTextProtoOrDie<GraphDef>(
          Placeholder("pa", "dim { size: 2 } dim { size: 3 }") +
          Placeholder("pb", "dim { size: 3 } dim { size: -1 }") +
          NodeText("mm", "MatMul", {"pa", "pb"}, f) +
          NodeText("bad", "MatMul", {"pa", "pa"}, f)),
      graph_.get()));
  ShapeRefiner refiner(2100, OpRegistry::Global());
  Node* pa = graph_->FindNodeByName("pa");
  Node* pb = graph_->FindNodeByName("pb");
  Node* mm = graph_->FindNodeByName("mm");
  MF_ASSERT_OK(refiner.AddNode(*graph_, *pa));
  MF_ASSERT_OK(refiner.AddNode(*graph_, *pb));
  EXPECT_FALSE(refiner.has_node(mm->id()));
  MF_ASSERT_OK(refiner.AddNode(*graph_, *mm));
  EXPECT_EQ(refiner.ShapeString(refiner.output_shape(mm->id(), 0)), "[2,?]");
  EXPECT_EQ(refiner.num_nodes_refined(), 3);
  // A failing node names itself and leaves no results.
  Node* bad = graph_->FindNodeByName("bad");
  EXPECT_THAT(refiner.AddNode(*graph_, *bad),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("Dimensions must be equal"),
                             HasSubstr("{{node bad}}"))));
  EXPECT_FALSE(refiner.has_node(bad->id()));
}

}  // namespace
}  // namespace minflow
