// GatherNd(params, indices; bad_indices_policy): output[i..., :] =
// params[indices[i..., 0], ..., indices[i..., depth - 1], :], one slice of
// params per index tuple.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/data_movement.h"
#include "src/kernels/scatter_nd_common.h"

namespace minflow {
namespace {

// "[1,0]": the position of tuple `i` among the tuples of `outer`, as TF
// names a bad index.
std::string TuplePosition(const TensorShape& outer, int64_t i) {
  absl::InlinedVector<int64_t, 8> pos(outer.dims());
  for (int d = outer.dims() - 1; d >= 0; --d) {
    pos[d] = i % outer.dim_size(d);
    i /= outer.dim_size(d);
  }
  return absl::StrCat("[", absl::StrJoin(pos, ","), "]");
}

// out slice i = params[offsets[i], + slice_size), or zeros (E{}) for
// offset -1.
template <typename E>
void GatherSlices(const DeviceBase::CpuWorkerThreads* workers, const E* params,
                  const int64_t* offsets, int64_t num, int64_t slice_size,
                  E* out) {
  auto work = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      E* dst = out + i * slice_size;
      if (offsets[i] < 0) {
        for (int64_t j = 0; j < slice_size; ++j) dst[j] = E{};
      } else {
        CopyElements(dst, params + offsets[i], slice_size);
      }
    }
  };
  Shard(workers->num_threads, workers->workers, num,
        MoveCost(slice_size * static_cast<int64_t>(sizeof(E))) + 8, work);
}

template <typename Index>
class GatherNdOp : public OpKernel {
 public:
  explicit GatherNdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string policy;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("bad_indices_policy", &policy));
    OP_REQUIRES_OK(ctx, ParseBadIndicesPolicy(policy, &policy_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsVectorOrHigher(params.shape()),
                errors::InvalidArgument("params must be at least a vector"));
    OP_REQUIRES(ctx, TensorShapeUtils::IsVectorOrHigher(indices.shape()),
                errors::InvalidArgument("indices must be at least a vector"));
    const int64_t depth = indices.dim_size(indices.dims() - 1);
    OP_REQUIRES(
        ctx, depth <= params.dims(),
        errors::InvalidArgument(
            "index innermost dimension length must be <= params rank; saw: ",
            depth, " vs. ", params.dims()));
    TensorShape outer;
    for (int d = 0; d + 1 < indices.dims(); ++d) {
      outer.AddDim(indices.dim_size(d));
    }
    TensorShape out_shape = outer;
    for (int d = static_cast<int>(depth); d < params.dims(); ++d) {
      out_shape.AddDim(params.dim_size(d));
    }
    const int64_t num = outer.num_elements();
    OP_REQUIRES(ctx, num == 0 || params.NumElements() > 0,
                errors::InvalidArgument(
                    "Requested more than 0 entries, but params is empty.  "
                    "Params shape: ",
                    params.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;

    const Index* index_data = indices.base<const Index>();
    std::vector<int64_t> offsets(num);
    const int64_t bad =
        ComputeSliceOffsets(index_data, num, static_cast<int>(depth),
                            params.shape(), offsets.data());
    OP_REQUIRES(ctx, bad < 0 || policy_ == BadIndicesPolicy::kIgnore,
                errors::InvalidArgument(
                    "indices", TuplePosition(outer, bad), " = [",
                    IndexTupleString(index_data, bad, static_cast<int>(depth)),
                    "] does not index into param shape ",
                    params.shape().DebugString()));
    const int64_t slice_size =
        SliceSize(params.shape(), static_cast<int>(depth));
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    const bool ok = VisitElementSize(params.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      GatherSlices<E>(workers, params.base<const E>(), offsets.data(), num,
                      slice_size, out->base<E>());
    });
    OP_REQUIRES(
        ctx, ok,
        errors::Unimplemented("GatherNd of ", DataTypeString(params.dtype()),
                              " is not supported"));
  }

 private:
  BadIndicesPolicy policy_ = BadIndicesPolicy::kError;
};

#define REGISTER_CPU_INDEX(T, Index)                              \
  REGISTER_KERNEL_BUILDER(Name("GatherNd")                        \
                              .Device(DEVICE_CPU)                 \
                              .TypeConstraint<T>("Tparams")       \
                              .TypeConstraint<Index>("Tindices"), \
                          GatherNdOp<Index>);
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
