// ReverseSequence(input, seq_lengths; seq_dim, batch_dim): for each batch
// entry b, the first seq_lengths[b] slices along seq_dim are reversed; the
// rest are copied.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

// Viewing input as [d_0, ..., d_last, inner] with last = max(seq_dim,
// batch_dim), each run of `inner` elements moves whole: for outer position
// p (with coordinates s along seq_dim and b along batch_dim) the source is
// p with s replaced by len[b] - 1 - s when s < len[b].
template <typename E>
void ReverseRuns(const DeviceBase::CpuWorkerThreads* workers, const E* in,
                 const std::vector<int64_t>& outer_dims, int seq_dim,
                 int batch_dim, const std::vector<int64_t>& lens, int64_t inner,
                 E* out) {
  const int rank = static_cast<int>(outer_dims.size());
  std::vector<int64_t> strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * outer_dims[d + 1];
  }
  int64_t runs = 1;
  for (int64_t d : outer_dims) runs *= d;
  auto work = [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t s = (p / strides[seq_dim]) % outer_dims[seq_dim];
      const int64_t b = (p / strides[batch_dim]) % outer_dims[batch_dim];
      const int64_t src =
          s < lens[b] ? p + (lens[b] - 1 - 2 * s) * strides[seq_dim] : p;
      CopyElements(out + p * inner, in + src * inner, inner);
    }
  };
  Shard(workers->num_threads, workers->workers, runs,
        MoveCost(inner * static_cast<int64_t>(sizeof(E))) + 8, work);
}

template <typename Tlen>
class ReverseSequenceOp : public OpKernel {
 public:
  explicit ReverseSequenceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("seq_dim", &seq_dim_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dim", &batch_dim_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& seq_lengths = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsVector(seq_lengths.shape()),
                errors::InvalidArgument("seq_lengths must be 1-dim, not ",
                                        seq_lengths.dims()));
    OP_REQUIRES(ctx, seq_dim_ >= 0,
                errors::InvalidArgument("seq_dim must be >=0, got ", seq_dim_));
    OP_REQUIRES(
        ctx, batch_dim_ >= 0,
        errors::InvalidArgument("batch_dim must be >=0, got ", batch_dim_));
    OP_REQUIRES(ctx, batch_dim_ != seq_dim_,
                errors::InvalidArgument("batch_dim == seq_dim == ", seq_dim_));
    OP_REQUIRES(ctx, seq_dim_ < input.dims(),
                errors::InvalidArgument("seq_dim must be < input rank", " ( ",
                                        seq_dim_, " vs. ", input.dims(), ")"));
    OP_REQUIRES(
        ctx, batch_dim_ < input.dims(),
        errors::InvalidArgument("batch_dim must be < input rank", " ( ",
                                batch_dim_, " vs. ", input.dims(), ")"));
    const int seq_dim = static_cast<int>(seq_dim_);
    const int batch_dim = static_cast<int>(batch_dim_);
    OP_REQUIRES(
        ctx, seq_lengths.NumElements() == input.dim_size(batch_dim),
        errors::InvalidArgument("Length of seq_lengths != input.dims(",
                                batch_dim, "), (", seq_lengths.NumElements(),
                                " vs. ", input.dim_size(batch_dim), ")"));
    std::vector<int64_t> lens(seq_lengths.NumElements());
    for (size_t d = 0; d < lens.size(); ++d) {
      lens[d] = static_cast<int64_t>(seq_lengths.base<const Tlen>()[d]);
      OP_REQUIRES(ctx, lens[d] >= 0,
                  errors::InvalidArgument("seq_lens(", d, ") < 0"));
      OP_REQUIRES(ctx, lens[d] <= input.dim_size(seq_dim),
                  errors::InvalidArgument("seq_lens(", d, ") > input.dims(",
                                          seq_dim, ")"));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    const int last = std::max(seq_dim, batch_dim);
    std::vector<int64_t> outer_dims;
    int64_t inner = 1;
    for (int d = 0; d < input.dims(); ++d) {
      if (d <= last) {
        outer_dims.push_back(input.dim_size(d));
      } else {
        inner *= input.dim_size(d);
      }
    }
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    const bool ok = VisitElementSize(input.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      ReverseRuns<E>(workers, input.base<const E>(), outer_dims, seq_dim,
                     batch_dim, lens, inner, out->base<E>());
    });
    OP_REQUIRES(ctx, ok,
                errors::Unimplemented("ReverseSequence of ",
                                      DataTypeString(input.dtype()),
                                      " is not supported"));
  }

 private:
  int64_t seq_dim_ = 0;
  int64_t batch_dim_ = 0;
};

#define REGISTER_CPU(T)                                         \
  REGISTER_KERNEL_BUILDER(Name("ReverseSequence")               \
                              .Device(DEVICE_CPU)               \
                              .TypeConstraint<T>("T")           \
                              .TypeConstraint<int32_t>("Tlen"), \
                          ReverseSequenceOp<int32_t>);          \
  REGISTER_KERNEL_BUILDER(Name("ReverseSequence")               \
                              .Device(DEVICE_CPU)               \
                              .TypeConstraint<T>("T")           \
                              .TypeConstraint<int64_t>("Tlen"), \
                          ReverseSequenceOp<int64_t>);
TF_CALL_ALL_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
