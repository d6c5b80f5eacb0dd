#include "minflow/cc/framework/grad_op_registry.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/cc/framework/client_session.h"
#include "minflow/cc/framework/gradients.h"
#include "minflow/cc/framework/op_builder.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/framework/load_library.h"
#include "minflow/op_def.pb.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

Status TestGrad(const Scope& scope, const Operation& op,
                const std::vector<Output>& grad_inputs,
                std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(grad_inputs[0]);
  return OkStatus();
}
Status OtherGrad(const Scope& scope, const Operation& op,
                 const std::vector<Output>& grad_inputs,
                 std::vector<Output>* grad_outputs) {
  return OkStatus();
}

// Registered by the macro at static init, as a library would.
REGISTER_GRADIENT_OP("GradRegistryTestOp", TestGrad);
REGISTER_NO_GRADIENT_OP("GradRegistryTestNoGradOp");

TEST(GradOpRegistryTest, FindsAStaticallyRegisteredGradient) {
  ops::GradFunc fn = nullptr;
  MF_ASSERT_OK(
      ops::GradOpRegistry::Global()->Lookup("GradRegistryTestOp", &fn));
  EXPECT_EQ(fn, &TestGrad);
}

TEST(GradOpRegistryTest, NoGradientOpsLookUpAsNull) {
  ops::GradFunc fn = &TestGrad;
  MF_ASSERT_OK(
      ops::GradOpRegistry::Global()->Lookup("GradRegistryTestNoGradOp", &fn));
  EXPECT_EQ(fn, nullptr);
}

TEST(GradOpRegistryTest, UnknownOpIsNotFoundNamingIt) {
  ops::GradFunc fn = nullptr;
  EXPECT_THAT(
      ops::GradOpRegistry::Global()->Lookup("NoSuchOpAnywhere", &fn),
      StatusIs(absl::StatusCode::kNotFound,
               HasSubstr("No gradient defined for op: NoSuchOpAnywhere")));
}

TEST(GradOpRegistryTest, SecondRegistrationIsRefusedAndFirstKept) {
  ops::GradOpRegistry registry;
  EXPECT_TRUE(registry.Register("X", &TestGrad));
  EXPECT_FALSE(registry.Register("X", &OtherGrad));
  EXPECT_FALSE(registry.Register("X", nullptr));
  ops::GradFunc fn = nullptr;
  MF_ASSERT_OK(registry.Lookup("X", &fn));
  EXPECT_EQ(fn, &TestGrad);
}

// The built-in gradients and no-gradient declarations are in
// libminflow_cc, registered when it loads.
TEST(GradOpRegistryTest, BuiltInGradientsAreRegistered) {
  for (const char* op :
       {"Add",    "AddV2",   "Sub", "Mul",  "Div",     "RealDiv",  "Neg",
        "Square", "Sqrt",    "Exp", "Log",  "Tanh",    "Sigmoid",  "Relu",
        "MatMul", "BiasAdd", "Sum", "Mean", "Reshape", "Identity", "Cast"}) {
    ops::GradFunc fn = nullptr;
    SCOPED_TRACE(op);
    MF_EXPECT_OK(ops::GradOpRegistry::Global()->Lookup(op, &fn));
    EXPECT_NE(fn, nullptr);
  }
  for (const char* op :
       {"Shape", "Size", "Rank", "ZerosLike", "OnesLike", "Equal", "NotEqual",
        "Less", "LessEqual", "Greater", "GreaterEqual", "ArgMax", "ArgMin",
        "StopGradient", "BroadcastGradientArgs"}) {
    ops::GradFunc fn = &TestGrad;
    SCOPED_TRACE(op);
    MF_EXPECT_OK(ops::GradOpRegistry::Global()->Lookup(op, &fn));
    EXPECT_EQ(fn, nullptr);
  }
}

// A custom-op library linked to libminflow_cc registers its op's gradient
// into the same registry when LoadOpLibrary loads it, and
// AddSymbolicGradients uses it.
TEST(GradOpRegistryTest, AnOpLibraryRegistersItsOpsGradient) {
  ops::GradFunc fn = nullptr;
  ASSERT_THAT(ops::GradOpRegistry::Global()->Lookup("GradLibTest>Triple", &fn),
              StatusIs(absl::StatusCode::kNotFound));
  OpList added;
  MF_ASSERT_OK(LoadOpLibrary(MINFLOW_GRAD_OP_LIBRARY, &added));
  ASSERT_EQ(added.op_size(), 1);
  MF_ASSERT_OK(
      ops::GradOpRegistry::Global()->Lookup("GradLibTest>Triple", &fn));
  EXPECT_NE(fn, nullptr);

  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT);
  OpBuilder b(root, "GradLibTest>Triple");
  b.Input(ops::Square(root, x));
  b.Finish();
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root, {b.GetOutput("y")}, {x}, &grads));
  ClientSession session(root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session.Run({{x, test::AsTensor<float>({1, -2})}}, grads, &out));
  // d(3 x^2)/dx = 6x
  test::ExpectTensorNear<float>(out[0], test::AsTensor<float>({6, -12}), 1e-6);
}

}  // namespace
}  // namespace minflow
