#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/nn_test_util.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

// The shape function's prediction for fully known inputs, with "in0"
// (input 0's shape itself, as an unchanged-shape function gives) resolved.
std::string PredictedShape(const NodeDef& node_def,
                           const std::vector<TensorShape>& shapes) {
  const std::string p = test::PredictedOutputShape(node_def, shapes);
  return p == "in0" ? shapes[0].DebugString() : p;
}

// The op's contract in double: nudge [min, max] so that zero is a level,
// clamp, and round half up to the nearest level.
double ReferenceFakeQuant(double x, double min, double max, int num_bits,
                          bool narrow_range) {
  if (min == 0 && max == 0) return 0;
  const double qmin = narrow_range ? 1 : 0;
  const double qmax = (1 << num_bits) - 1;
  const double scale = (max - min) / (qmax - qmin);
  const double zp_from_min = qmin - min / scale;
  const double zp = zp_from_min < qmin   ? qmin
                    : zp_from_min > qmax ? qmax
                                         : std::round(zp_from_min);
  const double nmin = (qmin - zp) * scale;
  const double nmax = (qmax - zp) * scale;
  const double clamped = std::min(std::max(x, nmin), nmax);
  return std::floor((clamped - nmin) / scale + 0.5) * scale + nmin;
}

class FakeQuantOpsTest : public test::OpsTestBase {
 protected:
  Status MakeArgs(float min, float max, int num_bits, bool narrow_range) {
    MakeNode("FakeQuantWithMinMaxArgs")
        .Input(DT_FLOAT)
        .Attr("min", min)
        .Attr("max", max)
        .Attr("num_bits", num_bits)
        .Attr("narrow_range", narrow_range);
    return MakeOp();
  }
  Status MakeVars(const char* op, int num_bits, bool narrow_range) {
    MakeNode(op)
        .Input(DT_FLOAT)
        .Input(DT_FLOAT)
        .Input(DT_FLOAT)
        .Attr("num_bits", num_bits)
        .Attr("narrow_range", narrow_range);
    return MakeOp();
  }

  // TensorFlow's documented nudging cases: 8 bits with step 0.25 over
  // [0, 255] (or [1, 255] narrow), the given range nudged to `want`.
  void CheckArgs(float min, float max, bool narrow_range,
                 const std::vector<float>& in, const std::vector<float>& want) {
    SCOPED_TRACE(::testing::Message() << "[" << min << ", " << max << "]");
    MF_ASSERT_OK(MakeArgs(min, max, 8, narrow_range));
    AddInputFromArray<float>(TensorShape({static_cast<int64_t>(in.size())}),
                             in);
    MF_ASSERT_OK(RunOpKernel());
    test::ExpectTensorNear<float>(
        *GetOutput(0),
        test::AsTensor<float>(want,
                              TensorShape({static_cast<int64_t>(in.size())})),
        1e-5);
  }
};

TEST_F(FakeQuantOpsTest, ArgsNoNudging) {
  CheckArgs(-10.0f, 53.75f, false,
            {-10.1f, -10.0f, -9.9f, -9.75f, 53.75f, 53.8f},
            {-10.0f, -10.0f, -10.0f, -9.75f, 53.75f, 53.75f});
}

TEST_F(FakeQuantOpsTest, ArgsNudgedDown) {
  CheckArgs(-0.1f, 63.65f, false, {-0.1f, 0.0f, 0.1f, 0.25f, 63.75f, 63.8f},
            {0.0f, 0.0f, 0.0f, 0.25f, 63.75f, 63.75f});
}

TEST_F(FakeQuantOpsTest, ArgsNudgedUp) {
  CheckArgs(-0.125f, 63.625f, false,
            {-0.26f, -0.25f, -0.24f, 0.0f, 63.5f, 63.6f},
            {-0.25f, -0.25f, -0.25f, 0.0f, 63.5f, 63.5f});
}

TEST_F(FakeQuantOpsTest, ArgsNudgedZeroIsTopLevel) {
  CheckArgs(-63.65f, 0.1f, false, {-63.8f, -63.75f, -63.7f, -63.5f, 0.0f, 0.1f},
            {-63.75f, -63.75f, -63.75f, -63.5f, 0.0f, 0.0f});
}

TEST_F(FakeQuantOpsTest, ArgsNarrowRangeNudgedDown) {
  // [1, 255]: scale 63.5 / 254 = 0.25, zero point 1.4 rounds to 1.
  CheckArgs(-0.1f, 63.4f, true, {-0.1f, 0.0f, 0.1f, 0.25f, 63.5f, 63.6f},
            {0.0f, 0.0f, 0.0f, 0.25f, 63.5f, 63.5f});
}

TEST_F(FakeQuantOpsTest, ArgsMatchReference) {
  for (int num_bits : {2, 4, 8, 16}) {
    for (bool narrow : {false, true}) {
      SCOPED_TRACE(::testing::Message() << num_bits << " " << narrow);
      MF_ASSERT_OK(MakeArgs(-1.3f, 2.2f, num_bits, narrow));
      const Tensor in = test::RandomTensor<float>(TensorShape({4, 50}), 3);
      AddInputTensor(test::AsTensor<float>(
          [&] {
            std::vector<float> v;
            for (int i = 0; i < 200; ++i) v.push_back(in.flat<float>()(i) * 3);
            return v;
          }(),
          TensorShape({4, 50})));
      MF_ASSERT_OK(RunOpKernel());
      std::vector<double> ref;
      for (int i = 0; i < 200; ++i) {
        ref.push_back(ReferenceFakeQuant(GetInput(0).flat<float>()(i), -1.3,
                                         2.2, num_bits, narrow));
      }
      test::ExpectNearReference<float>(*GetOutput(0), TensorShape({4, 50}), ref,
                                       1e-5);
    }
  }
}

TEST_F(FakeQuantOpsTest, ArgsEmptyInput) {
  MF_ASSERT_OK(MakeArgs(-6, 6, 8, false));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 3})));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[0,3]");
}

TEST_F(FakeQuantOpsTest, ArgsRejectsMinNotBelowMax) {
  EXPECT_THAT(
      MakeArgs(1.0f, 1.0f, 8, false),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("min has to be smaller than max, was: 1 >= 1")));
}

TEST_F(FakeQuantOpsTest, RejectsNumBitsOutOfRange) {
  for (int bits : {1, 17}) {
    EXPECT_THAT(MakeArgs(-1, 1, bits, false),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("num_bits must be between 2 and 16")));
    EXPECT_THAT(MakeVars("FakeQuantWithMinMaxVars", bits, false),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("num_bits must be between 2 and 16")));
    EXPECT_THAT(MakeVars("FakeQuantWithMinMaxVarsPerChannel", bits, false),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("num_bits must be between 2 and 16")));
  }
}

TEST_F(FakeQuantOpsTest, VarsNudgedUp) {
  MF_ASSERT_OK(MakeVars("FakeQuantWithMinMaxVars", 8, false));
  AddInputFromArray<float>(TensorShape({2, 3}),
                           {-0.26f, -0.25f, -0.24f, 0.0f, 63.5f, 63.6f});
  AddInputFromArray<float>(TensorShape({}), {-0.125f});
  AddInputFromArray<float>(TensorShape({}), {63.625f});
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(PredictedShape(*node_def(), {TensorShape({2, 3}), TensorShape({}),
                                         TensorShape({})}),
            GetOutput(0)->shape().DebugString());
  test::ExpectTensorNear<float>(
      *GetOutput(0),
      test::AsTensor<float>({-0.25f, -0.25f, -0.25f, 0.0f, 63.5f, 63.5f},
                            TensorShape({2, 3})),
      1e-5);
}

TEST_F(FakeQuantOpsTest, VarsZeroRangeGivesZeros) {
  MF_ASSERT_OK(MakeVars("FakeQuantWithMinMaxVars", 8, false));
  AddInputFromArray<float>(TensorShape({3}), {-1.0f, 0.5f, 2.0f});
  AddInputFromArray<float>(TensorShape({}), {0.0f});
  AddInputFromArray<float>(TensorShape({}), {0.0f});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(*GetOutput(0),
                                 test::AsTensor<float>({0, 0, 0}));
}

TEST_F(FakeQuantOpsTest, VarsRejectsNonScalarRange) {
  MF_ASSERT_OK(MakeVars("FakeQuantWithMinMaxVars", 8, false));
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  AddInputFromArray<float>(TensorShape({1}), {-1});
  AddInputFromArray<float>(TensorShape({}), {1});
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("`min` must be rank 0 but is rank 1")));
  MF_ASSERT_OK(MakeVars("FakeQuantWithMinMaxVars", 8, false));
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  AddInputFromArray<float>(TensorShape({}), {-1});
  AddInputFromArray<float>(TensorShape({1}), {1});
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("`max` must be rank 0 but is rank 1")));
}

TEST_F(FakeQuantOpsTest, PerChannelMatchesReference) {
  for (bool narrow : {false, true}) {
    MF_ASSERT_OK(MakeVars("FakeQuantWithMinMaxVarsPerChannel", 5, narrow));
    const Tensor in = test::RandomTensor<float>(TensorShape({2, 7, 4}), 9);
    const std::vector<float> mins = {-1.0f, -0.1f, 0.0f, -0.7f};
    const std::vector<float> maxs = {1.0f, 0.9f, 0.0f, -0.2f};
    AddInputTensor(in);
    AddInputFromArray<float>(TensorShape({4}), mins);
    AddInputFromArray<float>(TensorShape({4}), maxs);
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(PredictedShape(*node_def(),
                             {in.shape(), TensorShape({4}), TensorShape({4})}),
              GetOutput(0)->shape().DebugString());
    std::vector<double> ref;
    for (int i = 0; i < in.NumElements(); ++i) {
      ref.push_back(ReferenceFakeQuant(in.flat<float>()(i), mins[i % 4],
                                       maxs[i % 4], 5, narrow));
    }
    test::ExpectNearReference<float>(*GetOutput(0), in.shape(), ref, 1e-5);
  }
}

TEST_F(FakeQuantOpsTest, PerChannelEmptyInput) {
  MF_ASSERT_OK(MakeVars("FakeQuantWithMinMaxVarsPerChannel", 8, false));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 2})));
  AddInputFromArray<float>(TensorShape({2}), {-1, -1});
  AddInputFromArray<float>(TensorShape({2}), {1, 1});
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[0,2]");
}

TEST_F(FakeQuantOpsTest, PerChannelRejectsBadShapes) {
  struct Case {
    TensorShape in, min, max;
    const char* message;
  };
  const Case cases[] = {
      {TensorShape({}), TensorShape({1}), TensorShape({1}),
       "`inputs` must be at least rank 1, but got rank 0"},
      {TensorShape({2, 3}), TensorShape({}), TensorShape({3}),
       "`min` must be rank 1 but is rank 0"},
      {TensorShape({2, 3}), TensorShape({3}), TensorShape({1, 3}),
       "`max` must be rank 1 but is rank 2"},
      {TensorShape({2, 3}), TensorShape({2}), TensorShape({3}),
       "min has incorrect size, expected 3 was 2"},
      {TensorShape({2, 3}), TensorShape({3}), TensorShape({4}),
       "max has incorrect size, expected 3 was 4"},
  };
  for (const Case& c : cases) {
    MF_ASSERT_OK(MakeVars("FakeQuantWithMinMaxVarsPerChannel", 8, false));
    AddInputTensor(test::RandomTensor<float>(c.in, 1));
    AddInputTensor(test::RandomTensor<float>(c.min, 2));
    AddInputTensor(test::RandomTensor<float>(c.max, 3));
    EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr(c.message)));
  }
}

}  // namespace
}  // namespace minflow
