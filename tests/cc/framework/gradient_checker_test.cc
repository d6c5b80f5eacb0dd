// The numeric gradient checker (tests/testlib/gradient_checker.h) must
// catch a wrong gradient, not only pass right ones: a test op y = 2x with
// a kernel is given a right and a deliberately wrong gradient.
#include "tests/testlib/gradient_checker.h"

#include <vector>

#include "gtest/gtest.h"
#include "minflow/cc/framework/op_builder.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {

#define MF_CHECKER_TEST_OP(NAME)                                 \
  REGISTER_OP(NAME)                                              \
      .Input("x: T")                                             \
      .Output("y: T")                                            \
      .Attr("T: {float, double}")                                \
      .SetShapeFn(shape_inference::UnchangedShape)               \
      .Doc("A test op: y = 2x.");                                \
  REGISTER_KERNEL_BUILDER(                                       \
      Name(NAME).Device(DEVICE_CPU).TypeConstraint<float>("T"),  \
      TimesTwoOp<float>);                                        \
  REGISTER_KERNEL_BUILDER(                                       \
      Name(NAME).Device(DEVICE_CPU).TypeConstraint<double>("T"), \
      TimesTwoOp<double>)

namespace {

template <typename T>
class TimesTwoOp : public OpKernel {
 public:
  explicit TimesTwoOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    y->flat<T>() = x.flat<T>() * T(2);
  }
};

}  // namespace

MF_CHECKER_TEST_OP("CheckerTestRightGrad");
MF_CHECKER_TEST_OP("CheckerTestWrongGrad");

namespace {

Status RightGrad(const Scope& scope, const Operation& op,
                 const std::vector<Output>& grad_inputs,
                 std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(ops::Add(scope, grad_inputs[0], grad_inputs[0]));
  return scope.status();
}
// Off by one for every element: d(2x) taken as 3.
Status WrongGrad(const Scope& scope, const Operation& op,
                 const std::vector<Output>& grad_inputs,
                 std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(
      ops::AddN(scope, {grad_inputs[0], grad_inputs[0], grad_inputs[0]}));
  return scope.status();
}
REGISTER_GRADIENT_OP("CheckerTestRightGrad", RightGrad);
REGISTER_GRADIENT_OP("CheckerTestWrongGrad", WrongGrad);

template <typename T>
T ErrorOf(const char* op_type) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DataTypeToEnum<T>::v());
  OpBuilder b(root, op_type);
  b.Input(x);
  b.Finish();
  T error = -1;
  Status s = test::ComputeGradientError<T>(
      root, x, test::RandomUniform<T>(TensorShape({2, 3}), -1, 1, 3),
      b.GetOutput("y"), &error);
  EXPECT_TRUE(s.ok()) << s;
  return error;
}

TEST(GradientCheckerTest, PassesARightGradient) {
  EXPECT_LT(ErrorOf<float>("CheckerTestRightGrad"), 1e-3f);
  EXPECT_LT(ErrorOf<double>("CheckerTestRightGrad"), 1e-8);
}

TEST(GradientCheckerTest, CatchesAWrongGradient) {
  EXPECT_NEAR(ErrorOf<float>("CheckerTestWrongGrad"), 1.0f, 1e-3f);
  EXPECT_NEAR(ErrorOf<double>("CheckerTestWrongGrad"), 1.0, 1e-8);
}

TEST(GradientCheckerTest, StopGradientShowsAsAnError) {
  // y = x + stop(x): symbolic dy/dx = 1, numeric 2.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_DOUBLE);
  auto y = ops::Add(root, x, ops::StopGradient(root, x));
  double error = -1;
  MF_ASSERT_OK(test::ComputeGradientError<double>(
      root, x, test::RandomUniform<double>(TensorShape({2}), -1, 1, 4), y,
      &error));
  EXPECT_NEAR(error, 1.0, 1e-8);
}

}  // namespace
}  // namespace minflow
