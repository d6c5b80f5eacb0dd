// The neural-network gradients against central differences, in float and
// double. Tolerances: float 2e-3, double 1e-7 (both ops are piecewise
// linear in each input, so only rounding separates the two Jacobians).
#include <vector>

#include "gtest/gtest.h"
#include "minflow/cc/ops/standard_ops.h"
#include "tests/cc/gradients/grad_test_util.h"

namespace minflow {
namespace {

using test::GradTolerance;

template <typename T>
class NnGradTest : public test::GradCheckTest<T> {};
TYPED_TEST_SUITE(NnGradTest, test::GradTypes);

constexpr GradTolerance kTol = {2e-3, 1e-7};

TYPED_TEST(NnGradTest, Relu) {
  // Relu's kink at 0 is no place for differences: inputs keep |x| >= 0.1
  // (the step is 1e-3).
  this->Check(
      {{TensorShape({3, 4}), -1, 1, 0.1}},
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::Relu(s, x[0]).activations;
      },
      kTol);
}

TYPED_TEST(NnGradTest, BiasAddBothLayouts) {
  for (const char* format : {"NHWC", "NCHW"}) {
    SCOPED_TRACE(format);
    const TensorShape value = std::string(format) == "NHWC"
                                  ? TensorShape({2, 3, 2, 4})
                                  : TensorShape({2, 4, 3, 2});
    this->Check(
        {{value}, {TensorShape({4})}},
        [format](const Scope& s, const std::vector<Output>& x) {
          return ops::BiasAdd(s, x[0], x[1], ops::BiasAdd::DataFormat(format))
              .output;
        },
        kTol);
  }
  // Rank 2.
  this->Check(
      {{TensorShape({3, 5})}, {TensorShape({5})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::BiasAdd(s, x[0], x[1]).output;
      },
      kTol);
}

}  // namespace
}  // namespace minflow
