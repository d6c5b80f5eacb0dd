// Range(start, limit, delta): [start, start + delta, ...) up to limit.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "Eigen/Core"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"

namespace minflow {
namespace {

// Integers are counted in 64-bit modular arithmetic, so |limit - start|
// and |delta| are exact for every T (int64 extremes included) and no step
// overflows; each value lies in [start, limit) and converts back exactly.
template <typename T>
uint64_t ToU64(T x) {
  if constexpr (std::is_signed<T>::value) {
    return static_cast<uint64_t>(static_cast<int64_t>(x));
  } else {
    return static_cast<uint64_t>(x);
  }
}

template <typename T>
class RangeOp : public OpKernel {
 public:
  explicit RangeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& start_in = ctx->input(0);
    const Tensor& limit_in = ctx->input(1);
    const Tensor& delta_in = ctx->input(2);
    // TF still accepts [1] vectors for the scalars (legacy).
    OP_REQUIRES(ctx, IsScalarLike(start_in),
                errors::InvalidArgument("start must be a scalar, not shape ",
                                        start_in.shape().DebugString()));
    OP_REQUIRES(ctx, IsScalarLike(limit_in),
                errors::InvalidArgument("limit must be a scalar, not shape ",
                                        limit_in.shape().DebugString()));
    OP_REQUIRES(ctx, IsScalarLike(delta_in),
                errors::InvalidArgument("delta must be a scalar, not shape ",
                                        delta_in.shape().DebugString()));
    const T start = *start_in.base<const T>();
    const T limit = *limit_in.base<const T>();
    const T delta = *delta_in.base<const T>();
    OP_REQUIRES(ctx, delta != T(0),
                errors::InvalidArgument("Requires delta != 0: ", Print(delta)));
    if (delta > T(0)) {
      OP_REQUIRES(ctx, start <= limit,
                  errors::InvalidArgument(
                      "Requires start <= limit when delta > 0: ", Print(start),
                      "/", Print(limit)));
    } else {
      OP_REQUIRES(ctx, start >= limit,
                  errors::InvalidArgument(
                      "Requires start >= limit when delta < 0: ", Print(start),
                      "/", Print(limit)));
    }
    int64_t size = 0;
    if constexpr (std::is_integral<T>::value) {
      const bool up = delta > T(0);
      const uint64_t span =
          up ? ToU64(limit) - ToU64(start) : ToU64(start) - ToU64(limit);
      const uint64_t step = up ? ToU64(delta) : uint64_t{0} - ToU64(delta);
      const uint64_t count = span / step + (span % step != 0 ? 1 : 0);
      OP_REQUIRES(
          ctx,
          count <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
          errors::InvalidArgument("Requires ((limit - start) / delta) <= ",
                                  std::numeric_limits<int64_t>::max()));
      size = static_cast<int64_t>(count);
    } else {
      // In T's own arithmetic, as TF (so half rounds as TF's does).
      const double count = static_cast<double>(
          Eigen::numext::ceil(Eigen::numext::abs((limit - start) / delta)));
      OP_REQUIRES(
          ctx,
          count <= static_cast<double>(std::numeric_limits<int64_t>::max()),
          errors::InvalidArgument("Requires ((limit - start) / delta) <= ",
                                  std::numeric_limits<int64_t>::max()));
      size = static_cast<int64_t>(count);
    }
    TensorShape shape;
    OP_REQUIRES_OK(ctx, shape.AddDimWithStatus(size));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    T* flat = out->base<T>();
    if constexpr (std::is_integral<T>::value) {
      const uint64_t s = ToU64(start);
      const uint64_t d = ToU64(delta);
      for (int64_t i = 0; i < size; ++i) {
        flat[i] = static_cast<T>(s + static_cast<uint64_t>(i) * d);
      }
    } else {
      // TF accumulates, and so do we: the same values bit for bit.
      T val = start;
      for (int64_t i = 0; i < size; ++i) {
        flat[i] = val;
        val += delta;
      }
    }
  }

  bool IsExpensive() override { return false; }

 private:
  static bool IsScalarLike(const Tensor& t) {
    return TensorShapeUtils::IsScalar(t.shape()) ||
           (TensorShapeUtils::IsVector(t.shape()) && t.dim_size(0) == 1);
  }
  // Values in messages: numbers, not characters, for 8-bit types.
  static auto Print(T v) {
    if constexpr (std::is_integral<T>::value) {
      return static_cast<
          std::conditional_t<std::is_signed<T>::value, int64_t, uint64_t>>(v);
    } else {
      return static_cast<double>(v);
    }
  }
};

#define REGISTER_CPU(T)                                   \
  REGISTER_KERNEL_BUILDER(Name("Range")                   \
                              .Device(DEVICE_CPU)         \
                              .HostMemory("start")        \
                              .HostMemory("limit")        \
                              .HostMemory("delta")        \
                              .TypeConstraint<T>("Tidx"), \
                          RangeOp<T>);
TF_CALL_FLOAT_TYPES(REGISTER_CPU)
TF_CALL_int8(REGISTER_CPU) TF_CALL_int16(REGISTER_CPU)
    TF_CALL_int32(REGISTER_CPU) TF_CALL_int64(REGISTER_CPU)
        TF_CALL_uint16(REGISTER_CPU) TF_CALL_uint32(REGISTER_CPU)
            TF_CALL_uint64(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
