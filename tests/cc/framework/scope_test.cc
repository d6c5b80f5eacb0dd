#include "minflow/cc/framework/scope.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/node_def.pb.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> NodeNames(const Scope& scope) {
  GraphDef graph_def;
  scope.graph()->ToGraphDef(&graph_def);
  std::vector<std::string> names;
  for (const NodeDef& node : graph_def.node()) names.push_back(node.name());
  return names;
}

TEST(ScopeTest, RepeatedNamesGetTensorFlowSuffixes) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, 1.0f);
  auto b = ops::Const(root, 2.0f);
  auto c = ops::Const(root.WithOpName("foo"), 3.0f);
  auto d = ops::Const(root.WithOpName("foo"), 4.0f);
  MF_ASSERT_OK(root.status());
  EXPECT_EQ(a.node()->name(), "Const");
  EXPECT_EQ(b.node()->name(), "Const_1");
  EXPECT_EQ(c.node()->name(), "foo");
  EXPECT_EQ(d.node()->name(), "foo_1");
}

TEST(ScopeTest, SuffixSkipsNamesAlreadyTaken) {
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("x_1"), 1.0f);
  ops::Const(root.WithOpName("x"), 1.0f);
  ops::Const(root.WithOpName("x"), 1.0f);
  MF_ASSERT_OK(root.status());
  EXPECT_THAT(NodeNames(root), ElementsAre("x_1", "x", "x_2"));
}

TEST(ScopeTest, RootScopeOverAGraphTakesItsNamesAndPrefixes) {
  Scope first = Scope::NewRootScope();
  ops::Const(first.NewSubScope("gradients"), 1.0f);
  ops::Const(first.WithOpName("Const"), 2.0f);
  MF_ASSERT_OK(first.status());
  // A second scope over the same graph and refiner, as the C API makes.
  Scope over = Scope::NewRootScopeOver(first.graph(), first.refiner());
  auto a = ops::Const(over, 3.0f);
  auto b = ops::Const(over.NewSubScope("gradients"), 4.0f);
  auto c = ops::Neg(over, a);
  MF_ASSERT_OK(over.status());
  EXPECT_EQ(a.node()->name(), "Const_1");
  EXPECT_EQ(b.node()->name(), "gradients_1/Const");
  EXPECT_EQ(over.graph(), first.graph());
  EXPECT_EQ(c.node()->output_shape(0).dims(), 0);
}

TEST(ScopeTest, SubScopesPrefixNamesAndAreMadeUnique) {
  Scope root = Scope::NewRootScope();
  Scope a = root.NewSubScope("a");
  Scope ab = a.NewSubScope("b");
  Scope a1 = root.NewSubScope("a");
  auto x = ops::Const(ab, 1.0f);
  auto y = ops::Const(ab.WithOpName("y"), 1.0f);
  auto z = ops::Const(a1, 1.0f);
  auto w = ops::Const(a, 1.0f);
  MF_ASSERT_OK(root.status());
  EXPECT_EQ(x.node()->name(), "a/b/Const");
  EXPECT_EQ(y.node()->name(), "a/b/y");
  EXPECT_EQ(z.node()->name(), "a_1/Const");
  EXPECT_EQ(w.node()->name(), "a/Const");
}

TEST(ScopeTest, EmptySubScopeSharesTheParentsCounters) {
  Scope root = Scope::NewRootScope();
  ops::Const(root, 1.0f);
  auto again = ops::Const(root.NewSubScope(""), 1.0f);
  MF_ASSERT_OK(root.status());
  EXPECT_EQ(again.node()->name(), "Const_1");
}

TEST(ScopeTest, ConstantInputsBecomeConstNodesInASubScope) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto sum = ops::Add(root.WithOpName("sum"), x, 2.0f);
  MF_ASSERT_OK(root.status());
  EXPECT_EQ(sum.node()->def().input(1), "Const/Const");
  EXPECT_EQ(sum.operation.input(1).type(), DT_FLOAT);
}

TEST(ScopeTest, ControlDependenciesBecomeControlInputs) {
  Scope root = Scope::NewRootScope();
  auto first = ops::NoOp(root.WithOpName("first"));
  auto c = ops::Const(root.WithOpName("c"), 1.0f);
  Scope after = root.WithControlDependencies({first.operation, c.op()});
  auto id = ops::Identity(after.WithOpName("id"), c);
  auto free = ops::Identity(after.WithNoControlDependencies(), c);
  MF_ASSERT_OK(root.status());
  EXPECT_THAT(id.node()->def().input(), ElementsAre("c", "^first", "^c"));
  EXPECT_THAT(free.node()->def().input(), ElementsAre("c"));
  EXPECT_EQ(after.control_deps().size(), 2u);
}

TEST(ScopeTest, DeviceIsRequestedOnEveryOpOfTheScope) {
  Scope root = Scope::NewRootScope();
  Scope cpu = root.WithDevice("/device:CPU:0");
  auto c = ops::Const(cpu, 1.0f);
  auto n = ops::Neg(cpu, c);
  auto plain = ops::Neg(root, c);
  MF_ASSERT_OK(root.status());
  EXPECT_EQ(c.node()->requested_device(), "/device:CPU:0");
  EXPECT_EQ(n.node()->requested_device(), "/device:CPU:0");
  EXPECT_EQ(plain.node()->requested_device(), "");
}

TEST(ScopeTest, ShapesAreInferredAtConstruction) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root, DT_FLOAT, ops::Placeholder::Shape({-1, 3}));
  auto b = ops::Const(root, {{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}});
  auto product = ops::MatMul(root, a, b);
  MF_ASSERT_OK(root.status());
  EXPECT_TRUE(
      product.product.shape().IsIdenticalTo(PartialTensorShape({-1, 2})));
  EXPECT_EQ(product.product.type(), DT_FLOAT);
}

TEST(ScopeTest, ShapeErrorFailsAtTheOpAndNamesIt) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, {{1.f, 2.f}});
  auto b = ops::Const(root, {{1.f, 2.f}});
  auto bad = ops::MatMul(root.WithOpName("bad_matmul"), a, b);
  EXPECT_EQ(bad.node(), nullptr);
  EXPECT_FALSE(root.ok());
  EXPECT_THAT(root.status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("Dimensions must be equal"),
                             HasSubstr("{{node bad_matmul}} = MatMul"))));
  // The failed node was taken out again.
  EXPECT_EQ(root.graph()->FindNodeByName("bad_matmul"), nullptr);
}

TEST(ScopeTest, FirstErrorSticksAndLaterOpsAreNoOps) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, {{1.f, 2.f}});
  ops::MatMul(root.WithOpName("first_error"), a, a);
  const int nodes = root.graph()->num_nodes();
  auto later = ops::Neg(root.WithOpName("later"), a);
  auto bad_again = ops::MatMul(root.WithOpName("second_error"), a, a);
  EXPECT_EQ(later.node(), nullptr);
  EXPECT_EQ(bad_again.node(), nullptr);
  EXPECT_EQ(root.graph()->num_nodes(), nodes);
  EXPECT_THAT(root.status().message(), HasSubstr("first_error"));
  // Every scope of the graph shares the status.
  EXPECT_FALSE(root.NewSubScope("s").ok());
  GraphDef graph_def;
  EXPECT_THAT(
      root.ToGraphDef(&graph_def),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("first_error")));
}

TEST(ScopeTest, InputDtypeMismatchNamesTheNode) {
  Scope root = Scope::NewRootScope();
  auto f = ops::Const(root, 1.0f);
  auto i = ops::Const(root, 1);
  ops::Add(root.WithOpName("mixed"), f, i);
  EXPECT_THAT(root.status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("mixed"), HasSubstr("Add"))));
}

TEST(ScopeTest, AttrOutsideAllowedValuesNamesTheNode) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, {{{{1.f}}}});
  auto f = ops::Const(root, {{{{1.f}}}});
  ops::Conv2D(root.WithOpName("conv"), x, f, {1, 1, 1, 1}, "BOGUS");
  EXPECT_THAT(root.status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("conv"), HasSubstr("BOGUS"))));
}

TEST(ScopeTest, RaggedInitializerIsAnError) {
  Scope root = Scope::NewRootScope();
  auto c = ops::Const(root, {{1.f, 2.f}, {3.f}});
  EXPECT_EQ(c.node(), nullptr);
  EXPECT_THAT(root.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("one shape")));
}

TEST(ScopeTest, NullOutputOfAFailedOpIsRejectedWhenUsed) {
  Scope root = Scope::NewRootScope();
  Scope other = Scope::NewRootScope();
  auto failed = ops::Const(other, {{1.f}, {2.f, 3.f}});
  ops::Neg(root.WithOpName("uses_null"), failed);
  EXPECT_THAT(root.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("uses_null")));
}

TEST(ScopeTest, OutputOfAnotherGraphIsRejected) {
  Scope root = Scope::NewRootScope();
  Scope other = Scope::NewRootScope();
  auto elsewhere = ops::Const(other.WithOpName("elsewhere"), 1.f);
  ops::Neg(root.WithOpName("n"), elsewhere);
  EXPECT_THAT(root.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      AllOf(HasSubstr("another graph"),
                                            HasSubstr("{{node n}}"))));
  Scope third = Scope::NewRootScope();
  ops::NoOp(third.WithControlDependencies({elsewhere.op()}));
  EXPECT_THAT(third.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                       HasSubstr("another graph")));
}

TEST(ScopeTest, OutputIndexPastTheNodesOutputsIsRejected) {
  Scope root = Scope::NewRootScope();
  auto c = ops::Const(root, 1.f);
  ops::Neg(root.WithOpName("n"), Output(c.node(), 3));
  EXPECT_THAT(root.status(), StatusIs(absl::StatusCode::kOutOfRange,
                                      HasSubstr("names output 3")));
}

TEST(ScopeTest, ToGraphDefHoldsTheNodesWithDefaults) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root.WithOpName("a"), {{1.f}});
  ops::MatMul(root.WithOpName("m"), a, a, ops::MatMul::TransposeA(true));
  GraphDef graph_def;
  MF_ASSERT_OK(root.ToGraphDef(&graph_def));
  ASSERT_EQ(graph_def.node_size(), 2);
  const NodeDef& m = graph_def.node(1);
  EXPECT_EQ(m.op(), "MatMul");
  EXPECT_TRUE(m.attr().at("transpose_a").b());
  EXPECT_FALSE(m.attr().at("transpose_b").b());
  EXPECT_EQ(m.attr().at("T").type(), DT_FLOAT);
}

}  // namespace
}  // namespace minflow
