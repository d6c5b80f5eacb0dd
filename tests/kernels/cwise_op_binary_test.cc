// The binary arithmetic kernels against a naive broadcasting reference, on
// every dtype they are registered for, and TensorFlow's integer semantics.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
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

using BinRef = std::function<double(double, double)>;

struct Range {
  double lo;
  double hi;
  bool nonzero = false;  // replace zeros by 1 (divisors)
};

struct ShapePair {
  TensorShape x;
  TensorShape y;
};

// Broadcasting corners: scalars, size-1 dims, rank mismatch, empty dims,
// more merged dims than TensorFlow's fixed-rank kernels handle.
std::vector<ShapePair> Pairs() {
  return {
      {TensorShape({}), TensorShape({})},
      {TensorShape({5}), TensorShape({})},
      {TensorShape({}), TensorShape({5})},
      {TensorShape({1}), TensorShape({7})},
      {TensorShape({3, 4}), TensorShape({3, 4})},
      {TensorShape({3, 4}), TensorShape({4})},
      {TensorShape({4}), TensorShape({3, 4})},
      {TensorShape({3, 1}), TensorShape({1, 4})},
      {TensorShape({2, 3, 4}), TensorShape({3, 1})},
      {TensorShape({2, 1, 4}), TensorShape({3, 4})},
      {TensorShape({1, 1, 1}), TensorShape({2})},
      {TensorShape({6}), TensorShape({2, 3, 6})},
      {TensorShape({5, 1, 3, 1, 2}), TensorShape({1, 4, 1, 6, 1})},
      {TensorShape({2, 1, 2, 1, 2, 1, 3}), TensorShape({1, 2, 1, 2, 1, 2, 1})},
      {TensorShape({0}), TensorShape({1})},
      {TensorShape({2, 0, 3}), TensorShape({3})},
      {TensorShape({3, 1}), TensorShape({0})},
      {TensorShape({0}), TensorShape({})},
  };
}

// Sharded: same shape, scalar, row and column broadcasts over ~1M elements.
std::vector<ShapePair> LargePairs() {
  return {
      {TensorShape({1 << 20 | 1}), TensorShape({1 << 20 | 1})},
      {TensorShape({}), TensorShape({1 << 20 | 1})},
      {TensorShape({1024, 1030}), TensorShape({1030})},
      {TensorShape({1030, 1}), TensorShape({1, 1024})},
  };
}

template <typename T>
Tensor Draw(const TensorShape& shape, uint64_t seed, const Range& r) {
  Tensor t = test::RandomValues<T>(shape, seed, r.lo, r.hi);
  if (r.nonzero) {
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      if (test::ElementAt<T>(t, i) == 0) t.base<T>()[i] = T(1);
    }
  }
  return t;
}

class CwiseBinaryOpTest : public test::CwiseOpsTestBase {
 protected:
  template <typename T, typename Tout = T>
  void Check(const std::string& op, const BinRef& ref, const ShapePair& p,
             const Range& xr, const Range& yr) {
    SCOPED_TRACE(::testing::Message()
                 << op << " " << DataTypeString(DataTypeToEnum<T>::v()) << " "
                 << p.x.DebugString() << " vs " << p.y.DebugString());
    const DataType dt = DataTypeToEnum<T>::v();
    MakeNode(op).Input(dt).Input(dt);
    MF_ASSERT_OK(MakeOp());
    const Tensor x = Draw<T>(p.x, p.x.num_elements() + 1, xr);
    const Tensor y = Draw<T>(p.y, p.y.num_elements() + 7, yr);
    AddInputTensor(x);
    AddInputTensor(y);
    MF_ASSERT_OK(RunOpKernel());
    TensorShape out;
    ASSERT_TRUE(test::BroadcastShapes(p.x, p.y, &out));
    std::vector<double> want(out.num_elements());
    for (int64_t i = 0; i < out.num_elements(); ++i) {
      want[i] = ref(test::ElementAt<T>(x, test::BroadcastOffset(out, p.x, i)),
                    test::ElementAt<T>(y, test::BroadcastOffset(out, p.y, i)));
    }
    test::ExpectMatches<Tout>(*GetOutput(0), out, want);
    ExpectShapeFnAgrees();
  }

  template <typename T, typename Tout = T>
  void Sweep(const std::string& op, const BinRef& ref, const Range& xr,
             const Range& yr, bool large = false) {
    for (const ShapePair& p : Pairs()) Check<T, Tout>(op, ref, p, xr, yr);
    if (!large) return;
    for (const ShapePair& p : LargePairs()) Check<T, Tout>(op, ref, p, xr, yr);
  }

  // Every registered type; large shapes for float and int32.
  void SweepReals(const std::string& op, const BinRef& ref, const Range& xr,
                  const Range& yr) {
    Sweep<float>(op, ref, xr, yr, /*large=*/true);
    Sweep<double>(op, ref, xr, yr);
    Sweep<half>(op, ref, xr, yr);
    Sweep<bfloat16>(op, ref, xr, yr);
    Sweep<int32_t>(op, ref, xr, yr, /*large=*/true);
    Sweep<int64_t>(op, ref, xr, yr);
  }

  // The wider op set (Atan2, Xlogy ...): float and double only.
  void SweepFloatDouble(const std::string& op, const BinRef& ref,
                        const Range& xr, const Range& yr) {
    Sweep<float>(op, ref, xr, yr, /*large=*/true);
    Sweep<double>(op, ref, xr, yr);
  }

  template <typename T>
  Status Run(const std::string& op, const Tensor& x, const Tensor& y) {
    MakeNode(op).Input(DataTypeToEnum<T>::v()).Input(DataTypeToEnum<T>::v());
    MF_RETURN_IF_ERROR(MakeOp());
    AddInputTensor(x);
    AddInputTensor(y);
    return RunOpKernel();
  }

  // `op` on exactly these values; the output must be exactly `want`.
  template <typename T>
  void ExpectValues(const std::string& op, const std::vector<T>& x,
                    const std::vector<T>& y, const std::vector<T>& want) {
    SCOPED_TRACE(op);
    MF_ASSERT_OK(Run<T>(op, test::AsTensor<T>(absl::Span<const T>(x)),
                        test::AsTensor<T>(absl::Span<const T>(y))));
    test::ExpectTensorEqual<T>(*GetOutput(0),
                               test::AsTensor<T>(absl::Span<const T>(want)));
  }
};

const Range kSmall{-50, 50};
const Range kDivisor{-9, 9, /*nonzero=*/true};

TEST_P(CwiseBinaryOpTest, Add) {
  SweepReals(
      "Add", [](double a, double b) { return a + b; }, kSmall, kSmall);
}
TEST_P(CwiseBinaryOpTest, AddV2) {
  SweepReals(
      "AddV2", [](double a, double b) { return a + b; }, kSmall, kSmall);
}
TEST_P(CwiseBinaryOpTest, Sub) {
  SweepReals(
      "Sub", [](double a, double b) { return a - b; }, kSmall, kSmall);
}
TEST_P(CwiseBinaryOpTest, Mul) {
  SweepReals(
      "Mul", [](double a, double b) { return a * b; }, kSmall, kSmall);
}
TEST_P(CwiseBinaryOpTest, Maximum) {
  SweepReals(
      "Maximum", [](double a, double b) { return std::max(a, b); }, kSmall,
      kSmall);
}
TEST_P(CwiseBinaryOpTest, Minimum) {
  SweepReals(
      "Minimum", [](double a, double b) { return std::min(a, b); }, kSmall,
      kSmall);
}
TEST_P(CwiseBinaryOpTest, SquaredDifference) {
  SweepReals(
      "SquaredDifference", [](double a, double b) { return (a - b) * (a - b); },
      kSmall, kSmall);
}

TEST_P(CwiseBinaryOpTest, DivTruncatesIntegersAndDividesFloats) {
  const BinRef real = [](double a, double b) { return a / b; };
  const BinRef trunc = [](double a, double b) { return std::trunc(a / b); };
  Sweep<float>("Div", real, kSmall, kDivisor, /*large=*/true);
  Sweep<double>("Div", real, kSmall, kDivisor);
  Sweep<half>("Div", real, kSmall, kDivisor);
  Sweep<bfloat16>("Div", real, kSmall, kDivisor);
  Sweep<int32_t>("Div", trunc, kSmall, kDivisor, /*large=*/true);
  Sweep<int64_t>("Div", trunc, kSmall, kDivisor);
  ExpectValues<int32_t>("Div", {7, -7, 7, -7}, {2, 2, -2, -2}, {3, -3, -3, 3});
}

TEST_P(CwiseBinaryOpTest, RealDiv) {
  const BinRef real = [](double a, double b) { return a / b; };
  Sweep<float>("RealDiv", real, kSmall, kDivisor, /*large=*/true);
  Sweep<double>("RealDiv", real, kSmall, kDivisor);
  Sweep<half>("RealDiv", real, kSmall, kDivisor);
  Sweep<bfloat16>("RealDiv", real, kSmall, kDivisor);
}

// floor(x / y) where x / y is first rounded to T, as the kernel computes.
template <typename T>
BinRef FloorDivRef() {
  return [](double a, double b) {
    return std::floor(test::ToDouble(test::FromDouble<T>(a / b)));
  };
}

BinRef FloorModRef() {
  return [](double a, double b) {
    double m = std::fmod(a, b);
    if (m != 0 && ((b < 0) != (m < 0))) m += b;
    return m;
  };
}

TEST_P(CwiseBinaryOpTest, FloorDiv) {
  Sweep<float>("FloorDiv", FloorDivRef<float>(), kSmall, kDivisor, true);
  Sweep<double>("FloorDiv", FloorDivRef<double>(), kSmall, kDivisor);
  Sweep<half>("FloorDiv", FloorDivRef<half>(), kSmall, kDivisor);
  Sweep<bfloat16>("FloorDiv", FloorDivRef<bfloat16>(), kSmall, kDivisor);
  const BinRef floor = [](double a, double b) { return std::floor(a / b); };
  Sweep<int32_t>("FloorDiv", floor, kSmall, kDivisor, true);
  Sweep<int64_t>("FloorDiv", floor, kSmall, kDivisor);
}

TEST_P(CwiseBinaryOpTest, FloorMod) {
  Sweep<float>("FloorMod", FloorModRef(), kSmall, kDivisor, true);
  Sweep<double>("FloorMod", FloorModRef(), kSmall, kDivisor);
  Sweep<half>("FloorMod", FloorModRef(), kSmall, kDivisor);
  Sweep<bfloat16>("FloorMod", FloorModRef(), kSmall, kDivisor);
  Sweep<int32_t>("FloorMod", FloorModRef(), kSmall, kDivisor, true);
  Sweep<int64_t>("FloorMod", FloorModRef(), kSmall, kDivisor);
}

TEST_P(CwiseBinaryOpTest, FloorDivAndFloorModSignRules) {
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  ExpectValues<int32_t>("FloorDiv", {7, -7, 7, -7, 6, kMin},
                        {2, 2, -2, -2, -3, -1}, {3, -4, -4, 3, -2, kMin});
  ExpectValues<int32_t>("FloorMod", {7, -7, 7, -7, 6, kMin},
                        {2, 2, -2, -2, -3, -1}, {1, 1, -1, -1, 0, 0});
  ExpectValues<int64_t>("FloorMod", {-1}, {5}, {4});
  ExpectValues<float>("FloorMod", {-7.5f, 7.5f, 7.5f}, {2.0f, -2.0f, 2.0f},
                      {0.5f, -0.5f, 1.5f});
  ExpectValues<double>("FloorDiv", {-7.5, 7.5}, {2.0, -2.0}, {-4.0, -4.0});
}

TEST_P(CwiseBinaryOpTest, FloatDivisionByZeroIsIeee) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ExpectValues<double>("Div", {1.0, -1.0, 0.0}, {0.0, 0.0, 0.0},
                       {inf, -inf, nan});
  ExpectValues<double>("FloorDiv", {1.0}, {0.0}, {inf});
  ExpectValues<double>("FloorMod", {1.0}, {0.0}, {nan});
}

TEST_P(CwiseBinaryOpTest, Pow) {
  const BinRef pow = [](double a, double b) { return std::pow(a, b); };
  const Range base{0.1, 4};
  const Range exponent{-3, 3};
  Sweep<float>("Pow", pow, base, exponent, /*large=*/true);
  Sweep<double>("Pow", pow, base, exponent);
  Sweep<half>("Pow", pow, base, exponent);
  Sweep<bfloat16>("Pow", pow, base, exponent);
  Sweep<int32_t>("Pow", pow, Range{-5, 5}, Range{0, 7}, /*large=*/true);
  Sweep<int64_t>("Pow", pow, Range{-5, 5}, Range{0, 7});
  ExpectValues<int32_t>("Pow", {0, 2, -3, 2}, {0, 10, 3, 31},
                        {1, 1024, -27, std::numeric_limits<int32_t>::min()});
  ExpectValues<double>("Pow", {-8.0, -2.0}, {1.0 / 3, 3.0},
                       {std::numeric_limits<double>::quiet_NaN(), -8.0});
}

// trunc(x / y) where x / y is first rounded to T, as the kernel computes.
template <typename T>
BinRef TruncateDivRef() {
  return [](double a, double b) {
    return std::trunc(test::ToDouble(test::FromDouble<T>(a / b)));
  };
}

// C's fmod, which is also C++'s % on integers: the dividend's sign.
const BinRef kFmodRef = [](double a, double b) { return std::fmod(a, b); };

TEST_P(CwiseBinaryOpTest, Mod) {
  SweepFloatDouble("Mod", kFmodRef, kSmall, kDivisor);
  Sweep<int32_t>("Mod", kFmodRef, kSmall, kDivisor, /*large=*/true);
  Sweep<int64_t>("Mod", kFmodRef, kSmall, kDivisor);
}

TEST_P(CwiseBinaryOpTest, TruncateMod) {
  SweepFloatDouble("TruncateMod", kFmodRef, kSmall, kDivisor);
  Sweep<int32_t>("TruncateMod", kFmodRef, kSmall, kDivisor, /*large=*/true);
  Sweep<int64_t>("TruncateMod", kFmodRef, kSmall, kDivisor);
}

TEST_P(CwiseBinaryOpTest, TruncateDiv) {
  Sweep<float>("TruncateDiv", TruncateDivRef<float>(), kSmall, kDivisor, true);
  Sweep<double>("TruncateDiv", TruncateDivRef<double>(), kSmall, kDivisor);
  const BinRef trunc = [](double a, double b) { return std::trunc(a / b); };
  Sweep<int32_t>("TruncateDiv", trunc, kSmall, kDivisor, /*large=*/true);
  Sweep<int64_t>("TruncateDiv", trunc, kSmall, kDivisor);
}

TEST_P(CwiseBinaryOpTest, TruncatingOpsRoundTowardZero) {
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  ExpectValues<int32_t>("TruncateDiv", {7, -7, 7, -7, 6, kMin},
                        {2, 2, -2, -2, -3, -1}, {3, -3, -3, 3, -2, kMin});
  for (const char* op : {"Mod", "TruncateMod"}) {
    ExpectValues<int32_t>(op, {7, -7, 7, -7, 6, kMin}, {2, 2, -2, -2, -3, -1},
                          {1, -1, 1, -1, 0, 0});
    ExpectValues<int64_t>(op, {-1}, {5}, {-1});
    ExpectValues<float>(op, {-7.5f, 7.5f, 7.5f, -7.5f},
                        {2.0f, -2.0f, 2.0f, -2.0f}, {-1.5f, 1.5f, 1.5f, -1.5f});
    ExpectValues<double>(op, {1.0}, {0.0},
                         {std::numeric_limits<double>::quiet_NaN()});
  }
  ExpectValues<double>("TruncateDiv", {-7.5, 7.5, 1.0}, {2.0, -2.0, 0.0},
                       {-3.0, -3.0, std::numeric_limits<double>::infinity()});
}

TEST_P(CwiseBinaryOpTest, Atan2) {
  SweepFloatDouble(
      "Atan2", [](double y, double x) { return std::atan2(y, x); }, kSmall,
      kSmall);
  const double pi = std::acos(-1.0);
  // Input 0 is y: the quadrant follows both signs.
  ExpectValues<double>("Atan2", {1.0, 1.0, -1.0, 0.0, 0.0},
                       {1.0, -1.0, -1.0, 0.0, -1.0},
                       {std::atan2(1.0, 1.0), std::atan2(1.0, -1.0),
                        std::atan2(-1.0, -1.0), 0.0, pi});
}

TEST_P(CwiseBinaryOpTest, Xlogy) {
  SweepFloatDouble(
      "Xlogy", [](double x, double y) { return x == 0 ? 0 : x * std::log(y); },
      kSmall, Range{0.01, 50});
}

TEST_P(CwiseBinaryOpTest, Xdivy) {
  SweepFloatDouble(
      "Xdivy", [](double x, double y) { return x == 0 ? 0 : x / y; }, kSmall,
      kDivisor);
}

TEST_P(CwiseBinaryOpTest, DivNoNan) {
  SweepFloatDouble(
      "DivNoNan", [](double x, double y) { return y == 0 ? 0 : x / y; }, kSmall,
      kDivisor);
}

TEST_P(CwiseBinaryOpTest, MulNoNan) {
  SweepFloatDouble(
      "MulNoNan", [](double x, double y) { return y == 0 ? 0 : x * y; }, kSmall,
      kSmall);
}

TEST_P(CwiseBinaryOpTest, NoNanOpsGiveZeroWhereTheyGuard) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Xlogy and Xdivy guard on x, whatever y is.
  ExpectValues<double>("Xlogy", {0.0, 0.0, 0.0, 2.0, 1.0},
                       {0.0, nan, -1.0, 1.0, 0.0}, {0.0, 0.0, 0.0, 0.0, -inf});
  ExpectValues<double>("Xdivy", {0.0, 0.0, 0.0, 6.0, 1.0},
                       {0.0, nan, inf, 3.0, 0.0}, {0.0, 0.0, 0.0, 2.0, inf});
  // DivNoNan and MulNoNan guard on y, whatever x is.
  ExpectValues<double>("DivNoNan", {1.0, 0.0, -1.0, nan, 6.0},
                       {0.0, 0.0, 0.0, 0.0, 3.0}, {0.0, 0.0, 0.0, 0.0, 2.0});
  ExpectValues<double>("MulNoNan", {inf, nan, 2.0, 0.0}, {0.0, 0.0, 3.0, inf},
                       {0.0, 0.0, 6.0, nan});
  ExpectValues<float>("DivNoNan", {1.0f, 0.0f}, {0.0f, 0.0f}, {0.0f, 0.0f});
  // Broadcast: a zero in the broadcast operand guards a whole column, on
  // the scalar and the broadcast paths alike.
  MF_ASSERT_OK(Run<float>("DivNoNan",
                          test::AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}),
                          test::AsTensor<float>({1, 0, 2})));
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>({1, 0, 1.5f, 4, 0, 3}, {2, 3}));
  MF_ASSERT_OK(Run<float>("MulNoNan", test::AsTensor<float>({nan, inf}),
                          test::AsScalar<float>(0)));
  test::ExpectTensorEqual<float>(*GetOutput(0), test::AsTensor<float>({0, 0}));
  MF_ASSERT_OK(Run<float>("Xlogy", test::AsScalar<float>(0),
                          test::AsTensor<float>({-1, 0, nan})));
  test::ExpectTensorEqual<float>(*GetOutput(0),
                                 test::AsTensor<float>({0, 0, 0}));
}

TEST_P(CwiseBinaryOpTest, RejectsTypesWithoutAKernel) {
  // Not in the OpDef (TensorFlow's).
  for (const char* op : {"Atan2", "Xlogy", "Xdivy", "DivNoNan", "MulNoNan"}) {
    SCOPED_TRACE(op);
    EXPECT_THAT(Run<int32_t>(op, test::AsTensor<int32_t>({1}),
                             test::AsTensor<int32_t>({1})),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("is not in the list of allowed values")));
  }
  EXPECT_THAT(Run<uint8_t>("Mod", test::AsTensor<uint8_t>({1}),
                           test::AsTensor<uint8_t>({1})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("is not in the list of allowed values")));
  // In the OpDef, but minflow has no CPU kernel (Note [Type lists]).
  for (const char* op : {"Mod", "TruncateDiv", "Atan2", "DivNoNan"}) {
    SCOPED_TRACE(op);
    EXPECT_THAT(
        Run<half>(op, test::AsTensor<half>({half(1.0f)}),
                  test::AsTensor<half>({half(1.0f)})),
        StatusIs(absl::StatusCode::kNotFound, HasSubstr("No registered")));
  }
}

// Note [Integer overflow in kernels].
TEST_P(CwiseBinaryOpTest, IntegerOverflowWraps) {
  const int32_t kMax = std::numeric_limits<int32_t>::max();
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  ExpectValues<int32_t>("AddV2", {kMax, kMin}, {1, -1}, {kMin, kMax});
  ExpectValues<int32_t>("Sub", {kMin}, {1}, {kMax});
  ExpectValues<int32_t>("Mul", {65536, kMin}, {65536, -1}, {0, kMin});
  ExpectValues<int32_t>("Div", {kMin}, {-1}, {kMin});
  ExpectValues<int32_t>("SquaredDifference", {kMax}, {-1}, {0});
  // The vectorised path (more elements than a SIMD register).
  std::vector<int32_t> x(37, kMax);
  std::vector<int32_t> one(37, 1);
  std::vector<int32_t> want(37, kMin);
  ExpectValues<int32_t>("Add", x, one, want);
}

TEST_P(CwiseBinaryOpTest, MaximumAndMinimumPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const char* op : {"Maximum", "Minimum"}) {
    ExpectValues<float>(op, {nan, 1.0f}, {1.0f, nan}, {nan, nan});
    // Vectorised path, and scalar operands on either side.
    std::vector<float> x(33, 2.0f);
    x[5] = nan;
    std::vector<float> want = x;
    ExpectValues<float>(op, x, std::vector<float>(33, 2.0f), want);
    MF_ASSERT_OK(Run<float>(op, test::AsScalar<float>(nan),
                            test::AsTensor<float>(absl::Span<const float>(x))));
    for (int i = 0; i < 33; ++i) {
      EXPECT_TRUE(std::isnan(GetOutput(0)->flat<float>()(i))) << op << i;
    }
  }
}

TEST_P(CwiseBinaryOpTest, IncompatibleShapesAreInvalidArgument) {
  EXPECT_THAT(Run<float>("AddV2", Tensor(DT_FLOAT, TensorShape({2, 3})),
                         Tensor(DT_FLOAT, TensorShape({4}))),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Incompatible shapes: [2,3] vs. [4]")));
  EXPECT_THAT(Run<int32_t>("Mul", Tensor(DT_INT32, TensorShape({0})),
                           Tensor(DT_INT32, TensorShape({3}))),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Incompatible shapes: [0] vs. [3]")));
}

TEST_P(CwiseBinaryOpTest, IntegerDivisionByZeroIsInvalidArgument) {
  for (const char* op :
       {"Div", "FloorDiv", "FloorMod", "Mod", "TruncateDiv", "TruncateMod"}) {
    SCOPED_TRACE(op);
    EXPECT_THAT(Run<int32_t>(op, test::AsTensor<int32_t>({1, 2, 3}),
                             test::AsTensor<int32_t>({1, 0, 1})),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("Integer division by zero")));
    EXPECT_THAT(Run<int64_t>(op, test::AsTensor<int64_t>({1, 2, 3}),
                             test::AsScalar<int64_t>(0)),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("Integer division by zero")));
    EXPECT_THAT(Run<int32_t>(op, Tensor(DT_INT32, TensorShape({2, 3})),
                             test::AsTensor<int32_t>({1, 0, 1})),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("Integer division by zero")));
    // Nothing is divided when the output is empty, so nothing fails.
    MF_EXPECT_OK(Run<int32_t>(op, Tensor(DT_INT32, TensorShape({0, 3})),
                              test::AsTensor<int32_t>({1, 0, 1})));
  }
}

TEST_P(CwiseBinaryOpTest, IntegerPowWithNegativeExponentIsInvalidArgument) {
  EXPECT_THAT(Run<int32_t>("Pow", test::AsTensor<int32_t>({2, 2}),
                           test::AsTensor<int32_t>({1, -1})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Integers to negative integer powers are not "
                                 "allowed")));
  EXPECT_THAT(Run<int64_t>("Pow", test::AsTensor<int64_t>({1}),
                           test::AsTensor<int64_t>({-2})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("negative integer powers")));
}

TEST_P(CwiseBinaryOpTest, WritesInPlaceWhenAnInputCanBeForwarded) {
  MF_ASSERT_OK(Run<float>("Mul", test::AsTensor<float>({1, 2, 3, 4}),
                          test::AsTensor<float>({2, 2, 2, 2})));
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)));
  // Broadcasting: the input with the output's shape is reused.
  MF_ASSERT_OK(Run<float>("Sub", test::AsTensor<float>({1}),
                          test::AsTensor<float>({5, 6, 7})));
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(1)));
  test::ExpectTensorEqual<float>(*GetOutput(0),
                                 test::AsTensor<float>({-4, -5, -6}));
}

MF_INSTANTIATE_KERNEL_TEST_DEVICES(CwiseBinaryOpTest);

}  // namespace
}  // namespace minflow
