// Fill(dims, value), ZerosLike(x), OnesLike(x): tensors of one value.
#include <cstdint>
#include <string>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

// Fill(dims: index_type, value: T): `dims` is a vector (a scalar is
// accepted as TF's legacy form), `value` a scalar or a [1] vector.
class FillOp : public OpKernel {
 public:
  explicit FillOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dims = ctx->input(0);
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(
        ctx,
        TensorShapeUtils::IsVector(dims.shape()) ||
            TensorShapeUtils::IsScalar(dims.shape()),
        errors::InvalidArgument("dims must represent a vector, got shape ",
                                dims.shape().DebugString()));
    OP_REQUIRES(
        ctx,
        TensorShapeUtils::IsScalar(value.shape()) ||
            (TensorShapeUtils::IsVector(value.shape()) &&
             value.shape().dim_size(0) == 1),
        errors::InvalidArgument("value must represent a scalar, got shape ",
                                value.shape().DebugString()));
    TensorShape shape;
    if (dims.dtype() == DT_INT32) {
      OP_REQUIRES_OK(ctx,
                     TensorShapeUtils::MakeShape(
                         absl::Span<const int32_t>(dims.base<const int32_t>(),
                                                   dims.NumElements()),
                         &shape));
    } else {
      OP_REQUIRES_OK(ctx,
                     TensorShapeUtils::MakeShape(
                         absl::Span<const int64_t>(dims.base<const int64_t>(),
                                                   dims.NumElements()),
                         &shape));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    FillWithValue(ctx->device()->tensorflow_cpu_worker_threads(), out->dtype(),
                  value.data(), out->NumElements(), out->data());
  }
};

// ZerosLike(x): zeros (empty strings) of x's shape, in x's buffer when it
// may be overwritten.
class ZerosLikeOp : public OpKernel {
 public:
  explicit ZerosLikeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, input.shape(), &out));
    const std::string empty;
    alignas(16) const unsigned char zeros[16] = {};
    const void* zero = out->dtype() == DT_STRING
                           ? static_cast<const void*>(&empty)
                           : static_cast<const void*>(zeros);
    FillWithValue(ctx->device()->tensorflow_cpu_worker_threads(), out->dtype(),
                  zero, out->NumElements(), out->data());
  }
};

template <typename T>
void SetOne(Tensor* t) {
  *t->base<T>() = T(1);
}

// OnesLike(x): ones (true for bool) of x's shape.
class OnesLikeOp : public OpKernel {
 public:
  explicit OnesLikeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor one(input.dtype(), TensorShape({}));
    switch (input.dtype()) {
#define CASE(T)                  \
  case DataTypeToEnum<T>::value: \
    SetOne<T>(&one);             \
    break;
      TF_CALL_POD_TYPES(CASE)
#undef CASE
      default:
        OP_REQUIRES(
            ctx, false,
            errors::Unimplemented("OnesLike of ", DataTypeString(input.dtype()),
                                  " is not supported"));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, input.shape(), &out));
    FillWithValue(ctx->device()->tensorflow_cpu_worker_threads(), out->dtype(),
                  one.data(), out->NumElements(), out->data());
  }
};

#define REGISTER_FILL(T)                                             \
  REGISTER_KERNEL_BUILDER(Name("Fill")                               \
                              .Device(DEVICE_CPU)                    \
                              .TypeConstraint<T>("T")                \
                              .TypeConstraint<int32_t>("index_type") \
                              .HostMemory("dims"),                   \
                          FillOp);                                   \
  REGISTER_KERNEL_BUILDER(Name("Fill")                               \
                              .Device(DEVICE_CPU)                    \
                              .TypeConstraint<T>("T")                \
                              .TypeConstraint<int64_t>("index_type") \
                              .HostMemory("dims"),                   \
                          FillOp);
TF_CALL_ALL_TYPES(REGISTER_FILL)
TF_CALL_QUANTIZED_TYPES(REGISTER_FILL)
#undef REGISTER_FILL

#define REGISTER_ZEROS(T)                                          \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("ZerosLike").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ZerosLikeOp);
TF_CALL_POD_STRING_TYPES(REGISTER_ZEROS)
#undef REGISTER_ZEROS

#define REGISTER_ONES(T)   \
  REGISTER_KERNEL_BUILDER( \
      Name("OnesLike").Device(DEVICE_CPU).TypeConstraint<T>("T"), OnesLikeOp);
TF_CALL_POD_TYPES(REGISTER_ONES)
#undef REGISTER_ONES

}  // namespace
}  // namespace minflow
