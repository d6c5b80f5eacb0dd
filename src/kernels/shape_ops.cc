// Shape, Size, Rank: facts about the input's shape, never its data, so any
// dtype is accepted and the outputs live in host memory.
#include <cstdint>
#include <limits>

#include "minflow/framework/op_kernel.h"

namespace minflow {
namespace {

// Shape(input; out_type): the dims of `input` as a vector of int32 or int64.
template <typename OutType>
class ShapeOp : public OpKernel {
 public:
  explicit ShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const TensorShape& shape = ctx->input(0).shape();
    const int rank = shape.dims();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({rank}), &out));
    OutType* vec = out->base<OutType>();
    for (int i = 0; i < rank; ++i) {
      const int64_t dim_size = shape.dim_size(i);
      OP_REQUIRES(ctx, dim_size <= std::numeric_limits<OutType>::max(),
                  errors::InvalidArgument("Shape output type is 32-bit ",
                                          " but dim ", i, " is ", dim_size));
      vec[i] = static_cast<OutType>(dim_size);
    }
  }

  bool IsExpensive() override { return false; }
};

// Size(input; out_type): the element count of `input`.
template <typename OutType>
class SizeOp : public OpKernel {
 public:
  explicit SizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const int64_t size = ctx->input(0).NumElements();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    OP_REQUIRES(ctx, size <= std::numeric_limits<OutType>::max(),
                errors::InvalidArgument("Number of elements was larger than "
                                        "representable by 32-bit output type"));
    *out->base<OutType>() = static_cast<OutType>(size);
  }

  bool IsExpensive() override { return false; }
};

// Rank(input): the number of dimensions, as an int32 scalar.
class RankOp : public OpKernel {
 public:
  explicit RankOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    *out->base<int32_t>() = ctx->input(0).dims();
  }

  bool IsExpensive() override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Shape")
                            .Device(DEVICE_CPU)
                            .HostMemory("output")
                            .TypeConstraint<int32_t>("out_type"),
                        ShapeOp<int32_t>);
REGISTER_KERNEL_BUILDER(Name("Shape")
                            .Device(DEVICE_CPU)
                            .HostMemory("output")
                            .TypeConstraint<int64_t>("out_type"),
                        ShapeOp<int64_t>);
REGISTER_KERNEL_BUILDER(Name("Size")
                            .Device(DEVICE_CPU)
                            .HostMemory("output")
                            .TypeConstraint<int32_t>("out_type"),
                        SizeOp<int32_t>);
REGISTER_KERNEL_BUILDER(Name("Size")
                            .Device(DEVICE_CPU)
                            .HostMemory("output")
                            .TypeConstraint<int64_t>("out_type"),
                        SizeOp<int64_t>);
REGISTER_KERNEL_BUILDER(Name("Rank").Device(DEVICE_CPU).HostMemory("output"),
                        RankOp);

}  // namespace
}  // namespace minflow
