// GatherNd(params, indices; bad_indices_policy): output[i..., :] =
// params[indices[i..., 0], ..., indices[i..., depth - 1], :], one slice of
// params per index tuple.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>

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

// out slice i = the params slice tuple i addresses, or zeros (E{}) for a
// tuple outside params; returns the first such tuple, or -1. Offsets are
// found a block at a time and the copies follow in a tight loop: with
// scattered single-element slices, a loop that also locates each tuple
// keeps too few loads in flight (over 2x slower in gather_nd_bench).
// Tuples are checked here, not in a pass of their own before (one more
// serial read of the indices).
template <typename E, typename Index>
int64_t GatherSlices(const DeviceBase::CpuWorkerThreads* workers,
                     const E* params, const Index* indices,
                     const SliceIndexer& indexer, int64_t num, E* out) {
  const int64_t slice_size = indexer.slice_size();
  const int depth = indexer.depth();
  std::atomic<int64_t> first_bad{num};
  auto work = [&, params, indices, out, slice_size, depth](int64_t begin,
                                                           int64_t end) {
    constexpr int64_t kBlock = 256;
    int64_t offsets[kBlock];
    int64_t bad = num;
    for (int64_t block = begin; block < end; block += kBlock) {
      const int64_t n = std::min(kBlock, end - block);
      for (int64_t j = 0; j < n; ++j) {
        offsets[j] = indexer.Offset(indices + (block + j) * depth);
        if (offsets[j] < 0 && bad == num) bad = block + j;
      }
      E* dst = out + block * slice_size;
      if (slice_size == 1) {
        for (int64_t j = 0; j < n; ++j) {
          dst[j] = offsets[j] < 0 ? E{} : params[offsets[j]];
        }
        continue;
      }
      for (int64_t j = 0; j < n; ++j, dst += slice_size) {
        if (offsets[j] < 0) {
          for (int64_t k = 0; k < slice_size; ++k) dst[k] = E{};
        } else {
          CopyElements(dst, params + offsets[j], slice_size);
        }
      }
    }
    int64_t seen = first_bad.load();
    while (bad < seen && !first_bad.compare_exchange_weak(seen, bad)) {
    }
  };
  Shard(workers->num_threads, workers->workers, num,
        MoveCost(slice_size * static_cast<int64_t>(sizeof(E))) + 2 * depth + 4,
        work);
  return first_bad.load() < num ? first_bad.load() : -1;
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
    const SliceIndexer indexer(params.shape(), static_cast<int>(depth));
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    int64_t bad = -1;
    const bool ok = VisitElementSize(params.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      bad = GatherSlices<E, Index>(workers, params.base<const E>(), index_data,
                                   indexer, num, out->base<E>());
    });
    OP_REQUIRES(
        ctx, ok,
        errors::Unimplemented("GatherNd of ", DataTypeString(params.dtype()),
                              " is not supported"));
    OP_REQUIRES(ctx, bad < 0 || policy_ == BadIndicesPolicy::kIgnore,
                errors::InvalidArgument(
                    "indices", TuplePosition(outer, bad), " = [",
                    IndexTupleString(index_data, bad, static_cast<int>(depth)),
                    "] does not index into param shape ",
                    params.shape().DebugString()));
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
