// Unique(x; out_idx): y holds x's distinct values in order of first
// appearance, and x[i] == y[idx[i]]. Values compare with ==, so 0.0 and
// -0.0 are one value and every NaN is its own.
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"

namespace minflow {
namespace {

// The hash-map key of a value: half and bfloat16 as float (exact), others
// as themselves.
template <typename T>
using UniqueKey = std::conditional_t<
    std::is_same<T, half>::value || std::is_same<T, bfloat16>::value, float, T>;

template <typename T, typename TIndex>
class UniqueOp : public OpKernel {
 public:
  explicit UniqueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, TensorShapeUtils::IsVector(input.shape()),
                errors::InvalidArgument("unique expects a 1D vector."));
    const int64_t n = input.NumElements();
    OP_REQUIRES(ctx, n <= std::numeric_limits<TIndex>::max(),
                errors::InvalidArgument(
                    "unique does not support input tensors larger than ",
                    std::numeric_limits<TIndex>::max(), " elements"));
    Tensor* idx = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, input.shape(), &idx));
    const T* x = input.base<const T>();
    TIndex* idx_data = idx->base<TIndex>();
    std::unordered_map<UniqueKey<T>, TIndex> first;
    first.reserve(static_cast<size_t>(n));
    std::vector<int64_t> unique_pos;
    for (int64_t i = 0; i < n; ++i) {
      const auto it = first.emplace(static_cast<UniqueKey<T>>(x[i]),
                                    static_cast<TIndex>(unique_pos.size()));
      if (it.second) unique_pos.push_back(i);
      idx_data[i] = it.first->second;
    }
    Tensor* y = nullptr;
    OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            0, TensorShape({static_cast<int64_t>(unique_pos.size())}), &y));
    T* y_data = y->base<T>();
    for (size_t j = 0; j < unique_pos.size(); ++j) y_data[j] = x[unique_pos[j]];
  }
};

#define REGISTER_CPU(T)                                            \
  REGISTER_KERNEL_BUILDER(Name("Unique")                           \
                              .Device(DEVICE_CPU)                  \
                              .TypeConstraint<T>("T")              \
                              .TypeConstraint<int32_t>("out_idx"), \
                          UniqueOp<T, int32_t>);                   \
  REGISTER_KERNEL_BUILDER(Name("Unique")                           \
                              .Device(DEVICE_CPU)                  \
                              .TypeConstraint<T>("T")              \
                              .TypeConstraint<int64_t>("out_idx"), \
                          UniqueOp<T, int64_t>);
TF_CALL_REAL_NUMBER_TYPES(REGISTER_CPU)
TF_CALL_bool(REGISTER_CPU) TF_CALL_tstring(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
