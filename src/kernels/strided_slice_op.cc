// StridedSlice(input, begin, end, strides; masks): numpy's basic indexing,
// foo[b0:e0:s0, ..., tf.newaxis, 3], with TF's five masks; and
// StridedSliceGrad, its gradient, which writes dy back into the same box.
#include <algorithm>
#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "minflow/framework/strided_slice_spec.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

Status ReadMasks(OpKernelConstruction* ctx, StridedSliceMasks* masks) {
  MF_RETURN_IF_ERROR(ctx->GetAttr("begin_mask", &masks->begin_mask));
  MF_RETURN_IF_ERROR(ctx->GetAttr("end_mask", &masks->end_mask));
  MF_RETURN_IF_ERROR(ctx->GetAttr("ellipsis_mask", &masks->ellipsis_mask));
  MF_RETURN_IF_ERROR(ctx->GetAttr("new_axis_mask", &masks->new_axis_mask));
  return ctx->GetAttr("shrink_axis_mask", &masks->shrink_axis_mask);
}

// What both kernels need of a slice of `input_shape` whose begin, end and
// strides are inputs 1, 2, 3 of `ctx`.
struct SlicePlan {
  StridedSliceAnalysis a;
  TensorShape processing_shape;
  TensorShape final_shape;
  // The box the slice reads: the row-major offset of its first element and
  // the step of each processing dim, in elements of the input.
  int64_t offset = 0;
  absl::InlinedVector<int64_t, 8> box_strides;
};

Status PlanSlice(OpKernelContext* ctx, const TensorShape& input_shape,
                 const StridedSliceMasks& masks, SlicePlan* plan) {
  StridedSliceAnalysis& a = plan->a;
  MF_RETURN_IF_ERROR(ValidateStridedSliceOp(
      &ctx->input(1), &ctx->input(2), ctx->input(3), input_shape,
      masks.begin_mask, masks.end_mask, masks.ellipsis_mask,
      masks.new_axis_mask, masks.shrink_axis_mask, &a));
  // Every dim is known, so both shapes are fully defined.
  if (!a.processing_shape.AsTensorShape(&plan->processing_shape) ||
      !a.final_shape.AsTensorShape(&plan->final_shape)) {
    return errors::Internal("ValidateStridedSliceOp returned partial shapes ",
                            a.processing_shape.DebugString(), " and ",
                            a.final_shape.DebugString());
  }
  // Dim i starts at begin[i] and steps by strides[i]. Strides of
  // single-element dims are never used, and the others are below the dim
  // size, so no product overflows.
  const int rank = input_shape.dims();
  const auto in_strides = DenseStrides(input_shape.dim_sizes());
  plan->box_strides.assign(rank, 0);
  plan->offset = 0;
  if (plan->processing_shape.num_elements() == 0) return OkStatus();
  for (int i = 0; i < rank; ++i) {
    plan->offset += a.begin[i] * in_strides[i];
    if (plan->processing_shape.dim_size(i) > 1) {
      plan->box_strides[i] = a.strides[i] * in_strides[i];
    }
  }
  return OkStatus();
}

// The inverse of CopyStridedBox: dst[sum_d i_d * dst_strides[d]] =
// src[i_0, ..., i_{r-1}] for every index of `sizes`, src dense. The box
// never writes an element twice (its strides are those of distinct input
// elements).
template <typename E>
void ScatterStridedBox(const E* src, absl::Span<const int64_t> sizes,
                       absl::Span<const int64_t> dst_strides, E* dst) {
  const int rank = static_cast<int>(sizes.size());
  if (rank == 0) {
    *dst = *src;
    return;
  }
  const int64_t inner = sizes[rank - 1];
  const int64_t inner_stride = dst_strides[rank - 1];
  int64_t rows = 1;
  for (int d = 0; d < rank - 1; ++d) rows *= sizes[d];
  absl::InlinedVector<int64_t, 8> idx(rank, 0);
  int64_t base = 0;
  for (int64_t r = 0; r < rows; ++r, src += inner) {
    E* row = dst + base;
    for (int64_t k = 0; k < inner; ++k) row[k * inner_stride] = src[k];
    for (int d = rank - 2; d >= 0; --d) {
      base += dst_strides[d];
      if (++idx[d] < sizes[d]) break;
      base -= idx[d] * dst_strides[d];
      idx[d] = 0;
    }
  }
}

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadMasks(ctx, &masks_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    SlicePlan plan;
    OP_REQUIRES_OK(ctx, PlanSlice(ctx, input.shape(), masks_, &plan));
    const StridedSliceAnalysis& a = plan.a;
    const TensorShape& processing_shape = plan.processing_shape;
    const TensorShape& final_shape = plan.final_shape;

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

    CopyStridedBox(ctx->device()->tensorflow_cpu_worker_threads(),
                   input.dtype(), ElementAt(input, plan.offset),
                   processing_shape.dim_sizes(), plan.box_strides,
                   output->data());
  }

 private:
  StridedSliceMasks masks_;
};

// StridedSliceGrad(shape, begin, end, strides, dy; masks): zeros of `shape`
// with dy written into the box StridedSlice would read.
class StridedSliceGradOp : public OpKernel {
 public:
  explicit StridedSliceGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadMasks(ctx, &masks_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    const Tensor& dy = ctx->input(4);
    OP_REQUIRES(ctx, TensorShapeUtils::IsVector(shape_t.shape()),
                errors::InvalidArgument(
                    "StridedSliceGrad: shape must be a vector, but got shape ",
                    shape_t.shape().DebugString()));
    absl::InlinedVector<int64_t, 8> dims(shape_t.NumElements());
    for (int64_t i = 0; i < shape_t.NumElements(); ++i) {
      dims[i] = shape_t.dtype() == DT_INT32
                    ? static_cast<int64_t>(shape_t.base<const int32_t>()[i])
                    : shape_t.base<const int64_t>()[i];
      OP_REQUIRES(ctx, dims[i] >= 0,
                  errors::InvalidArgument(
                      "StridedSliceGrad: shape must not be negative, but got ",
                      dims[i], " in dimension ", i));
    }
    TensorShape input_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(dims, &input_shape));
    SlicePlan plan;
    OP_REQUIRES_OK(ctx, PlanSlice(ctx, input_shape, masks_, &plan));
    OP_REQUIRES(ctx, dy.shape() == plan.final_shape,
                errors::InvalidArgument(
                    "shape of dy was ", dy.shape().DebugString(),
                    " instead of ", plan.final_shape.DebugString()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input_shape, &output));
    const bool ok = VisitElementSize(dy.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      E* out = static_cast<E*>(output->data());
      std::fill(out, out + output->NumElements(), E{});
      if (dy.NumElements() == 0) return;
      ScatterStridedBox<E>(static_cast<const E*>(dy.data()),
                           plan.processing_shape.dim_sizes(), plan.box_strides,
                           out + plan.offset);
    });
    OP_REQUIRES(
        ctx, ok,
        errors::Unimplemented("StridedSliceGrad of ",
                              DataTypeString(dy.dtype()), " is not supported"));
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

#define REGISTER_CPU(T)                               \
  REGISTER_KERNEL_BUILDER(Name("StridedSliceGrad")    \
                              .Device(DEVICE_CPU)     \
                              .TypeConstraint<T>("T") \
                              .HostMemory("shape")    \
                              .HostMemory("begin")    \
                              .HostMemory("end")      \
                              .HostMemory("strides"), \
                          StridedSliceGradOp);
TF_CALL_ALL_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
