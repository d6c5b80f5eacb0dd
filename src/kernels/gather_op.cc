// GatherV2(params, indices, axis; batch_dims): slices of params along
// `axis` picked by `indices`, with the leading batch_dims dims of params and
// indices matched one to one.
#include <cstdint>
#include <limits>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

// "[1,2]": the position of flat index `i` in `shape`, for messages.
std::string IndexString(const TensorShape& shape, int64_t i) {
  absl::InlinedVector<int64_t, 8> pos(shape.dims());
  for (int d = shape.dims() - 1; d >= 0; --d) {
    pos[d] = i % shape.dim_size(d);
    i /= shape.dim_size(d);
  }
  return absl::StrCat("[", absl::StrJoin(pos, ","), "]");
}

// The first index outside [0, limit), or -1.
template <typename Index>
int64_t FindBadIndex(const Index* indices, int64_t n, int64_t limit) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = static_cast<int64_t>(indices[i]);
    if (v < 0 || v >= limit) return i;
  }
  return -1;
}

// out[b, o, i, :] = params[b, o, indices[b, i], :] with params viewed as
// [batch, outer, gather_dim, inner] and indices as [batch, n_per_batch].
// Indices were validated.
template <typename E, typename Index>
void GatherRows(const DeviceBase::CpuWorkerThreads* workers, const E* params,
                const Index* indices, int64_t batch, int64_t outer,
                int64_t gather_dim, int64_t inner, int64_t n_per_batch,
                E* out) {
  const int64_t rows = batch * outer * n_per_batch;
  auto work = [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t i = r % n_per_batch;
      const int64_t bo = r / n_per_batch;  // b * outer + o
      const int64_t b = bo / outer;
      const int64_t idx = static_cast<int64_t>(indices[b * n_per_batch + i]);
      CopyElements(out + r * inner, params + (bo * gather_dim + idx) * inner,
                   inner);
    }
  };
  Shard(workers->num_threads, workers->workers, rows,
        MoveCost(inner * static_cast<int64_t>(sizeof(E))) + 4, work);
}

template <typename Index>
class GatherOp : public OpKernel {
 public:
  explicit GatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dims", &batch_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& axis_tensor = ctx->input(2);
    OP_REQUIRES(
        ctx, TensorShapeUtils::IsVectorOrHigher(params.shape()),
        errors::InvalidArgument("params must be at least 1 dimensional"));
    OP_REQUIRES(
        ctx, params.dims() >= batch_dims_,
        errors::InvalidArgument("params must have at least ", batch_dims_,
                                " (batch_dims) dimensions but it has shape ",
                                params.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(axis_tensor.shape()),
                errors::InvalidArgument("axis must be scalar"));
    int64_t axis =
        axis_tensor.dtype() == DT_INT32
            ? static_cast<int64_t>(*axis_tensor.base<const int32_t>())
            : *axis_tensor.base<const int64_t>();
    const int64_t min_params_dim = axis < 0 ? -axis : axis + 1;
    OP_REQUIRES(
        ctx, params.dims() >= min_params_dim,
        errors::InvalidArgument("Shape must be at least rank ", min_params_dim,
                                " but is rank ", params.dims()));
    if (axis < 0) axis += params.dims();

    int64_t batch_dims = batch_dims_;
    if (batch_dims != 0) {
      OP_REQUIRES(ctx,
                  batch_dims >= -indices.dims() && batch_dims <= indices.dims(),
                  errors::InvalidArgument("Expected batch_dims in the range [",
                                          -indices.dims(), ", ", indices.dims(),
                                          "], but got ", batch_dims));
      if (batch_dims < 0) batch_dims += indices.dims();
      OP_REQUIRES(ctx, batch_dims < params.dims(),
                  errors::InvalidArgument("batch_dims (", batch_dims,
                                          ") must be less than rank(params) (",
                                          params.dims(), ")."));
      OP_REQUIRES(ctx, axis >= batch_dims,
                  errors::InvalidArgument("batch_dims (", batch_dims,
                                          ") must be less than or equal to ",
                                          "axis (", axis, ")."));
      for (int i = 0; i < batch_dims; ++i) {
        OP_REQUIRES(ctx, params.dim_size(i) == indices.dim_size(i),
                    errors::InvalidArgument(
                        "params.shape[", i, "]: ", params.dim_size(i),
                        " should be equal to indices.shape[", i,
                        "]: ", indices.dim_size(i)));
      }
    }
    const int64_t gather_dim_size = params.dim_size(static_cast<int>(axis));
    OP_REQUIRES(
        ctx, gather_dim_size <= std::numeric_limits<Index>::max(),
        errors::InvalidArgument("params.shape[", axis, "] too large for ",
                                DataTypeString(DataTypeToEnum<Index>::v()),
                                " indexing: ", gather_dim_size, " > ",
                                std::numeric_limits<Index>::max()));

    // params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis+1:]
    absl::InlinedVector<int64_t, 8> dims;
    int64_t batch_size = 1;
    int64_t outer_size = 1;
    int64_t inner_size = 1;
    for (int i = 0; i < batch_dims; ++i) {
      dims.push_back(params.dim_size(i));
      batch_size *= params.dim_size(i);
    }
    for (int i = batch_dims; i < axis; ++i) {
      dims.push_back(params.dim_size(i));
      outer_size *= params.dim_size(i);
    }
    for (int i = batch_dims; i < indices.dims(); ++i) {
      dims.push_back(indices.dim_size(i));
    }
    for (int i = axis + 1; i < params.dims(); ++i) {
      dims.push_back(params.dim_size(i));
      inner_size *= params.dim_size(i);
    }
    TensorShape result_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(dims, &result_shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, result_shape, &out));
    const int64_t n = indices.NumElements();
    // TF checks no index when there is nothing to copy.
    if (n == 0 || result_shape.num_elements() == 0) return;

    const Index* index_data = indices.base<const Index>();
    const int64_t bad_i = FindBadIndex(index_data, n, gather_dim_size);
    OP_REQUIRES(
        ctx, bad_i < 0,
        errors::InvalidArgument("indices", IndexString(indices.shape(), bad_i),
                                " = ", static_cast<int64_t>(index_data[bad_i]),
                                " is not in [0, ", gather_dim_size, ")"));
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    const bool ok = VisitElementSize(params.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      GatherRows<E, Index>(workers, params.base<const E>(), index_data,
                           batch_size, outer_size, gather_dim_size, inner_size,
                           n / batch_size, out->base<E>());
    });
    OP_REQUIRES(
        ctx, ok,
        errors::Unimplemented("GatherV2 of ", DataTypeString(params.dtype()),
                              " is not supported"));
  }

 private:
  int64_t batch_dims_ = 0;
};

#define REGISTER_CPU_INDEX(T, Index)                             \
  REGISTER_KERNEL_BUILDER(Name("GatherV2")                       \
                              .Device(DEVICE_CPU)                \
                              .TypeConstraint<T>("Tparams")      \
                              .TypeConstraint<Index>("Tindices") \
                              .HostMemory("axis"),               \
                          GatherOp<Index>);
#define REGISTER_CPU(T)          \
  REGISTER_CPU_INDEX(T, int16_t) \
  REGISTER_CPU_INDEX(T, int32_t) \
  REGISTER_CPU_INDEX(T, int64_t)
TF_CALL_ALL_TYPES(REGISTER_CPU)
TF_CALL_QUANTIZED_TYPES(REGISTER_CPU)
#undef REGISTER_CPU
#undef REGISTER_CPU_INDEX

}  // namespace
}  // namespace minflow
