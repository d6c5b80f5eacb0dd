// Every math gradient against central differences, in float and double.
// Tolerances: float 1e-2 for ops whose values run to a few units (the
// float step of 1e-3 leaves ~1e-4 relative rounding error per difference,
// more for Div and Log near their poles), 2e-3 elsewhere; double 1e-7.
// Inputs are drawn where each function is smooth: away from poles, kinks,
// and ties of Maximum/Minimum.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/cc/framework/client_session.h"
#include "minflow/cc/framework/grad_op_registry.h"
#include "minflow/cc/framework/gradients.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/graph/graph.h"
#include "tests/cc/gradients/grad_test_util.h"
#include "tests/testlib/status_matchers.h"
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

// Operands whose shapes are known when the gradient is built, wholly or
// in part (-1 in `as`: Reshape leaves that dim unknown), so the gradients
// take their static forms (Note [Broadcasting a binary op's gradient]) or,
// where an unknown dim may have been broadcast, the dynamic one.
TYPED_TEST(MathGradTest, BinaryOpsOfStaticAndPartialShapes) {
  struct Case {
    TensorShape x, y;
    std::vector<int32_t> x_as, y_as;
  };
  const std::vector<Case> cases = {
      {TensorShape({2, 3}), TensorShape({3}), {2, 3}, {3}},
      {TensorShape({2, 1}), TensorShape({1, 3}), {2, 1}, {1, 3}},
      {TensorShape({2, 3}), TensorShape({3}), {-1, 3}, {3}},
      {TensorShape({2, 3}), TensorShape({1, 3}), {-1, 3}, {1, 3}},
      {TensorShape({2, 3}), TensorShape({2, 3}), {-1, 3}, {-1, 3}},
      {TensorShape({4, 2, 3}), TensorShape({2, 1}), {-1, 2, 3}, {2, 1}},
      {TensorShape({2, 3}), TensorShape({}), {2, 3}, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message()
                 << c.x.DebugString() << " as " << c.x_as.size() << " dims, "
                 << c.y.DebugString());
    const Tensor x_as = test::AsTensor<int32_t>(c.x_as);
    const Tensor y_as = test::AsTensor<int32_t>(c.y_as);
    auto shaped = [&](auto op) {
      return [&, op](const Scope& s, const std::vector<Output>& in) -> Output {
        return op(s, ops::Reshape(s, in[0], x_as),
                  ops::Reshape(s, in[1], y_as));
      };
    };
    this->Check({{c.x}, {c.y}}, shaped([](const Scope& s, Output a, Output b) {
                  return Output(ops::AddV2(s, a, b));
                }),
                kTight);
    this->Check({{c.x}, {c.y}}, shaped([](const Scope& s, Output a, Output b) {
                  return Output(ops::Mul(s, a, b));
                }),
                kTight);
    this->Check({{c.x}, {c.y}}, shaped([](const Scope& s, Output a, Output b) {
                  return Output(ops::Sub(s, a, b));
                }),
                kTight);
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

TYPED_TEST(MathGradTest, UnaryMathOps) {
  const TensorShape shape({2, 3});
  const GradInput any{shape, -2, 2};
  const GradInput unit{shape, -0.9, 0.9};  // inside (-1, 1)
  const GradInput positive{shape, 0.5, 2};
  // |x| has a kink at 0: values stay at least 0.1 from it.
  this->Check({{shape, -2, 2, 0.1}}, Unary<ops::Abs>(), kTight);
  this->Check({positive}, Unary<ops::Rsqrt>(), kLoose);
  this->Check({positive}, Unary<ops::Reciprocal>(), kLoose);
  this->Check({any}, Unary<ops::Sin>(), kTight);
  this->Check({any}, Unary<ops::Cos>(), kTight);
  this->Check({{shape, -1.2, 1.2}}, Unary<ops::Tan>(), kLoose);
  // asin, acos and atanh have poles at +-1; 0.9 keeps the slope below 6.
  this->Check({unit}, Unary<ops::Asin>(), kLoose);
  this->Check({unit}, Unary<ops::Acos>(), kLoose);
  this->Check({any}, Unary<ops::Atan>(), kTight);
  this->Check({any}, Unary<ops::Sinh>(), kLoose);
  this->Check({any}, Unary<ops::Cosh>(), kLoose);
  this->Check({any}, Unary<ops::Asinh>(), kTight);
  this->Check({{shape, 1.2, 3}}, Unary<ops::Acosh>(), kLoose);
  this->Check({unit}, Unary<ops::Atanh>(), kLoose);
  this->Check({{shape, -0.5, 2}}, Unary<ops::Log1p>(), kLoose);
  this->Check({{shape, -1, 1}}, Unary<ops::Expm1>(), kTight);
  this->Check({any}, Unary<ops::Erf>(), kTight);
  this->Check({any}, Unary<ops::Erfc>(), kTight);
}

TYPED_TEST(MathGradTest, PowBothInputs) {
  // x > 0: log(x) is defined, so y gets a gradient too.
  for (const auto& [a, b] : BinaryShapes()) {
    this->Check({{a, 0.5, 2}, {b, -2, 2}}, Binary<ops::Pow>(), kLoose);
  }
}

TYPED_TEST(MathGradTest, PowOfNonPositiveBaseGivesNoExponentGradient) {
  // Integer exponents keep x^y real for x < 0; TensorFlow's gradient for y
  // is 0 there, and the checker's differences agree only for x's part,
  // so y is a constant here and x runs over negative values.
  this->Check(
      {{TensorShape({2, 3}), -2, -0.5}},
      [](const Scope& s, const std::vector<Output>& x) -> Output {
        auto y = ops::Cast(
            s, ops::Const(s, test::AsTensor<float>({1, 2, 3, 2, 3, 1}, {2, 3})),
            DataTypeToEnum<TypeParam>::v());
        return ops::Pow(s, x[0], y);
      },
      kLoose);
  // And the y gradient is exactly 0 where x <= 0.
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, {TypeParam(-2), TypeParam(0), TypeParam(3)});
  auto y = ops::Placeholder(root, DataTypeToEnum<TypeParam>::v());
  auto z = ops::Pow(root, x, y);
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root, {z}, {y}, &grads));
  ClientSession session(root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session.Run(
      {{y,
        test::AsTensor<TypeParam>({TypeParam(2), TypeParam(2), TypeParam(2)})}},
      {grads[0]}, &out));
  EXPECT_EQ(out[0].flat<TypeParam>()(0), TypeParam(0));
  EXPECT_EQ(out[0].flat<TypeParam>()(1), TypeParam(0));
  EXPECT_NEAR(static_cast<double>(out[0].flat<TypeParam>()(2)),
              9 * std::log(3.0), 1e-5);
}

TYPED_TEST(MathGradTest, MaximumMinimumSquaredDifference) {
  // x and y both spread over about [-1, 1], so each input is picked for
  // some elements; the fixed seeds give no pair closer than the step.
  for (const auto& [a, b] : BinaryShapes()) {
    this->Check({{a}, {b, -0.9, 0.9}}, Binary<ops::Maximum>(), kTight, 3);
    this->Check({{a}, {b, -0.9, 0.9}}, Binary<ops::Minimum>(), kTight, 5);
    this->Check({{a}, {b}}, Binary<ops::SquaredDifference>(), kTight);
  }
}

TYPED_TEST(MathGradTest, MaximumTieGoesToX) {
  Scope root = Scope::NewRootScope();
  const DataType dt = DataTypeToEnum<TypeParam>::v();
  auto x = ops::Placeholder(root, dt);
  auto y = ops::Placeholder(root, dt);
  std::vector<Output> grads;
  MF_ASSERT_OK(
      AddSymbolicGradients(root, {ops::Maximum(root, x, y)}, {x, y}, &grads));
  ClientSession session(root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session.Run({{x, test::AsTensor<TypeParam>({1, 2, 3})},
                            {y, test::AsTensor<TypeParam>({1, 5, 0})}},
                           grads, &out));
  test::ExpectTensorEqual<TypeParam>(out[0],
                                     test::AsTensor<TypeParam>({1, 0, 1}));
  test::ExpectTensorEqual<TypeParam>(out[1],
                                     test::AsTensor<TypeParam>({0, 1, 0}));
}

TYPED_TEST(MathGradTest, FloorModAndAtan2) {
  // x / y is kept away from integers so that floor(x / y) is constant
  // around each point: x in [0.1, 0.9], y in [1.5, 2] gives x / y < 0.6.
  for (const auto& [a, b] : BinaryShapes()) {
    this->Check({{a, 0.1, 0.9}, {b, 1.5, 2}}, Binary<ops::FloorMod>(), kTight);
    // Atan2 away from the origin.
    this->Check({{a, 0.5, 2}, {b, -2, 2, 0.3}}, Binary<ops::Atan2>(), kLoose);
  }
  // Quotients of 2 and 3: the gradient of y is -floor(x / y) = -2, -3.
  this->Check({{TensorShape({2}), 4.1, 4.4}, {TensorShape({2}), 1.45, 1.5}},
              Binary<ops::FloorMod>(), kLoose);
}

TYPED_TEST(MathGradTest, XlogyXdivyDivNoNanMulNoNan) {
  for (const auto& [a, b] : BinaryShapes()) {
    this->Check({{a, -2, 2, 0.1}, {b, 0.5, 2}}, Binary<ops::Xlogy>(), kLoose);
    this->Check({{a, -2, 2, 0.1}, {b, 0.5, 2}}, Binary<ops::Xdivy>(), kLoose);
    this->Check({{a}, {b, 0.5, 2}}, Binary<ops::DivNoNan>(), kLoose);
    this->Check({{a}, {b, 0.5, 2}}, Binary<ops::MulNoNan>(), kTight);
  }
}

// The special cases: at x == 0, Xlogy's and Xdivy's gradients are 0 even
// for y == 0; at y == 0, DivNoNan's are 0 and MulNoNan's x part is 0.
TYPED_TEST(MathGradTest, NoNanGradientsAreZeroAtTheirZeros) {
  const DataType dt = DataTypeToEnum<TypeParam>::v();
  auto grads_at = [&](auto make, Tensor xv, Tensor yv) {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root, dt);
    auto y = ops::Placeholder(root, dt);
    std::vector<Output> grads;
    std::vector<Tensor> out;
    EXPECT_TRUE(
        AddSymbolicGradients(root, {make(root, x, y)}, {x, y}, &grads).ok());
    ClientSession session(root);
    EXPECT_TRUE(session.Run({{x, xv}, {y, yv}}, grads, &out).ok());
    return out;
  };
  const Tensor zero = test::AsTensor<TypeParam>({0});
  const Tensor two = test::AsTensor<TypeParam>({2});
  auto xlogy = [](const Scope& s, Output x, Output y) -> Output {
    return ops::Xlogy(s, x, y);
  };
  auto xdivy = [](const Scope& s, Output x, Output y) -> Output {
    return ops::Xdivy(s, x, y);
  };
  auto div_no_nan = [](const Scope& s, Output x, Output y) -> Output {
    return ops::DivNoNan(s, x, y);
  };
  for (const auto& out :
       {grads_at(xlogy, zero, zero), grads_at(xdivy, zero, zero),
        grads_at(div_no_nan, two, zero)}) {
    ASSERT_EQ(out.size(), 2u);
    test::ExpectTensorEqual<TypeParam>(out[0], zero);
    test::ExpectTensorEqual<TypeParam>(out[1], zero);
  }
}

TYPED_TEST(MathGradTest, SelectAndSelectV2) {
  // Select: a condition of t's shape, or a vector choosing rows.
  for (const Tensor& cond :
       {test::AsTensor<bool>({true, false, false, true, true, false}, {2, 3}),
        test::AsTensor<bool>({false, true})}) {
    this->Check(
        {{TensorShape({2, 3})}, {TensorShape({2, 3})}},
        [&](const Scope& s, const std::vector<Output>& x) -> Output {
          return ops::Select(s, ops::Const(s, cond), x[0], x[1]);
        },
        kTight);
  }
  // SelectV2 broadcasts condition, t and e together.
  const Tensor cond = test::AsTensor<bool>({true, false, true}, {1, 3});
  this->Check(
      {{TensorShape({2, 1})}, {TensorShape({3})}},
      [&](const Scope& s, const std::vector<Output>& x) -> Output {
        return ops::SelectV2(s, ops::Const(s, cond), x[0], x[1]);
      },
      kTight);
  this->Check(
      {{TensorShape({})}, {TensorShape({2, 3})}},
      [&](const Scope& s, const std::vector<Output>& x) -> Output {
        return ops::SelectV2(s, ops::Const(s, cond), x[0], x[1]);
      },
      kTight);
}

TYPED_TEST(MathGradTest, AddNGivesEachInputTheGradient) {
  this->Check(
      {{TensorShape({2, 3})}, {TensorShape({2, 3})}, {TensorShape({2, 3})}},
      [](const Scope& s, const std::vector<Output>& x) -> Output {
        // x[0] twice: its gradient is summed over both uses.
        return ops::AddN(s, {x[0], x[1], x[2], x[0]});
      },
      kTight);
}

TYPED_TEST(MathGradTest, ClipByValueScalarAndTensorBounds) {
  // t spreads over [-2, 2] and the bounds sit inside, so every branch is
  // taken; the fixed seeds put no element of t within the step of a bound.
  this->Check(
      {{TensorShape({3, 4}), -2, 2},
       {TensorShape({}), -0.7, -0.6},
       {TensorShape({}), 0.6, 0.7}},
      [](const Scope& s, const std::vector<Output>& x) -> Output {
        return ops::ClipByValue(s, x[0], x[1], x[2]);
      },
      kTight, 11);
  this->Check(
      {{TensorShape({2, 3}), -2, 2},
       {TensorShape({2, 3}), -1, -0.9},
       {TensorShape({2, 3}), 0.9, 1}},
      [](const Scope& s, const std::vector<Output>& x) -> Output {
        return ops::ClipByValue(s, x[0], x[1], x[2]);
      },
      kTight, 13);
}

TYPED_TEST(MathGradTest, BatchMatMulEveryAdjointAndBroadcast) {
  // op(x) is [..., 2, 3], op(y) is [..., 3, 4].
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>
      batches = {{{2}, {2}}, {{2, 1}, {3}}, {{}, {2}}, {{1, 2}, {3, 1}}};
  for (bool adj_x : {false, true}) {
    for (bool adj_y : {false, true}) {
      for (const auto& [bx, by] : batches) {
        SCOPED_TRACE(::testing::Message() << "adj_x " << adj_x << " adj_y "
                                          << adj_y << " batch " << bx.size());
        TensorShape sx(bx), sy(by);
        sx.AddDim(adj_x ? 3 : 2);
        sx.AddDim(adj_x ? 2 : 3);
        sy.AddDim(adj_y ? 4 : 3);
        sy.AddDim(adj_y ? 3 : 4);
        this->Check(
            {{sx}, {sy}},
            [adj_x, adj_y](const Scope& s, const std::vector<Output>& in) {
              return ops::BatchMatMulV2(
                         s, in[0], in[1],
                         ops::BatchMatMulV2::AdjX(adj_x).AdjY(adj_y))
                  .output;
            },
            kTight);
        if (bx == by) {
          this->Check(
              {{sx}, {sy}},
              [adj_x, adj_y](const Scope& s, const std::vector<Output>& in) {
                return ops::BatchMatMul(
                           s, in[0], in[1],
                           ops::BatchMatMul::AdjX(adj_x).AdjY(adj_y))
                    .output;
              },
              kTight);
        }
      }
    }
  }
  this->Check(
      {{TensorShape({2, 2, 3})}, {TensorShape({3, 4})}},
      [](const Scope& s, const std::vector<Output>& in) {
        return ops::BatchMatMulV3(s, in[0], in[1],
                                  DataTypeToEnum<TypeParam>::v())
            .output;
      },
      kTight);
}

TYPED_TEST(MathGradTest, EinsumOneAndTwoOperands) {
  struct Case {
    const char* equation;
    std::vector<TensorShape> shapes;
  };
  const std::vector<Case> cases = {
      {"ij,jk->ik", {TensorShape({2, 3}), TensorShape({3, 4})}},
      {"bij,bjk->bik", {TensorShape({2, 2, 3}), TensorShape({2, 3, 2})}},
      {"ij,j->i", {TensorShape({2, 3}), TensorShape({3})}},
      {"i,j->ij", {TensorShape({2}), TensorShape({3})}},
      {"ij,jk->ki", {TensorShape({2, 3}), TensorShape({3, 2})}},
      // j only in x and k only in y: summed by the forward op, broadcast
      // back by the gradient.
      {"ij,kl->il", {TensorShape({2, 3}), TensorShape({2, 2})}},
      {"ij->ji", {TensorShape({2, 3})}},
      {"ij->i", {TensorShape({2, 3})}},
      {"ijk->", {TensorShape({2, 3, 2})}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.equation);
    std::vector<GradInput> inputs;
    for (const TensorShape& shape : c.shapes) inputs.push_back({shape});
    const std::string equation = c.equation;
    this->Check(
        inputs,
        [equation](const Scope& s, const std::vector<Output>& x) -> Output {
          return ops::Einsum(s, x, equation);
        },
        kTight);
  }
}

TEST(MathGradErrorTest, EinsumGradientRefusesWhatItDoesNotImplement) {
  for (const auto& [equation, why] :
       std::vector<std::pair<std::string, std::string>>{
           {"...ij,...jk->...ik", "without \"...\""},
           {"ii->i", "without a label repeated within a term"}}) {
    SCOPED_TRACE(equation);
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root, DT_FLOAT);
    auto y = ops::Placeholder(root, DT_FLOAT);
    std::vector<Output> operands = {x};
    if (equation.find(',') != std::string::npos) operands.push_back(y);
    auto z = ops::Einsum(root, operands, equation);
    std::vector<Output> grads;
    EXPECT_THAT(AddSymbolicGradients(root, {z.output}, {x}, &grads),
                testing::StatusIs(absl::StatusCode::kUnimplemented,
                                  ::testing::HasSubstr(why)));
  }
}

// Ops with no gradient stop it: an x reached only through them gets
// NoGradient (a null Output) from AddSymbolicGradients.
TYPED_TEST(MathGradTest, NotDifferentiableOpsGiveNoGradient) {
  using Fn = std::function<Output(const Scope&, const Output&)>;
  const std::vector<std::pair<std::string, Fn>> cases = {
      {"Sign", [](const Scope& s, const Output& x) { return ops::Sign(s, x); }},
      {"Floor",
       [](const Scope& s, const Output& x) { return ops::Floor(s, x); }},
      {"Ceil", [](const Scope& s, const Output& x) { return ops::Ceil(s, x); }},
      {"Round",
       [](const Scope& s, const Output& x) { return ops::Round(s, x); }},
      {"Rint", [](const Scope& s, const Output& x) { return ops::Rint(s, x); }},
      {"FloorDiv",
       [](const Scope& s, const Output& x) { return ops::FloorDiv(s, x, x); }},
      {"TruncateDiv",
       [](const Scope& s, const Output& x) {
         return ops::TruncateDiv(s, x, x);
       }},
  };
  for (const auto& [name, fn] : cases) {
    SCOPED_TRACE(name);
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root, DataTypeToEnum<TypeParam>::v());
    Output y = fn(root, x);
    std::vector<Output> grads;
    MF_ASSERT_OK(AddSymbolicGradients(root, {y}, {x}, &grads));
    ASSERT_EQ(grads.size(), 1u);
    EXPECT_EQ(grads[0].node(), nullptr);
  }
}

// The ops with bool inputs or outputs are never reached by a gradient
// (Cast from bool stops it first), so their declaration is checked in
// the registry: registered, with a null function.
TEST(MathGradRegistryTest, NonDifferentiableMathOpsAreDeclared) {
  for (const char* op :
       {"Equal",        "NotEqual",   "Less",       "LessEqual",  "Greater",
        "GreaterEqual", "LogicalAnd", "LogicalOr",  "LogicalNot", "IsNan",
        "IsInf",        "IsFinite",   "ArgMax",     "ArgMin",     "Bucketize",
        "Range",        "LinSpace",   "All",        "Any",        "Invert",
        "BitwiseAnd",   "BitwiseOr",  "BitwiseXor", "LeftShift",  "RightShift",
        "Sign",         "Floor",      "Ceil",       "Round",      "Rint",
        "FloorDiv",     "TruncateDiv"}) {
    SCOPED_TRACE(op);
    ops::GradFunc fn = nullptr;
    MF_EXPECT_OK(ops::GradOpRegistry::Global()->Lookup(op, &fn));
    EXPECT_EQ(fn, nullptr);
  }
  // And every differentiable op of this file has a function.
  for (const char* op : {"Abs",           "Rsqrt",
                         "Reciprocal",    "Sin",
                         "Cos",           "Tan",
                         "Asin",          "Acos",
                         "Atan",          "Sinh",
                         "Cosh",          "Asinh",
                         "Acosh",         "Atanh",
                         "Log1p",         "Expm1",
                         "Erf",           "Erfc",
                         "Pow",           "Maximum",
                         "Minimum",       "SquaredDifference",
                         "FloorMod",      "Xlogy",
                         "Xdivy",         "DivNoNan",
                         "MulNoNan",      "Atan2",
                         "Select",        "SelectV2",
                         "AddN",          "ClipByValue",
                         "BatchMatMul",   "BatchMatMulV2",
                         "BatchMatMulV3", "Einsum"}) {
    SCOPED_TRACE(op);
    ops::GradFunc fn = nullptr;
    MF_EXPECT_OK(ops::GradOpRegistry::Global()->Lookup(op, &fn));
    EXPECT_NE(fn, nullptr);
  }
}

TEST(MathGradErrorTest, ComplexGradientsAreUnimplemented) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_COMPLEX64);
  std::vector<Output> grads;
  EXPECT_THAT(AddSymbolicGradients(root, {ops::Sin(root, x)}, {x}, &grads),
              testing::StatusIs(absl::StatusCode::kUnimplemented,
                                ::testing::HasSubstr("The gradient of op Sin "
                                                     "is implemented for real "
                                                     "types only")));
}

TEST(MathGradErrorTest, BatchMatMulV3OfMixedTypesIsUnimplemented) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT);
  auto y = ops::Placeholder(root, DT_DOUBLE);
  auto z = ops::BatchMatMulV3(root, x, y, DT_DOUBLE);
  std::vector<Output> grads;
  EXPECT_THAT(AddSymbolicGradients(root, {z.output}, {x}, &grads),
              testing::StatusIs(
                  absl::StatusCode::kUnimplemented,
                  ::testing::HasSubstr("The gradient of BatchMatMulV3 needs "
                                       "inputs of its output type double, but "
                                       "got float and double")));
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

// The same where the input's shape is known when the gradient is built,
// wholly ([2, 3, 4]) or but for its first dim ([?, 3, 4]): the gradients
// take their static forms (Note [Broadcasting a reduction's gradient] and
// MeanGrad's count), which must agree with the checker as the dynamic ones
// above do.
TYPED_TEST(MathGradTest, SumAndMeanOfStaticAndPartialShapes) {
  const GradInput x{TensorShape({2, 3, 4})};
  for (const std::vector<int>& shape :
       std::vector<std::vector<int>>{{2, 3, 4}, {-1, 3, 4}}) {
    for (bool keep : {false, true}) {
      for (const std::vector<int>& axes : std::vector<std::vector<int>>{
               {0}, {1}, {-1}, {0, 2}, {1, 2}, {0, 1, 2}, {}}) {
        SCOPED_TRACE(::testing::Message()
                     << "shape[0] " << shape[0] << " keep_dims " << keep
                     << " axes " << axes.size());
        Tensor axes_t = test::AsTensor<int32_t>(axes);
        Tensor shape_t = test::AsTensor<int32_t>(shape);
        for (bool mean : {false, true}) {
          this->Check(
              {x},
              [&](const Scope& s, const std::vector<Output>& in) {
                auto shaped = ops::Reshape(s, in[0], shape_t);
                EXPECT_EQ(shaped.output.shape().dims(), 3);
                return mean ? ops::Mean(s, shaped, axes_t,
                                        ops::Mean::KeepDims(keep))
                                  .output
                            : ops::Sum(s, shaped, axes_t,
                                       ops::Sum::KeepDims(keep))
                                  .output;
              },
              kTight);
        }
      }
    }
  }
}

// Counts the graph's nodes of op `type`.
int CountOps(const Scope& root, const std::string& type) {
  int n = 0;
  for (const Node* node : root.graph()->nodes()) n += node->IsOp(type);
  return n;
}

// A batch mean over an unknown batch (a loss): its gradient is built from a
// Const shape, the input's Shape and Size, without the dynamic mask
// (OneHot) or the two Prods of the general form.
TEST(MathGradStaticTest, BatchMeanNeedsNoShapeArithmetic) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT,
                            ops::Placeholder::Shape(PartialTensorShape({-1})));
  auto y = ops::Mean(root, x, {0});
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root, {y}, {x}, &grads));
  EXPECT_EQ(CountOps(root, "OneHot"), 0);
  EXPECT_EQ(CountOps(root, "Prod"), 0);
  EXPECT_EQ(CountOps(root, "Size"), 1);
  ClientSession session(root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(
      session.Run({{x, test::AsTensor<float>({1, 2, 3, 4})}}, grads, &out));
  test::ExpectTensorNear<float>(
      out[0], test::AsTensor<float>({0.25f, 0.25f, 0.25f, 0.25f}), 1e-7);
}

// A bias added to a batch of unknown size: y's gradient is a Sum over a
// Const axis, x's is dy itself; no BroadcastGradientArgs. Two operands
// whose unknown dims may each be a broadcast 1 still need it.
TEST(MathGradStaticTest, BiasOverAnUnknownBatchNeedsNoBroadcastGradientArgs) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(
      root, DT_FLOAT, ops::Placeholder::Shape(PartialTensorShape({-1, 3})));
  auto b = ops::Placeholder(root, DT_FLOAT,
                            ops::Placeholder::Shape(PartialTensorShape({3})));
  auto y = ops::AddV2(root, x, b);
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root, {y}, {x, b}, &grads));
  EXPECT_EQ(CountOps(root, "BroadcastGradientArgs"), 0);
  ClientSession session(root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session.Run(
      {{x, test::AsTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}))},
       {b, test::AsTensor<float>({1, 1, 1})}},
      grads, &out));
  test::ExpectTensorEqual<float>(
      out[0], test::AsTensor<float>({1, 1, 1, 1, 1, 1}, TensorShape({2, 3})));
  test::ExpectTensorEqual<float>(out[1], test::AsTensor<float>({2, 2, 2}));

  Scope other = Scope::NewRootScope();
  auto u = ops::Placeholder(
      other, DT_FLOAT, ops::Placeholder::Shape(PartialTensorShape({-1, 3})));
  auto v = ops::Placeholder(
      other, DT_FLOAT, ops::Placeholder::Shape(PartialTensorShape({-1, 3})));
  MF_ASSERT_OK(
      AddSymbolicGradients(other, {ops::AddV2(other, u, v)}, {u, v}, &grads));
  EXPECT_EQ(CountOps(other, "BroadcastGradientArgs"), 1);
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
