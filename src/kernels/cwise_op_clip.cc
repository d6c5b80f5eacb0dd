// ClipByValue(t, clip_value_min, clip_value_max): min(max) of each element,
// with either bound a scalar or of t's shape. As in TensorFlow, a lower bound
// above the upper one wins (the result is the lower bound) and NaN passes
// through.
#include <cstdint>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"

namespace minflow {
namespace {

template <typename T>
class ClipOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in0 = ctx->input(0);
    const Tensor& in1 = ctx->input(1);
    const Tensor& in2 = ctx->input(2);
    OP_REQUIRES(
        ctx,
        (in0.shape() == in1.shape() ||
         TensorShapeUtils::IsScalar(in1.shape())) &&
            (in0.shape() == in2.shape() ||
             TensorShapeUtils::IsScalar(in2.shape())),
        errors::InvalidArgument(
            "clip_value_min and clip_value_max must be either of the same "
            "shape as input, or a scalar. ",
            "input shape: ", in0.shape().DebugString(),
            "clip_value_min shape: ", in1.shape().DebugString(),
            "clip_value_max shape: ", in2.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, in0.shape(), &out));
    const int64_t n = in0.NumElements();
    if (n == 0) return;
    const T* x = in0.base<const T>();
    const T* lo = in1.base<const T>();
    const T* hi = in2.base<const T>();
    const int64_t lo_step = in1.NumElements() == 1 ? 0 : 1;
    const int64_t hi_step = in2.NumElements() == 1 ? 0 : 1;
    T* o = out->base<T>();
    for (int64_t i = 0; i < n; ++i) {
      // std::max(std::min(x, hi), lo), spelled out so NaN stays NaN.
      T v = x[i];
      const T h = hi[i * hi_step];
      const T l = lo[i * lo_step];
      if (h < v) v = h;
      if (v < l) v = l;
      o[i] = v;
    }
  }
};

// A plain loop per type, so TensorFlow's whole real list is cheap.
#define REGISTER_CPU(T)                                              \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("ClipByValue").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ClipOp<T>);
TF_CALL_REAL_NUMBER_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
