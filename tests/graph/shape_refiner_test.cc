#include "minflow/graph/shape_refiner.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/graph.pb.h"
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

std::string Node(const std::string& name, const std::string& op,
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
  Status Refine(const std::string& text) {
    graph_ = ParseTextProtoOrDie<GraphDef>(text);
    refiner_ = std::make_unique<ShapeRefiner>(2100, OpRegistry::Global());
    return refiner_->RefineGraphDef(graph_);
  }
  int Id(const std::string& name) {
    return refiner_->graph_def_view()->FindNode(name);
  }
  std::string Shape(const std::string& name, int output = 0) {
    return refiner_->ShapeString(refiner_->output_shape(Id(name), output));
  }
  shape_inference::ShapeHandle Handle(const std::string& name, int output = 0) {
    return refiner_->output_shape(Id(name), output);
  }

  GraphDef graph_;
  std::unique_ptr<ShapeRefiner> refiner_;
};

TEST_F(ShapeRefinerTest, InfersAChainOfOps) {
  const std::string f = TypeAttr("T", "DT_FLOAT");
  MF_ASSERT_OK(Refine(Placeholder("x", "dim { size: -1 } dim { size: 3 }") +
                      Placeholder("w", "dim { size: 3 } dim { size: 4 }") +
                      Placeholder("b", "dim { size: 4 }") +
                      Node("mm", "MatMul", {"x", "w"}, f) +
                      Node("ba", "BiasAdd", {"mm", "b"}, f) +
                      Node("r", "Relu", {"ba"}, f) +
                      Node("s", "Shape", {"r"}, f)));
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
                      Node("i", "Identity", {"x"}, f) +
                      Node("n", "Neg", {"i"}, f)));
  EXPECT_TRUE(Handle("n").SameHandle(Handle("x")));
}

TEST_F(ShapeRefinerTest, ReshapeWithAConstantShape) {
  MF_ASSERT_OK(
      Refine(Placeholder("x", "dim { size: 6 } dim { size: 4 }") +
             IntConst("shape", {-1, 8}) +
             Node("r", "Reshape", {"x", "shape"}, TypeAttr("T", "DT_FLOAT"))));
  EXPECT_EQ("[3,8]", Shape("r"));
  ASSERT_NE(nullptr, refiner_->output_value(Id("shape"), 0));
}

TEST_F(ShapeRefinerTest, ReshapeWithAShapeComputedFromShape) {
  // tf.reshape(x, [tf.shape(x)[0], -1]) keeps x's unknown batch dim.
  const std::string f = TypeAttr("T", "DT_FLOAT");
  const std::string i32 = TypeAttr("T", "DT_INT32");
  MF_ASSERT_OK(Refine(
      Placeholder("x", "dim { size: -1 } dim { size: 4 } dim { size: 5 }") +
      Node("s", "Shape", {"x"}, f) + IntConst("b", {0}) + IntConst("e", {1}) +
      IntConst("st", {1}) +
      Node("d0", "StridedSlice", {"s", "b", "e", "st"},
           i32 + TypeAttr("Index", "DT_INT32") +
               IntAttr("shrink_axis_mask", 1)) +
      IntConst("m1", {-1}, /*scalar=*/true) +
      Node("p", "Pack", {"d0", "m1"}, i32 + IntAttr("N", 2)) +
      Node("r", "Reshape", {"x", "p"}, f)));
  EXPECT_EQ("[?,20]", Shape("r"));
  // The batch dim is x's own dim object: read both through a context.
  NodeDef probe;
  probe.set_name("probe");
  probe.set_op("IdentityN");
  probe.add_input("a");
  probe.add_input("b");
  AddNodeAttr("T", std::vector<DataType>{DT_FLOAT, DT_FLOAT}, &probe);
  const OpDef* op_def = nullptr;
  MF_ASSERT_OK(OpRegistry::Global()->LookUpOpDef("IdentityN", &op_def));
  InferenceContext c(2100, probe, *op_def, {Handle("r"), Handle("x")}, {}, {});
  MF_ASSERT_OK(c.construction_status());
  EXPECT_TRUE(c.Dim(c.input(0), 0).SameHandle(c.Dim(c.input(1), 0)));
}

TEST_F(ShapeRefinerTest, FoldsShapeArithmetic) {
  // Fill(Concat(Shape(x)[1:], [2 * 3]), 0.0)
  const std::string f = TypeAttr("T", "DT_FLOAT");
  const std::string i32 = TypeAttr("T", "DT_INT32");
  MF_ASSERT_OK(Refine(
      Placeholder("x", "dim { size: 5 } dim { size: 7 }") +
      Node("s", "Shape", {"x"}, f) + IntConst("b", {1}) + IntConst("e", {0}) +
      IntConst("st", {1}) +
      Node("tail", "StridedSlice", {"s", "b", "e", "st"},
           i32 + TypeAttr("Index", "DT_INT32") + IntAttr("end_mask", 1)) +
      IntConst("two", {2}) + IntConst("three", {3}) +
      Node("six", "Mul", {"two", "three"}, i32) + IntConst("axis", {0}, true) +
      Node("dims", "ConcatV2", {"tail", "six", "axis"}, i32 + IntAttr("N", 2)) +
      Placeholder("v", "", "DT_FLOAT") +
      Node("fill", "Fill", {"dims", "v"}, f)));
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
             Node("mm", "MatMul", {"a", "b"}, TypeAttr("T", "DT_FLOAT"))));
  EXPECT_EQ("[2,5]", Shape("mm"));
}

TEST_F(ShapeRefinerTest, NodesMayComeInAnyOrder) {
  const std::string f = TypeAttr("T", "DT_FLOAT");
  MF_ASSERT_OK(Refine(
      Node("n", "Neg", {"i", "^c"}, f) + Node("i", "Identity", {"x"}, f) +
      Node("c", "NoOp", {"^x"}) + Placeholder("x", "dim { size: 3 }")));
  EXPECT_EQ("[3]", Shape("n"));
  EXPECT_EQ(0, refiner_->num_outputs(Id("c")));
}

TEST_F(ShapeRefinerTest, MultipleOutputs) {
  MF_ASSERT_OK(
      Refine(Placeholder("x", "dim { size: 4 } dim { size: 6 }") +
             IntConst("dim", {1}, true) +
             Node("sp", "Split", {"dim", "x"},
                  TypeAttr("T", "DT_FLOAT") + IntAttr("num_split", 3)) +
             Node("n", "Neg", {"sp:2"}, TypeAttr("T", "DT_FLOAT"))));
  EXPECT_EQ(3, refiner_->num_outputs(Id("sp")));
  EXPECT_EQ("[4,2]", Shape("sp", 2));
  EXPECT_EQ("[4,2]", Shape("n"));
}

TEST_F(ShapeRefinerTest, ErrorsNameTheNodeAndOp) {
  const std::string f = TypeAttr("T", "DT_FLOAT");
  EXPECT_THAT(Refine(Placeholder("a", "dim { size: 2 } dim { size: 3 }") +
                     Placeholder("b", "dim { size: 4 } dim { size: 5 }") +
                     Node("mm", "MatMul", {"a", "b"}, f)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("Dimensions must be equal, but are 3 "
                                       "and 4"),
                             HasSubstr("{{node mm}} = MatMul"))));
  EXPECT_THAT(Refine(Node("q", "NoSuchOp", {})),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr("NoSuchOp"), HasSubstr("{{node q}}"))));
  EXPECT_THAT(Refine(Node("n", "Neg", {"missing"}, f)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown input 'missing'")));
  EXPECT_THAT(Refine(Placeholder("x", "") + Node("n", "Neg", {"x:1"}, f)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("refers to output 1 of 'x', which has 1 "
                                       "outputs"),
                             HasSubstr("{{node n}} = Neg"))));
  EXPECT_THAT(
      Refine(Placeholder("x", "", "DT_INT32") + Node("n", "Neg", {"x"}, f)),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("was passed int32 from x:0 incompatible with "
                         "expected float")));
  EXPECT_THAT(Refine(Placeholder("x", "") + Node("n", "Neg", {"x", "x"}, f)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Wrong number of inputs passed")));
  EXPECT_THAT(Refine(Placeholder("x", "") + Placeholder("x", "")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'x' is not unique")));
  EXPECT_THAT(Refine(Placeholder("x", "") + Node("n", "Neg", {"^x", "x"}, f)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("after a control input")));
}

TEST_F(ShapeRefinerTest, CyclesAreErrorsNamingANodeOnThem) {
  const std::string f = TypeAttr("T", "DT_FLOAT");
  const Status s =
      Refine(Placeholder("x", "") + Node("a", "AddV2", {"x", "c"}, f) +
             Node("b", "Neg", {"a"}, f) + Node("c", "Neg", {"b"}, f) +
             Node("d", "Neg", {"c"}, f));
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("Graph has a cycle through node")));
  const std::string message(s.message());
  EXPECT_TRUE(absl::StrContains(message, "node 'a'") ||
              absl::StrContains(message, "node 'b'") ||
              absl::StrContains(message, "node 'c'"))
      << message;
  EXPECT_THAT(Refine(Node("self", "NoOp", {"^self"})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("cycle through node 'self'")));
}

TEST_F(ShapeRefinerTest, CollectingErrorsReportsEachFailingNodeOnce) {
  const std::string f = TypeAttr("T", "DT_FLOAT");
  graph_ = ParseTextProtoOrDie<GraphDef>(
      Placeholder("a", "dim { size: 2 } dim { size: 3 }") +
      Placeholder("b", "dim { size: 4 } dim { size: 5 }") +
      Node("mm1", "MatMul", {"a", "b"}, f) +
      Node("after_mm1", "Relu", {"mm1"}, f) +
      Node("control_after_mm1", "NoOp", {"^mm1"}) +
      Node("mm2", "MatMul", {"b", "a"}, f) + Node("fine", "Relu", {"a"}, f) +
      Node("c1", "Neg", {"c2"}, f) + Node("c2", "Neg", {"c1"}, f));
  std::unique_ptr<GraphDefView> view;
  MF_ASSERT_OK(GraphDefView::Create(graph_, &view));
  ShapeRefiner refiner(2100, OpRegistry::Global());
  std::vector<Status> errors;
  const Status first = refiner.RefineGraphCollectingErrors(*view, &errors);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(first, errors[0]);
  EXPECT_THAT(errors[0], StatusIs(absl::StatusCode::kInvalidArgument,
                                  HasSubstr("cycle through node 'c")));
  EXPECT_THAT(errors[1], StatusIs(absl::StatusCode::kInvalidArgument,
                                  AllOf(HasSubstr("but are 3 and 4"),
                                        HasSubstr("{{node mm1}} = MatMul"))));
  EXPECT_THAT(errors[2], StatusIs(absl::StatusCode::kInvalidArgument,
                                  AllOf(HasSubstr("but are 5 and 2"),
                                        HasSubstr("{{node mm2}} = MatMul"))));
  // Downstream of mm1 by data: skipped. By control only: refined.
  EXPECT_FALSE(refiner.has_node(view->FindNode("after_mm1")));
  EXPECT_TRUE(refiner.has_node(view->FindNode("control_after_mm1")));
  EXPECT_FALSE(refiner.has_node(view->FindNode("c1")));
  EXPECT_EQ("[2,3]", refiner.ShapeString(
                         refiner.output_shape(view->FindNode("fine"), 0)));
  EXPECT_EQ(4, refiner.num_nodes_refined());
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
  ShapeRefiner refiner(2100, OpRegistry::Global());
  MF_ASSERT_OK(refiner.RefineGraphDef(graph));
  const int last =
      refiner.graph_def_view()->FindNode(absl::StrCat("n", kLength - 1));
  EXPECT_EQ("[2]", refiner.ShapeString(refiner.output_shape(last, 0)));
  EXPECT_EQ(kLength, refiner.num_nodes_refined());
}

}  // namespace
}  // namespace minflow
