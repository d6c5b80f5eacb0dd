// OneHot(indices, depth, on_value, off_value; axis): output[..., j, ...] is
// on_value where indices[...] == j, off_value elsewhere. An index outside
// [0, depth) gives a row of off_value (TF's semantics, not an error).
#include <cstdint>
#include <limits>

#include "absl/container/inlined_vector.h"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

template <typename E, typename TI>
void ScatterOn(const DeviceBase::CpuWorkerThreads* workers, const TI* indices,
               int64_t prefix, int64_t depth, int64_t suffix, const E& on,
               E* out) {
  auto work = [&](int64_t begin, int64_t end) {
    for (int64_t j = begin; j < end; ++j) {
      const int64_t idx = static_cast<int64_t>(indices[j]);
      if (idx < 0 || idx >= depth) continue;
      const int64_t p = j / suffix;
      const int64_t s = j % suffix;
      out[(p * depth + idx) * suffix + s] = on;
    }
  };
  Shard(workers->num_threads, workers->workers, prefix * suffix, 4, work);
}

template <typename E>
void ScatterOnAnyIndex(const DeviceBase::CpuWorkerThreads* workers,
                       const Tensor& indices, int64_t prefix, int64_t depth,
                       int64_t suffix, const E& on, E* out) {
  switch (indices.dtype()) {
    case DT_UINT8:
      ScatterOn(workers, indices.base<const uint8_t>(), prefix, depth, suffix,
                on, out);
      break;
    case DT_INT8:
      ScatterOn(workers, indices.base<const int8_t>(), prefix, depth, suffix,
                on, out);
      break;
    case DT_INT32:
      ScatterOn(workers, indices.base<const int32_t>(), prefix, depth, suffix,
                on, out);
      break;
    default:
      ScatterOn(workers, indices.base<const int64_t>(), prefix, depth, suffix,
                on, out);
      break;
  }
}

class OneHotOp : public OpKernel {
 public:
  explicit OneHotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& depth = ctx->input(1);
    const Tensor& on_value = ctx->input(2);
    const Tensor& off_value = ctx->input(3);
    const TensorShape& indices_shape = indices.shape();
    const int indices_dims = indices_shape.dims();
    const int output_dims = indices_dims + 1;
    OP_REQUIRES(
        ctx, axis_ == -1 || (axis_ >= 0 && axis_ < output_dims),
        errors::InvalidArgument("Expected axis to be -1 or between [0, ",
                                output_dims, ").  But received: ", axis_));
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(depth.shape()),
                errors::InvalidArgument("depth must be a scalar, but got: ",
                                        depth.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(on_value.shape()),
                errors::InvalidArgument("on_value must be a scalar, but got: ",
                                        on_value.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(off_value.shape()),
                errors::InvalidArgument("off_value must be a scalar, but got: ",
                                        off_value.shape().DebugString()));
    const int axis = axis_ == -1 ? indices_dims : static_cast<int>(axis_);
    const int32_t depth_v = *depth.base<const int32_t>();
    OP_REQUIRES(
        ctx, depth_v >= 0,
        errors::InvalidArgument("depth must be non-negative, got: ", depth_v));
    const int64_t n = indices_shape.num_elements();
    OP_REQUIRES(
        ctx, depth_v == 0 || n <= std::numeric_limits<int64_t>::max() / depth_v,
        errors::InvalidArgument("OneHot result would have shape ",
                                indices_shape.DebugString(), " + [", depth_v,
                                "], which exceeds 2**63 - 1 elements"));
    absl::InlinedVector<int64_t, 8> dims(indices_shape.dim_sizes().begin(),
                                         indices_shape.dim_sizes().end());
    dims.insert(dims.begin() + axis, depth_v);
    TensorShape output_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(dims, &output_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, output_shape, &output));
    if (output_shape.num_elements() == 0) return;

    // Indices viewed as [prefix, suffix] around the new axis.
    int64_t prefix = 1;
    for (int i = 0; i < axis; ++i) prefix *= indices_shape.dim_size(i);
    const int64_t suffix = n / prefix;
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    FillWithValue(workers, output->dtype(), off_value.data(),
                  output->NumElements(), output->data());
    VisitElementSize(output->dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      ScatterOnAnyIndex<E>(workers, indices, prefix, depth_v, suffix,
                           *on_value.base<const E>(), output->base<E>());
    });
  }

 private:
  int64_t axis_ = -1;
};

#define REGISTER_CPU_INDEX(T, TI)                       \
  REGISTER_KERNEL_BUILDER(Name("OneHot")                \
                              .Device(DEVICE_CPU)       \
                              .TypeConstraint<TI>("TI") \
                              .TypeConstraint<T>("T")   \
                              .HostMemory("depth"),     \
                          OneHotOp);
#define REGISTER_CPU(T)          \
  REGISTER_CPU_INDEX(T, uint8_t) \
  REGISTER_CPU_INDEX(T, int8_t)  \
  REGISTER_CPU_INDEX(T, int32_t) \
  REGISTER_CPU_INDEX(T, int64_t)
TF_CALL_ALL_TYPES(REGISTER_CPU)
#undef REGISTER_CPU
#undef REGISTER_CPU_INDEX

}  // namespace
}  // namespace minflow
