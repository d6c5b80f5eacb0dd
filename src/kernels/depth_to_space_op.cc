// DepthToSpace and SpaceToDepth (NHWC on CPU, as TensorFlow's CPU kernels):
// each is a transpose of a 6-D view of the input, done as one strided copy
// over bytes, so every dtype shares one instantiation per element size.
//
// DepthToSpace: input [N, H, W, C] viewed as [N, H, W, b, b, C/b^2] becomes
// [N, H, b, W, b, C/b^2] = [N, H*b, W*b, C/b^2]. SpaceToDepth is the inverse:
// [N, H/b, b, W/b, b, C] becomes [N, H/b, W/b, b, b, C].
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "minflow/framework/tensor_format.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

template <bool kToSpace>
class DepthSpaceOp : public OpKernel {
 public:
  explicit DepthSpaceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string format_str;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format_str));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("block_size", &block_size_));
    OP_REQUIRES(ctx, block_size_ > 1,
                errors::InvalidArgument("Block size should be > 1, but was: ",
                                        block_size_));
    // So that b * b and the messages' arithmetic stay in int64.
    OP_REQUIRES(
        ctx, block_size_ <= std::numeric_limits<int32_t>::max(),
        errors::InvalidArgument(
            "Block size should be at most 2147483647, but was: ", block_size_));
    TensorFormat format;
    OP_REQUIRES(
        ctx, FormatFromString(format_str, &format) && format == FORMAT_NHWC,
        errors::InvalidArgument("Only NHWC data_format supported on CPU. Got ",
                                format_str));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, input.dims() == 4,
                errors::InvalidArgument("Input rank should be: 4 instead of: ",
                                        input.dims()));
    const int64_t b = block_size_;
    const int64_t batch = input.dim_size(0);
    const int64_t height = input.dim_size(1);
    const int64_t width = input.dim_size(2);
    const int64_t depth = input.dim_size(3);
    TensorShape out_shape;
    // sizes: the output viewed as 6-D; strides: where each of its dims
    // steps in the input.
    int64_t sizes[6];
    int64_t strides[6];
    if (kToSpace) {
      OP_REQUIRES(ctx, depth % (b * b) == 0,
                  errors::InvalidArgument("Input depth dimension ", depth,
                                          " should be divisible by: ", b * b));
      const int64_t out_depth = depth / (b * b);
      int64_t out_h = 0;
      int64_t out_w = 0;
      OP_REQUIRES(ctx,
                  !__builtin_mul_overflow(height, b, &out_h) &&
                      !__builtin_mul_overflow(width, b, &out_w),
                  errors::InvalidArgument("Output spatial size overflows: ",
                                          input.shape().DebugString(),
                                          " with block size ", b));
      OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(
                              {batch, out_h, out_w, out_depth}, &out_shape));
      const int64_t s[6] = {batch, height, b, width, b, out_depth};
      const int64_t t[6] = {height * width * depth,
                            width * depth,
                            b * out_depth,
                            depth,
                            out_depth,
                            1};
      std::copy(s, s + 6, sizes);
      std::copy(t, t + 6, strides);
    } else {
      OP_REQUIRES(
          ctx, width % b == 0 && height % b == 0,
          errors::InvalidArgument("Image width ", width, " and height ", height,
                                  " should be divisible by block_size: ", b));
      const int64_t out_h = height / b;
      const int64_t out_w = width / b;
      int64_t out_depth = 0;
      OP_REQUIRES(ctx, !__builtin_mul_overflow(depth, b * b, &out_depth),
                  errors::InvalidArgument(
                      "Output depth overflows: ", input.shape().DebugString(),
                      " with block size ", b));
      OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(
                              {batch, out_h, out_w, out_depth}, &out_shape));
      const int64_t s[6] = {batch, out_h, out_w, b, b, depth};
      const int64_t t[6] = {height * width * depth,
                            b * width * depth,
                            b * depth,
                            width * depth,
                            depth,
                            1};
      std::copy(s, s + 6, sizes);
      std::copy(t, t + 6, strides);
    }
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (out_shape.num_elements() == 0) return;
    OP_REQUIRES(ctx, IsMovableDataType(input.dtype()),
                errors::Unimplemented(type_string(), " of ",
                                      DataTypeString(input.dtype()),
                                      " is not supported"));
    CopyStridedBox(ctx->device()->tensorflow_cpu_worker_threads(),
                   input.dtype(), ElementAt(input, 0), sizes, strides,
                   const_cast<void*>(ElementAt(*output, 0)));
  }

 private:
  int64_t block_size_ = 0;
};

// A byte copy, so TensorFlow's whole CPU list costs registrations only.
#define REGISTER_CPU(T)                                               \
  REGISTER_KERNEL_BUILDER(                                            \
      Name("DepthToSpace").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      DepthSpaceOp<true>);                                            \
  REGISTER_KERNEL_BUILDER(                                            \
      Name("SpaceToDepth").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      DepthSpaceOp<false>);
TF_CALL_ALL_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
