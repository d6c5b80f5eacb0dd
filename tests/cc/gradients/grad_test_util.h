// What the gradient-checker tests share: a typed fixture over float and
// double that builds y = f(x...) on Placeholders and checks its symbolic
// gradient against central differences (tests/testlib/gradient_checker.h).
#pragma once

#include <cmath>
#include <functional>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/cc/framework/scope.h"
#include "minflow/cc/ops/standard_ops.h"
#include "tests/testlib/gradient_checker.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace test {

// An input of the function under test: its shape and the range its
// values are drawn from.
struct GradInput {
  TensorShape shape;
  double lo = -1;
  double hi = 1;
  // Values nearer 0 than this are moved out to +-min_abs: for ops with a
  // kink at 0 (Relu), where differences across it mean nothing.
  double min_abs = 0;
};

// The tolerance each test states for float and for double.
struct GradTolerance {
  double float_tol;
  double double_tol;
};

template <typename T>
class GradCheckTest : public ::testing::Test {
 protected:
  using Fn = std::function<Output(const Scope&, const std::vector<Output>&)>;

  // Builds y = fn(xs) and expects the largest Jacobian error below the
  // tolerance for T. `seed` varies the values; `delta` overrides the
  // checker's step.
  void Check(const std::vector<GradInput>& inputs, const Fn& fn,
             GradTolerance tol, uint32_t seed = 1, T delta = 0) {
    Scope root = Scope::NewRootScope();
    std::vector<Output> xs;
    std::vector<Tensor> values;
    for (size_t i = 0; i < inputs.size(); ++i) {
      xs.push_back(ops::Placeholder(root, DataTypeToEnum<T>::v()));
      Tensor v = RandomUniform<T>(inputs[i].shape, inputs[i].lo, inputs[i].hi,
                                  seed + 17 * i);
      for (int64_t k = 0; k < v.NumElements(); ++k) {
        T& e = v.flat<T>()(k);
        if (std::abs(e) < inputs[i].min_abs) {
          e = static_cast<T>(e < 0 ? -inputs[i].min_abs : inputs[i].min_abs);
        }
      }
      values.push_back(v);
    }
    Output y = fn(root, xs);
    MF_ASSERT_OK(root.status());
    T error = 0;
    MF_ASSERT_OK(ComputeGradientError<T>(root, xs, values, {y}, &error, delta));
    const double limit =
        sizeof(T) == sizeof(double) ? tol.double_tol : tol.float_tol;
    EXPECT_LT(error, limit);
  }
};

using GradTypes = ::testing::Types<float, double>;

}  // namespace test
}  // namespace minflow
