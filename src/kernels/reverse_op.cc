// ReverseV2(tensor, axis): tensor with the order of its elements reversed
// along each listed axis.
#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

template <typename Tidx>
class ReverseV2Op : public OpKernel {
 public:
  explicit ReverseV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& axis = ctx->input(1);
    // TF hands back a scalar or an empty input before looking at `axis`.
    if (input.dims() == 0 || input.NumElements() == 0) {
      ctx->set_output(0, input);
      return;
    }
    OP_REQUIRES(ctx, TensorShapeUtils::IsVector(axis.shape()),
                errors::InvalidArgument("'dims' must be 1-dimension, not ",
                                        axis.dims()));
    const int rank = input.dims();
    absl::InlinedVector<bool, 8> reversed(rank, false);
    for (int64_t i = 0; i < axis.NumElements(); ++i) {
      const int64_t a = static_cast<int64_t>(axis.base<const Tidx>()[i]);
      const int64_t canonical = a < 0 ? a + rank : a;
      OP_REQUIRES(
          ctx, canonical >= 0 && canonical < rank,
          errors::InvalidArgument("'axis'[", i, "] = ", a,
                                  " is out of valid range [0, ", rank - 1));
      OP_REQUIRES(ctx, !reversed[canonical],
                  errors::InvalidArgument("axis ", canonical,
                                          " specified more than once."));
      reversed[canonical] = true;
    }
    OP_REQUIRES(ctx, rank <= 8,
                errors::Unimplemented(
                    "reverse is not implemented for tensors of rank > 8."));
    // Output index i reads input index i on kept axes and n - 1 - i on
    // reversed ones: start at the far end of those with a negative stride.
    absl::InlinedVector<int64_t, 8> sizes(rank);
    absl::InlinedVector<int64_t, 8> strides(rank);
    int64_t stride = 1;
    int64_t start = 0;
    for (int d = rank - 1; d >= 0; --d) {
      sizes[d] = input.dim_size(d);
      strides[d] = reversed[d] ? -stride : stride;
      if (reversed[d]) start += (sizes[d] - 1) * stride;
      stride *= sizes[d];
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    CopyStridedBox(ctx->device()->tensorflow_cpu_worker_threads(),
                   input.dtype(), ElementAt(input, start), sizes, strides,
                   out->data());
  }
};

#define REGISTER_CPU(T)                                        \
  REGISTER_KERNEL_BUILDER(Name("ReverseV2")                    \
                              .Device(DEVICE_CPU)              \
                              .TypeConstraint<T>("T")          \
                              .TypeConstraint<int32_t>("Tidx") \
                              .HostMemory("axis"),             \
                          ReverseV2Op<int32_t>);               \
  REGISTER_KERNEL_BUILDER(Name("ReverseV2")                    \
                              .Device(DEVICE_CPU)              \
                              .TypeConstraint<T>("T")          \
                              .TypeConstraint<int64_t>("Tidx") \
                              .HostMemory("axis"),             \
                          ReverseV2Op<int64_t>);
TF_CALL_ALL_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
