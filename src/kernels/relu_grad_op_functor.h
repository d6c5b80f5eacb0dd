// The gradients of the activations (Relu6Grad, EluGrad, SeluGrad,
// LeakyReluGrad, SoftplusGrad, SoftsignGrad), each one Eigen expression of
// the upstream gradient g and the forward op's input or output f, with
// TensorFlow's formulas. nvcc-safe: Eigen and the tensor-type aliases only.
#pragma once

#include "minflow/core/tensor_types.h"

namespace minflow {
namespace functor {

// Each Expr(g, f, alpha) is the op's backprops; alpha is LeakyReluGrad's
// attr, ignored by the others.

// f is Relu6's input: g where 0 < f < 6 (0 at both kinks, as TensorFlow).
struct relu6_grad {
  template <typename T, typename G, typename F>
  static auto Expr(const G& g, const F& f, T) {
    return (f > T(0) && f < T(6)).select(g, g.constant(T(0)));
  }
};

// f is Elu's output: g * (f + 1) = g * exp(x) where f < 0.
struct elu_grad {
  template <typename T, typename G, typename F>
  static auto Expr(const G& g, const F& f, T) {
    return (f < T(0)).select(g * (f + f.constant(T(1))), g);
  }
};

// f is Selu's output: g * (f + scale * alpha) where f < 0, else g * scale.
struct selu_grad {
  template <typename T, typename G, typename F>
  static auto Expr(const G& g, const F& f, T) {
    const T scale = static_cast<T>(1.0507009873554804934193349852946);
    const T scale_alpha = static_cast<T>(1.7580993408473768599402175208123);
    return (f < T(0)).select(g * (f + f.constant(scale_alpha)),
                             g * g.constant(scale));
  }
};

// f is LeakyRelu's input: g where f > 0, else alpha * g.
struct leaky_relu_grad {
  template <typename T, typename G, typename F>
  static auto Expr(const G& g, const F& f, T alpha) {
    return (f > T(0)).select(g, g * g.constant(alpha));
  }
};

// f is Softplus's input: g * sigmoid(f). exp(-f) overflowing to inf for a
// very negative f gives the right 0.
struct softplus_grad {
  template <typename T, typename G, typename F>
  static auto Expr(const G& g, const F& f, T) {
    return g / ((-f).exp() + f.constant(T(1)));
  }
};

// f is Softsign's input: g / (1 + |f|)^2.
struct softsign_grad {
  template <typename T, typename G, typename F>
  static auto Expr(const G& g, const F& f, T) {
    return g / (f.abs() + f.constant(T(1))).square();
  }
};

}  // namespace functor
}  // namespace minflow
