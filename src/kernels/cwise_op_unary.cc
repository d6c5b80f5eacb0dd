// CPU kernels of the unary element-wise ops and activations: Neg, Abs,
// Sign, Square, Sqrt, Rsqrt, Exp, Log, Log1p, Tanh, Sigmoid, Sin, Cos, Atan,
// Tan, Asin, Acos, Sinh, Cosh, Asinh, Acosh, Atanh, Erf, Erfc, Expm1,
// Floor, Ceil, Round, Rint, Reciprocal, Relu, Relu6, Elu, Selu, LeakyRelu,
// Softplus, Softsign, IsNan, IsInf, IsFinite, LogicalNot.
#define EIGEN_USE_THREADS

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cpu_parallel_eval.h"
#include "src/kernels/cwise_op_functor.h"
#include "src/kernels/cwise_op_math_functor.h"
#include "src/kernels/cwise_ops_common.h"
#include "src/kernels/relu_op_functor.h"

namespace minflow {
namespace {

template <typename Device, typename T>
class LeakyReluOp : public OpKernel {
 public:
  explicit LeakyReluOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    float alpha = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha));
    alpha_ = static_cast<T>(alpha);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, in.shape(), &out));
    if (in.NumElements() == 0) return;
    functor::LeakyRelu<Device, T>()(ctx->eigen_device<Device>(), out->flat<T>(),
                                    in.flat<T>(), alpha_);
  }

 private:
  T alpha_;
};

#define MF_REGISTER_UNARY(NAME, FUNCTOR, T)                 \
  REGISTER_KERNEL_BUILDER(                                  \
      Name(NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      UnaryOp<CPUDevice, functor::FUNCTOR<T>>);

// Ops TensorFlow models use on integers as well as floats.
#define REGISTER_REAL(T)                 \
  MF_REGISTER_UNARY("Neg", neg, T)       \
  MF_REGISTER_UNARY("Abs", abs, T)       \
  MF_REGISTER_UNARY("Sign", sign, T)     \
  MF_REGISTER_UNARY("Square", square, T) \
  MF_REGISTER_UNARY("Round", round, T)   \
  MF_REGISTER_UNARY("Relu", relu, T)     \
  MF_REGISTER_UNARY("Relu6", relu6, T)
MF_CALL_CORE_REAL_TYPES(REGISTER_REAL)
#undef REGISTER_REAL

// Floating-point math.
#define REGISTER_FLOAT(T)                                          \
  MF_REGISTER_UNARY("Sqrt", sqrt, T)                               \
  MF_REGISTER_UNARY("Rsqrt", rsqrt, T)                             \
  MF_REGISTER_UNARY("Exp", exp, T)                                 \
  MF_REGISTER_UNARY("Log", log, T)                                 \
  MF_REGISTER_UNARY("Log1p", log1p, T)                             \
  MF_REGISTER_UNARY("Tanh", tanh, T)                               \
  MF_REGISTER_UNARY("Sigmoid", sigmoid, T)                         \
  MF_REGISTER_UNARY("Sin", sin, T)                                 \
  MF_REGISTER_UNARY("Cos", cos, T)                                 \
  MF_REGISTER_UNARY("Atan", atan, T)                               \
  MF_REGISTER_UNARY("Floor", floor, T)                             \
  MF_REGISTER_UNARY("Ceil", ceil, T)                               \
  MF_REGISTER_UNARY("Reciprocal", reciprocal, T)                   \
  MF_REGISTER_UNARY("Elu", elu, T)                                 \
  MF_REGISTER_UNARY("Selu", selu, T)                               \
  MF_REGISTER_UNARY("Softplus", softplus, T)                       \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("LeakyRelu").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      LeakyReluOp<CPUDevice, T>);
MF_CALL_CORE_FLOAT_TYPES(REGISTER_FLOAT)
#undef REGISTER_FLOAT

REGISTER_KERNEL_BUILDER(Name("LogicalNot").Device(DEVICE_CPU),
                        UnaryOp<CPUDevice, functor::logical_not>);

// The math of the wider op set, for float and double only: half and
// bfloat16 would double the compile time for ops real graphs rarely run in
// those types.
#define MF_CALL_FLOAT_DOUBLE(m) TF_CALL_float(m) TF_CALL_double(m)
#define REGISTER_FLOAT_MATH(T)               \
  MF_REGISTER_UNARY("Tan", tan, T)           \
  MF_REGISTER_UNARY("Asin", asin, T)         \
  MF_REGISTER_UNARY("Acos", acos, T)         \
  MF_REGISTER_UNARY("Sinh", sinh, T)         \
  MF_REGISTER_UNARY("Cosh", cosh, T)         \
  MF_REGISTER_UNARY("Asinh", asinh, T)       \
  MF_REGISTER_UNARY("Acosh", acosh, T)       \
  MF_REGISTER_UNARY("Atanh", atanh, T)       \
  MF_REGISTER_UNARY("Erf", erf, T)           \
  MF_REGISTER_UNARY("Erfc", erfc, T)         \
  MF_REGISTER_UNARY("Expm1", expm1, T)       \
  MF_REGISTER_UNARY("Rint", rint, T)         \
  MF_REGISTER_UNARY("Softsign", softsign, T) \
  MF_REGISTER_UNARY("IsNan", is_nan, T)      \
  MF_REGISTER_UNARY("IsInf", is_inf, T)      \
  MF_REGISTER_UNARY("IsFinite", is_finite, T)
MF_CALL_FLOAT_DOUBLE(REGISTER_FLOAT_MATH)
#undef REGISTER_FLOAT_MATH
#undef MF_CALL_FLOAT_DOUBLE

#undef MF_REGISTER_UNARY

}  // namespace
}  // namespace minflow
