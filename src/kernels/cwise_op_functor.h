// Element-wise functors shared by the CPU kernels (cwise_op_*.cc) and their
// future GPU twins: scalar/packet functors with TensorFlow's semantics, op
// descriptors (`functor::add<T>` ...) and the Unary/BinaryFunctor templates
// that evaluate them as one Eigen expression on any Eigen device. Includes
// only Eigen and the tensor-type aliases, so nvcc can compile it.
#pragma once

#include <cstdint>
#include <type_traits>

#include "minflow/core/tensor_types.h"

namespace minflow {
namespace functor {

// Note [Integer overflow in kernels]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// TensorFlow's integer kernels overflow like the hardware does (two's
// complement wrap-around) on their SIMD paths, but their scalar tails are
// signed overflow, which is undefined behaviour in C++ (and aborts under
// UBSan). minflow computes every integer add, subtract, multiply, negate,
// abs, square and power in the unsigned type of the same width, so results
// wrap exactly as TF's vectorised paths do, on every path. INT_MIN / -1
// wraps to INT_MIN and INT_MIN % -1 is 0, instead of trapping.

namespace internal {

template <typename T>
struct IsInt : std::integral_constant<bool, std::is_integral<T>::value &&
                                                !std::is_same<T, bool>::value> {
};

// The unsigned type wrapping arithmetic for T is done in: at least
// `unsigned int`, so that small types do not promote to (signed) int.
template <typename T>
using WrapType =
    typename std::conditional<(sizeof(T) < sizeof(unsigned int)), unsigned int,
                              typename std::make_unsigned<T>::type>::type;

template <typename T>
EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T WrapAdd(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) +
                        static_cast<WrapType<T>>(b));
}
template <typename T>
EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T WrapSub(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) -
                        static_cast<WrapType<T>>(b));
}
template <typename T>
EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T WrapMul(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) *
                        static_cast<WrapType<T>>(b));
}
template <typename T>
EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T WrapNeg(T a) {
  return static_cast<T>(WrapType<T>(0) - static_cast<WrapType<T>>(a));
}

// Floating types whose math runs in float (half, bfloat16) or double.
template <typename T>
using CalcType = typename std::conditional<std::is_same<T, double>::value,
                                           double, float>::type;

}  // namespace internal

// --- Integer arithmetic that wraps (Note [Integer overflow in kernels]).

template <typename T>
struct wrapping_sum_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& a,
                                                     const T& b) const {
    return internal::WrapAdd(a, b);
  }
  template <typename Packet>
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE Packet packetOp(const Packet& a,
                                                        const Packet& b) const {
    return Eigen::internal::padd(a, b);
  }
};

template <typename T>
struct wrapping_difference_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& a,
                                                     const T& b) const {
    return internal::WrapSub(a, b);
  }
  template <typename Packet>
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE Packet packetOp(const Packet& a,
                                                        const Packet& b) const {
    return Eigen::internal::psub(a, b);
  }
};

template <typename T>
struct wrapping_product_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& a,
                                                     const T& b) const {
    return internal::WrapMul(a, b);
  }
  template <typename Packet>
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE Packet packetOp(const Packet& a,
                                                        const Packet& b) const {
    return Eigen::internal::pmul(a, b);
  }
};

template <typename T>
struct wrapping_neg_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& a) const {
    return internal::WrapNeg(a);
  }
};

template <typename T>
struct wrapping_abs_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& a) const {
    return a < T(0) ? internal::WrapNeg(a) : a;
  }
};

template <typename T>
struct wrapping_square_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& a) const {
    return internal::WrapMul(a, a);
  }
  template <typename Packet>
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE Packet packetOp(const Packet& a) const {
    return Eigen::internal::pmul(a, a);
  }
};

template <typename T>
struct identity_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& a) const {
    return a;
  }
  template <typename Packet>
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE Packet packetOp(const Packet& a) const {
    return a;
  }
};

// (a - b)^2, TensorFlow's SquaredDifference.
template <typename T>
struct squared_difference_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& a,
                                                     const T& b) const {
    if constexpr (internal::IsInt<T>::value) {
      const T v = internal::WrapSub(a, b);
      return internal::WrapMul(v, v);
    } else {
      const T v = a - b;
      return v * v;
    }
  }
  template <typename Packet>
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE Packet packetOp(const Packet& a,
                                                        const Packet& b) const {
    const Packet v = Eigen::internal::psub(a, b);
    return Eigen::internal::pmul(v, v);
  }
};

// --- Integer division family. A zero divisor (and, for pow, a negative
// exponent) yields 0 here: the kernel scans for such operands and reports
// TensorFlow's error before computing (see BinaryOp in cwise_ops_common.h),
// so these values are never observed.

// Truncating division, TensorFlow's Div on integers.
template <typename T>
struct safe_div_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& a,
                                                     const T& b) const {
    if (b == T(0)) return T(0);
    if constexpr (std::is_signed<T>::value) {
      if (b == T(-1)) return internal::WrapNeg(a);
    }
    return static_cast<T>(a / b);
  }
};

// Division rounding toward negative infinity (FloorDiv on integers).
template <typename T>
struct floor_div_int_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& a,
                                                     const T& b) const {
    if (b == T(0)) return T(0);
    if constexpr (std::is_signed<T>::value) {
      if (b == T(-1)) return internal::WrapNeg(a);
      T q = static_cast<T>(a / b);
      const T r = static_cast<T>(a % b);
      if (r != T(0) && ((r < T(0)) != (b < T(0)))) q = static_cast<T>(q - 1);
      return q;
    } else {
      return static_cast<T>(a / b);
    }
  }
};

// Remainder with the sign of the divisor (FloorMod on integers).
template <typename T>
struct floor_mod_int_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& a,
                                                     const T& b) const {
    if (b == T(0)) return T(0);
    if constexpr (std::is_signed<T>::value) {
      if (b == T(-1)) return T(0);
      T r = static_cast<T>(a % b);
      if (r != T(0) && ((r < T(0)) != (b < T(0)))) r = static_cast<T>(r + b);
      return r;
    } else {
      return static_cast<T>(a % b);
    }
  }
};

// x^y for integers by repeated squaring, wrapping; 0^0 == 1.
template <typename T>
struct safe_pow_int_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& base,
                                                     const T& exponent) const {
    if constexpr (std::is_signed<T>::value) {
      if (exponent < T(0)) return T(0);
    }
    using U = internal::WrapType<T>;
    U result = 1;
    U b = static_cast<U>(base);
    U e = static_cast<U>(exponent);
    while (e != 0) {
      if (e & 1) result *= b;
      e >>= 1;
      b *= b;
    }
    return static_cast<T>(result);
  }
};

// floor(a / b) for floating types (FloorDiv), as TensorFlow.
template <typename T>
struct floor_div_real_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& a,
                                                     const T& b) const {
    return Eigen::numext::floor(a / b);
  }
};

// fmod with the sign of the divisor (FloorMod on floating types).
template <typename T>
struct floor_fmod_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& a,
                                                     const T& b) const {
    using C = internal::CalcType<T>;
    const C x = static_cast<C>(a);
    const C y = static_cast<C>(b);
    C m = Eigen::numext::fmod(x, y);
    if (m != C(0) && ((y < C(0)) != (m < C(0)))) m += y;
    return static_cast<T>(m);
  }
};

// --- Comparisons and logic: bool results, no packet form.

#define MF_CWISE_COMPARE_OP(Name, OP)                                         \
  template <typename T>                                                       \
  struct Name {                                                               \
    EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE bool operator()(const T& a,         \
                                                          const T& b) const { \
      return a OP b;                                                          \
    }                                                                         \
  };
MF_CWISE_COMPARE_OP(less_op, <)
MF_CWISE_COMPARE_OP(less_equal_op, <=)
MF_CWISE_COMPARE_OP(greater_op, >)
MF_CWISE_COMPARE_OP(greater_equal_op, >=)
MF_CWISE_COMPARE_OP(equal_to_op, ==)
MF_CWISE_COMPARE_OP(not_equal_to_op, !=)
#undef MF_CWISE_COMPARE_OP

struct logical_and_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE bool operator()(const bool& a,
                                                        const bool& b) const {
    return a && b;
  }
};
struct logical_or_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE bool operator()(const bool& a,
                                                        const bool& b) const {
    return a || b;
  }
};
struct logical_not_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE bool operator()(const bool& a) const {
    return !a;
  }
};

// `Binary(*left, x)` and `Binary(x, *right)` as unary functors: the
// tensor-op-scalar fast paths. The scalar is read through a pointer (device
// memory on a GPU).
template <typename Tout, typename Tin, typename Binary>
struct scalar_left : private Binary {
  using result_type = Tout;
  const Tin* left;
  EIGEN_DEVICE_FUNC explicit scalar_left(const Tin* l) : left(l) {}
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE Tout
  operator()(const Tin& right) const {
    return Binary::operator()(*left, right);
  }
  template <typename Packet>
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE Packet
  packetOp(const Packet& right) const {
    return Binary::packetOp(Eigen::internal::pset1<Packet>(*left), right);
  }
};

template <typename Tout, typename Tin, typename Binary>
struct scalar_right : private Binary {
  using result_type = Tout;
  const Tin* right;
  EIGEN_DEVICE_FUNC explicit scalar_right(const Tin* r) : right(r) {}
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE Tout operator()(const Tin& left) const {
    return Binary::operator()(left, *right);
  }
  template <typename Packet>
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE Packet
  packetOp(const Packet& left) const {
    return Binary::packetOp(left, Eigen::internal::pset1<Packet>(*right));
  }
};

// --- Op descriptors: what a kernel template needs to know about an op.
//   in_type / out_type   element types
//   func                 the Eigen functor (binary ops)
//   Expr(in)             the Eigen expression (unary ops)
//   kHasErrors           the right operand must pass RightOperandIsValid
//                        (integer division by zero, negative integer
//                        exponents); the kernel reports kErrorMessage.

template <typename T, typename F, typename R = T>
struct base {
  using in_type = T;
  using out_type = R;
  using func = F;
  static constexpr bool kHasErrors = false;
  template <typename In>
  static auto Expr(const In& in) {
    return in.unaryExpr(F());
  }
};

// Types whose arithmetic must wrap (Note [Integer overflow in kernels]).
template <typename T, typename IntOp, typename FloatOp>
using IntOr =
    typename std::conditional<internal::IsInt<T>::value, IntOp, FloatOp>::type;

// Unary.
template <typename T>
struct neg : base<T, IntOr<T, wrapping_neg_op<T>,
                           Eigen::internal::scalar_opposite_op<T>>> {};
template <typename T>
struct abs
    : base<T, IntOr<T, wrapping_abs_op<T>, Eigen::internal::scalar_abs_op<T>>> {
};
template <typename T>
struct sign : base<T, Eigen::internal::scalar_sign_op<T>> {};
template <typename T>
struct square : base<T, IntOr<T, wrapping_square_op<T>,
                              Eigen::internal::scalar_square_op<T>>> {};
template <typename T>
struct sqrt : base<T, Eigen::internal::scalar_sqrt_op<T>> {};
template <typename T>
struct rsqrt : base<T, Eigen::internal::scalar_rsqrt_op<T>> {};
template <typename T>
struct exp : base<T, Eigen::internal::scalar_exp_op<T>> {};
template <typename T>
struct log : base<T, Eigen::internal::scalar_log_op<T>> {};
template <typename T>
struct log1p : base<T, Eigen::internal::scalar_log1p_op<T>> {};
template <typename T>
struct tanh : base<T, Eigen::internal::scalar_tanh_op<T>> {};
template <typename T>
struct sigmoid : base<T, Eigen::internal::scalar_logistic_op<T>> {};
template <typename T>
struct sin : base<T, Eigen::internal::scalar_sin_op<T>> {};
template <typename T>
struct cos : base<T, Eigen::internal::scalar_cos_op<T>> {};
template <typename T>
struct atan : base<T, Eigen::internal::scalar_atan_op<T>> {};
template <typename T>
struct floor : base<T, Eigen::internal::scalar_floor_op<T>> {};
template <typename T>
struct ceil : base<T, Eigen::internal::scalar_ceil_op<T>> {};
// Banker's rounding (half to even), as TensorFlow's Round; identity on
// integers.
template <typename T>
struct round
    : base<T, IntOr<T, identity_op<T>, Eigen::internal::scalar_rint_op<T>>> {};
template <typename T>
struct reciprocal : base<T, Eigen::internal::scalar_inverse_op<T>> {};
struct logical_not : base<bool, logical_not_op> {};

// Binary.
template <typename T>
struct add
    : base<T, IntOr<T, wrapping_sum_op<T>, Eigen::internal::scalar_sum_op<T>>> {
};
template <typename T>
struct sub : base<T, IntOr<T, wrapping_difference_op<T>,
                           Eigen::internal::scalar_difference_op<T>>> {};
template <typename T>
struct mul : base<T, IntOr<T, wrapping_product_op<T>,
                           Eigen::internal::scalar_product_op<T>>> {};
template <typename T>
struct div : base<T, Eigen::internal::scalar_quotient_op<T>> {};
template <typename T>
struct squared_difference : base<T, squared_difference_op<T>> {};
template <typename T>
struct maximum
    : base<T,
           IntOr<T, Eigen::internal::scalar_max_op<T, T>,
                 Eigen::internal::scalar_max_op<T, T, Eigen::PropagateNaN>>> {};
template <typename T>
struct minimum
    : base<T,
           IntOr<T, Eigen::internal::scalar_min_op<T, T>,
                 Eigen::internal::scalar_min_op<T, T, Eigen::PropagateNaN>>> {};
template <typename T>
struct floor_div_real : base<T, floor_div_real_op<T>> {};
template <typename T>
struct floor_fmod : base<T, floor_fmod_op<T>> {};
template <typename T>
struct pow_real : base<T, Eigen::internal::scalar_pow_op<T, T>> {};

// Integer ops that reject some right operands.
template <typename T, typename F>
struct checked_int_divisor : base<T, F> {
  static constexpr bool kHasErrors = true;
  static constexpr const char* kErrorMessage = "Integer division by zero";
  EIGEN_DEVICE_FUNC static bool RightOperandIsValid(const T& y) {
    return y != T(0);
  }
};
template <typename T>
struct safe_div : checked_int_divisor<T, safe_div_op<T>> {};
template <typename T>
struct floor_div_int : checked_int_divisor<T, floor_div_int_op<T>> {};
template <typename T>
struct floor_mod_int : checked_int_divisor<T, floor_mod_int_op<T>> {};
template <typename T>
struct safe_pow_int : base<T, safe_pow_int_op<T>> {
  static constexpr bool kHasErrors = std::is_signed<T>::value;
  static constexpr const char* kErrorMessage =
      "Integers to negative integer powers are not allowed";
  EIGEN_DEVICE_FUNC static bool RightOperandIsValid(const T& y) {
    return !(y < T(0));
  }
};

template <typename T>
struct less : base<T, less_op<T>, bool> {};
template <typename T>
struct less_equal : base<T, less_equal_op<T>, bool> {};
template <typename T>
struct greater : base<T, greater_op<T>, bool> {};
template <typename T>
struct greater_equal : base<T, greater_equal_op<T>, bool> {};
template <typename T>
struct equal_to : base<T, equal_to_op<T>, bool> {};
template <typename T>
struct not_equal_to : base<T, not_equal_to_op<T>, bool> {};
struct logical_and : base<bool, logical_and_op> {};
struct logical_or : base<bool, logical_or_op> {};

// --- Evaluation on a device.

}  // namespace functor

namespace internal {
// dst.device(d) = expr on the intra-op pool with the caller taking blocks;
// defined in cpu_parallel_eval.h, which every CPU translation unit that
// evaluates these functors includes (nvcc never instantiates it).
template <typename Dst, typename Expr>
void AssignOnCpu(const Eigen::ThreadPoolDevice& d, Dst dst, const Expr& expr);
// d.parallelFor with the caller taking blocks; also in cpu_parallel_eval.h.
template <typename Fn>
void CpuParallelFor(const Eigen::ThreadPoolDevice& d, int64_t total,
                    const Eigen::TensorOpCost& cost, int64_t align, Fn&& fn);
}  // namespace internal

namespace functor {

// dst.device(d) = expr, through AssignOnCpu on the CPU.
template <typename Device, typename Dst, typename Expr>
void Assign(const Device& d, Dst dst, const Expr& expr) {
  if constexpr (std::is_same<Device, Eigen::ThreadPoolDevice>::value) {
    ::minflow::internal::AssignOnCpu(d, dst, expr);
  } else {
    dst.device(d) = expr;
  }
}

template <typename Device, typename Functor>
struct UnaryFunctor {
  void operator()(const Device& d,
                  typename TTypes<typename Functor::out_type>::Flat out,
                  typename TTypes<typename Functor::in_type>::ConstFlat in) {
    Assign(d, out, Functor::Expr(in));
  }
};

template <typename Device, typename Functor, int NDIMS>
struct BinaryFunctor {
  using Tin = typename Functor::in_type;
  using Tout = typename Functor::out_type;
  using F = typename Functor::func;

  // Same shape.
  void operator()(const Device& d, typename TTypes<Tout>::Flat out,
                  typename TTypes<Tin>::ConstFlat in0,
                  typename TTypes<Tin>::ConstFlat in1) {
    Assign(d, out, in0.binaryExpr(in1, F()));
  }
  // scalar op tensor.
  void Left(const Device& d, typename TTypes<Tout>::Flat out,
            typename TTypes<Tin>::ConstScalar scalar,
            typename TTypes<Tin>::ConstFlat in) {
    Assign(d, out, in.unaryExpr(scalar_left<Tout, Tin, F>(scalar.data())));
  }
  // tensor op scalar.
  void Right(const Device& d, typename TTypes<Tout>::Flat out,
             typename TTypes<Tin>::ConstFlat in,
             typename TTypes<Tin>::ConstScalar scalar) {
    Assign(d, out, in.unaryExpr(scalar_right<Tout, Tin, F>(scalar.data())));
  }
  // Both broadcast to `out`'s shape (Eigen checks isCopy at run time, so
  // an all-ones `bcast` costs a branch, not a second instantiation).
  void BCast(const Device& d, typename TTypes<Tout, NDIMS>::Tensor out,
             typename TTypes<Tin, NDIMS>::ConstTensor in0,
             const Eigen::array<Eigen::DenseIndex, NDIMS>& bcast0,
             typename TTypes<Tin, NDIMS>::ConstTensor in1,
             const Eigen::array<Eigen::DenseIndex, NDIMS>& bcast1) {
    out.device(d) =
        in0.broadcast(bcast0).binaryExpr(in1.broadcast(bcast1), F());
  }
};

}  // namespace functor
}  // namespace minflow

namespace Eigen {
namespace internal {

template <typename T>
struct functor_traits<minflow::functor::wrapping_sum_op<T>> {
  enum {
    Cost = NumTraits<T>::AddCost,
    PacketAccess = packet_traits<T>::HasAdd
  };
};
template <typename T>
struct functor_traits<minflow::functor::wrapping_difference_op<T>> {
  enum {
    Cost = NumTraits<T>::AddCost,
    PacketAccess = packet_traits<T>::HasSub
  };
};
template <typename T>
struct functor_traits<minflow::functor::wrapping_product_op<T>> {
  enum {
    Cost = NumTraits<T>::MulCost,
    PacketAccess = packet_traits<T>::HasMul
  };
};
template <typename T>
struct functor_traits<minflow::functor::wrapping_neg_op<T>> {
  enum { Cost = NumTraits<T>::AddCost, PacketAccess = false };
};
template <typename T>
struct functor_traits<minflow::functor::wrapping_abs_op<T>> {
  enum { Cost = NumTraits<T>::AddCost, PacketAccess = false };
};
template <typename T>
struct functor_traits<minflow::functor::wrapping_square_op<T>> {
  enum {
    Cost = NumTraits<T>::MulCost,
    PacketAccess = packet_traits<T>::HasMul
  };
};
template <typename T>
struct functor_traits<minflow::functor::identity_op<T>> {
  enum { Cost = 0, PacketAccess = true };
};
template <typename T>
struct functor_traits<minflow::functor::squared_difference_op<T>> {
  enum {
    Cost = NumTraits<T>::AddCost + NumTraits<T>::MulCost,
    PacketAccess = packet_traits<T>::HasSub && packet_traits<T>::HasMul
  };
};
template <typename T>
struct functor_traits<minflow::functor::safe_div_op<T>> {
  enum { Cost = scalar_div_cost<T, false>::value, PacketAccess = false };
};
template <typename T>
struct functor_traits<minflow::functor::floor_div_int_op<T>> {
  enum { Cost = 2 * scalar_div_cost<T, false>::value, PacketAccess = false };
};
template <typename T>
struct functor_traits<minflow::functor::floor_mod_int_op<T>> {
  enum { Cost = scalar_div_cost<T, false>::value, PacketAccess = false };
};
template <typename T>
struct functor_traits<minflow::functor::safe_pow_int_op<T>> {
  enum { Cost = 5 * NumTraits<T>::MulCost, PacketAccess = false };
};
template <typename T>
struct functor_traits<minflow::functor::floor_div_real_op<T>> {
  enum { Cost = 2 * NumTraits<T>::MulCost, PacketAccess = false };
};
template <typename T>
struct functor_traits<minflow::functor::floor_fmod_op<T>> {
  enum { Cost = 13, PacketAccess = false };
};
template <typename Tout, typename Tin, typename Binary>
struct functor_traits<minflow::functor::scalar_left<Tout, Tin, Binary>> {
  enum {
    Cost = functor_traits<Binary>::Cost,
    PacketAccess = functor_traits<Binary>::PacketAccess
  };
};
template <typename Tout, typename Tin, typename Binary>
struct functor_traits<minflow::functor::scalar_right<Tout, Tin, Binary>> {
  enum {
    Cost = functor_traits<Binary>::Cost,
    PacketAccess = functor_traits<Binary>::PacketAccess
  };
};

}  // namespace internal
}  // namespace Eigen
