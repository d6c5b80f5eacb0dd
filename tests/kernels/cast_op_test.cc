// Cast between every pair of supported types, against an independent
// per-value reference of minflow's rules (Note [Cast of out-of-range
// floats]), plus Truncate and the unsupported pairs.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
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

// Values every type can hold, and values that stress conversions.
const std::vector<double> kValues = {
    0,   1,    -1,    2.5,   -2.5,  0.75,  127,    128, 255,
    256, -129, 32767, 32768, 65535, 65536, -32769, 1e6, -1e6,
    3e9, -3e9, 1e19,  -1e19, 1e30,  -1e30, 1e300,  -0.0};

template <typename T>
constexpr bool kIsFloat =
    std::is_floating_point<T>::value || std::is_same<T, half>::value ||
    std::is_same<T, bfloat16>::value;

// `v` stored in Src (as a Src constant would hold it).
template <typename Src>
Src StoreAs(double v) {
  if constexpr (std::is_same<Src, bool>::value) {
    return v != 0;
  } else if constexpr (kIsFloat<Src>) {
    return test::FromDouble<Src>(v);
  } else {
    // Integers: values out of range wrap, as any integer input might.
    const int64_t i = std::fabs(v) < 9e18 ? static_cast<int64_t>(v) : 0;
    return static_cast<Src>(i);
  }
}

// The reference rule, written independently of the kernel.
template <typename Dst, typename Src>
Dst Expected(Src s) {
  const double x = test::ToDouble(s);
  if constexpr (std::is_same<Dst, bool>::value) {
    return x != 0;
  } else if constexpr (std::is_integral<Dst>::value && kIsFloat<Src>) {
    if (std::isnan(x)) return 0;
    const double t = std::trunc(x);
    if (t >= std::ldexp(1.0, std::numeric_limits<Dst>::digits)) {
      return std::numeric_limits<Dst>::max();
    }
    if (t < static_cast<double>(std::numeric_limits<Dst>::min())) {
      return std::numeric_limits<Dst>::min();
    }
    return static_cast<Dst>(t);
  } else if constexpr (std::is_same<Src, bool>::value) {
    return static_cast<Dst>(s ? 1 : 0);
  } else if constexpr (std::is_integral<Dst>::value) {
    return static_cast<Dst>(s);  // integer to integer keeps the low bits
  } else if constexpr (std::is_integral<Src>::value &&
                       std::is_floating_point<Dst>::value) {
    return static_cast<Dst>(s);
  } else if constexpr (std::is_integral<Src>::value) {
    return static_cast<Dst>(static_cast<float>(s));  // half, bfloat16
  } else {
    return test::FromDouble<Dst>(x);
  }
}

class CastOpTest : public test::CwiseOpsTestBase {
 protected:
  Status MakeCast(DataType src, DataType dst, bool truncate = false) {
    MakeNode("Cast").Input(src).Attr("DstT", dst).Attr("Truncate", truncate);
    return MakeOp();
  }

  template <typename Src, typename Dst>
  void CheckPair() {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<Src>::v()) << " -> "
                 << DataTypeString(DataTypeToEnum<Dst>::v()));
    MF_ASSERT_OK(MakeCast(DataTypeToEnum<Src>::v(), DataTypeToEnum<Dst>::v()));
    std::vector<Src> in;
    for (double v : kValues) in.push_back(StoreAs<Src>(v));
    if constexpr (kIsFloat<Src>) {
      for (double v : {std::numeric_limits<double>::quiet_NaN(),
                       std::numeric_limits<double>::infinity(),
                       -std::numeric_limits<double>::infinity()}) {
        in.push_back(StoreAs<Src>(v));
      }
    }
    const TensorShape shape({static_cast<int64_t>(in.size())});
    Tensor src(DataTypeToEnum<Src>::v(), shape);
    Tensor want(DataTypeToEnum<Dst>::v(), shape);
    for (size_t i = 0; i < in.size(); ++i) {
      src.base<Src>()[i] = in[i];
      want.base<Dst>()[i] = Expected<Dst>(in[i]);
    }
    AddInputTensor(src);
    MF_ASSERT_OK(RunOpKernel());
    test::ExpectTensorEqual<Dst>(*GetOutput(0), want);
  }

  template <typename Src>
  void CheckFrom() {
    CheckPair<Src, bool>();
    CheckPair<Src, uint8_t>();
    CheckPair<Src, uint16_t>();
    CheckPair<Src, uint32_t>();
    CheckPair<Src, uint64_t>();
    CheckPair<Src, int8_t>();
    CheckPair<Src, int16_t>();
    CheckPair<Src, int32_t>();
    CheckPair<Src, int64_t>();
    CheckPair<Src, half>();
    CheckPair<Src, bfloat16>();
    CheckPair<Src, float>();
    CheckPair<Src, double>();
  }
};

TEST_P(CastOpTest, FromBool) { CheckFrom<bool>(); }
TEST_P(CastOpTest, FromUint8) { CheckFrom<uint8_t>(); }
TEST_P(CastOpTest, FromUint16) { CheckFrom<uint16_t>(); }
TEST_P(CastOpTest, FromUint32) { CheckFrom<uint32_t>(); }
TEST_P(CastOpTest, FromUint64) { CheckFrom<uint64_t>(); }
TEST_P(CastOpTest, FromInt8) { CheckFrom<int8_t>(); }
TEST_P(CastOpTest, FromInt16) { CheckFrom<int16_t>(); }
TEST_P(CastOpTest, FromInt32) { CheckFrom<int32_t>(); }
TEST_P(CastOpTest, FromInt64) { CheckFrom<int64_t>(); }
TEST_P(CastOpTest, FromHalf) { CheckFrom<half>(); }
TEST_P(CastOpTest, FromBfloat16) { CheckFrom<bfloat16>(); }
TEST_P(CastOpTest, FromFloat) { CheckFrom<float>(); }
TEST_P(CastOpTest, FromDouble) { CheckFrom<double>(); }

TEST_P(CastOpTest, OutOfRangeFloatsSaturateAndNaNIsZero) {
  MF_ASSERT_OK(MakeCast(DT_FLOAT, DT_INT32));
  AddInputFromArray<float>(TensorShape({5}),
                           {NAN, 3e9f, -3e9f, INFINITY, -2.9f});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<int32_t>(
      *GetOutput(0),
      test::AsTensor<int32_t>({0, std::numeric_limits<int32_t>::max(),
                               std::numeric_limits<int32_t>::min(),
                               std::numeric_limits<int32_t>::max(), -2}));
}

TEST_P(CastOpTest, TruncateDropsLowBitsInsteadOfRounding) {
  // 1 + 255/256 rounds up to 2 in bfloat16 but truncates to 1.9921875.
  const float x = 1.0f + 255.0f / 256.0f;
  for (const bool truncate : {false, true}) {
    MF_ASSERT_OK(MakeCast(DT_FLOAT, DT_BFLOAT16, truncate));
    AddInputFromArray<float>(TensorShape({2}), {x, NAN});
    MF_ASSERT_OK(RunOpKernel());
    const Tensor& out = *GetOutput(0);
    EXPECT_EQ(static_cast<float>(out.flat<bfloat16>()(0)),
              truncate ? 1.9921875f : 2.0f);
    EXPECT_TRUE(std::isnan(static_cast<float>(out.flat<bfloat16>()(1))));
  }
  // 1 + 1.5 ulp (+ a little) of float: rounds to 1 + 2 ulp, truncates to
  // 1 + 1 ulp.
  const double y = 1.0 + 0x1.8p-23 + 0x1p-30;
  for (const bool truncate : {false, true}) {
    MF_ASSERT_OK(MakeCast(DT_DOUBLE, DT_FLOAT, truncate));
    AddInputFromArray<double>(TensorShape({1}), {y});
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(GetOutput(0)->flat<float>()(0),
              truncate ? 1.0f + 0x1p-23f : 1.0f + 0x1p-22f);
  }
  // half -> bfloat16: 1 + 1023/1024 rounds to 2 but truncates to 1 + 127/128
  // (a 16-bit source, the case UBSan once caught shifting a negative int).
  for (const bool truncate : {false, true}) {
    MF_ASSERT_OK(MakeCast(DT_HALF, DT_BFLOAT16, truncate));
    AddInputFromArray<half>(TensorShape({1}), {half(1.0f + 1023.0f / 1024)});
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(static_cast<float>(GetOutput(0)->flat<bfloat16>()(0)),
              truncate ? 1.9921875f : 2.0f);
  }
  // Truncate means nothing for integer targets.
  MF_ASSERT_OK(MakeCast(DT_FLOAT, DT_INT32, /*truncate=*/true));
  AddInputFromArray<float>(TensorShape({1}), {2.75f});
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->flat<int32_t>()(0), 2);
}

TEST_P(CastOpTest, SameTypeSharesTheInput) {
  MF_ASSERT_OK(MakeCast(DT_INT64, DT_INT64));
  AddInputFromArray<int64_t>(TensorShape({2}), {1, 2});
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)));
  MF_ASSERT_OK(MakeCast(DT_STRING, DT_STRING));
}

TEST_P(CastOpTest, EmptyAndLargeInputs) {
  MF_ASSERT_OK(MakeCast(DT_INT32, DT_FLOAT));
  AddInputTensor(Tensor(DT_INT32, TensorShape({0, 3})));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[0,3]");
  ExpectShapeFnAgrees();

  MF_ASSERT_OK(MakeCast(DT_FLOAT, DT_HALF));
  const TensorShape shape({1 << 20 | 7});
  const Tensor x = test::RandomValues<float>(shape, 9, -1000, 1000);
  AddInputTensor(x);
  MF_ASSERT_OK(RunOpKernel());
  std::vector<double> want(x.NumElements());
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    want[i] = test::ElementAt<float>(x, i);
  }
  test::ExpectMatches<half>(*GetOutput(0), shape, want, {0, 0});
  ExpectShapeFnAgrees();
}

TEST_P(CastOpTest, UnsupportedPairsAreUnimplemented) {
  EXPECT_THAT(MakeCast(DT_STRING, DT_FLOAT),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("Cast string to float is not supported")));
  EXPECT_THAT(MakeCast(DT_INT32, DT_COMPLEX64),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("Cast int32 to complex64 is not supported")));
}

MF_INSTANTIATE_KERNEL_TEST_DEVICES(CastOpTest);

}  // namespace
}  // namespace minflow
