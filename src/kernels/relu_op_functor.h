// The activation functors (Relu, Relu6, Elu, Selu, Softplus, LeakyRelu) as
// op descriptors for UnaryOp (see cwise_op_functor.h), each one Eigen
// expression with TensorFlow's formula (relu_op_functor.h, softplus_op.h).
// nvcc-safe: Eigen and the tensor-type aliases only.
#pragma once

#include "minflow/core/tensor_types.h"
#include "src/kernels/cwise_op_functor.h"

namespace minflow {
namespace functor {

// Relu and Relu6 propagate NaN, as TF.
template <typename T>
struct relu : base<T, void> {
  template <typename In>
  static auto Expr(const In& in) {
    if constexpr (internal::IsInt<T>::value) {
      return in.cwiseMax(T(0));
    } else {
      return in.template cwiseMax<Eigen::PropagateNaN>(T(0));
    }
  }
};
template <typename T>
struct relu6 : base<T, void> {
  template <typename In>
  static auto Expr(const In& in) {
    if constexpr (internal::IsInt<T>::value) {
      return in.cwiseMax(T(0)).cwiseMin(T(6));
    } else {
      return in.template cwiseMax<Eigen::PropagateNaN>(T(0))
          .template cwiseMin<Eigen::PropagateNaN>(T(6));
    }
  }
};
template <typename T>
struct elu : base<T, void> {
  template <typename In>
  static auto Expr(const In& in) {
    return (in < T(0)).select(in.exp() - in.constant(T(1)), in);
  }
};
template <typename T>
struct selu : base<T, void> {
  template <typename In>
  static auto Expr(const In& in) {
    const T scale = static_cast<T>(1.0507009873554804934193349852946);
    const T scale_alpha = static_cast<T>(1.7580993408473768599402175208123);
    return (in < T(0)).select(
        (in.exp() - in.constant(T(1))) * in.constant(scale_alpha),
        in * in.constant(scale));
  }
};
template <typename T>
struct softplus : base<T, void> {
  template <typename In>
  static auto Expr(const In& in) {
    // Below `threshold` exp(x) is softplus(x) to machine precision; above
    // -threshold x is. TensorFlow's constants (softplus_op.h).
    const T threshold =
        Eigen::numext::log(Eigen::NumTraits<T>::epsilon()) + T(2);
    return (in > -threshold)
        .select(in,
                (in < threshold)
                    .select(in.exp(), (in.exp() + in.constant(T(1))).log()));
  }
};

// LeakyRelu keeps `alpha` (an attr), so it is a functor of its own.
template <typename Device, typename T>
struct LeakyRelu {
  void operator()(const Device& d, typename TTypes<T>::Flat out,
                  typename TTypes<T>::ConstFlat in, T alpha) const {
    // alpha may be > 1 or < 0, so not cwiseMax (as TensorFlow).
    out.device(d) = (in > T(0)).select(in, in * in.constant(alpha));
  }
};

}  // namespace functor
}  // namespace minflow
