// CPU kernels of the element-wise gradient ops: ReluGrad (from Relu's
// input), TanhGrad, SigmoidGrad, SqrtGrad, RsqrtGrad and ReciprocalGrad
// (from the forward op's output y).
#define EIGEN_USE_THREADS

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"

namespace minflow {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;

// out = dy * (1 - y * y)
struct TanhGradFn {
  template <typename T, typename Y, typename DY>
  auto operator()(const Y& y, const DY& dy) const {
    return dy * (y.constant(T(1)) - y * y);
  }
};

// out = dy * y * (1 - y)
struct SigmoidGradFn {
  template <typename T, typename Y, typename DY>
  auto operator()(const Y& y, const DY& dy) const {
    return dy * y * (y.constant(T(1)) - y);
  }
};

// out = in0 where in1 > 0, else 0 (ReluGrad: gradients, features).
struct ReluGradFn {
  template <typename T, typename G, typename F>
  auto operator()(const G& g, const F& f) const {
    return g * (f > f.constant(T(0))).template cast<T>();
  }
};

// Two inputs of one shape, one output of that shape.
template <typename T, typename Fn>
class BinaryGradOp : public OpKernel {
 public:
  explicit BinaryGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in0 = ctx->input(0);
    const Tensor& in1 = ctx->input(1);
    OP_REQUIRES(ctx, in0.shape() == in1.shape(),
                errors::InvalidArgument(
                    type_string(), "'s two inputs must have the same shape, ",
                    "but got ", in0.shape().DebugString(), " and ",
                    in1.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0, 1}, 0, in0.shape(), &out));
    if (in0.NumElements() == 0) return;
    out->flat<T>().device(ctx->eigen_device<CPUDevice>()) =
        Fn().template operator()<T>(in0.flat<T>(), in1.flat<T>());
  }
};

#define REGISTER_RELU_GRAD(T)                                     \
  REGISTER_KERNEL_BUILDER(                                        \
      Name("ReluGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BinaryGradOp<T, ReluGradFn>);
MF_CALL_CORE_REAL_TYPES(REGISTER_RELU_GRAD)
#undef REGISTER_RELU_GRAD

#define REGISTER_FLOAT_GRADS(T)                                      \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("TanhGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      BinaryGradOp<T, TanhGradFn>);                                  \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("SigmoidGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BinaryGradOp<T, SigmoidGradFn>);
MF_CALL_CORE_FLOAT_TYPES(REGISTER_FLOAT_GRADS)
#undef REGISTER_FLOAT_GRADS

// The gradients of Sqrt, Rsqrt and Reciprocal (inputs y, dy):
// out = dy * 0.5 / y, dy * -0.5 * y^3 and -dy * y^2.
struct SqrtGradFn {
  template <typename T, typename Y, typename DY>
  auto operator()(const Y& y, const DY& dy) const {
    return dy * y.constant(T(0.5)) / y;
  }
};
struct RsqrtGradFn {
  template <typename T, typename Y, typename DY>
  auto operator()(const Y& y, const DY& dy) const {
    return dy * y.constant(T(-0.5)) * y * y * y;
  }
};
struct ReciprocalGradFn {
  template <typename T, typename Y, typename DY>
  auto operator()(const Y& y, const DY& dy) const {
    return -dy * y * y;
  }
};

#define REGISTER_MATH_GRADS(T)                                          \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("SqrtGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),       \
      BinaryGradOp<T, SqrtGradFn>);                                     \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("RsqrtGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),      \
      BinaryGradOp<T, RsqrtGradFn>);                                    \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("ReciprocalGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BinaryGradOp<T, ReciprocalGradFn>);
MF_CALL_CORE_FLOAT_TYPES(REGISTER_MATH_GRADS)
#undef REGISTER_MATH_GRADS

}  // namespace
}  // namespace minflow
