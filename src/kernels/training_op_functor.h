// The optimiser updates of training_ops.cc, each a few Eigen expressions on
// any Eigen device, updating the variable and its slots in place.
// Hyperparameters come as host values (the kernels read their scalar
// inputs on the host). nvcc-safe: Eigen and the tensor-type aliases only.
#pragma once

#include "minflow/core/tensor_types.h"

namespace minflow {
namespace functor {

template <typename Device, typename T>
struct ApplyGradientDescent {
  void operator()(const Device& d, typename TTypes<T>::Flat var, T alpha,
                  typename TTypes<T>::ConstFlat delta) const {
    var.device(d) -= delta * alpha;
  }
};

template <typename Device, typename T>
struct ApplyMomentum {
  void operator()(const Device& d, typename TTypes<T>::Flat var,
                  typename TTypes<T>::Flat accum, T lr,
                  typename TTypes<T>::ConstFlat grad, T momentum,
                  bool use_nesterov) const {
    accum.device(d) = accum * momentum + grad;
    if (use_nesterov) {
      var.device(d) -= grad * lr + accum * (momentum * lr);
    } else {
      var.device(d) -= accum * lr;
    }
  }
};

template <typename Device, typename T>
struct ApplyAdam {
  void operator()(const Device& d, typename TTypes<T>::Flat var,
                  typename TTypes<T>::Flat m, typename TTypes<T>::Flat v,
                  T beta1_power, T beta2_power, T lr, T beta1, T beta2,
                  T epsilon, typename TTypes<T>::ConstFlat grad,
                  bool use_nesterov) const {
    // The bias corrections of both moments folded into the step size.
    const T lr_t =
        lr * Eigen::numext::sqrt(T(1) - beta2_power) / (T(1) - beta1_power);
    m.device(d) += (grad - m) * (T(1) - beta1);
    v.device(d) += (grad.square() - v) * (T(1) - beta2);
    if (use_nesterov) {
      var.device(d) -=
          ((m * beta1 + grad * (T(1) - beta1)) * lr_t) / (v.sqrt() + epsilon);
    } else {
      var.device(d) -= (m * lr_t) / (v.sqrt() + epsilon);
    }
  }
};

template <typename Device, typename T>
struct ApplyRMSProp {
  void operator()(const Device& d, typename TTypes<T>::Flat var,
                  typename TTypes<T>::Flat ms, typename TTypes<T>::Flat mom,
                  T lr, T rho, T momentum, T epsilon,
                  typename TTypes<T>::ConstFlat grad) const {
    ms.device(d) += (grad.square() - ms) * (T(1) - rho);
    mom.device(d) = mom * momentum + (grad * lr) / (ms + epsilon).sqrt();
    var.device(d) -= mom;
  }
};

template <typename Device, typename T>
struct ApplyAdagrad {
  void operator()(const Device& d, typename TTypes<T>::Flat var,
                  typename TTypes<T>::Flat accum, T lr,
                  typename TTypes<T>::ConstFlat grad, bool update_slots) const {
    if (update_slots) accum.device(d) += grad.square();
    var.device(d) -= grad * lr * accum.rsqrt();
  }
};

}  // namespace functor
}  // namespace minflow
