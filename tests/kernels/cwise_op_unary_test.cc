// The unary element-wise kernels against a double-precision reference, on
// every dtype they are registered for, and TensorFlow's special values.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "tests/kernels/cwise_test_util.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

using Ref = std::function<double(double)>;

constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluScaleAlpha = 1.7580993408473768599402175208123;
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

std::vector<TensorShape> SmallShapes() {
  return {TensorShape({}),        TensorShape({0}),    TensorShape({1}),
          TensorShape({7}),       TensorShape({3, 5}), TensorShape({2, 0, 3}),
          TensorShape({2, 3, 4}), TensorShape({1000})};
}

// Big enough that Eigen shards the expression over the intra-op threads.
const TensorShape kLargeShape({1 << 20 | 3});

class CwiseUnaryOpTest : public test::CwiseOpsTestBase {
 protected:
  // Runs `op` on values drawn from [lo, hi] and compares with `ref`.
  template <typename T>
  void Check(const std::string& op, const Ref& ref, double lo, double hi,
             const TensorShape& shape) {
    SCOPED_TRACE(::testing::Message()
                 << op << " " << DataTypeString(DataTypeToEnum<T>::v()) << " "
                 << shape.DebugString());
    MakeNode(op).Input(DataTypeToEnum<T>::v());
    MF_ASSERT_OK(MakeOp());
    const Tensor x = test::RandomValues<T>(shape, shape.num_elements(), lo, hi);
    AddInputTensor(x);
    MF_ASSERT_OK(RunOpKernel());
    std::vector<double> want(x.NumElements());
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      want[i] = ref(test::ElementAt<T>(x, i));
    }
    test::ExpectMatches<T>(*GetOutput(0), shape, want);
    ExpectShapeFnAgrees();
  }

  template <typename T>
  void Sweep(const std::string& op, const Ref& ref, double lo, double hi) {
    for (const TensorShape& shape : SmallShapes()) {
      Check<T>(op, ref, lo, hi, shape);
    }
  }

  void SweepFloats(const std::string& op, const Ref& ref, double lo,
                   double hi) {
    Sweep<float>(op, ref, lo, hi);
    Sweep<double>(op, ref, lo, hi);
    Sweep<half>(op, ref, lo, hi);
    Sweep<bfloat16>(op, ref, lo, hi);
    Check<float>(op, ref, lo, hi, kLargeShape);
  }

  // The wider op set (Tan, Erf, Softsign ...): float and double only.
  void SweepFloatDouble(const std::string& op, const Ref& ref, double lo,
                        double hi) {
    Sweep<float>(op, ref, lo, hi);
    Sweep<double>(op, ref, lo, hi);
    Check<float>(op, ref, lo, hi, kLargeShape);
  }

  // A bool-valued `op` (IsNan ...) on values drawn from [lo, hi] with NaNs
  // and infinities mixed in, against `ref`.
  template <typename T>
  void CheckClassifier(const std::string& op,
                       const std::function<bool(double)>& ref,
                       const TensorShape& shape) {
    SCOPED_TRACE(::testing::Message()
                 << op << " " << DataTypeString(DataTypeToEnum<T>::v()) << " "
                 << shape.DebugString());
    MakeNode(op).Input(DataTypeToEnum<T>::v());
    MF_ASSERT_OK(MakeOp());
    Tensor x = test::RandomValues<T>(shape, shape.num_elements(), -1e3, 1e3);
    const T specials[] = {std::numeric_limits<T>::quiet_NaN(),
                          std::numeric_limits<T>::infinity(),
                          -std::numeric_limits<T>::infinity(),
                          std::numeric_limits<T>::max(),
                          std::numeric_limits<T>::denorm_min(),
                          T(0)};
    for (int64_t i = 0; i < x.NumElements(); i += 3) {
      x.base<T>()[i] = specials[(i / 3) % 6];
    }
    AddInputTensor(x);
    MF_ASSERT_OK(RunOpKernel());
    const Tensor& y = *GetOutput(0);
    ASSERT_EQ(y.dtype(), DT_BOOL);
    ASSERT_EQ(y.shape().DebugString(), shape.DebugString());
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      ASSERT_EQ(y.base<bool>()[i], ref(test::ElementAt<T>(x, i)))
          << "at " << i << " x=" << test::ElementAt<T>(x, i);
    }
    ExpectShapeFnAgrees();
  }

  void SweepClassifier(const std::string& op,
                       const std::function<bool(double)>& ref) {
    for (const TensorShape& shape : SmallShapes()) {
      CheckClassifier<float>(op, ref, shape);
      CheckClassifier<double>(op, ref, shape);
    }
    CheckClassifier<float>(op, ref, kLargeShape);
  }

  void SweepReals(const std::string& op, const Ref& ref, double lo, double hi) {
    SweepFloats(op, ref, lo, hi);
    Sweep<int32_t>(op, ref, lo, hi);
    Sweep<int64_t>(op, ref, lo, hi);
    Check<int32_t>(op, ref, lo, hi, kLargeShape);
  }

  // Runs `op` on exactly `in` and expects exactly `want` (NaN matches NaN).
  template <typename T>
  void ExpectValues(const std::string& op, const std::vector<T>& in,
                    const std::vector<T>& want) {
    SCOPED_TRACE(op);
    MakeNode(op).Input(DataTypeToEnum<T>::v());
    MF_ASSERT_OK(MakeOp());
    const TensorShape shape({static_cast<int64_t>(in.size())});
    Tensor x(DataTypeToEnum<T>::v(), shape);
    Tensor y(DataTypeToEnum<T>::v(), shape);
    for (size_t i = 0; i < in.size(); ++i) {
      x.base<T>()[i] = in[i];  // std::vector<bool> has no data()
      y.base<T>()[i] = want[i];
    }
    AddInputTensor(x);
    MF_ASSERT_OK(RunOpKernel());
    test::ExpectTensorEqual<T>(*GetOutput(0), y);
  }
};

TEST_P(CwiseUnaryOpTest, Neg) {
  SweepReals(
      "Neg", [](double x) { return -x; }, -100, 100);
}
TEST_P(CwiseUnaryOpTest, Abs) {
  SweepReals(
      "Abs", [](double x) { return std::fabs(x); }, -100, 100);
}
TEST_P(CwiseUnaryOpTest, Sign) {
  SweepReals(
      "Sign", [](double x) { return static_cast<double>((x > 0) - (x < 0)); },
      -3, 3);
}
TEST_P(CwiseUnaryOpTest, Square) {
  SweepReals(
      "Square", [](double x) { return x * x; }, -100, 100);
}
TEST_P(CwiseUnaryOpTest, Round) {
  SweepReals(
      "Round", [](double x) { return std::nearbyint(x); }, -10, 10);
}
TEST_P(CwiseUnaryOpTest, Relu) {
  SweepReals(
      "Relu", [](double x) { return x > 0 ? x : 0; }, -10, 10);
}
TEST_P(CwiseUnaryOpTest, Relu6) {
  SweepReals(
      "Relu6", [](double x) { return x < 0 ? 0 : (x > 6 ? 6 : x); }, -10, 10);
}

TEST_P(CwiseUnaryOpTest, Sqrt) {
  SweepFloats(
      "Sqrt", [](double x) { return std::sqrt(x); }, 0, 100);
}
TEST_P(CwiseUnaryOpTest, Rsqrt) {
  SweepFloats(
      "Rsqrt", [](double x) { return 1 / std::sqrt(x); }, 0.01, 100);
}
TEST_P(CwiseUnaryOpTest, Exp) {
  SweepFloats(
      "Exp", [](double x) { return std::exp(x); }, -10, 10);
}
TEST_P(CwiseUnaryOpTest, Log) {
  SweepFloats(
      "Log", [](double x) { return std::log(x); }, 0.01, 100);
}
TEST_P(CwiseUnaryOpTest, Log1p) {
  SweepFloats(
      "Log1p", [](double x) { return std::log1p(x); }, -0.9, 10);
}
TEST_P(CwiseUnaryOpTest, Tanh) {
  SweepFloats(
      "Tanh", [](double x) { return std::tanh(x); }, -5, 5);
}
TEST_P(CwiseUnaryOpTest, Sigmoid) {
  SweepFloats(
      "Sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }, -20, 20);
}
TEST_P(CwiseUnaryOpTest, Sin) {
  SweepFloats(
      "Sin", [](double x) { return std::sin(x); }, -10, 10);
}
TEST_P(CwiseUnaryOpTest, Cos) {
  SweepFloats(
      "Cos", [](double x) { return std::cos(x); }, -10, 10);
}
TEST_P(CwiseUnaryOpTest, Atan) {
  SweepFloats(
      "Atan", [](double x) { return std::atan(x); }, -10, 10);
}
TEST_P(CwiseUnaryOpTest, Floor) {
  SweepFloats(
      "Floor", [](double x) { return std::floor(x); }, -10, 10);
}
TEST_P(CwiseUnaryOpTest, Ceil) {
  SweepFloats(
      "Ceil", [](double x) { return std::ceil(x); }, -10, 10);
}
TEST_P(CwiseUnaryOpTest, Reciprocal) {
  SweepFloats(
      "Reciprocal", [](double x) { return 1 / x; }, 0.1, 10);
  SweepFloats(
      "Reciprocal", [](double x) { return 1 / x; }, -10, -0.1);
}
TEST_P(CwiseUnaryOpTest, Elu) {
  SweepFloats(
      "Elu", [](double x) { return x < 0 ? std::expm1(x) : x; }, -5, 5);
}
TEST_P(CwiseUnaryOpTest, Selu) {
  SweepFloats(
      "Selu",
      [](double x) {
        return x < 0 ? kSeluScaleAlpha * std::expm1(x) : kSeluScale * x;
      },
      -5, 5);
}
TEST_P(CwiseUnaryOpTest, Softplus) {
  SweepFloats(
      "Softplus",
      [](double x) {
        return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
      },
      -40, 40);
}

TEST_P(CwiseUnaryOpTest, Tan) {
  SweepFloatDouble(
      "Tan", [](double x) { return std::tan(x); }, -1.5, 1.5);
}
TEST_P(CwiseUnaryOpTest, Asin) {
  SweepFloatDouble(
      "Asin", [](double x) { return std::asin(x); }, -1, 1);
}
TEST_P(CwiseUnaryOpTest, Acos) {
  SweepFloatDouble(
      "Acos", [](double x) { return std::acos(x); }, -1, 1);
}
TEST_P(CwiseUnaryOpTest, Sinh) {
  SweepFloatDouble(
      "Sinh", [](double x) { return std::sinh(x); }, -10, 10);
}
TEST_P(CwiseUnaryOpTest, Cosh) {
  SweepFloatDouble(
      "Cosh", [](double x) { return std::cosh(x); }, -10, 10);
}
TEST_P(CwiseUnaryOpTest, Asinh) {
  SweepFloatDouble(
      "Asinh", [](double x) { return std::asinh(x); }, -100, 100);
}
TEST_P(CwiseUnaryOpTest, Acosh) {
  SweepFloatDouble(
      "Acosh", [](double x) { return std::acosh(x); }, 1, 100);
}
TEST_P(CwiseUnaryOpTest, Atanh) {
  SweepFloatDouble(
      "Atanh", [](double x) { return std::atanh(x); }, -0.99, 0.99);
}
TEST_P(CwiseUnaryOpTest, Erf) {
  SweepFloatDouble(
      "Erf", [](double x) { return std::erf(x); }, -4, 4);
}
TEST_P(CwiseUnaryOpTest, Erfc) {
  SweepFloatDouble(
      "Erfc", [](double x) { return std::erfc(x); }, -4, 4);
}
TEST_P(CwiseUnaryOpTest, Expm1) {
  SweepFloatDouble(
      "Expm1", [](double x) { return std::expm1(x); }, -10, 10);
  SweepFloatDouble(
      "Expm1", [](double x) { return std::expm1(x); }, -1e-4, 1e-4);
}
TEST_P(CwiseUnaryOpTest, Rint) {
  SweepFloatDouble(
      "Rint", [](double x) { return std::nearbyint(x); }, -10, 10);
}
TEST_P(CwiseUnaryOpTest, Softsign) {
  SweepFloatDouble(
      "Softsign", [](double x) { return x / (1 + std::fabs(x)); }, -100, 100);
}

TEST_P(CwiseUnaryOpTest, IsNan) {
  SweepClassifier("IsNan", [](double x) { return std::isnan(x); });
}
TEST_P(CwiseUnaryOpTest, IsInf) {
  SweepClassifier("IsInf", [](double x) { return std::isinf(x); });
}
TEST_P(CwiseUnaryOpTest, IsFinite) {
  SweepClassifier("IsFinite", [](double x) { return std::isfinite(x); });
}

TEST_P(CwiseUnaryOpTest, RintIsHalfToEven) {
  ExpectValues<float>("Rint", {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 3.7f},
                      {-2.0f, -2.0f, -0.0f, 0.0f, 2.0f, 2.0f, 4.0f});
  ExpectValues<double>("Rint", {0.5, 1.5, 2.5, -2.5, -3.2},
                       {0.0, 2.0, 2.0, -2.0, -3.0});
}

TEST_P(CwiseUnaryOpTest, WiderMathDomainEdgesGiveIeeeResults) {
  ExpectValues<double>("Asin", {2.0, -1.0}, {kNaN, -std::asin(1.0)});
  ExpectValues<double>("Acos", {-2.0, 1.0}, {kNaN, 0.0});
  ExpectValues<double>("Acosh", {0.5, 1.0, kInf}, {kNaN, 0.0, kInf});
  ExpectValues<double>("Atanh", {1.0, -1.0, 2.0}, {kInf, -kInf, kNaN});
  ExpectValues<double>("Erf", {kInf, -kInf, 0.0}, {1.0, -1.0, 0.0});
  ExpectValues<double>("Erfc", {kInf, -kInf}, {0.0, 2.0});
  ExpectValues<double>("Expm1", {-kInf, 0.0}, {-1.0, 0.0});
  // inf / (1 + inf) is NaN, as in TensorFlow's x / (|x| + 1).
  ExpectValues<double>("Softsign", {kInf, -kInf, 0.0, kNaN, 1e300},
                       {kNaN, kNaN, 0.0, kNaN, 1.0});
  ExpectValues<float>("Sinh", {1000.0f, -1000.0f},
                      {std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity()});
}

// Half and bfloat16 are in the OpDefs (TensorFlow's) but have no CPU kernel
// in minflow (Note [Type lists]); integers are not in the OpDefs at all.
TEST_P(CwiseUnaryOpTest, RejectsTypesWithoutAKernel) {
  for (const char* op : {"Tan", "Erf", "Softsign", "IsNan", "Rint"}) {
    SCOPED_TRACE(op);
    MakeNode(op).Input(DT_INT32);
    EXPECT_THAT(MakeOp(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("is not in the list of allowed values")));
    MakeNode(op).Input(DT_HALF);
    EXPECT_THAT(MakeOp(), StatusIs(absl::StatusCode::kNotFound,
                                   HasSubstr("No registered")));
  }
}

TEST_P(CwiseUnaryOpTest, LeakyReluDefaultAlpha) {
  SweepFloats(
      "LeakyRelu",
      [](double x) { return x > 0 ? x : static_cast<double>(0.2f) * x; }, -5,
      5);
}

TEST_P(CwiseUnaryOpTest, LeakyReluAlphaAttr) {
  for (float alpha : {-0.5f, 0.0f, 2.0f}) {
    MakeNode("LeakyRelu").Input(DT_FLOAT).Attr("alpha", alpha);
    MF_ASSERT_OK(MakeOp());
    AddInputFromArray<float>(TensorShape({4}), {-2.0f, -0.5f, 0.0f, 3.0f});
    MF_ASSERT_OK(RunOpKernel());
    test::ExpectTensorEqual<float>(
        *GetOutput(0),
        test::AsTensor<float>({-2 * alpha, -0.5f * alpha, 0.0f, 3.0f}));
  }
}

TEST_P(CwiseUnaryOpTest, LogicalNot) {
  ExpectValues<bool>("LogicalNot", {true, false, false}, {false, true, true});
  MakeNode("LogicalNot");
  MF_ASSERT_OK(MakeOp());
  // Kept here: the kernel may overwrite its (forwarded) input.
  const Tensor x = test::RandomValues<bool>(kLargeShape, 3, 0, 1);
  AddInputTensor(x);
  MF_ASSERT_OK(RunOpKernel());
  const Tensor& y = *GetOutput(0);
  for (int64_t i = 0; i < x.NumElements(); i += 997) {
    ASSERT_EQ(y.base<bool>()[i], !x.base<bool>()[i]) << i;
  }
}

TEST_P(CwiseUnaryOpTest, RoundIsBankersRounding) {
  ExpectValues<float>("Round", {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 3.5f},
                      {-2.0f, -2.0f, -0.0f, 0.0f, 2.0f, 2.0f, 4.0f});
  ExpectValues<double>("Round", {0.5, 1.5, 2.5, -2.5}, {0.0, 2.0, 2.0, -2.0});
  ExpectValues<half>("Round", {half(0.5f), half(1.5f), half(2.5f)},
                     {half(0.0f), half(2.0f), half(2.0f)});
}

TEST_P(CwiseUnaryOpTest, ReluPropagatesNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  ExpectValues<float>("Relu", {nan, -inf, inf, -1.0f}, {nan, 0.0f, inf, 0.0f});
  ExpectValues<float>("Relu6", {nan, -inf, inf, 7.0f}, {nan, 0.0f, 6.0f, 6.0f});
}

TEST_P(CwiseUnaryOpTest, SignOfNaNIsNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ExpectValues<double>("Sign", {nan, -0.0, 0.0, -3.0, 5.0},
                       {nan, 0.0, 0.0, -1.0, 1.0});
}

TEST_P(CwiseUnaryOpTest, DomainEdgesGiveIeeeResults) {
  ExpectValues<double>("Sqrt", {-1.0, 0.0, kInf}, {kNaN, 0.0, kInf});
  ExpectValues<double>("Log", {-1.0, 0.0, 1.0}, {kNaN, -kInf, 0.0});
  ExpectValues<double>("Log1p", {-1.0, -2.0}, {-kInf, kNaN});
  ExpectValues<double>("Rsqrt", {0.0, kInf}, {kInf, 0.0});
  ExpectValues<double>("Reciprocal", {0.0, -0.0}, {kInf, -kInf});
  ExpectValues<float>("Softplus", {100.0f, -200.0f}, {100.0f, 0.0f});
}

// Note [Integer overflow in kernels]: integers wrap, never trap.
TEST_P(CwiseUnaryOpTest, IntegerOverflowWraps) {
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  ExpectValues<int32_t>("Neg", {kMin, 5}, {kMin, -5});
  ExpectValues<int32_t>("Abs", {kMin, -5}, {kMin, 5});
  ExpectValues<int32_t>("Square", {65536, 46341}, {0, -2147479015});
  const int64_t kMin64 = std::numeric_limits<int64_t>::min();
  ExpectValues<int64_t>("Neg", {kMin64}, {kMin64});
  ExpectValues<int64_t>("Abs", {kMin64}, {kMin64});
}

TEST_P(CwiseUnaryOpTest, IntegerRoundAndRelu) {
  ExpectValues<int64_t>("Round", {-3, 0, 7}, {-3, 0, 7});
  ExpectValues<int32_t>("Relu6", {-3, 0, 4, 9}, {0, 0, 4, 6});
}

TEST_P(CwiseUnaryOpTest, WritesInPlaceWhenTheInputCanBeForwarded) {
  MakeNode("Exp").Input(DT_FLOAT);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<float>(TensorShape({2, 2}), {0.0f, 1.0f, 2.0f, 3.0f});
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)));
}

MF_INSTANTIATE_KERNEL_TEST_DEVICES(CwiseUnaryOpTest);

}  // namespace
}  // namespace minflow
