// Split, SplitV, Unpack: cut a tensor along one axis. A piece that is a
// contiguous, aligned run of the input shares its buffer; the rest are
// strided copies.
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

// The input viewed as [outer, dim, inner] around the split axis.
struct AxisView {
  int64_t outer = 1;
  int64_t dim = 0;
  int64_t inner = 1;
};

AxisView ViewAround(const TensorShape& shape, int axis) {
  AxisView v;
  for (int d = 0; d < axis; ++d) v.outer *= shape.dim_size(d);
  v.dim = shape.dim_size(axis);
  for (int d = axis + 1; d < shape.dims(); ++d) v.inner *= shape.dim_size(d);
  return v;
}

// Output `index` = input[:, start:start+size, :] of `view`, with `shape`.
// Shares the input's buffer when the piece is contiguous (outer == 1) and
// stays aligned, as kernels reading it with flat<T>() require.
void SetPiece(OpKernelContext* ctx, const Tensor& input, const AxisView& view,
              int64_t start, int64_t size, const TensorShape& shape,
              int index) {
  if (shape.num_elements() == 0) {
    Tensor* unused = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(index, shape, &unused));
    return;
  }
  if (view.outer == 1) {
    Tensor rows;
    if (rows.CopyFrom(input, TensorShape({view.dim, view.inner}))) {
      Tensor piece = rows.Slice(start, start + size);
      Tensor output;
      if (piece.IsAligned() && output.CopyFrom(piece, shape)) {
        ctx->set_output(index, std::move(output));
        return;
      }
    }
  }
  Tensor* output = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(index, shape, &output));
  const void* src = ElementAt(input, start * view.inner);
  const int64_t sizes[] = {view.outer, size * view.inner};
  const int64_t strides[] = {view.dim * view.inner, 1};
  CopyStridedBox(ctx->device()->tensorflow_cpu_worker_threads(), input.dtype(),
                 src, sizes, strides, output->data());
}

// Reads split_dim (int32) and wraps a negative value; TF's message.
bool GetSplitDim(OpKernelContext* ctx, const Tensor& split_dim_tensor,
                 const Tensor& input, int* split_dim) {
  const int32_t orig = *split_dim_tensor.base<const int32_t>();
  const int rank = input.dims();
  const int64_t dim = orig < 0 ? static_cast<int64_t>(orig) + rank : orig;
  if (!(0 <= dim && dim < rank)) {
    ctx->CtxFailure(errors::InvalidArgument("-input rank(-", rank,
                                            ") <= split_dim < input rank (",
                                            rank, "), but got ", orig));
    return false;
  }
  *split_dim = static_cast<int>(dim);
  return true;
}

// Split(split_dim: int32, value: T; num_split): num_split equal pieces.
class SplitOp : public OpKernel {
 public:
  explicit SplitOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& split_dim_tensor = ctx->input(0);
    const Tensor& input = ctx->input(1);
    const int num_split = ctx->num_outputs();
    OP_REQUIRES(
        ctx, split_dim_tensor.dims() == 0,
        errors::InvalidArgument("split_dim must be a scalar but has rank ",
                                split_dim_tensor.dims()));
    int split_dim = 0;
    if (!GetSplitDim(ctx, split_dim_tensor, input, &split_dim)) return;
    const int64_t dim_size = input.dim_size(split_dim);
    OP_REQUIRES(
        ctx, dim_size % num_split == 0,
        errors::InvalidArgument(
            "Number of ways to split should evenly divide the split "
            "dimension, but got split_dim ",
            split_dim, " (size = ", dim_size, ") and num_split ", num_split));
    if (num_split == 1) {
      ctx->set_output(0, input);
      return;
    }
    const AxisView view = ViewAround(input.shape(), split_dim);
    const int64_t delta = dim_size / num_split;
    TensorShape shape = input.shape();
    shape.set_dim(split_dim, delta);
    for (int i = 0; i < num_split; ++i) {
      SetPiece(ctx, input, view, i * delta, delta, shape, i);
      if (!ctx->status().ok()) return;
    }
  }
};

// SplitV(value: T, size_splits: Tlen, split_dim: int32; num_split): pieces
// of the given sizes, one of which may be -1 (the rest).
class SplitVOp : public OpKernel {
 public:
  explicit SplitVOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& split_tensor = ctx->input(1);
    const Tensor& split_dim_tensor = ctx->input(2);
    const int num_split = ctx->num_outputs();
    OP_REQUIRES(ctx, split_dim_tensor.NumElements() == 1,
                errors::InvalidArgument("split_dim_tensor must have "
                                        "exactly one element."));
    OP_REQUIRES(
        ctx,
        split_tensor.dims() == 1 && split_tensor.NumElements() == num_split,
        errors::InvalidArgument("size of the split_tensor must be 1-D and have "
                                "the same elements as outputs got ",
                                split_tensor.dims(), " -D and ",
                                split_tensor.NumElements(), " elements"));
    int split_dim = 0;
    if (!GetSplitDim(ctx, split_dim_tensor, input, &split_dim)) return;
    const int64_t dim_size = input.dim_size(split_dim);

    std::vector<int64_t> sizes(num_split);
    for (int i = 0; i < num_split; ++i) {
      switch (split_tensor.dtype()) {
        case DT_INT8:
          sizes[i] = split_tensor.base<const int8_t>()[i];
          break;
        case DT_INT32:
          sizes[i] = split_tensor.base<const int32_t>()[i];
          break;
        default:
          sizes[i] = split_tensor.base<const int64_t>()[i];
          break;
      }
    }
    if (num_split == 1) {
      OP_REQUIRES(ctx, sizes[0] == dim_size || sizes[0] == -1,
                  errors::InvalidArgument(
                      "If there is only one output, it must have the same "
                      "size as the input. Input size: ",
                      dim_size, " output size: ", sizes[0]));
      ctx->set_output(0, input);
      return;
    }
    // Negative sizes other than -1 are rejected before summing, so the sum
    // (checked against dim_size as it grows) cannot overflow.
    int neg_one_dim = -1;
    int64_t determined_size = 0;
    for (int i = 0; i < num_split; ++i) {
      const int64_t size = sizes[i];
      if (size == -1) {
        OP_REQUIRES(ctx, neg_one_dim == -1,
                    errors::InvalidArgument("There can only be one -1 in the "
                                            "input."));
        neg_one_dim = i;
        continue;
      }
      OP_REQUIRES(ctx, size >= 0,
                  errors::InvalidArgument("Split size at index ", i,
                                          " must be >= 0. Got: ", size));
      OP_REQUIRES(
          ctx, size <= dim_size - determined_size,
          errors::InvalidArgument(
              "Determined shape must either match input shape along "
              "split_dim exactly if fully specified, or be less than the "
              "size of the input along split_dim if not fully specified.  "
              "Got: ",
              determined_size + size));
      determined_size += size;
    }
    OP_REQUIRES(
        ctx, neg_one_dim >= 0 || determined_size == dim_size,
        errors::InvalidArgument(
            "Determined shape must either match input shape along split_dim "
            "exactly if fully specified, or be less than the size of the "
            "input along split_dim if not fully specified.  Got: ",
            determined_size));
    if (neg_one_dim >= 0) sizes[neg_one_dim] = dim_size - determined_size;

    const AxisView view = ViewAround(input.shape(), split_dim);
    int64_t start = 0;
    for (int i = 0; i < num_split; ++i) {
      TensorShape shape = input.shape();
      shape.set_dim(split_dim, sizes[i]);
      SetPiece(ctx, input, view, start, sizes[i], shape, i);
      if (!ctx->status().ok()) return;
      start += sizes[i];
    }
  }
};

// Unpack(value: T; num, axis): the num slices along `axis`, each without it.
class UnpackOp : public OpKernel {
 public:
  explicit UnpackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int64_t num = ctx->num_outputs();
    const Tensor& input = ctx->input(0);
    const TensorShape& input_shape = input.shape();
    const int rank = input_shape.dims();
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    OP_REQUIRES(ctx, 0 <= axis && axis < rank,
                errors::InvalidArgument("axis = ", axis_, " not in [", -rank,
                                        ", ", rank, ")"));
    OP_REQUIRES(
        ctx, input_shape.dim_size(static_cast<int>(axis)) == num,
        errors::InvalidArgument("Input shape axis ", axis, " must equal ", num,
                                ", got shape ", input_shape.DebugString()));
    TensorShape output_shape = input_shape;
    output_shape.RemoveDim(static_cast<int>(axis));
    const AxisView view = ViewAround(input_shape, static_cast<int>(axis));
    for (int i = 0; i < num; ++i) {
      SetPiece(ctx, input, view, i, 1, output_shape, i);
      if (!ctx->status().ok()) return;
    }
  }

 private:
  int64_t axis_ = 0;
};

#define REGISTER_CPU(T)                                  \
  REGISTER_KERNEL_BUILDER(Name("Split")                  \
                              .Device(DEVICE_CPU)        \
                              .TypeConstraint<T>("T")    \
                              .HostMemory("split_dim"),  \
                          SplitOp);                      \
  REGISTER_KERNEL_BUILDER(Name("SplitV")                 \
                              .Device(DEVICE_CPU)        \
                              .TypeConstraint<T>("T")    \
                              .HostMemory("size_splits") \
                              .HostMemory("split_dim"),  \
                          SplitVOp);                     \
  REGISTER_KERNEL_BUILDER(                               \
      Name("Unpack").Device(DEVICE_CPU).TypeConstraint<T>("T"), UnpackOp);
TF_CALL_ALL_TYPES(REGISTER_CPU)
TF_CALL_QUANTIZED_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
