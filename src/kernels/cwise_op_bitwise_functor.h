// Scalar functors of the bitwise ops and their op descriptors for the
// UnaryOp / BinaryOp kernel templates (cwise_ops_common.h). Shift amounts
// are clamped to [0, bits - 1] as in TensorFlow, so no shift is undefined
// behaviour; left shifts run on the unsigned type. nvcc-safe.
#pragma once

#include <climits>

#include "src/kernels/cwise_op_functor.h"

namespace minflow {
namespace functor {

template <typename T>
struct bitwise_and_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& a,
                                                     const T& b) const {
    return a & b;
  }
};
template <typename T>
struct bitwise_or_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& a,
                                                     const T& b) const {
    return a | b;
  }
};
template <typename T>
struct bitwise_xor_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& a,
                                                     const T& b) const {
    return a ^ b;
  }
};

template <typename T>
EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T ClampShift(T y) {
  constexpr T kMaxShift = static_cast<T>(sizeof(T) * CHAR_BIT - 1);
  return y < T(0) ? T(0) : (y > kMaxShift ? kMaxShift : y);
}

template <typename T>
struct left_shift_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& x,
                                                     const T& y) const {
    using U = internal::WrapType<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(x) << ClampShift(y)));
  }
};
template <typename T>
struct right_shift_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& x,
                                                     const T& y) const {
    // Arithmetic on signed types: the sign bit fills in.
    return static_cast<T>(x >> ClampShift(y));
  }
};
template <typename T>
struct invert_op {
  EIGEN_DEVICE_FUNC EIGEN_STRONG_INLINE T operator()(const T& x) const {
    return static_cast<T>(~x);
  }
};

template <typename T>
struct bitwise_and : base<T, bitwise_and_op<T>> {};
template <typename T>
struct bitwise_or : base<T, bitwise_or_op<T>> {};
template <typename T>
struct bitwise_xor : base<T, bitwise_xor_op<T>> {};
template <typename T>
struct left_shift : base<T, left_shift_op<T>> {};
template <typename T>
struct right_shift : base<T, right_shift_op<T>> {};
template <typename T>
struct invert : base<T, invert_op<T>> {};

}  // namespace functor
}  // namespace minflow

namespace Eigen {
namespace internal {

#define MF_BITWISE_TRAITS(OP)                                    \
  template <typename T>                                          \
  struct functor_traits<minflow::functor::OP<T>> {               \
    enum { Cost = NumTraits<T>::AddCost, PacketAccess = false }; \
  };
MF_BITWISE_TRAITS(bitwise_and_op)
MF_BITWISE_TRAITS(bitwise_or_op)
MF_BITWISE_TRAITS(bitwise_xor_op)
MF_BITWISE_TRAITS(left_shift_op)
MF_BITWISE_TRAITS(right_shift_op)
MF_BITWISE_TRAITS(invert_op)
#undef MF_BITWISE_TRAITS

}  // namespace internal
}  // namespace Eigen
