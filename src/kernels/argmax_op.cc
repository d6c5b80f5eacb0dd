// ArgMax and ArgMin along one axis.
#define EIGEN_USE_THREADS

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cpu_parallel_eval.h"
#include "src/kernels/cwise_ops_common.h"

namespace minflow {
namespace {

// Note [ArgMax ties and NaN]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// TensorFlow's kernel is Eigen's argmax, whose reducer starts from
// (index 0, lowest value) and takes an element only when it is strictly
// greater than the best so far. So ties give the first index, NaNs are never
// chosen, and a row of NaNs (or of -inf, which is below `lowest`) gives 0.
// The loop below keeps exactly those rules (mirrored for ArgMin).

// Values compare as float for half/bfloat16, as themselves otherwise.
template <typename T>
using CompareType =
    typename std::conditional<std::is_same<T, half>::value ||
                                  std::is_same<T, bfloat16>::value,
                              float, T>::type;

template <typename T, bool kMax>
struct ArgBound {
  static CompareType<T> Initial() {
    return kMax ? static_cast<CompareType<T>>(Eigen::NumTraits<T>::lowest())
                : static_cast<CompareType<T>>(Eigen::NumTraits<T>::highest());
  }
  static bool Better(CompareType<T> v, CompareType<T> best) {
    return kMax ? v > best : v < best;
  }
};

template <typename T, typename Tout, bool kMax>
class ArgOp : public OpKernel {
 public:
  explicit ArgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& dimension = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(dimension.shape()),
                errors::InvalidArgument(
                    "dim must be a scalar, but received tensor of shape: ",
                    dimension.shape().DebugString()));
    int64_t dim = 0;
    switch (dimension.dtype()) {
      case DT_INT16:
        dim = dimension.scalar<int16_t>()();
        break;
      case DT_INT32:
        dim = dimension.scalar<int32_t>()();
        break;
      default:
        dim = dimension.scalar<int64_t>()();
        break;
    }
    const int input_dims = input.dims();
    const int64_t axis = dim < 0 ? dim + input_dims : dim;
    OP_REQUIRES(ctx, axis >= 0 && axis < input_dims,
                errors::InvalidArgument("Expected dimension in the range [",
                                        -input_dims, ", ", input_dims,
                                        "), but got ", dim));
    const int64_t axis_size = input.dim_size(static_cast<int>(axis));
    OP_REQUIRES(
        ctx, axis_size > 0,
        errors::InvalidArgument("Reduction axis ", dim, " is empty in shape ",
                                input.shape().DebugString()));
    OP_REQUIRES(
        ctx,
        axis_size - 1 <= static_cast<int64_t>(std::numeric_limits<Tout>::max()),
        errors::InvalidArgument("Reduction axis ", dim, " has ", axis_size,
                                " elements, too many for output_type ",
                                DataTypeString(DataTypeToEnum<Tout>::v())));

    TensorShape out_shape;
    int64_t outer = 1;
    int64_t inner = 1;
    for (int d = 0; d < input_dims; ++d) {
      if (d == axis) continue;
      out_shape.AddDim(input.dim_size(d));
      (d < axis ? outer : inner) *= input.dim_size(d);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;

    // Work units: a row of `outer` and a chunk of up to kChunk of `inner`,
    // scanned along the axis with the chunk's running bests kept in cache.
    constexpr int64_t kChunk = 256;
    const int64_t chunks = (inner + kChunk - 1) / kChunk;
    const T* x = input.base<const T>();
    Tout* y = out->base<Tout>();
    const Eigen::TensorOpCost cost(
        static_cast<double>(axis_size * std::min(inner, kChunk) * sizeof(T)),
        static_cast<double>(std::min(inner, kChunk) * sizeof(Tout)),
        static_cast<double>(axis_size * std::min(inner, kChunk) * 2));
    using B = ArgBound<T, kMax>;
    internal::CpuParallelFor(
        ctx->eigen_device<CPUDevice>(), outer * chunks, cost, 1,
        [&](Eigen::Index begin, Eigen::Index end) {
          CompareType<T> best[kChunk];
          Tout best_index[kChunk];
          for (Eigen::Index u = begin; u < end; ++u) {
            const int64_t o = u / chunks;
            const int64_t i0 = (u % chunks) * kChunk;
            const int64_t n = std::min(kChunk, inner - i0);
            std::fill_n(best, n, B::Initial());
            std::fill_n(best_index, n, Tout(0));
            const T* row = x + o * axis_size * inner + i0;
            for (int64_t k = 0; k < axis_size; ++k) {
              const T* v = row + k * inner;
              for (int64_t i = 0; i < n; ++i) {
                const CompareType<T> value = static_cast<CompareType<T>>(v[i]);
                if (B::Better(value, best[i])) {
                  best[i] = value;
                  best_index[i] = static_cast<Tout>(k);
                }
              }
            }
            std::copy_n(best_index, n, y + o * inner + i0);
          }
        });
  }
};

#define REGISTER_ARG(NAME, T, TOUT, MAX, TIDX_TYPES)               \
  REGISTER_KERNEL_BUILDER(Name(NAME)                               \
                              .Device(DEVICE_CPU)                  \
                              .TypeConstraint<T>("T")              \
                              .TypeConstraint<TOUT>("output_type") \
                              .TypeConstraint("Tidx", TIDX_TYPES), \
                          ArgOp<T, TOUT, MAX>);
constexpr DataType kArgMaxTidx[] = {DT_INT16, DT_INT32, DT_INT64};
constexpr DataType kArgMinTidx[] = {DT_INT32, DT_INT64};
#define REGISTER_CPU(T)                                  \
  REGISTER_ARG("ArgMax", T, int32_t, true, kArgMaxTidx)  \
  REGISTER_ARG("ArgMax", T, int64_t, true, kArgMaxTidx)  \
  REGISTER_ARG("ArgMin", T, int32_t, false, kArgMinTidx) \
  REGISTER_ARG("ArgMin", T, int64_t, false, kArgMinTidx)
MF_CALL_CORE_REAL_TYPES(REGISTER_CPU)
TF_CALL_bool(REGISTER_CPU)
#undef REGISTER_CPU
#undef REGISTER_ARG

}  // namespace
}  // namespace minflow
