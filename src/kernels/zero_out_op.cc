// ZeroOut (the "Create an op" guide's first kernel): a copy of a vector
// with every element but `preserve_index` set to zero.
#include <algorithm>
#include <cstdint>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"

namespace minflow {
namespace {

template <typename T>
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
    T* out = output->base<T>();
    std::fill_n(out, n, T(0));
    out[preserve_index_] = input.base<const T>()[preserve_index_];
  }

 private:
  int64_t preserve_index_ = 0;
};

#define REGISTER_CPU(T)                                          \
  REGISTER_KERNEL_BUILDER(                                       \
      Name("ZeroOut").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ZeroOutOp<T>);
TF_CALL_REAL_NUMBER_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
