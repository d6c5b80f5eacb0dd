// Slice(input, begin, size): the box input[begin : begin + size], where a
// size of -1 takes everything to the end of that dimension.
#include <cstdint>
#include <limits>

#include "absl/container/inlined_vector.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

int64_t ReadIndex(const Tensor& t, int64_t i) {
  return t.dtype() == DT_INT32
             ? static_cast<int64_t>(t.base<const int32_t>()[i])
             : t.base<const int64_t>()[i];
}

// Index: int32 or int64.
class SliceOp : public OpKernel {
 public:
  explicit SliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& begin_tensor = ctx->input(1);
    const Tensor& size_tensor = ctx->input(2);
    const int input_dims = input.dims();
    OP_REQUIRES(
        ctx,
        TensorShapeUtils::IsVector(begin_tensor.shape()) &&
            TensorShapeUtils::IsVector(size_tensor.shape()) &&
            begin_tensor.NumElements() == input_dims &&
            size_tensor.NumElements() == input_dims,
        errors::InvalidArgument(
            "Expected begin and size arguments to be 1-D tensors of size ",
            input_dims, ", but got shapes ", begin_tensor.shape().DebugString(),
            " and ", size_tensor.shape().DebugString(), " instead."));

    absl::InlinedVector<int64_t, 8> begin(input_dims);
    absl::InlinedVector<int64_t, 8> size(input_dims);
    bool is_identity = true;
    bool slice_dim0 = true;
    for (int i = 0; i < input_dims; ++i) {
      const int64_t dim = input.dim_size(i);
      const int64_t b = ReadIndex(begin_tensor, i);
      int64_t s = ReadIndex(size_tensor, i);
      if (dim == 0) {
        // TF lets size -1 mean "to the end" before this check.
        if (s == -1 && b == 0) s = 0;
        OP_REQUIRES(
            ctx, b == 0 && s == 0,
            errors::InvalidArgument("Expected begin[", i, "] == 0 (got ", b,
                                    ") and size[", i, "] == 0 ", "(got ", s,
                                    ") when ", "input.dim_size(", i, ") == 0"));
      } else {
        OP_REQUIRES(ctx, 0 <= b && b <= dim,
                    errors::InvalidArgument("Expected begin[", i, "] in [0, ",
                                            dim, "], but got ", b));
        if (s == -1) s = dim - b;
        OP_REQUIRES(ctx, 0 <= s && s <= dim - b,
                    errors::InvalidArgument("Expected size[", i, "] in [0, ",
                                            dim - b, "], but ", "got ", s));
      }
      begin[i] = b;
      size[i] = s;
      const bool take_all = b == 0 && s == dim;
      is_identity &= take_all;
      slice_dim0 &= i == 0 || take_all;
    }
    TensorShape output_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(size, &output_shape));

    if (is_identity) {
      ctx->set_output(0, input);
      return;
    }
    if (slice_dim0 && output_shape.num_elements() > 0) {
      Tensor piece = input.Slice(begin[0], begin[0] + size[0]);
      if (piece.IsAligned()) {
        ctx->set_output(0, std::move(piece));
        return;
      }
    }
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, output_shape, &output));
    if (output_shape.num_elements() == 0) return;
    const auto strides = DenseStrides(input.shape().dim_sizes());
    int64_t offset = 0;
    for (int i = 0; i < input_dims; ++i) offset += begin[i] * strides[i];
    CopyStridedBox(ctx->device()->tensorflow_cpu_worker_threads(),
                   input.dtype(), ElementAt(input, offset), size, strides,
                   output->data());
  }
};

#define REGISTER_CPU(T)                               \
  REGISTER_KERNEL_BUILDER(Name("Slice")               \
                              .Device(DEVICE_CPU)     \
                              .TypeConstraint<T>("T") \
                              .HostMemory("begin")    \
                              .HostMemory("size"),    \
                          SliceOp);
TF_CALL_ALL_TYPES(REGISTER_CPU)
TF_CALL_QUANTIZED_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
