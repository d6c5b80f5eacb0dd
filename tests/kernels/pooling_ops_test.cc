#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "tests/kernels/nn_test_util.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/shape_inference_testutil.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

struct PoolCase {
  std::vector<int64_t> input;  // N, H, W, C
  int64_t k_h = 1, k_w = 1;
  int64_t s_h = 1, s_w = 1;
  std::string padding = "VALID";
  std::vector<int64_t> explicit_paddings = {};
};

void OutputAndPad(const PoolCase& c, int dim, int64_t in, int64_t k,
                  int64_t stride, int64_t* out, int64_t* pad) {
  if (c.padding == "VALID") {
    *out = (in - k + stride) / stride;
    *pad = 0;
  } else if (c.padding == "SAME") {
    *out = (in + stride - 1) / stride;
    *pad = std::max<int64_t>(0, (*out - 1) * stride + k - in) / 2;
  } else {
    *out = (in + c.explicit_paddings[2 * dim] +
            c.explicit_paddings[2 * dim + 1] - k + stride) /
           stride;
    *pad = c.explicit_paddings[2 * dim];
  }
}

// Max (or mean) over the window's taps inside the image; -inf for an
// empty max window.
template <typename T>
std::vector<double> ReferencePool(const PoolCase& c, const Tensor& input,
                                  bool is_max, TensorShape* shape) {
  const int64_t n = c.input[0], h = c.input[1], w = c.input[2], ch = c.input[3];
  int64_t oh, ow, pt, pl;
  OutputAndPad(c, 1, h, c.k_h, c.s_h, &oh, &pt);
  OutputAndPad(c, 2, w, c.k_w, c.s_w, &ow, &pl);
  *shape = TensorShape({n, oh, ow, ch});
  std::vector<double> out(n * oh * ow * ch);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t q = 0; q < ch; ++q) {
          double acc = is_max ? -std::numeric_limits<double>::infinity() : 0;
          int64_t count = 0;
          for (int64_t i = 0; i < c.k_h; ++i)
            for (int64_t j = 0; j < c.k_w; ++j) {
              const int64_t iy = y * c.s_h - pt + i;
              const int64_t ix = x * c.s_w - pl + j;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              const double v =
                  test::ValueAt<T>(input, ((b * h + iy) * w + ix) * ch + q);
              acc = is_max ? std::max(acc, v) : acc + v;
              ++count;
            }
          out[((b * oh + y) * ow + x) * ch + q] =
              is_max ? acc : acc / static_cast<double>(count);
        }
  return out;
}

class PoolingOpsTest : public test::OpsTestBase {
 protected:
  Status MakePool(const std::string& op, DataType dtype,
                  std::vector<int64_t> ksize, std::vector<int64_t> strides,
                  const std::string& padding,
                  std::vector<int64_t> explicit_paddings = {},
                  const std::string& data_format = "NHWC") {
    auto& node = MakeNode(op)
                     .Input(dtype)
                     .Attr("ksize", ksize)
                     .Attr("strides", strides)
                     .Attr("padding", padding)
                     .Attr("data_format", data_format);
    if (op == "MaxPool") node.Attr("explicit_paddings", explicit_paddings);
    return MakeOp();
  }

  // MaxPoolV2: the window as inputs 1 and 2.
  Status MakePoolV2(DataType dtype, const std::string& padding,
                    const std::string& data_format = "NHWC") {
    MakeNode("MaxPoolV2")
        .Input(dtype)
        .Input(DT_INT32)
        .Input(DT_INT32)
        .Attr("padding", padding)
        .Attr("data_format", data_format);
    return MakeOp();
  }
  void AddWindow(const std::vector<int32_t>& ksize,
                 const std::vector<int32_t>& strides) {
    AddInputFromArray<int32_t>(
        TensorShape({static_cast<int64_t>(ksize.size())}), ksize);
    AddInputFromArray<int32_t>(
        TensorShape({static_cast<int64_t>(strides.size())}), strides);
  }
  Status RunV2(const std::vector<int64_t>& input,
               const std::vector<int32_t>& ksize,
               const std::vector<int32_t>& strides,
               const std::string& padding = "VALID") {
    MF_RETURN_IF_ERROR(MakePoolV2(DT_FLOAT, padding));
    AddInputTensor(test::RandomTensor<float>(TensorShape(input), 3));
    AddWindow(ksize, strides);
    return RunOpKernel();
  }

  template <typename T>
  void CheckV2(const PoolCase& c) {
    SCOPED_TRACE(::testing::Message()
                 << "MaxPoolV2 " << DataTypeString(DataTypeToEnum<T>::v())
                 << " input " << TensorShape(c.input).DebugString() << " ksize "
                 << c.k_h << "," << c.k_w << " strides " << c.s_h << ","
                 << c.s_w << " " << c.padding);
    MF_ASSERT_OK(MakePoolV2(DataTypeToEnum<T>::v(), c.padding));
    const Tensor input = test::RandomTensor<T>(TensorShape(c.input), 11);
    AddInputTensor(input);
    const std::vector<int32_t> ksize = {1, static_cast<int32_t>(c.k_h),
                                        static_cast<int32_t>(c.k_w), 1};
    const std::vector<int32_t> strides = {1, static_cast<int32_t>(c.s_h),
                                          static_cast<int32_t>(c.s_w), 1};
    AddWindow(ksize, strides);
    MF_ASSERT_OK(RunOpKernel());
    // The shape function given the window's values.
    ShapeInferenceTestOp op("MaxPoolV2");
    op.node_def = *node_def();
    op.SetInputTensor(1, test::AsTensor<int32_t>(ksize))
        .SetInputTensor(2, test::AsTensor<int32_t>(strides));
    const StatusOr<std::string> predicted = ShapeInferenceTestutil::Infer(
        op, TensorShape(c.input).DebugString() + ";[4];[4]");
    ASSERT_TRUE(predicted.ok()) << predicted.status();
    TensorShape shape;
    const std::vector<double> ref = ReferencePool<T>(c, input, true, &shape);
    test::ExpectNearReference<T>(*GetOutput(0), shape, ref, 0.0);
    // Dims the shape function copies from the input print as d0_J.
    std::string got = *predicted;
    for (int j = 0; j < 4; ++j) {
      const std::string ref_dim = "d0_" + std::to_string(j);
      for (size_t at = got.find(ref_dim); at != std::string::npos;
           at = got.find(ref_dim)) {
        got.replace(at, ref_dim.size(), std::to_string(c.input[j]));
      }
    }
    EXPECT_EQ(got, shape.DebugString());
  }

  template <typename T>
  void Check(const std::string& op, const PoolCase& c) {
    SCOPED_TRACE(::testing::Message()
                 << op << " " << DataTypeString(DataTypeToEnum<T>::v())
                 << " input " << TensorShape(c.input).DebugString() << " ksize "
                 << c.k_h << "," << c.k_w << " strides " << c.s_h << ","
                 << c.s_w << " " << c.padding);
    MF_ASSERT_OK(MakePool(op, DataTypeToEnum<T>::v(), {1, c.k_h, c.k_w, 1},
                          {1, c.s_h, c.s_w, 1}, c.padding,
                          c.explicit_paddings));
    const Tensor input = test::RandomTensor<T>(TensorShape(c.input), 11);
    AddInputTensor(input);
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(test::PredictedOutputShape(*node_def(), {input.shape()}),
              GetOutput(0)->shape().DebugString());
    TensorShape shape;
    const bool is_max = op == "MaxPool";
    const std::vector<double> ref = ReferencePool<T>(c, input, is_max, &shape);
    // Max is exact; a mean rounds once per tap.
    test::ExpectNearReference<T>(
        *GetOutput(0), shape, ref,
        is_max ? 0.0 : test::SumTolerance<T>(c.k_h * c.k_w));
  }

  std::vector<PoolCase> Cases(bool with_explicit) {
    std::vector<PoolCase> cases;
    cases.push_back({{2, 4, 6, 3}, 2, 2, 2, 2});          // even
    cases.push_back({{1, 7, 9, 2}, 3, 3, 2, 2, "SAME"});  // odd
    cases.push_back({{2, 5, 5, 4}, 3, 3, 1, 1, "SAME"});  // pad 1,1
    cases.push_back({{1, 6, 6, 2}, 2, 2, 1, 1, "SAME"});  // pad 0,1
    cases.push_back({{1, 8, 8, 3}, 3, 3, 2, 2, "SAME"});  // pad 0,1
    cases.push_back({{1, 5, 6, 3}, 1, 1, 1, 1});          // 1x1
    cases.push_back({{2, 3, 3, 2}, 5, 5, 1, 1, "SAME"});  // big window
    cases.push_back({{1, 9, 11, 5}, 2, 3, 1, 2});         // non-square
    cases.push_back({{1, 9, 11, 5}, 3, 2, 3, 1, "SAME"});
    // Channel counts of real layers, a whole number of vectors wide.
    cases.push_back({{2, 7, 9, 16}, 3, 3, 2, 2, "SAME"});
    cases.push_back({{1, 6, 6, 32}, 2, 2, 2, 2});
    // Every window inside the image (MaxPool's register loop): 3x3 with
    // channels past the last whole vector, SAME that pads nothing, and a
    // window the loop reads from the dimensions.
    cases.push_back({{1, 7, 7, 19}, 3, 3, 2, 2});
    cases.push_back({{2, 8, 8, 20}, 2, 2, 2, 2, "SAME"});
    cases.push_back({{1, 9, 9, 24}, 2, 3, 3, 2});
    if (with_explicit) {
      // The first output row's window lies wholly in the padding.
      cases.push_back(
          {{1, 5, 5, 2}, 2, 2, 1, 2, "EXPLICIT", {0, 0, 3, 1, 0, 2, 0, 0}});
      cases.push_back(
          {{1, 5, 5, 16}, 2, 2, 1, 2, "EXPLICIT", {0, 0, 3, 1, 0, 2, 0, 0}});
    }
    return cases;
  }
};

TEST_F(PoolingOpsTest, MaxPoolFloatMatchesReference) {
  for (const PoolCase& c : Cases(true)) Check<float>("MaxPool", c);
}
TEST_F(PoolingOpsTest, MaxPoolDoubleMatchesReference) {
  for (const PoolCase& c : Cases(true)) Check<double>("MaxPool", c);
}
TEST_F(PoolingOpsTest, MaxPoolHalfMatchesReference) {
  for (const PoolCase& c : Cases(false)) Check<half>("MaxPool", c);
}
TEST_F(PoolingOpsTest, MaxPoolBfloat16MatchesReference) {
  for (const PoolCase& c : Cases(false)) Check<bfloat16>("MaxPool", c);
}
TEST_F(PoolingOpsTest, MaxPoolIntegersMatchReference) {
  for (const PoolCase& c : Cases(false)) {
    Check<int32_t>("MaxPool", c);
    Check<int64_t>("MaxPool", c);
  }
}
TEST_F(PoolingOpsTest, MaxPoolV2MatchesReference) {
  for (const PoolCase& c : Cases(false)) {
    CheckV2<float>(c);
    CheckV2<int32_t>(c);
  }
}

TEST_F(PoolingOpsTest, MaxPoolV2AcrossDepthAndEmpty) {
  MF_ASSERT_OK(RunV2({1, 1, 2, 4}, {1, 1, 1, 2}, {1, 1, 1, 2}));
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({1, 1, 2, 2}));
  MF_ASSERT_OK(RunV2({0, 5, 5, 3}, {1, 2, 2, 1}, {1, 2, 2, 1}));
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0, 2, 2, 3}));
}

TEST_F(PoolingOpsTest, MaxPoolV2ChecksTheWindowInputs) {
  EXPECT_THAT(RunV2({1, 4, 4, 1}, {1, 2, 2}, {1, 1, 1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Sliding window ksize field must specify 4 "
                                 "dimensions")));
  EXPECT_THAT(RunV2({1, 4, 4, 1}, {1, 2, 2, 1}, {1, 1, 1, 1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Sliding window stride field must specify 4 "
                                 "dimensions")));
  EXPECT_THAT(RunV2({1, 4, 4, 1}, {1, 0, 2, 1}, {1, 1, 1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Sliding window ksize for dimension 1 was "
                                 "zero.")));
  EXPECT_THAT(RunV2({1, 4, 4, 1}, {1, 2, 2, 1}, {1, -1, 1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must be > 0, but got -1")));
  EXPECT_THAT(RunV2({1, 4, 4, 1}, {2, 2, 2, 1}, {1, 1, 1, 1}),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("Pooling is not yet supported on the batch "
                                 "dimension.")));
  EXPECT_THAT(RunV2({1, 4, 4, 3}, {1, 1, 1, 2}, {1, 1, 1, 2}),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("evenly divide the input depth")));
  EXPECT_THAT(RunV2({1, 3, 3, 1}, {1, 5, 1, 1}, {1, 1, 1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Computed output size would be negative")));
  EXPECT_THAT(RunV2({4, 4, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tensor_in must be 4-dimensional")));
  EXPECT_THAT(MakePoolV2(DT_FLOAT, "VALID", "NCHW"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Default MaxPoolingOp only supports NHWC on "
                                 "device type CPU")));
}

TEST_F(PoolingOpsTest, AvgPoolFloatMatchesReference) {
  for (const PoolCase& c : Cases(false)) Check<float>("AvgPool", c);
}
TEST_F(PoolingOpsTest, AvgPoolDoubleMatchesReference) {
  for (const PoolCase& c : Cases(false)) Check<double>("AvgPool", c);
}

TEST_F(PoolingOpsTest, LargeInputIsSharded) {
  const PoolCase c{{4, 64, 64, 16}, 3, 3, 2, 2, "SAME"};
  Check<float>("MaxPool", c);
  Check<float>("AvgPool", c);
}

TEST_F(PoolingOpsTest, MaxPoolOfUint8AndInt8) {
  MF_ASSERT_OK(
      MakePool("MaxPool", DT_UINT8, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"));
  AddInputFromArray<uint8_t>(TensorShape({1, 2, 2, 1}), {3, 250, 7, 1});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<uint8_t>(
      *GetOutput(0), test::AsTensor<uint8_t>({250}, TensorShape({1, 1, 1, 1})));
  MF_ASSERT_OK(
      MakePool("MaxPool", DT_INT8, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"));
  AddInputFromArray<int8_t>(TensorShape({1, 2, 2, 1}), {-3, -128, -7, -1});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<int8_t>(
      *GetOutput(0), test::AsTensor<int8_t>({-1}, TensorShape({1, 1, 1, 1})));
}

// A NaN tap does not win a window, as in TensorFlow's Eigen reducer, which
// starts at -inf and keeps the running max when a comparison is false; a
// window of NaNs alone gives -inf. Two channels, so the vector loop runs.
TEST_F(PoolingOpsTest, MaxPoolSkipsNaNTaps) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  MF_ASSERT_OK(
      MakePool("MaxPool", DT_FLOAT, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"));
  AddInputFromArray<float>(TensorShape({1, 2, 2, 2}),
                           {nan, nan, 1.0f, nan, 3.0f, nan, 2.0f, nan});
  MF_ASSERT_OK(RunOpKernel());
  const Tensor& out = *GetOutput(0);
  EXPECT_EQ(out.flat<float>()(0), 3.0f);
  EXPECT_EQ(out.flat<float>()(1), -std::numeric_limits<float>::infinity());

  // The same with 16 channels, a whole vector wide.
  MF_ASSERT_OK(
      MakePool("MaxPool", DT_FLOAT, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"));
  std::vector<float> input(4 * 16, 0.5f);
  const float channel0[4] = {nan, 1.0f, 3.0f, 2.0f};
  for (int tap = 0; tap < 4; ++tap) {
    input[tap * 16] = channel0[tap];
    input[tap * 16 + 1] = nan;
  }
  AddInputFromArray<float>(TensorShape({1, 2, 2, 16}), input);
  MF_ASSERT_OK(RunOpKernel());
  const Tensor& out16 = *GetOutput(0);
  EXPECT_EQ(out16.flat<float>()(0), 3.0f);
  EXPECT_EQ(out16.flat<float>()(1), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(out16.flat<float>()(2), 0.5f);
}

TEST_F(PoolingOpsTest, AvgPoolSameDividesByTapsInsideTheImage) {
  // 2x2 input, 3x3 SAME window: every window holds all 4 values.
  MF_ASSERT_OK(
      MakePool("AvgPool", DT_FLOAT, {1, 3, 3, 1}, {1, 1, 1, 1}, "SAME"));
  AddInputFromArray<float>(TensorShape({1, 2, 2, 1}), {1, 2, 3, 6});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({3, 3, 3, 3}, TensorShape({1, 2, 2, 1})));
}

TEST_F(PoolingOpsTest, MaxPoolAcrossDepth) {
  MF_ASSERT_OK(
      MakePool("MaxPool", DT_FLOAT, {1, 1, 1, 3}, {1, 1, 1, 3}, "VALID"));
  AddInputFromArray<float>(TensorShape({1, 1, 2, 6}),
                           {1, 5, 2, 9, 0, -1, -4, -3, -2, 7, 8, 6});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({5, 9, -2, 8}, TensorShape({1, 1, 2, 2})));
}

TEST_F(PoolingOpsTest, EmptyBatchGivesEmptyOutput) {
  for (const char* op : {"MaxPool", "AvgPool"}) {
    MF_ASSERT_OK(MakePool(op, DT_FLOAT, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME"));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 5, 5, 3})));
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[0,3,3,3]");
  }
}

// --- attrs, checked when the kernel is made

TEST_F(PoolingOpsTest, RejectsKsizeOfWrongLength) {
  EXPECT_THAT(
      MakePool("MaxPool", DT_FLOAT, {1, 2, 2, 1, 1}, {1, 1, 1, 1}, "VALID"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Sliding window ksize field must specify 4 "
                         "dimensions")));
}

TEST_F(PoolingOpsTest, RejectsZeroOrNegativeKsize) {
  for (const char* op : {"MaxPool", "AvgPool"}) {
    EXPECT_THAT(MakePool(op, DT_FLOAT, {1, 0, 2, 1}, {1, 1, 1, 1}, "VALID"),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("Sliding window ksize for dimension 1 was "
                                   "zero.")));
    EXPECT_THAT(MakePool(op, DT_FLOAT, {1, 2, -2, 1}, {1, 1, 1, 1}, "VALID"),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("ksize for dimension 2")));
  }
}

TEST_F(PoolingOpsTest, RejectsStridesOfWrongLength) {
  EXPECT_THAT(
      MakePool("AvgPool", DT_FLOAT, {1, 2, 2, 1}, {1, 1, 1, 1, 1}, "VALID"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Sliding window stride field must specify 4 "
                         "dimensions")));
}

TEST_F(PoolingOpsTest, RejectsZeroOrNegativeStride) {
  EXPECT_THAT(
      MakePool("MaxPool", DT_FLOAT, {1, 2, 2, 1}, {1, 1, 0, 1}, "VALID"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Sliding window stride for dimension 2 must "
                         "be > 0, but got 0")));
  EXPECT_THAT(
      MakePool("AvgPool", DT_FLOAT, {1, 2, 2, 1}, {1, -1, 1, 1}, "VALID"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("must be > 0, but got -1")));
}

// Issue 17: a zero-sized window or a zero stride on any spatial dim is an
// error in every 2-D pool, never an output.
TEST_F(PoolingOpsTest, ZeroSizedWindowsAndStridesAreErrors) {
  for (const char* op : {"MaxPool", "AvgPool"}) {
    for (int dim : {1, 2}) {
      SCOPED_TRACE(::testing::Message() << op << " dim " << dim);
      std::vector<int64_t> window = {1, 2, 2, 1};
      std::vector<int64_t> strides = {1, 1, 1, 1};
      window[dim] = 0;
      EXPECT_THAT(
          MakePool(op, DT_FLOAT, window, strides, "SAME"),
          StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("was zero.")));
      window[dim] = 2;
      strides[dim] = 0;
      EXPECT_THAT(MakePool(op, DT_FLOAT, window, strides, "SAME"),
                  StatusIs(absl::StatusCode::kInvalidArgument,
                           HasSubstr("must be > 0, but got 0")));
    }
  }
  EXPECT_THAT(RunV2({1, 4, 4, 1}, {1, 2, 0, 1}, {1, 1, 1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Sliding window ksize for dimension 2 was "
                                 "zero.")));
  EXPECT_THAT(RunV2({1, 4, 4, 1}, {1, 2, 2, 1}, {1, 0, 1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Sliding window stride for dimension 1 must "
                                 "be > 0, but got 0")));
  // Also when there is nothing to pool.
  EXPECT_THAT(RunV2({0, 4, 4, 1}, {1, 2, 2, 1}, {1, 1, 0, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must be > 0, but got 0")));
}

TEST_F(PoolingOpsTest, RejectsHugeKsize) {
  EXPECT_THAT(MakePool("MaxPool", DT_FLOAT, {1, int64_t{1} << 33, 2, 1},
                       {1, 1, 1, 1}, "VALID"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must each be at most 2147483647")));
}

TEST_F(PoolingOpsTest, RejectsPoolingOverBatch) {
  EXPECT_THAT(
      MakePool("MaxPool", DT_FLOAT, {2, 2, 2, 1}, {1, 1, 1, 1}, "VALID"),
      StatusIs(absl::StatusCode::kUnimplemented,
               HasSubstr("Pooling is not yet supported on the batch "
                         "dimension.")));
}

TEST_F(PoolingOpsTest, RejectsDepthStrideWithoutDepthWindow) {
  EXPECT_THAT(
      MakePool("MaxPool", DT_FLOAT, {1, 2, 2, 1}, {1, 1, 1, 2}, "VALID"),
      StatusIs(absl::StatusCode::kUnimplemented,
               HasSubstr("depth stride requires a depth window")));
}

TEST_F(PoolingOpsTest, RejectsDepthAndSpatialWindowTogether) {
  EXPECT_THAT(
      MakePool("MaxPool", DT_FLOAT, {1, 2, 2, 2}, {1, 1, 1, 2}, "VALID"),
      StatusIs(absl::StatusCode::kUnimplemented,
               HasSubstr("exactly one of pooling across depth or "
                         "pooling across width/height")));
}

TEST_F(PoolingOpsTest, RejectsDepthStrideOtherThanDepthWindow) {
  EXPECT_THAT(
      MakePool("MaxPool", DT_FLOAT, {1, 1, 1, 2}, {1, 1, 1, 1}, "VALID"),
      StatusIs(absl::StatusCode::kUnimplemented,
               HasSubstr("depth window to equal the depth stride")));
}

TEST_F(PoolingOpsTest, RejectsDepthWindowNotDividingDepth) {
  MF_ASSERT_OK(
      MakePool("MaxPool", DT_FLOAT, {1, 1, 1, 2}, {1, 1, 1, 2}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 2, 2, 3})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("depth window to evenly divide the input "
                                 "depth")));
}

TEST_F(PoolingOpsTest, AvgPoolRejectsDepthWindow) {
  EXPECT_THAT(
      MakePool("AvgPool", DT_FLOAT, {1, 1, 1, 2}, {1, 1, 1, 2}, "VALID"),
      StatusIs(absl::StatusCode::kUnimplemented,
               HasSubstr("Non-spatial pooling is not yet supported")));
}

TEST_F(PoolingOpsTest, RejectsNchwOnCpu) {
  EXPECT_THAT(MakePool("MaxPool", DT_FLOAT, {1, 1, 2, 2}, {1, 1, 1, 1}, "VALID",
                       {}, "NCHW"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Default MaxPoolingOp only supports NHWC on "
                                 "device type CPU")));
  EXPECT_THAT(MakePool("AvgPool", DT_FLOAT, {1, 1, 2, 2}, {1, 1, 1, 1}, "VALID",
                       {}, "NCHW"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Default AvgPoolingOp only supports NHWC")));
}

TEST_F(PoolingOpsTest, RejectsNchwVectC) {
  EXPECT_THAT(MakePool("MaxPool", DT_FLOAT, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID",
                       {}, "NCHW_VECT_C"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Invalid data format")));
}

TEST_F(PoolingOpsTest, RejectsBadExplicitPaddings) {
  EXPECT_THAT(MakePool("MaxPool", DT_FLOAT, {1, 2, 2, 1}, {1, 1, 1, 1},
                       "EXPLICIT", {0, 0, 1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("explicit_paddings attribute must contain 8 "
                                 "values, but got: 4")));
  EXPECT_THAT(MakePool("MaxPool", DT_FLOAT, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID",
                       {0, 0, 1, 1, 1, 1, 0, 0}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must be empty if the padding attribute is "
                                 "not EXPLICIT")));
}

// --- inputs, checked in Compute

TEST_F(PoolingOpsTest, RejectsInputOfRankThree) {
  MF_ASSERT_OK(
      MakePool("AvgPool", DT_FLOAT, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({4, 4, 3})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tensor_in must be 4-dimensional: [4,4,3]")));
}

TEST_F(PoolingOpsTest, RejectsWindowLargerThanValidInput) {
  MF_ASSERT_OK(
      MakePool("MaxPool", DT_FLOAT, {1, 5, 1, 1}, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 3, 3, 1})));
  EXPECT_THAT(
      RunOpKernel(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Computed output size would be negative: -1")));
}

TEST_F(PoolingOpsTest, RejectsHugeInputRowsAndCols) {
  MF_ASSERT_OK(
      MakePool("MaxPool", DT_FLOAT, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, int64_t{1} << 32, 1, 0})));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("Input rows too large")));
  MF_ASSERT_OK(
      MakePool("MaxPool", DT_FLOAT, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 1, int64_t{1} << 32, 0})));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("Input cols too large")));
}

}  // namespace
}  // namespace minflow
