// The convolution and pooling gradients against central differences, in
// float and double. Tolerances: float 5e-3 (sums of up to ~30 products, each
// difference quotient rounded at the step 1e-3), double 1e-7. All these
// ops are linear in each input (MaxPool piecewise, away from ties), so
// only rounding separates the two Jacobians.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/cc/ops/standard_ops.h"
#include "tests/cc/gradients/grad_test_util.h"

namespace minflow {
namespace {

using test::GradTolerance;

template <typename T>
class ConvGradTest : public test::GradCheckTest<T> {};
TYPED_TEST_SUITE(ConvGradTest, test::GradTypes);

constexpr GradTolerance kTol = {5e-3, 1e-7};

// One forward convolution to check: shapes and window attrs.
struct ConvCase {
  TensorShape input;
  TensorShape filter;
  std::vector<int64_t> strides;
  std::string padding;
  std::vector<int64_t> dilations = {1, 1, 1, 1};
  std::vector<int64_t> explicit_paddings = {};
};

std::vector<ConvCase> Conv2DCases() {
  return {
      {TensorShape({2, 4, 5, 2}),
       TensorShape({2, 2, 2, 3}),
       {1, 1, 1, 1},
       "VALID"},
      {TensorShape({1, 5, 5, 2}),
       TensorShape({3, 3, 2, 2}),
       {1, 1, 1, 1},
       "SAME"},
      // Stride > 1: the input gradient goes through GEMM + col2im.
      {TensorShape({1, 5, 6, 2}),
       TensorShape({3, 3, 2, 3}),
       {1, 2, 2, 1},
       "SAME"},
      {TensorShape({2, 5, 5, 1}),
       TensorShape({2, 3, 1, 2}),
       {1, 2, 1, 1},
       "VALID"},
      {TensorShape({1, 5, 4, 2}),
       TensorShape({2, 2, 2, 2}),
       {1, 1, 1, 1},
       "VALID",
       {1, 2, 1, 1}},
      {TensorShape({1, 4, 4, 2}),
       TensorShape({2, 2, 2, 2}),
       {1, 1, 2, 1},
       "EXPLICIT",
       {1, 1, 1, 1},
       {0, 0, 1, 2, 0, 1, 0, 0}},
      // Grouped: two groups of two channels.
      {TensorShape({1, 4, 4, 4}),
       TensorShape({2, 2, 2, 4}),
       {1, 1, 1, 1},
       "SAME"},
  };
}

TYPED_TEST(ConvGradTest, Conv2DBothInputs) {
  for (const ConvCase& c : Conv2DCases()) {
    SCOPED_TRACE(c.input.DebugString() + " " + c.filter.DebugString() + " " +
                 c.padding + " stride " + std::to_string(c.strides[1]) +
                 " dilation " + std::to_string(c.dilations[1]));
    this->Check(
        {{c.input}, {c.filter}},
        [&c](const Scope& s, const std::vector<Output>& x) {
          return ops::Conv2D(s, x[0], x[1], c.strides, c.padding,
                             ops::Conv2D::Dilations(c.dilations)
                                 .ExplicitPaddings(c.explicit_paddings))
              .output;
        },
        kTol);
  }
}

TYPED_TEST(ConvGradTest, DepthwiseConv2dNativeBothInputs) {
  const std::vector<ConvCase> cases = {
      {TensorShape({2, 4, 4, 3}),
       TensorShape({2, 2, 3, 1}),
       {1, 1, 1, 1},
       "VALID"},
      // Channel multiplier 2, stride 2, SAME.
      {TensorShape({1, 5, 5, 2}),
       TensorShape({3, 3, 2, 2}),
       {1, 2, 2, 1},
       "SAME"},
      {TensorShape({1, 5, 5, 2}),
       TensorShape({2, 2, 2, 1}),
       {1, 1, 1, 1},
       "VALID",
       {1, 2, 2, 1}},
      {TensorShape({1, 3, 4, 2}),
       TensorShape({2, 2, 2, 2}),
       {1, 1, 2, 1},
       "EXPLICIT",
       {1, 1, 1, 1},
       {0, 0, 1, 0, 2, 1, 0, 0}},
  };
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(c.input.DebugString() + " " + c.filter.DebugString() + " " +
                 c.padding);
    this->Check(
        {{c.input}, {c.filter}},
        [&c](const Scope& s, const std::vector<Output>& x) {
          return ops::DepthwiseConv2dNative(
                     s, x[0], x[1], c.strides, c.padding,
                     ops::DepthwiseConv2dNative::Dilations(c.dilations)
                         .ExplicitPaddings(c.explicit_paddings))
              .output;
        },
        kTol);
  }
}

// One forward pooling to check.
struct PoolCase {
  TensorShape input;
  std::vector<int64_t> ksize;
  std::vector<int64_t> strides;
  std::string padding;
};

std::vector<PoolCase> PoolCases() {
  return {
      {TensorShape({2, 4, 4, 2}), {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"},
      // Overlapping windows, and SAME's border windows with fewer taps.
      {TensorShape({1, 5, 5, 2}), {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"},
      {TensorShape({1, 4, 5, 3}), {1, 2, 3, 1}, {1, 1, 2, 1}, "SAME"},
      {TensorShape({1, 5, 4, 1}), {1, 3, 2, 1}, {1, 1, 1, 1}, "VALID"},
  };
}

Tensor Int32Vector(const std::vector<int64_t>& v) {
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) {
    t.flat<int32_t>()(i) = static_cast<int32_t>(v[i]);
  }
  return t;
}

// MaxPool's inputs are kept at distinct values (a random draw a fixed
// seed makes) so that no perturbation by the step changes a window's
// maximum: at a tie the function has no derivative.
TYPED_TEST(ConvGradTest, MaxPool) {
  for (const PoolCase& c : PoolCases()) {
    SCOPED_TRACE(c.input.DebugString() + " " + c.padding);
    this->Check(
        {{c.input}},
        [&c](const Scope& s, const std::vector<Output>& x) {
          return ops::MaxPool(s, x[0], c.ksize, c.strides, c.padding).output;
        },
        kTol);
  }
}

TYPED_TEST(ConvGradTest, MaxPoolV2WindowFromInputs) {
  for (const PoolCase& c : PoolCases()) {
    SCOPED_TRACE(c.input.DebugString() + " " + c.padding);
    this->Check(
        {{c.input}},
        [&c](const Scope& s, const std::vector<Output>& x) {
          return ops::MaxPoolV2(s, x[0], ops::Const(s, Int32Vector(c.ksize)),
                                ops::Const(s, Int32Vector(c.strides)),
                                c.padding)
              .output;
        },
        kTol);
  }
}

TYPED_TEST(ConvGradTest, AvgPool) {
  for (const PoolCase& c : PoolCases()) {
    SCOPED_TRACE(c.input.DebugString() + " " + c.padding);
    this->Check(
        {{c.input}},
        [&c](const Scope& s, const std::vector<Output>& x) {
          return ops::AvgPool(s, x[0], c.ksize, c.strides, c.padding).output;
        },
        kTol);
  }
}

}  // namespace
}  // namespace minflow
