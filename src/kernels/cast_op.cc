// Cast between bool and the real number types (13 x 13 pairs), with
// TensorFlow's Truncate attr. Each pair is a small loop rather than an Eigen
// cast expression: 169 Eigen executors would dominate the build.
#define EIGEN_USE_THREADS

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cpu_parallel_eval.h"
#include "src/kernels/cwise_ops_common.h"

namespace minflow {
namespace {

// Note [Cast of out-of-range floats]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Converting a floating value that does not fit into an integer type is
// undefined in C++, and TensorFlow's result depends on the CPU (x86 gives
// INT_MIN). minflow saturates, as XLA does: NaN becomes 0, values past the
// type's range become its min or max, everything else truncates toward
// zero. Integer-to-integer casts wrap (keep the low bits), as TensorFlow's.

template <typename T>
constexpr bool kIsHalfOrBfloat16 =
    std::is_same<T, half>::value || std::is_same<T, bfloat16>::value;
template <typename T>
constexpr bool kIsFloat =
    std::is_floating_point<T>::value || kIsHalfOrBfloat16<T>;

template <typename T>
constexpr int kDigits =
    std::is_same<T, half>::value       ? 11
    : std::is_same<T, bfloat16>::value ? 8
                                       : std::numeric_limits<T>::digits;

template <typename T>
double ToDouble(T v) {
  if constexpr (kIsHalfOrBfloat16<T>) {
    return static_cast<double>(static_cast<float>(v));
  } else {
    return static_cast<double>(v);
  }
}

template <typename Dst, typename Src>
Dst Convert(Src v) {
  if constexpr (std::is_same<Dst, bool>::value) {
    if constexpr (kIsFloat<Src>) {
      return ToDouble(v) != 0.0;
    } else {
      return v != Src(0);
    }
  } else if constexpr (std::is_same<Src, bool>::value) {
    return static_cast<Dst>(v ? 1 : 0);
  } else if constexpr (std::is_integral<Dst>::value && kIsFloat<Src>) {
    // See Note [Cast of out-of-range floats].
    const double x = ToDouble(v);
    if (std::isnan(x)) return Dst(0);
    if (x >= static_cast<double>(std::numeric_limits<Dst>::max()) + 1.0) {
      return std::numeric_limits<Dst>::max();
    }
    if (x <= static_cast<double>(std::numeric_limits<Dst>::min()) - 1.0) {
      return std::numeric_limits<Dst>::min();
    }
    return static_cast<Dst>(x);
  } else if constexpr (kIsHalfOrBfloat16<Dst> || kIsHalfOrBfloat16<Src>) {
    // Through float, as Eigen's own conversions.
    return static_cast<Dst>(static_cast<float>(v));
  } else {
    return static_cast<Dst>(v);
  }
}

// Truncate=true: a wider floating type loses its extra mantissa bits by
// truncation instead of rounding (TensorFlow's LSBZeroSetter). NaN is kept.
template <typename Src, typename Dst>
constexpr bool kTruncates = kIsFloat<Src>&& kIsFloat<Dst> &&
                            (kDigits<Src> > kDigits<Dst>);

template <typename Src, typename Dst>
Src ZeroDroppedBits(Src v) {
  if (std::isnan(ToDouble(v))) return v;
  using Bits = typename std::conditional<
      sizeof(Src) == 8, uint64_t,
      typename std::conditional<sizeof(Src) == 4, uint32_t,
                                uint16_t>::type>::type;
  static_assert(sizeof(Bits) == sizeof(Src), "unexpected floating type");
  Bits bits;
  std::memcpy(&bits, &v, sizeof(bits));
  // In uint64_t: a 16-bit Bits would be promoted to int, and shifting a
  // negative int is undefined (UBSan found it through half -> bfloat16).
  bits &= static_cast<Bits>(~uint64_t{0} << (kDigits<Src> - kDigits<Dst>));
  std::memcpy(static_cast<void*>(&v), &bits, sizeof(bits));
  return v;
}

template <typename Src, typename Dst, bool kTruncate>
Dst CastOne(Src v) {
  if constexpr (kTruncate && std::is_same<Dst, bfloat16>::value) {
    // The zeroed value is exact in bfloat16, so its top 16 bits are the
    // answer. Going through Eigen's rounding conversion instead gave 2 for
    // 1.9921875f under GCC 12 (seen in cast_op_test).
    const float f = static_cast<float>(ZeroDroppedBits<Src, Dst>(v));
    if (std::isnan(f)) return Convert<Dst>(f);  // Its low bits may be the NaN.
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    return Eigen::numext::bit_cast<bfloat16>(static_cast<uint16_t>(bits >> 16));
  } else if constexpr (kTruncate) {
    return Convert<Dst>(ZeroDroppedBits<Src, Dst>(v));
  } else {
    return Convert<Dst>(v);
  }
}

using CastFn = void (*)(const CPUDevice& d, const Tensor& in, Tensor* out);

template <typename Src, typename Dst, bool kTruncate>
void CastLoop(const CPUDevice& d, const Tensor& in, Tensor* out) {
  const Src* src = in.base<const Src>();
  Dst* dst = out->base<Dst>();
  const int compute = kIsFloat<Src> || kIsFloat<Dst> ? 4 : 1;
  internal::CpuParallelFor(
      d, in.NumElements(),
      Eigen::TensorOpCost(sizeof(Src), sizeof(Dst), compute), 1,
      [&](Eigen::Index begin, Eigen::Index end) {
        for (Eigen::Index i = begin; i < end; ++i) {
          dst[i] = CastOne<Src, Dst, kTruncate>(src[i]);
        }
      });
}

// The types Cast supports on the CPU.
#define MF_CALL_CAST_TYPES(m)                                             \
  TF_CALL_bool(m) TF_CALL_uint8(m) TF_CALL_uint16(m) TF_CALL_uint32(m)    \
      TF_CALL_uint64(m) TF_CALL_int8(m) TF_CALL_int16(m) TF_CALL_int32(m) \
          TF_CALL_int64(m) TF_CALL_half(m) TF_CALL_bfloat16(m)            \
              TF_CALL_float(m) TF_CALL_double(m)

template <typename Src>
CastFn GetCastFrom(DataType dst, bool truncate) {
  switch (dst) {
#define CASE(T)                                     \
  case DataTypeToEnum<T>::value:                    \
    if constexpr (kTruncates<Src, T>) {             \
      if (truncate) return &CastLoop<Src, T, true>; \
    }                                               \
    return &CastLoop<Src, T, false>;
    MF_CALL_CAST_TYPES(CASE)
#undef CASE
    default:
      return nullptr;
  }
}

CastFn GetCastFn(DataType src, DataType dst, bool truncate) {
  switch (src) {
#define CASE(T)                  \
  case DataTypeToEnum<T>::value: \
    return GetCastFrom<T>(dst, truncate);
    MF_CALL_CAST_TYPES(CASE)
#undef CASE
    default:
      return nullptr;
  }
}

class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DataType src = DT_INVALID;
    DataType dst = DT_INVALID;
    bool truncate = false;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("SrcT", &src));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("Truncate", &truncate));
    if (src == dst) return;  // Identity: cast_ stays null.
    cast_ = GetCastFn(src, dst, truncate);
    OP_REQUIRES(
        ctx, cast_ != nullptr,
        errors::Unimplemented("Cast ", DataTypeString(src), " to ",
                              DataTypeString(dst), " is not supported"));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    if (cast_ == nullptr) {
      ctx->set_output(0, in);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (in.NumElements() == 0) return;
    cast_(ctx->eigen_device<CPUDevice>(), in, out);
  }

 private:
  CastFn cast_ = nullptr;
};

REGISTER_KERNEL_BUILDER(Name("Cast").Device(DEVICE_CPU), CastOp);

#undef MF_CALL_CAST_TYPES

}  // namespace
}  // namespace minflow
