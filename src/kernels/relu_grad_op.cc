// CPU kernels of the activation gradients whose formulas are in
// relu_grad_op_functor.h: two inputs of one shape (the upstream gradient
// and the forward op's input or output), one output of that shape.
#define EIGEN_USE_THREADS

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/relu_grad_op_functor.h"

namespace minflow {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;

template <typename T, typename Fn>
class ActivationGradOp : public OpKernel {
 public:
  explicit ActivationGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->HasAttr("alpha")) {
      float alpha;
      OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha));
      alpha_ = static_cast<T>(alpha);
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& g = ctx->input(0);
    const Tensor& f = ctx->input(1);
    OP_REQUIRES(ctx, g.shape() == f.shape(),
                errors::InvalidArgument(
                    type_string(), "'s two inputs must have the same shape, ",
                    "but got ", g.shape().DebugString(), " and ",
                    f.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0, 1}, 0, g.shape(), &out));
    if (g.NumElements() == 0) return;
    out->flat<T>().device(ctx->eigen_device<CPUDevice>()) =
        Fn::template Expr<T>(g.flat<T>(), f.flat<T>(), alpha_);
  }

 private:
  T alpha_ = T(0);  // LeakyReluGrad only
};

#define REGISTER_GRAD(NAME, FN, T)                          \
  REGISTER_KERNEL_BUILDER(                                  \
      Name(NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ActivationGradOp<T, functor::FN>);
#define REGISTER_CPU(T)                              \
  REGISTER_GRAD("Relu6Grad", relu6_grad, T)          \
  REGISTER_GRAD("EluGrad", elu_grad, T)              \
  REGISTER_GRAD("SeluGrad", selu_grad, T)            \
  REGISTER_GRAD("LeakyReluGrad", leaky_relu_grad, T) \
  REGISTER_GRAD("SoftplusGrad", softplus_grad, T)    \
  REGISTER_GRAD("SoftsignGrad", softsign_grad, T)
REGISTER_CPU(float)
REGISTER_CPU(double)
#undef REGISTER_CPU
#undef REGISTER_GRAD

}  // namespace
}  // namespace minflow
