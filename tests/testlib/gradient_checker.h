// A numeric check of symbolic gradients (TensorFlow's
// cc/framework/gradient_checker.h, ComputeGradientError): the Jacobian of
// ys with respect to xs is built twice, once from AddSymbolicGradients
// (one backward run per element of the ys) and once by central
// differences (two forward runs per element of the xs), and the largest
// absolute difference between the two is returned.
//
//   auto x = ops::Placeholder(root, DT_FLOAT);
//   auto y = ops::Tanh(root, x);
//   float error = 0;
//   MF_ASSERT_OK(test::ComputeGradientError<float>(
//       root, {x}, {test::RandomUniform<float>({2, 3}, -1, 1, 7)}, {y},
//       &error));
//   EXPECT_LT(error, 1e-3);
//
// Header-only: tests that use it link libminflow_cc.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "minflow/cc/framework/client_session.h"
#include "minflow/cc/framework/gradients.h"
#include "minflow/cc/framework/ops.h"
#include "minflow/cc/framework/scope.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"

namespace minflow {
namespace test {

// A tensor of `shape` with values drawn uniformly from [lo, hi).
template <typename T>
Tensor RandomUniform(const TensorShape& shape, double lo, double hi,
                     uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Tensor t(DataTypeToEnum<T>::v(), shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.flat<T>()(i) = static_cast<T>(dist(rng));
  }
  return t;
}

// The step of the central differences: large enough that rounding in T
// does not swamp the difference, small enough that the curvature of
// smooth ops does not.
template <typename T>
constexpr T GradientCheckerDelta() {
  return sizeof(T) == sizeof(double) ? T(1e-6) : T(1e-3);
}

// `xs` are Placeholders of T fed with `x_values`; `ys` are outputs of T.
// Sets *max_error to max |J_symbolic - J_numeric| over every pair of x and
// y elements. An x with NoGradient() counts as a zero gradient. `delta`
// is the step of the differences (0: GradientCheckerDelta<T>()).
template <typename T>
Status ComputeGradientError(const Scope& scope, const std::vector<Output>& xs,
                            const std::vector<Tensor>& x_values,
                            const std::vector<Output>& ys, T* max_error,
                            T delta = 0) {
  if (xs.size() != x_values.size()) {
    return errors::InvalidArgument("ComputeGradientError got ", xs.size(),
                                   " xs but ", x_values.size(), " values");
  }
  const DataType dtype = DataTypeToEnum<T>::v();
  std::vector<Output> dys;
  for (const Output& y : ys) {
    if (y.type() != dtype) {
      return errors::InvalidArgument("ComputeGradientError: y '", y.name(),
                                     "' is not of the checker's dtype");
    }
    dys.push_back(ops::Placeholder(scope.NewSubScope("checker_dy"), dtype));
  }
  std::vector<Output> grads;
  MF_RETURN_IF_ERROR(AddSymbolicGradients(scope, ys, xs, dys, &grads));
  ClientSession session(scope);
  ClientSession::FeedType feeds;
  for (size_t i = 0; i < xs.size(); ++i) feeds.emplace(xs[i], x_values[i]);

  // Forward values, for the ys' sizes.
  std::vector<Tensor> y_values;
  MF_RETURN_IF_ERROR(session.Run(feeds, ys, &y_values));
  std::vector<int64_t> y_sizes;
  for (const Tensor& t : y_values) y_sizes.push_back(t.NumElements());

  // jacobians[x][y]: x elements by y elements, the symbolic one first.
  auto new_jacobians = [&]() {
    std::vector<std::vector<std::vector<T>>> j(xs.size());
    for (size_t xi = 0; xi < xs.size(); ++xi) {
      j[xi].resize(ys.size());
      for (size_t yi = 0; yi < ys.size(); ++yi) {
        j[xi][yi].assign(x_values[xi].NumElements() * y_sizes[yi], T(0));
      }
    }
    return j;
  };
  auto symbolic = new_jacobians();
  auto numeric = new_jacobians();

  std::vector<Output> fetch;
  std::vector<size_t> fetch_x;
  for (size_t xi = 0; xi < xs.size(); ++xi) {
    if (grads[xi].node() == nullptr) continue;  // NoGradient: zeros
    fetch.push_back(grads[xi]);
    fetch_x.push_back(xi);
  }
  for (size_t yi = 0; yi < ys.size(); ++yi) {
    for (int64_t r = 0; r < y_sizes[yi]; ++r) {
      ClientSession::FeedType run_feeds = feeds;
      for (size_t k = 0; k < ys.size(); ++k) {
        Tensor dy(dtype, y_values[k].shape());
        dy.flat<T>().setZero();
        if (k == yi) dy.flat<T>()(r) = T(1);
        run_feeds.emplace(dys[k], dy);
      }
      std::vector<Tensor> out;
      MF_RETURN_IF_ERROR(session.Run(run_feeds, fetch, &out));
      for (size_t f = 0; f < fetch.size(); ++f) {
        const size_t xi = fetch_x[f];
        if (out[f].NumElements() != x_values[xi].NumElements()) {
          return errors::InvalidArgument(
              "The gradient of x ", xi, " has ", out[f].NumElements(),
              " elements, but x has ", x_values[xi].NumElements());
        }
        for (int64_t c = 0; c < out[f].NumElements(); ++c) {
          symbolic[xi][yi][c * y_sizes[yi] + r] = out[f].flat<T>()(c);
        }
      }
    }
  }

  if (delta == 0) delta = GradientCheckerDelta<T>();
  for (size_t xi = 0; xi < xs.size(); ++xi) {
    for (int64_t c = 0; c < x_values[xi].NumElements(); ++c) {
      std::vector<Tensor> plus, minus;
      for (int sign : {1, -1}) {
        Tensor moved(dtype, x_values[xi].shape());
        moved.flat<T>() = x_values[xi].flat<T>();
        moved.flat<T>()(c) += sign * delta;
        ClientSession::FeedType run_feeds = feeds;
        run_feeds.erase(xs[xi]);
        run_feeds.emplace(xs[xi], moved);
        MF_RETURN_IF_ERROR(
            session.Run(run_feeds, ys, sign > 0 ? &plus : &minus));
      }
      for (size_t yi = 0; yi < ys.size(); ++yi) {
        for (int64_t r = 0; r < y_sizes[yi]; ++r) {
          numeric[xi][yi][c * y_sizes[yi] + r] =
              (plus[yi].flat<T>()(r) - minus[yi].flat<T>()(r)) / (2 * delta);
        }
      }
    }
  }

  T worst = 0;
  for (size_t xi = 0; xi < xs.size(); ++xi) {
    for (size_t yi = 0; yi < ys.size(); ++yi) {
      for (size_t k = 0; k < symbolic[xi][yi].size(); ++k) {
        const T diff = std::abs(symbolic[xi][yi][k] - numeric[xi][yi][k]);
        // A NaN must fail the check: it sticks.
        if (std::isnan(diff) || diff > worst) worst = diff;
      }
    }
  }
  *max_error = worst;
  return OkStatus();
}

// One x, one y.
template <typename T>
Status ComputeGradientError(const Scope& scope, const Output& x,
                            const Tensor& x_value, const Output& y,
                            T* max_error) {
  return ComputeGradientError<T>(scope, std::vector<Output>{x},
                                 std::vector<Tensor>{x_value},
                                 std::vector<Output>{y}, max_error);
}

}  // namespace test
}  // namespace minflow
