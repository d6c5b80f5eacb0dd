// Every math gradient against central differences, in float and double.
// Tolerances: float 1e-2 for ops whose values run to a few units (the
// float step of 1e-3 leaves ~1e-4 relative rounding error per difference,
// more for Div and Log near their poles), 2e-3 elsewhere; double 1e-7.
#include <vector>

#include "gtest/gtest.h"
#include "minflow/cc/ops/standard_ops.h"
#include "tests/cc/gradients/grad_test_util.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using test::GradInput;
using test::GradTolerance;

template <typename T>
class MathGradTest : public test::GradCheckTest<T> {};
TYPED_TEST_SUITE(MathGradTest, test::GradTypes);

constexpr GradTolerance kTight = {2e-3, 1e-7};
constexpr GradTolerance kLoose = {1e-2, 1e-7};

// Shapes a binary op must handle: equal, and broadcast either way.
const std::vector<std::pair<TensorShape, TensorShape>>& BinaryShapes() {
  static const auto* shapes =
      new std::vector<std::pair<TensorShape, TensorShape>>{
          {TensorShape({2, 3}), TensorShape({2, 3})},
          {TensorShape({2, 3}), TensorShape({3})},
          {TensorShape({2, 1, 3}), TensorShape({4, 1})},
          {TensorShape({}), TensorShape({2, 2})},
          {TensorShape({1, 3}), TensorShape({2, 1})}};
  return *shapes;
}

template <typename Op>
auto Binary() {
  return [](const Scope& s, const std::vector<Output>& x) -> Output {
    return Op(s, x[0], x[1]);
  };
}

TYPED_TEST(MathGradTest, Add) {
  for (const auto& [a, b] : BinaryShapes()) {
    this->Check({{a}, {b}}, Binary<ops::Add>(), kTight);
    this->Check({{a}, {b}}, Binary<ops::AddV2>(), kTight);
  }
}

TYPED_TEST(MathGradTest, Sub) {
  for (const auto& [a, b] : BinaryShapes()) {
    this->Check({{a}, {b}}, Binary<ops::Sub>(), kTight);
  }
}

TYPED_TEST(MathGradTest, Mul) {
  for (const auto& [a, b] : BinaryShapes()) {
    this->Check({{a}, {b}}, Binary<ops::Mul>(), kTight);
  }
}

TYPED_TEST(MathGradTest, DivAndRealDiv) {
  // Denominators kept in [0.5, 2], away from the pole.
  for (const auto& [a, b] : BinaryShapes()) {
    this->Check({{a}, {b, 0.5, 2}}, Binary<ops::Div>(), kLoose);
    this->Check({{a}, {b, 0.5, 2}}, Binary<ops::RealDiv>(), kLoose);
  }
}

template <typename Op>
auto Unary() {
  return [](const Scope& s, const std::vector<Output>& x) -> Output {
    return Op(s, x[0]);
  };
}

TYPED_TEST(MathGradTest, UnaryOps) {
  const GradInput any{TensorShape({2, 3}), -2, 2};
  const GradInput positive{TensorShape({2, 3}), 0.5, 2};
  this->Check({any}, Unary<ops::Neg>(), kTight);
  this->Check({any}, Unary<ops::Square>(), kTight);
  this->Check({positive}, Unary<ops::Sqrt>(), kTight);
  this->Check({{TensorShape({2, 3}), -1, 1}}, Unary<ops::Exp>(), kTight);
  this->Check({positive}, Unary<ops::Log>(), kLoose);
  this->Check({any}, Unary<ops::Tanh>(), kTight);
  this->Check({{TensorShape({2, 3}), -4, 4}}, Unary<ops::Sigmoid>(), kTight);
}

TYPED_TEST(MathGradTest, MatMulEveryTranspose) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "ta " << ta << " tb " << tb);
      // op(A) is 2x3, op(B) is 3x4.
      const TensorShape a = ta ? TensorShape({3, 2}) : TensorShape({2, 3});
      const TensorShape b = tb ? TensorShape({4, 3}) : TensorShape({3, 4});
      this->Check(
          {{a}, {b}},
          [ta, tb](const Scope& s, const std::vector<Output>& x) {
            return ops::MatMul(s, x[0], x[1],
                               ops::MatMul::TransposeA(ta).TransposeB(tb))
                .product;
          },
          kTight);
    }
  }
}

TYPED_TEST(MathGradTest, SumAndMeanOverAnyAxes) {
  const GradInput x{TensorShape({2, 3, 4})};
  for (bool keep : {false, true}) {
    for (const std::vector<int>& axes :
         std::vector<std::vector<int>>{{0}, {1}, {-1}, {0, 2}, {0, 1, 2}, {}}) {
      SCOPED_TRACE(::testing::Message()
                   << "keep_dims " << keep << " axes " << axes.size());
      Tensor axes_t = test::AsTensor<int32_t>(axes);
      this->Check(
          {x},
          [&](const Scope& s, const std::vector<Output>& in) {
            return ops::Sum(s, in[0], axes_t, ops::Sum::KeepDims(keep)).output;
          },
          kTight);
      this->Check(
          {x},
          [&](const Scope& s, const std::vector<Output>& in) {
            return ops::Mean(s, in[0], axes_t, ops::Mean::KeepDims(keep))
                .output;
          },
          kTight);
    }
  }
  // A scalar axis, as int64.
  this->Check(
      {x},
      [](const Scope& s, const std::vector<Output>& in) {
        return ops::Sum(s, in[0], int64_t{1}).output;
      },
      kTight);
}

TYPED_TEST(MathGradTest, CastBetweenFloatTypes) {
  // T -> the other floating type -> T: the gradient is cast back twice.
  // For double the float in the middle rounds the differences, so that
  // case takes a step of 1e-2 and a tolerance of 1e-3 (x^2 is quadratic:
  // the step adds no error of its own).
  const bool is_double = DataTypeToEnum<TypeParam>::v() == DT_DOUBLE;
  const DataType other = is_double ? DT_FLOAT : DT_DOUBLE;
  this->Check(
      {{TensorShape({3})}},
      [other](const Scope& s, const std::vector<Output>& x) {
        auto there = ops::Cast(s, x[0], other);
        return ops::Cast(s, ops::Square(s, there),
                         DataTypeToEnum<TypeParam>::v())
            .y;
      },
      {2e-3, 1e-3}, 1, is_double ? TypeParam(1e-2) : TypeParam(0));
}

}  // namespace
}  // namespace minflow
