// ZeroOut (the "Create an op" guide's first kernel) written once over a
// Device, with its attr and input checks; each device supplies
// ZeroOutFunctor<Device, T> (CPU: zero_out_op.cc, GPU: zero_out_op_gpu.cu),
// so both run exactly the same checks.
#pragma once

#include <cstdint>

#include "minflow/core/status.h"
#include "minflow/framework/op_kernel.h"
#include "src/kernels/zero_out_functor.h"

namespace minflow {
namespace functor {

// out[i] = ZeroOutElement(i, preserve_index, in) for i in [0, size), on
// device `d`; 0 <= preserve_index < size. A device that only enqueues the
// work (GPU) returns the error of the enqueueing, if any.
template <typename Device, typename T>
struct ZeroOutFunctor {
  Status operator()(const Device& d, int64_t size, int64_t preserve_index,
                    const T* in, T* out);
};

}  // namespace functor

template <typename Device, typename T>
class ZeroOutOp : public OpKernel {
 public:
  explicit ZeroOutOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("preserve_index", &preserve_index_));
    OP_REQUIRES(ctx, preserve_index_ >= 0,
                errors::InvalidArgument("Need preserve_index >= 0, got ",
                                        preserve_index_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, TensorShapeUtils::IsVector(input.shape()),
                errors::InvalidArgument("ZeroOut expects a 1-D vector."));
    const int64_t n = input.NumElements();
    OP_REQUIRES(ctx, preserve_index_ < n,
                errors::InvalidArgument(
                    "preserve_index out of range: ", preserve_index_,
                    " for a vector of ", n, " elements"));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    OP_REQUIRES_OK(ctx, functor::ZeroOutFunctor<Device, T>()(
                            ctx->eigen_device<Device>(), n, preserve_index_,
                            input.base<const T>(), output->base<T>()));
  }

 private:
  int64_t preserve_index_ = 0;
};

}  // namespace minflow
