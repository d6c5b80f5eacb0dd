// MatrixBandPart(input, num_lower, num_upper): each innermost matrix with
// everything outside the central band zeroed; a negative bound keeps the
// whole lower (or upper) triangle. Written over element bytes, so every
// POD type shares one instantiation per element size.
#include <algorithm>
#include <cstdint>

#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

// out[b, m, :] keeps columns [max(0, m - lower), min(cols, m + upper + 1))
// of in[b, m, :] and zeroes the rest (lower / upper < 0: no limit).
template <typename E>
void BandRows(const CpuWorkerThreads* workers, const E* in, int64_t batch,
              int64_t rows, int64_t cols, int64_t lower, int64_t upper,
              E* out) {
  auto work = [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t m = r % rows;
      const int64_t lo = lower < 0 ? 0 : std::max<int64_t>(0, m - lower);
      const int64_t hi =
          upper < 0 ? cols : std::min<int64_t>(cols, m + upper + 1);
      E* o = out + r * cols;
      const E* i = in + r * cols;
      for (int64_t n = 0; n < cols; ++n) {
        o[n] = (n >= lo && n < hi) ? i[n] : E{};
      }
    }
  };
  Shard(workers->num_threads, workers->workers, batch * rows,
        MoveCost(cols * static_cast<int64_t>(sizeof(E))) + 4, work);
}

template <typename Tindex>
class MatrixBandPartOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, TensorShapeUtils::IsMatrixOrHigher(input.shape()),
                errors::InvalidArgument(
                    "input must be at least 2-dim, received shape: ",
                    input.shape().DebugString()));
    const int64_t rows = input.dim_size(input.dims() - 2);
    const int64_t cols = input.dim_size(input.dims() - 1);
    const Tensor& num_lower_in = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(num_lower_in.shape()),
                errors::InvalidArgument("num_lower must be scalar, got shape ",
                                        num_lower_in.shape().DebugString()));
    const int64_t num_lower =
        static_cast<int64_t>(num_lower_in.scalar<Tindex>()());
    OP_REQUIRES(
        ctx, num_lower <= rows,
        errors::InvalidArgument(
            "num_lower must be negative or less or equal to number of rows (",
            rows, ") got: ", num_lower));
    const Tensor& num_upper_in = ctx->input(2);
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(num_upper_in.shape()),
                errors::InvalidArgument("num_upper must be scalar, got shape ",
                                        num_upper_in.shape().DebugString()));
    const int64_t num_upper =
        static_cast<int64_t>(num_upper_in.scalar<Tindex>()());
    OP_REQUIRES(ctx, num_upper <= cols,
                errors::InvalidArgument("num_upper must be negative or less or "
                                        "equal to number of columns (",
                                        cols, ") got: ", num_upper));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    const int64_t batch = input.NumElements() / (rows * cols);
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    const bool ok = VisitElementSize(input.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      BandRows<E>(workers, input.base<const E>(), batch, rows, cols, num_lower,
                  num_upper, out->base<E>());
    });
    OP_REQUIRES(ctx, ok,
                errors::Unimplemented("MatrixBandPart of ",
                                      DataTypeString(input.dtype()),
                                      " is not supported"));
  }
};

#define REGISTER_CPU_INDEX(T, Tindex)                           \
  REGISTER_KERNEL_BUILDER(Name("MatrixBandPart")                \
                              .Device(DEVICE_CPU)               \
                              .TypeConstraint<T>("T")           \
                              .TypeConstraint<Tindex>("Tindex") \
                              .HostMemory("num_lower")          \
                              .HostMemory("num_upper"),         \
                          MatrixBandPartOp<Tindex>);
#define REGISTER_CPU(T)          \
  REGISTER_CPU_INDEX(T, int32_t) \
  REGISTER_CPU_INDEX(T, int64_t)
TF_CALL_POD_TYPES(REGISTER_CPU)
#undef REGISTER_CPU
#undef REGISTER_CPU_INDEX

}  // namespace
}  // namespace minflow
