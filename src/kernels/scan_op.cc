// Cumsum / Cumprod(x, axis; exclusive, reverse): out[..., k, ...] is the
// sum (product) of x[..., j, ...] for j <= k (j < k when exclusive; j >= k
// and j > k when reversed). half and bfloat16 accumulate in float.
#include <cstdint>
#include <type_traits>
#include <vector>

#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cwise_op_functor.h"

namespace minflow {
namespace {

struct SumReducer {
  template <typename A>
  static A Identity() {
    return A(0);
  }
  template <typename A>
  static A Apply(const A& a, const A& b) {
    // Integer sums wrap; see Note [Integer overflow in kernels].
    if constexpr (functor::internal::IsInt<A>::value) {
      return functor::internal::WrapAdd(a, b);
    } else {
      return a + b;
    }
  }
};

struct ProdReducer {
  template <typename A>
  static A Identity() {
    return A(1);
  }
  template <typename A>
  static A Apply(const A& a, const A& b) {
    if constexpr (functor::internal::IsInt<A>::value) {
      return functor::internal::WrapMul(a, b);
    } else {
      return a * b;
    }
  }
};

template <typename T>
using AccumType = std::conditional_t<
    std::is_same<T, half>::value || std::is_same<T, bfloat16>::value, float, T>;

template <typename T, typename Reducer>
class ScanOp : public OpKernel {
 public:
  explicit ScanOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("exclusive", &exclusive_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("reverse", &reverse_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& axis_t = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(axis_t.shape()),
                errors::InvalidArgument("ScanOp: axis must be a scalar, not ",
                                        axis_t.shape().DebugString()));
    const int64_t axis_arg =
        axis_t.dtype() == DT_INT32
            ? static_cast<int64_t>(*axis_t.base<const int32_t>())
            : *axis_t.base<const int64_t>();
    const int64_t axis = axis_arg < 0 ? input.dims() + axis_arg : axis_arg;
    OP_REQUIRES(ctx, axis >= 0 && axis < input.dims(),
                errors::InvalidArgument(
                    "ScanOp: Expected scan axis in the range [", -input.dims(),
                    ", ", input.dims(), "), but got ", axis));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    if (input.NumElements() == 0) return;

    // View x as [outer, n, inner] with n the scanned dim.
    int64_t outer = 1;
    int64_t inner = 1;
    for (int d = 0; d < axis; ++d) outer *= input.dim_size(d);
    for (int d = static_cast<int>(axis) + 1; d < input.dims(); ++d) {
      inner *= input.dim_size(d);
    }
    const int64_t n = input.dim_size(static_cast<int>(axis));
    const T* in = input.base<const T>();
    T* out = output->base<T>();
    const bool exclusive = exclusive_;
    const bool reverse = reverse_;
    auto work = [&](int64_t begin, int64_t end) {
      using A = AccumType<T>;
      std::vector<A> acc(inner);
      for (int64_t o = begin; o < end; ++o) {
        acc.assign(inner, Reducer::template Identity<A>());
        for (int64_t step = 0; step < n; ++step) {
          const int64_t k = reverse ? n - 1 - step : step;
          const T* x = in + (o * n + k) * inner;
          T* y = out + (o * n + k) * inner;
          for (int64_t i = 0; i < inner; ++i) {
            const A next = Reducer::Apply(acc[i], static_cast<A>(x[i]));
            y[i] = static_cast<T>(exclusive ? acc[i] : next);
            acc[i] = next;
          }
        }
      }
    };
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    Shard(workers->num_threads, workers->workers, outer, n * inner * 2 + 1,
          work);
  }

 private:
  bool exclusive_ = false;
  bool reverse_ = false;
};

#define REGISTER_CPU(T)                               \
  REGISTER_KERNEL_BUILDER(Name("Cumsum")              \
                              .Device(DEVICE_CPU)     \
                              .TypeConstraint<T>("T") \
                              .HostMemory("axis"),    \
                          ScanOp<T, SumReducer>);     \
  REGISTER_KERNEL_BUILDER(Name("Cumprod")             \
                              .Device(DEVICE_CPU)     \
                              .TypeConstraint<T>("T") \
                              .HostMemory("axis"),    \
                          ScanOp<T, ProdReducer>);
TF_CALL_NUMBER_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
