// Sum, Mean, Prod, Max and Min over a set of axes (keep_dims, negative
// axes, int32 or int64 axes), with TensorFlow's results for empty inputs.
#define EIGEN_USE_THREADS

#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/container/inlined_vector.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cwise_ops_common.h"
#include "src/kernels/reduction_ops_common.h"

namespace minflow {
namespace {

using reduction::EigenReducer;
using reduction::Kind;
using reduction::Plan;
using reduction::ReduceEigen;
using reduction::ReductionIdentity;

// Note [Reduction compute types]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Each kernel reduces in a compute type C, chosen so that few Eigen
// reductions are instantiated and results are at least as good as
// TensorFlow's:
//   half, bfloat16   -> float (cast in, reduce, cast out): accurate sums.
//   Sum/Prod on int32/int64 -> uint32/uint64 on the same bits: two's
//                       complement wrap without signed overflow (Note
//                       [Integer overflow in kernels]).
//   Mean             -> the Sum above divided by the count; int32 sums in
//                       int64 first, as TensorFlow's Mean does, and integer
//                       means truncate.
//   Max/Min          -> the type itself; NaN propagates, as TensorFlow.

template <typename T>
constexpr bool kIsLowFloat =
    std::is_same<T, half>::value || std::is_same<T, bfloat16>::value;

// The compute type of `Kind` on inputs of type T (after the int32 -> int64
// widening of Mean).
template <typename T, Kind K, typename Enable = void>
struct ComputeTypeOf {
  using type = typename std::conditional<kIsLowFloat<T>, float, T>::type;
};
template <typename T, Kind K>
struct ComputeTypeOf<
    T, K,
    typename std::enable_if<std::is_integral<T>::value && K != Kind::kMax &&
                            K != Kind::kMin>::type> {
  using type = typename std::make_unsigned<T>::type;
};
template <typename T, Kind K>
using ComputeType = typename ComputeTypeOf<T, K>::type;

template <typename T, Kind K>
class ReductionOp : public OpKernel {
 public:
  explicit ReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    reduction::CpuReduction r;
    OP_REQUIRES_OK(ctx, reduction::BeginCpuReduction(ctx, keep_dims_, &r));
    if (r.DoneWith(ReductionIdentity<T, K>())) return;
    Tensor* out = r.out;
    const int64_t out_size = r.out_size;
    T* out_data = out->base<T>();
    const CPUDevice& d = ctx->eigen_device<CPUDevice>();
    const Plan& plan = r.plan;
    const Tensor* src = r.src;
    const int64_t count = data.NumElements() / out_size;

    if constexpr (kIsLowFloat<T>) {
      Tensor in_f;
      Tensor out_f;
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, src->shape(), &in_f));
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, out->shape(), &out_f));
      in_f.flat<float>().device(d) = src->flat<T>().template cast<float>();
      float* o = out_f.base<float>();
      ReduceEigen<CPUDevice, float, typename EigenReducer<float, K>::type>(
          d, in_f.base<const float>(), plan, o);
      if (K == Kind::kMean) {
        for (int64_t i = 0; i < out_size; ++i)
          o[i] /= static_cast<float>(count);
      }
      out->flat<T>().device(d) = out_f.flat<float>().template cast<T>();
    } else if constexpr (K == Kind::kMean && std::is_same<T, int32_t>::value) {
      Tensor wide;
      Tensor wide_out;
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_INT64, src->shape(), &wide));
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_temp(DT_INT64, out->shape(), &wide_out));
      wide.flat<int64_t>().device(d) =
          src->flat<int32_t>().template cast<int64_t>();
      ReduceEigen<CPUDevice, uint64_t, Eigen::internal::SumReducer<uint64_t>>(
          d, reinterpret_cast<const uint64_t*>(wide.base<const int64_t>()),
          plan, reinterpret_cast<uint64_t*>(wide_out.base<int64_t>()));
      const int64_t* sums = wide_out.base<const int64_t>();
      for (int64_t i = 0; i < out_size; ++i) {
        out_data[i] = static_cast<int32_t>(sums[i] / count);
      }
    } else {
      using C = ComputeType<T, K>;
      static_assert(sizeof(C) == sizeof(T), "reinterpreting needs equal sizes");
      C* o = reinterpret_cast<C*>(out_data);
      ReduceEigen<CPUDevice, C, typename EigenReducer<C, K>::type>(
          d, reinterpret_cast<const C*>(src->base<const T>()), plan, o);
      if constexpr (K == Kind::kMean) {
        for (int64_t i = 0; i < out_size; ++i) {
          out_data[i] = static_cast<T>(out_data[i] / static_cast<T>(count));
        }
      }
    }
  }

 private:
  bool keep_dims_ = false;
};

constexpr DataType kTidxTypes[] = {DT_INT32, DT_INT64};

#define REGISTER_KIND(NAME, KIND, T)                               \
  REGISTER_KERNEL_BUILDER(Name(NAME)                               \
                              .Device(DEVICE_CPU)                  \
                              .TypeConstraint<T>("T")              \
                              .TypeConstraint("Tidx", kTidxTypes), \
                          ReductionOp<T, KIND>);
#define REGISTER_CPU(T)                 \
  REGISTER_KIND("Sum", Kind::kSum, T)   \
  REGISTER_KIND("Mean", Kind::kMean, T) \
  REGISTER_KIND("Prod", Kind::kProd, T) \
  REGISTER_KIND("Max", Kind::kMax, T)   \
  REGISTER_KIND("Min", Kind::kMin, T)
MF_CALL_CORE_REAL_TYPES(REGISTER_CPU)
#undef REGISTER_CPU
#undef REGISTER_KIND

}  // namespace
}  // namespace minflow
