#include "minflow/cc/framework/client_session.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/cc/ops/standard_ops.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

TEST(ClientSessionTest, RunsOutputsDirectly) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, {{1.f, 2.f}, {3.f, 4.f}});
  auto b = ops::Const(root, {{5.f}, {6.f}});
  auto product = ops::MatMul(root, a, b);
  ClientSession session(root);
  std::vector<Tensor> outputs;
  MF_ASSERT_OK(session.Run({product}, &outputs));
  ASSERT_EQ(outputs.size(), 1u);
  // [1 2; 3 4] x [5; 6] = [17; 39]
  test::ExpectTensorEqual<float>(
      outputs[0], test::AsTensor<float>({17.f, 39.f}, TensorShape({2, 1})));
}

TEST(ClientSessionTest, FeedsPlaceholders) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_INT32);
  auto y = ops::Mul(root, x, 3);
  ClientSession session(root);
  std::vector<Tensor> outputs;
  MF_ASSERT_OK(session.Run({{x, {1, 2, 3}}}, {y, x}, &outputs));
  ASSERT_EQ(outputs.size(), 2u);
  test::ExpectTensorEqual<int32_t>(outputs[0],
                                   test::AsTensor<int32_t>({3, 6, 9}));
  test::ExpectTensorEqual<int32_t>(outputs[1],
                                   test::AsTensor<int32_t>({1, 2, 3}));
  // Another feed, same session.
  MF_ASSERT_OK(session.Run({{x, 10}}, {y}, &outputs));
  test::ExpectTensorEqual<int32_t>(outputs[0], test::AsScalar<int32_t>(30));
}

TEST(ClientSessionTest, SeesOpsAddedAfterItWasMade) {
  Scope root = Scope::NewRootScope();
  auto c = ops::Const(root, 2.f);
  ClientSession session(root);
  std::vector<Tensor> outputs;
  MF_ASSERT_OK(session.Run({c}, &outputs));
  auto d = ops::Square(root, c);
  MF_ASSERT_OK(session.Run({d}, &outputs));
  test::ExpectTensorEqual<float>(outputs[0], test::AsScalar<float>(4.f));
}

TEST(ClientSessionTest, RunsTargetsForTheirEffects) {
  Scope root = Scope::NewRootScope();
  auto var = ops::VarHandleOp(root, DT_FLOAT, PartialTensorShape({}));
  auto assign = ops::AssignVariableOp(root, var, 5.f);
  auto read = ops::ReadVariableOp(root, var, DT_FLOAT);
  ClientSession session(root);
  std::vector<Tensor> outputs;
  MF_ASSERT_OK(session.Run({}, {}, {assign.operation}, &outputs));
  MF_ASSERT_OK(session.Run({read}, &outputs));
  test::ExpectTensorEqual<float>(outputs[0], test::AsScalar<float>(5.f));
}

TEST(ClientSessionTest, ScopeErrorIsReturnedBeforeRunning) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, {1.f, 2.f});
  auto ok = ops::Neg(root, a);
  ops::MatMul(root.WithOpName("broken"), a, a);
  ClientSession session(root);
  std::vector<Tensor> outputs;
  EXPECT_THAT(
      session.Run({ok}, &outputs),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("broken")));
}

TEST(ClientSessionTest, MissingFeedIsAnErrorNamingThePlaceholder) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("needs_feed"), DT_FLOAT);
  auto y = ops::Neg(root, x);
  ClientSession session(root);
  std::vector<Tensor> outputs;
  EXPECT_THAT(
      session.Run({y}, &outputs),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs_feed")));
}

TEST(ClientSessionTest, NullFetchIsAnError) {
  Scope root = Scope::NewRootScope();
  ClientSession session(root);
  std::vector<Tensor> outputs;
  EXPECT_THAT(
      session.Run({Output()}, &outputs),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("null Output")));
}

TEST(ClientSessionTest, ReadmeExampleRuns) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                            ops::Placeholder::Shape({-1, 2}));
  Scope layer = root.NewSubScope("dense");
  auto y =
      ops::MatMul(layer, x, {{1.f}, {2.f}}, ops::MatMul::TransposeA(false));
  auto z = ops::Relu(root.WithOpName("z"), ops::Add(root, y, 0.5f));
  MF_ASSERT_OK(root.status());
  EXPECT_EQ(y.operation.name(), "dense/MatMul");
  ClientSession session(root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session.Run({{x, {{1.f, 1.f}}}}, {z}, &out));
  test::ExpectTensorEqual<float>(out[0], test::AsTensor<float>({3.5f}, {1, 1}));
}

}  // namespace
}  // namespace minflow
