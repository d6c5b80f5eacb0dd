// InvertPermutation(x): y[x[i]] = i, for x a permutation of [0, n).
#include <cstdint>
#include <limits>

#include "minflow/framework/op_kernel.h"

namespace minflow {
namespace {

template <typename T>
class InvertPermutationOp : public OpKernel {
 public:
  explicit InvertPermutationOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(
        ctx, TensorShapeUtils::IsVector(input.shape()),
        errors::InvalidArgument("invert_permutation expects a 1D vector."));
    const int64_t n = input.NumElements();
    OP_REQUIRES(ctx, n <= std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument("permutation of nonnegative int32s "
                                        "must have <= int32 max elements"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const T* x = input.base<const T>();
    T* y = out->base<T>();
    for (int64_t i = 0; i < n; ++i) y[i] = T(-1);
    for (int64_t i = 0; i < n; ++i) {
      const T d = x[i];
      OP_REQUIRES(ctx, d >= 0 && static_cast<int64_t>(d) < n,
                  errors::InvalidArgument(static_cast<int64_t>(d),
                                          " is not between 0 and ", n));
      OP_REQUIRES(ctx, y[d] == T(-1),
                  errors::InvalidArgument(static_cast<int64_t>(d),
                                          " is duplicated in the input."));
      y[d] = static_cast<T>(i);
    }
  }
};

REGISTER_KERNEL_BUILDER(
    Name("InvertPermutation").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
    InvertPermutationOp<int32_t>);
REGISTER_KERNEL_BUILDER(
    Name("InvertPermutation").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"),
    InvertPermutationOp<int64_t>);

}  // namespace
}  // namespace minflow
