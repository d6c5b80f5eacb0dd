// EuclideanNorm: sqrt(sum(x ** 2)) over a set of axes, with the shared
// reduction planning of reduction_ops_common.h. Floating types square and
// sum in float (double for double); integers square and sum in the unsigned
// type of their width, so overflow wraps (Note [Integer overflow in
// kernels]) and the square root of the sum, truncated, is always defined.
#define EIGEN_USE_THREADS

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cwise_ops_common.h"
#include "src/kernels/reduction_ops_common.h"

namespace minflow {
namespace {

// The type squares are summed in (see the file comment).
template <typename T, typename Enable = void>
struct NormComputeType {
  using type = typename std::conditional<std::is_same<T, double>::value, double,
                                         float>::type;
};
template <typename T>
struct NormComputeType<
    T, typename std::enable_if<std::is_integral<T>::value>::type> {
  using type = typename std::make_unsigned<T>::type;
};

template <typename T>
class EuclideanNormOp : public OpKernel {
 public:
  using C = typename NormComputeType<T>::type;

  explicit EuclideanNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    // Nothing reduced: like TensorFlow, the input is returned as it is
    // (negative values included).
    reduction::CpuReduction r;
    OP_REQUIRES_OK(ctx, reduction::BeginCpuReduction(ctx, keep_dims_, &r));
    if (r.DoneWith(T(0))) return;
    const CPUDevice& d = ctx->eigen_device<CPUDevice>();
    const Tensor* src = r.src;
    Tensor* out = r.out;
    const int64_t out_size = r.out_size;
    T* out_data = out->base<T>();
    Tensor squares;
    Tensor sums;
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<C>::v(), src->shape(),
                                           &squares));
    OP_REQUIRES_OK(
        ctx, ctx->allocate_temp(DataTypeToEnum<C>::v(), out->shape(), &sums));
    const T* in = src->base<const T>();
    C* sq = squares.base<C>();
    for (int64_t i = 0; i < src->NumElements(); ++i) {
      const C v = static_cast<C>(in[i]);
      sq[i] = v * v;
    }
    C* sum = sums.base<C>();
    reduction::ReduceEigen<CPUDevice, C, Eigen::internal::SumReducer<C>>(
        d, sq, r.plan, sum);
    for (int64_t i = 0; i < out_size; ++i) {
      if constexpr (std::is_integral<T>::value) {
        out_data[i] = static_cast<T>(std::sqrt(static_cast<double>(sum[i])));
      } else {
        out_data[i] = static_cast<T>(std::sqrt(sum[i]));
      }
    }
  }

 private:
  bool keep_dims_ = false;
};

constexpr DataType kTidxTypes[] = {DT_INT32, DT_INT64};

#define REGISTER_CPU(T)                                           \
  REGISTER_KERNEL_BUILDER(Name("EuclideanNorm")                   \
                              .Device(DEVICE_CPU)                 \
                              .TypeConstraint<T>("T")             \
                              .TypeConstraint("Tidx", kTidxTypes) \
                              .HostMemory("reduction_indices"),   \
                          EuclideanNormOp<T>);
MF_CALL_CORE_REAL_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
