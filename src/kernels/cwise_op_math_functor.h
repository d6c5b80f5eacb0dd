// Element-wise functors of the math ops beyond the core set (cwise_op_
// functor.h): trigonometric, hyperbolic and error functions, float
// classification, Softsign, and the truncating and NaN-guarded divisions
// and products (Mod, TruncateDiv, TruncateMod, Xlogy, Xdivy, DivNoNan,
// MulNoNan, Atan2), with TensorFlow's semantics. Same descriptors and
// constraints as cwise_op_functor.h: only Eigen and the tensor types, so
// nvcc can compile it.
#pragma once

#include <cmath>
#include <type_traits>

#include "src/kernels/cwise_op_functor.h"

namespace minflow {
namespace functor {

// x / (1 + |x|).
template <typename T>
struct softsign_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& x) const {
    return x / (T(1) + Eigen::numext::abs(x));
  }
  template <typename Packet>
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE Packet packetOp(const Packet& x) const {
    return Eigen::internal::pdiv(
        x, Eigen::internal::padd(Eigen::internal::pset1<Packet>(T(1)),
                                 Eigen::internal::pabs(x)));
  }
};

// atan2(y, x): the angle of the point (x, y); input 0 is y.
template <typename T>
struct atan2_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& y,
                                                     const T& x) const {
    using std::atan2;
    return atan2(y, x);
  }
};

// C's fmod: the remainder with the sign of the dividend (Mod and
// TruncateMod on floating types).
template <typename T>
struct fmod_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& a,
                                                     const T& b) const {
    return Eigen::numext::fmod(a, b);
  }
};

// a / b rounded toward zero (TruncateDiv on floating types).
template <typename T>
struct truncate_div_real_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& a,
                                                     const T& b) const {
    using std::trunc;
    return trunc(a / b);
  }
};

// C++'s % (sign of the dividend), Mod and TruncateMod on integers. A zero
// divisor is rejected by the kernel before this runs (see safe_div_op);
// INT_MIN % -1 is 0 (Note [Integer overflow in kernels]).
template <typename T>
struct safe_mod_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& a,
                                                     const T& b) const {
    if (b == T(0)) return T(0);
    if constexpr (std::is_signed<T>::value) {
      if (b == T(-1)) return T(0);
    }
    return static_cast<T>(a % b);
  }
};

// x * log(y), and 0 where x == 0 (whatever y is).
template <typename T>
struct xlogy_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& x,
                                                     const T& y) const {
    if (x == T(0)) return T(0);
    return x * Eigen::numext::log(y);
  }
};

// x / y, and 0 where x == 0 (whatever y is).
template <typename T>
struct xdivy_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& x,
                                                     const T& y) const {
    if (x == T(0)) return T(0);
    return x / y;
  }
};

// x / y, and 0 where y == 0 (whatever x is).
template <typename T>
struct div_no_nan_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& x,
                                                     const T& y) const {
    if (y == T(0)) return T(0);
    return x / y;
  }
};

// x * y, and 0 where y == 0 (whatever x is).
template <typename T>
struct mul_no_nan_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& x,
                                                     const T& y) const {
    if (y == T(0)) return T(0);
    return x * y;
  }
};

// --- Op descriptors (see cwise_op_functor.h).

// Unary, floating types.
template <typename T>
struct tan : base<T, Eigen::internal::scalar_tan_op<T>> {};
template <typename T>
struct asin : base<T, Eigen::internal::scalar_asin_op<T>> {};
template <typename T>
struct acos : base<T, Eigen::internal::scalar_acos_op<T>> {};
template <typename T>
struct sinh : base<T, Eigen::internal::scalar_sinh_op<T>> {};
template <typename T>
struct cosh : base<T, Eigen::internal::scalar_cosh_op<T>> {};
template <typename T>
struct asinh : base<T, Eigen::internal::scalar_asinh_op<T>> {};
template <typename T>
struct acosh : base<T, Eigen::internal::scalar_acosh_op<T>> {};
template <typename T>
struct atanh : base<T, Eigen::internal::scalar_atanh_op<T>> {};
template <typename T>
struct erf : base<T, Eigen::internal::scalar_erf_op<T>> {};
template <typename T>
struct erfc : base<T, Eigen::internal::scalar_erfc_op<T>> {};
template <typename T>
struct expm1 : base<T, Eigen::internal::scalar_expm1_op<T>> {};
// Half to even in the default rounding mode, as TensorFlow's Rint.
template <typename T>
struct rint : base<T, Eigen::internal::scalar_rint_op<T>> {};
template <typename T>
struct softsign : base<T, softsign_op<T>> {};
template <typename T>
struct is_nan : base<T, Eigen::internal::scalar_isnan_op<T>, bool> {};
template <typename T>
struct is_inf : base<T, Eigen::internal::scalar_isinf_op<T>, bool> {};
template <typename T>
struct is_finite : base<T, Eigen::internal::scalar_isfinite_op<T>, bool> {};

// Binary, floating types.
template <typename T>
struct atan2 : base<T, atan2_op<T>> {};
template <typename T>
struct fmod : base<T, fmod_op<T>> {};
template <typename T>
struct truncate_div_real : base<T, truncate_div_real_op<T>> {};
template <typename T>
struct xlogy : base<T, xlogy_op<T>> {};
template <typename T>
struct xdivy : base<T, xdivy_op<T>> {};
template <typename T>
struct div_no_nan : base<T, div_no_nan_op<T>> {};
template <typename T>
struct mul_no_nan : base<T, mul_no_nan_op<T>> {};

// Binary, integers: a zero divisor is "Integer division by zero".
template <typename T>
struct safe_mod : checked_int_divisor<T, safe_mod_op<T>> {};

}  // namespace functor
}  // namespace minflow

namespace Eigen {
namespace internal {

template <typename T>
struct functor_traits<minflow::functor::softsign_op<T>> {
  enum {
    Cost = NumTraits<T>::AddCost + scalar_div_cost<T, true>::value,
    PacketAccess = packet_traits<T>::HasAbs && packet_traits<T>::HasDiv
  };
};
template <typename T>
struct functor_traits<minflow::functor::atan2_op<T>> {
  enum { Cost = 20 * NumTraits<T>::MulCost, PacketAccess = false };
};
template <typename T>
struct functor_traits<minflow::functor::fmod_op<T>> {
  enum { Cost = 13, PacketAccess = false };
};
template <typename T>
struct functor_traits<minflow::functor::truncate_div_real_op<T>> {
  enum { Cost = 2 * NumTraits<T>::MulCost, PacketAccess = false };
};
template <typename T>
struct functor_traits<minflow::functor::safe_mod_op<T>> {
  enum { Cost = scalar_div_cost<T, false>::value, PacketAccess = false };
};
template <typename T>
struct functor_traits<minflow::functor::xlogy_op<T>> {
  enum { Cost = 10 * NumTraits<T>::MulCost, PacketAccess = false };
};
template <typename T>
struct functor_traits<minflow::functor::xdivy_op<T>> {
  enum { Cost = scalar_div_cost<T, false>::value, PacketAccess = false };
};
template <typename T>
struct functor_traits<minflow::functor::div_no_nan_op<T>> {
  enum { Cost = scalar_div_cost<T, false>::value, PacketAccess = false };
};
template <typename T>
struct functor_traits<minflow::functor::mul_no_nan_op<T>> {
  enum { Cost = NumTraits<T>::MulCost, PacketAccess = false };
};

}  // namespace internal
}  // namespace Eigen
