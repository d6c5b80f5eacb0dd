// StridedSlice(input, begin, end, strides; masks): numpy's basic indexing,
// foo[b0:e0:s0, ..., tf.newaxis, 3], with TF's five masks.
#include <algorithm>
#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "minflow/framework/strided_slice_spec.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("begin_mask", &masks_.begin_mask));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("end_mask", &masks_.end_mask));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ellipsis_mask", &masks_.ellipsis_mask));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("new_axis_mask", &masks_.new_axis_mask));
    OP_REQUIRES_OK(ctx,
                   ctx->GetAttr("shrink_axis_mask", &masks_.shrink_axis_mask));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    StridedSliceAnalysis a;
    OP_REQUIRES_OK(
        ctx, ValidateStridedSliceOp(
                 &ctx->input(1), &ctx->input(2), ctx->input(3), input.shape(),
                 masks_.begin_mask, masks_.end_mask, masks_.ellipsis_mask,
                 masks_.new_axis_mask, masks_.shrink_axis_mask, &a));
    // Every dim is known, so both shapes are fully defined.
    TensorShape processing_shape;
    TensorShape final_shape;
    OP_REQUIRES(ctx,
                a.processing_shape.AsTensorShape(&processing_shape) &&
                    a.final_shape.AsTensorShape(&final_shape),
                errors::Internal("ValidateStridedSliceOp returned partial "
                                 "shapes ",
                                 a.processing_shape.DebugString(), " and ",
                                 a.final_shape.DebugString()));

    if (a.is_identity) {
      Tensor output;
      OP_REQUIRES(ctx, output.CopyFrom(input, final_shape),
                  errors::Internal("StridedSlice: reshape failed"));
      ctx->set_output(0, std::move(output));
      return;
    }
    // A run of whole rows of dim 0 is shared when it stays aligned.
    if (a.slice_dim0 && input.dims() >= 1 && final_shape.num_elements() > 0) {
      Tensor piece = input.Slice(std::min(a.begin[0], a.end[0]), a.end[0]);
      Tensor output;
      if (piece.IsAligned() && output.CopyFrom(piece, final_shape)) {
        ctx->set_output(0, std::move(output));
        return;
      }
    }
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, final_shape, &output));
    if (final_shape.num_elements() == 0) return;

    // A box of processing_shape: dim i starts at begin[i] and steps by
    // strides[i]. Strides of single-element dims are never used, and the
    // others are below the dim size, so no product overflows.
    const int rank = input.dims();
    const auto in_strides = DenseStrides(input.shape().dim_sizes());
    absl::InlinedVector<int64_t, 8> box_strides(rank, 0);
    int64_t offset = 0;
    for (int i = 0; i < rank; ++i) {
      offset += a.begin[i] * in_strides[i];
      if (processing_shape.dim_size(i) > 1) {
        box_strides[i] = a.strides[i] * in_strides[i];
      }
    }
    CopyStridedBox(ctx->device()->tensorflow_cpu_worker_threads(),
                   input.dtype(), ElementAt(input, offset),
                   processing_shape.dim_sizes(), box_strides, output->data());
  }

 private:
  StridedSliceMasks masks_;
};

#define REGISTER_CPU(T)                               \
  REGISTER_KERNEL_BUILDER(Name("StridedSlice")        \
                              .Device(DEVICE_CPU)     \
                              .TypeConstraint<T>("T") \
                              .HostMemory("begin")    \
                              .HostMemory("end")      \
                              .HostMemory("strides"), \
                          StridedSliceOp);
TF_CALL_ALL_TYPES(REGISTER_CPU)
TF_CALL_QUANTIZED_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
