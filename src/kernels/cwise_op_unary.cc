// CPU kernels of the unary element-wise ops and activations: Neg, Abs,
// Sign, Square, Sqrt, Rsqrt, Exp, Log, Log1p, Tanh, Sigmoid, Sin, Cos, Atan,
// Floor, Ceil, Round, Reciprocal, Relu, Relu6, Elu, Selu, LeakyRelu,
// Softplus, LogicalNot.
#define EIGEN_USE_THREADS

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cwise_op_functor.h"
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

#undef MF_REGISTER_UNARY

}  // namespace
}  // namespace minflow
