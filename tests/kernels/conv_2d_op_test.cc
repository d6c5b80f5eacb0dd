#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/allocator.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "tests/kernels/nn_test_util.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

// One convolution: NHWC input, [R,S,C/groups,K] filter.
struct ConvCase {
  std::vector<int64_t> input;   // N, H, W, C
  std::vector<int64_t> filter;  // R, S, Cg, K
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  std::string padding = "VALID";
  std::vector<int64_t> explicit_paddings = {};  // 8 values for EXPLICIT
};

// TensorFlow's definition of the output size and leading pad of one dim.
void OutputAndPad(const ConvCase& c, int dim, int64_t in, int64_t k,
                  int64_t stride, int64_t dilation, int64_t* out,
                  int64_t* pad) {
  const int64_t eff = (k - 1) * dilation + 1;
  if (c.padding == "VALID") {
    *out = (in - eff + stride) / stride;
    *pad = 0;
  } else if (c.padding == "SAME") {
    *out = (in + stride - 1) / stride;
    *pad = std::max<int64_t>(0, (*out - 1) * stride + eff - in) / 2;
  } else {
    const int64_t before = c.explicit_paddings[2 * dim];
    const int64_t after = c.explicit_paddings[2 * dim + 1];
    *out = (in + before + after - eff + stride) / stride;
    *pad = before;
  }
}

// Seven nested loops in double.
template <typename T>
std::vector<double> ReferenceConv(const ConvCase& c, const Tensor& input,
                                  const Tensor& filter, TensorShape* shape) {
  const int64_t n = c.input[0], h = c.input[1], w = c.input[2], ch = c.input[3];
  const int64_t r = c.filter[0], s = c.filter[1], cg = c.filter[2],
                k = c.filter[3];
  const int64_t groups = cg == ch ? 1 : ch / cg;
  const int64_t kg = k / groups;
  int64_t oh, ow, pt, pl;
  OutputAndPad(c, 1, h, r, c.stride_h, c.dilation_h, &oh, &pt);
  OutputAndPad(c, 2, w, s, c.stride_w, c.dilation_w, &ow, &pl);
  *shape = TensorShape({n, oh, ow, k});
  std::vector<double> out(n * oh * ow * k, 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t o = 0; o < k; ++o) {
          const int64_t g = o / kg;
          double sum = 0;
          for (int64_t i = 0; i < r; ++i)
            for (int64_t j = 0; j < s; ++j)
              for (int64_t q = 0; q < cg; ++q) {
                const int64_t iy = y * c.stride_h - pt + i * c.dilation_h;
                const int64_t ix = x * c.stride_w - pl + j * c.dilation_w;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                const int64_t in_idx =
                    ((b * h + iy) * w + ix) * ch + g * cg + q;
                const int64_t f_idx = ((i * s + j) * cg + q) * k + o;
                sum += test::ValueAt<T>(input, in_idx) *
                       test::ValueAt<T>(filter, f_idx);
              }
          out[((b * oh + y) * ow + x) * k + o] = sum;
        }
  return out;
}

class Conv2DOpTest : public test::OpsTestBase {
 protected:
  Status MakeConv(DataType dtype, std::vector<int64_t> strides,
                  const std::string& padding,
                  std::vector<int64_t> dilations = {1, 1, 1, 1},
                  std::vector<int64_t> explicit_paddings = {},
                  const std::string& data_format = "NHWC") {
    MakeNode("Conv2D")
        .Input(dtype)
        .Input(dtype)
        .Attr("strides", strides)
        .Attr("padding", padding)
        .Attr("dilations", dilations)
        .Attr("explicit_paddings", explicit_paddings)
        .Attr("data_format", data_format);
    return MakeOp();
  }

  template <typename T>
  void Check(const ConvCase& c) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " input "
                 << TensorShape(c.input).DebugString() << " filter "
                 << TensorShape(c.filter).DebugString() << " strides "
                 << c.stride_h << "," << c.stride_w << " dilations "
                 << c.dilation_h << "," << c.dilation_w << " " << c.padding);
    MF_ASSERT_OK(MakeConv(
        DataTypeToEnum<T>::v(), {1, c.stride_h, c.stride_w, 1}, c.padding,
        {1, c.dilation_h, c.dilation_w, 1}, c.explicit_paddings));
    const Tensor input = test::RandomTensor<T>(TensorShape(c.input), 7);
    const Tensor filter = test::RandomTensor<T>(TensorShape(c.filter), 8);
    AddInputTensor(input);
    AddInputTensor(filter);
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(test::PredictedOutputShape(*node_def(),
                                         {input.shape(), filter.shape()}),
              GetOutput(0)->shape().DebugString());
    TensorShape shape;
    const std::vector<double> ref = ReferenceConv<T>(c, input, filter, &shape);
    test::ExpectNearReference<T>(
        *GetOutput(0), shape, ref,
        test::SumTolerance<T>(c.filter[0] * c.filter[1] * c.filter[2]));
  }

  template <typename T>
  void Sweep() {
    std::vector<ConvCase> cases;
    // 1x1, stride 1: the input is the patch matrix.
    cases.push_back({{2, 5, 7, 3}, {1, 1, 3, 4}});
    cases.push_back({{2, 5, 7, 3}, {1, 1, 3, 4}, 1, 1, 1, 1, "SAME"});
    // 1x1, stride 2: subsampling.
    cases.push_back({{2, 5, 7, 3}, {1, 1, 3, 4}, 2, 2});
    // Odd input, 3x3 SAME: one pad each side.
    cases.push_back({{1, 7, 9, 5}, {3, 3, 5, 6}, 1, 1, 1, 1, "SAME"});
    // Even input, stride 2 SAME: odd total padding, the extra one after.
    cases.push_back({{2, 8, 8, 3}, {3, 3, 3, 4}, 2, 2, 1, 1, "SAME"});
    // Even filters SAME: pads (0,1) and (1,2).
    cases.push_back({{1, 5, 6, 2}, {2, 2, 2, 3}, 1, 1, 1, 1, "SAME"});
    cases.push_back({{1, 6, 7, 2}, {4, 4, 2, 3}, 1, 1, 1, 1, "SAME"});
    // Odd everything, VALID, strides 2 and 3.
    cases.push_back({{3, 11, 13, 5}, {3, 5, 5, 7}, 2, 3});
    // Dilations, VALID and SAME, and mixed with strides.
    cases.push_back({{1, 9, 10, 3}, {3, 3, 3, 2}, 1, 1, 2, 2});
    cases.push_back({{1, 9, 10, 3}, {3, 3, 3, 2}, 1, 1, 2, 3, "SAME"});
    cases.push_back({{2, 12, 11, 2}, {2, 3, 2, 3}, 2, 1, 3, 2, "SAME"});
    // EXPLICIT, asymmetric.
    cases.push_back({{2, 6, 5, 3},
                     {3, 2, 3, 4},
                     2,
                     1,
                     1,
                     1,
                     "EXPLICIT",
                     {0, 0, 1, 2, 3, 0, 0, 0}});
    cases.push_back({{1, 4, 4, 2},
                     {3, 3, 2, 2},
                     1,
                     2,
                     2,
                     1,
                     "EXPLICIT",
                     {0, 0, 4, 0, 0, 5, 0, 0}});
    // The filter covers the whole image: one GEMM row per image.
    cases.push_back({{3, 4, 5, 2}, {4, 5, 2, 6}});
    // Grouped: 2 groups, and one group per channel.
    cases.push_back({{2, 6, 6, 4}, {3, 3, 2, 6}, 1, 1, 1, 1, "SAME"});
    cases.push_back({{1, 5, 5, 4}, {2, 2, 1, 8}, 2, 1, 1, 1, "VALID"});
    for (const ConvCase& c : cases) Check<T>(c);
  }
};

TEST_F(Conv2DOpTest, FloatMatchesReference) { Sweep<float>(); }
TEST_F(Conv2DOpTest, DoubleMatchesReference) { Sweep<double>(); }

TEST_F(Conv2DOpTest, LargeInputIsShardedAndTiled) {
  // 2 * 32 * 32 output pixels with 144-value patches: several tiles per
  // shard.
  Check<float>({{2, 32, 32, 16}, {3, 3, 16, 32}, 1, 1, 1, 1, "SAME"});
  Check<float>({{1, 40, 40, 8}, {5, 5, 8, 16}, 2, 2, 1, 1, "SAME"});
}

// Single images large enough (2M multiply-adds or more) that the float
// path through oneDNN's convolution (Note [CPU convolution library]) splits
// their output rows into one slice per thread of the test device's two,
// each padded only where it meets the image's edge; the last case's first
// slice lies wholly in the padding, which sends the whole convolution to
// the im2col path.
TEST_F(Conv2DOpTest, LargeSingleImagesSplitIntoRowSlicesMatchReference) {
  Check<float>({{1, 40, 33, 16}, {3, 3, 16, 32}, 1, 1, 1, 1, "SAME"});
  // Stride 2, uneven slices (16 and 15 output rows).
  Check<float>({{1, 61, 40, 16}, {5, 5, 16, 16}, 2, 2, 1, 1, "SAME"});
  Check<float>({{1, 36, 20, 16}, {3, 3, 16, 32}, 1, 1, 2, 2, "SAME"});
  Check<float>({{1, 30, 20, 16},
                {3, 3, 16, 32},
                1,
                1,
                1,
                1,
                "EXPLICIT",
                {0, 0, 3, 1, 2, 0, 0, 0}});
  Check<float>({{1, 4, 40, 16},
                {3, 3, 16, 32},
                1,
                1,
                1,
                1,
                "EXPLICIT",
                {0, 0, 20, 0, 0, 0, 0, 0}});
  // Batches: one slice per image.
  Check<float>({{3, 20, 20, 16}, {3, 3, 16, 32}, 1, 1, 1, 1, "SAME"});
}

TEST_F(Conv2DOpTest, SmallKnownValues) {
  // 1x3x3x1 input of 1..9, 2x2 filter of ones, VALID: window sums.
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputFromArray<float>(TensorShape({1, 3, 3, 1}),
                           {1, 2, 3, 4, 5, 6, 7, 8, 9});
  AddInputFromArray<float>(TensorShape({2, 2, 1, 1}), {1, 1, 1, 1});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({12, 16, 24, 28}, TensorShape({1, 2, 2, 1})));
}

TEST_F(Conv2DOpTest, EmptyBatchGivesEmptyOutput) {
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "SAME"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 5, 5, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 3, 3, 4})));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[0,5,5,4]");
}

TEST_F(Conv2DOpTest, FilterLargerThanInputGivesEmptyOutput) {
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 2, 5, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 3, 3, 4})));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[1,0,3,4]");
}

// Found in review: an empty filter ran and returned zeros; TensorFlow
// rejects it whenever there is an output to compute.
TEST_F(Conv2DOpTest, RejectsEmptyFilter) {
  struct Case {
    std::vector<int64_t> input, filter;
    const char* padding;
  };
  for (const Case& c : {Case{{1, 2, 2, 1}, {0, 0, 1, 1}, "VALID"},
                        Case{{1, 1, 1, 1}, {1, 0, 1, 1}, "SAME"},
                        Case{{1, 4, 4, 1}, {0, 2, 1, 3}, "SAME"},
                        // No input channels: every patch is empty too.
                        Case{{1, 2, 2, 0}, {2, 2, 0, 3}, "SAME"}}) {
    SCOPED_TRACE(TensorShape(c.filter).DebugString());
    MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1}, c.padding));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape(c.input)));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape(c.filter)));
    EXPECT_THAT(RunOpKernel(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("filter must not have zero elements (i.e. "
                                   "all dimensions must be non-zero)")));
  }
}

TEST_F(Conv2DOpTest, EmptyFilterWithNothingToComputeGivesEmptyOutput) {
  // As TensorFlow: the output is made before the filter is checked.
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "SAME"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 3, 3, 2})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 3, 2, 0})));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[1,3,3,0]");

  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 2, 2, 1})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 0, 1, 1})));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[0,3,3,1]");
}

// --- attrs, checked when the kernel is made

TEST_F(Conv2DOpTest, RejectsStridesOfWrongLength) {
  EXPECT_THAT(MakeConv(DT_FLOAT, {1, 1, 1}, "VALID"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Sliding window strides field must specify "
                                 "4 dimensions")));
}

TEST_F(Conv2DOpTest, RejectsDilationsOfWrongLength) {
  EXPECT_THAT(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "VALID", {1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Sliding window dilations field must "
                                 "specify 4 dimensions")));
}

TEST_F(Conv2DOpTest, RejectsBatchOrDepthStride) {
  for (const std::vector<int64_t>& strides :
       {std::vector<int64_t>{2, 1, 1, 1}, std::vector<int64_t>{1, 1, 1, 2}}) {
    EXPECT_THAT(MakeConv(DT_FLOAT, strides, "VALID"),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("does not yet support strides in the "
                                   "batch and depth dimensions")));
  }
}

TEST_F(Conv2DOpTest, RejectsZeroOrNegativeStride) {
  for (const std::vector<int64_t>& strides :
       {std::vector<int64_t>{1, 0, 1, 1}, std::vector<int64_t>{1, 1, -2, 1}}) {
    EXPECT_THAT(MakeConv(DT_FLOAT, strides, "VALID"),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("Row and column strides should be larger "
                                   "than 0.")));
  }
}

TEST_F(Conv2DOpTest, RejectsHugeStride) {
  EXPECT_THAT(MakeConv(DT_FLOAT, {1, int64_t{1} << 40, 1, 1}, "VALID"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must each be at most 2147483647")));
}

TEST_F(Conv2DOpTest, RejectsBatchOrDepthDilation) {
  EXPECT_THAT(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "VALID", {1, 1, 1, 2}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("does not yet support dilations in the "
                                 "batch and depth dimensions")));
}

TEST_F(Conv2DOpTest, RejectsZeroDilation) {
  EXPECT_THAT(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "VALID", {1, 0, 1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Dilated rates should be larger than 0.")));
}

TEST_F(Conv2DOpTest, RejectsExplicitPaddingsOfWrongLength) {
  EXPECT_THAT(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "EXPLICIT", {1, 1, 1, 1},
                       {0, 0, 1, 1, 1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("explicit_paddings attribute must contain 8 "
                                 "values, but got: 6")));
}

TEST_F(Conv2DOpTest, RejectsNegativeExplicitPadding) {
  EXPECT_THAT(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "EXPLICIT", {1, 1, 1, 1},
                       {0, 0, 1, -1, 1, 1, 0, 0}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("All elements of explicit_paddings must be "
                                 "nonnegative")));
}

TEST_F(Conv2DOpTest, RejectsExplicitPaddingOnBatchOrDepth) {
  EXPECT_THAT(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "EXPLICIT", {1, 1, 1, 1},
                       {0, 0, 1, 1, 1, 1, 0, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Nonzero explicit padding in the batch or "
                                 "depth dimensions is not supported")));
}

TEST_F(Conv2DOpTest, RejectsExplicitPaddingsWithoutExplicitPadding) {
  EXPECT_THAT(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "SAME", {1, 1, 1, 1},
                       {0, 0, 1, 1, 1, 1, 0, 0}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("explicit_paddings attribute must be empty "
                                 "if the padding attribute is not EXPLICIT")));
}

TEST_F(Conv2DOpTest, RejectsHugeExplicitPadding) {
  EXPECT_THAT(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "EXPLICIT", {1, 1, 1, 1},
                       {0, 0, int64_t{1} << 40, 0, 0, 0, 0, 0}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("explicit_paddings must each be at most")));
}

TEST_F(Conv2DOpTest, RejectsNchwOnCpu) {
  EXPECT_THAT(
      MakeConv(DT_FLOAT, {1, 1, 1, 1}, "VALID", {1, 1, 1, 1}, {}, "NCHW"),
      StatusIs(absl::StatusCode::kUnimplemented,
               HasSubstr("only supports the NHWC tensor format on "
                         "the CPU. The op was given the format: "
                         "NCHW")));
}

TEST_F(Conv2DOpTest, RejectsUnknownPadding) {
  // The OpDef's allowed values stop it before the kernel's own check.
  EXPECT_THAT(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "FULL"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("FULL")));
}

// --- inputs, checked in Compute

TEST_F(Conv2DOpTest, RejectsInputOfRankThree) {
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({5, 5, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 3, 3, 4})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("input must be 4-dimensional[5,5,3]")));
}

TEST_F(Conv2DOpTest, RejectsFilterOfRankThree) {
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 5, 5, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 3, 3})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("filter must be 4-dimensional: [3,3,3]")));
}

TEST_F(Conv2DOpTest, RejectsMismatchedChannels) {
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 5, 5, 5})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 3, 2, 4})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("input depth must be evenly divisible by "
                                 "filter depth: 5 vs 2")));
}

TEST_F(Conv2DOpTest, RejectsInputWithoutChannelsForFilterWithChannels) {
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 5, 5, 0})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 3, 2, 4})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("evenly divisible by filter depth: 0 vs 2")));
}

TEST_F(Conv2DOpTest, RejectsOutputDepthNotDivisibleByGroups) {
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 5, 5, 4})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 1, 2, 3})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("output depth must be evenly divisible by "
                                 "number of groups: 3 vs 2")));
}

TEST_F(Conv2DOpTest, RejectsNegativeOutputSize) {
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 3, 3, 1})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({6, 1, 1, 1})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Computed output size would be negative: -2 "
                                 "[input_size: 3, effective_filter_size: 6, "
                                 "stride: 1]")));
}

TEST_F(Conv2DOpTest, RejectsHugeFilter) {
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 3, 3, 0})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({int64_t{1} << 32, 1, 0, 1})));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("filter too large")));
}

TEST_F(Conv2DOpTest, RejectsHugeInputRowsAndCols) {
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, int64_t{1} << 32, 1, 0})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 1, 0, 1})));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("Input rows too large")));
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 1, int64_t{1} << 32, 0})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 1, 0, 1})));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("Input cols too large")));
}

TEST_F(Conv2DOpTest, RejectsOutputWhoseSizeOverflows) {
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  const int64_t big = int64_t{1} << 20;
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({big, big, big, 0})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 1, 0, big})));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument));
}

// Inputs of up to kMaxShallowInDepth channels with out_depth a multiple of
// the vector width are computed directly (Note [Shallow-input
// convolutions]): blocks of pixels and single pixels after them, one or
// two vectors of output channels, strides, every padding (a pad wider than
// the image included), batches, and images split over the test device's
// two threads. The stem, 48 channels and the dilated case are not taken
// and go on to the library.
TEST_F(Conv2DOpTest, ShallowInputsMatchReference) {
  const std::vector<ConvCase> cases = {
      // cnn_small's first layer.
      {{1, 64, 64, 3}, {3, 3, 3, 32}, 1, 1, 1, 1, "SAME"},
      {{2, 13, 11, 3}, {3, 3, 3, 16}, 1, 1, 1, 1, "SAME"},
      // A ResNet-like stem: 7x7 stride 2, 64 channels.
      {{1, 23, 29, 3}, {7, 7, 3, 64}, 2, 2, 1, 1, "SAME"},
      {{2, 9, 10, 1}, {3, 3, 1, 48}},
      {{1, 8, 8, 4}, {2, 2, 4, 32}, 1, 1, 1, 1, "SAME"},
      {{1, 6, 7, 2},
       {3, 3, 2, 16},
       1,
       2,
       1,
       1,
       "EXPLICIT",
       {0, 0, 2, 1, 0, 3, 0, 0}},
      {{1, 3, 4, 3},
       {5, 5, 3, 16},
       1,
       1,
       1,
       1,
       "EXPLICIT",
       {0, 0, 6, 1, 2, 7, 0, 0}},
      {{1, 9, 10, 3}, {3, 3, 3, 16}, 1, 1, 2, 2, "SAME"},
  };
  for (const ConvCase& c : cases) Check<float>(c);
}

TEST_F(Conv2DOpTest, ReportsScratchThatCannotBeAllocated) {
  // Room for the 1 KiB output but not for a tile of 576-value patches.
  // Static: the fixture frees its tensors after this test body returns.
  static CpuAllocator small(16 * 1024);
  set_allocator(&small);
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "SAME"));
  AddInputTensor(test::RandomTensor<float>(TensorShape({1, 8, 8, 64}), 1));
  AddInputTensor(test::RandomTensor<float>(TensorShape({3, 3, 64, 4}), 2));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kResourceExhausted));
}

TEST_F(Conv2DOpTest, ShallowInputReportsPaddedRowsThatCannotBeAllocated) {
  // Room for the 16 KiB output but not for the padded input rows (Note
  // [Shallow-input convolutions]).
  static CpuAllocator small(17 * 1024);
  set_allocator(&small);
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1}, "SAME"));
  AddInputTensor(test::RandomTensor<float>(TensorShape({1, 16, 16, 3}), 1));
  AddInputTensor(test::RandomTensor<float>(TensorShape({3, 3, 3, 16}), 2));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kResourceExhausted));
}

// A kernel marked by the constant_filters pass keeps oneDNN's reordered
// copy of each filter buffer it sees (Note [Reordered constant filters]).
// Each run here brings a new buffer with new values, past the cache's
// bound: every result must still be that run's own convolution.
TEST_F(Conv2DOpTest, MarkedConstFilterGivesEachFilterBuffersOwnResult) {
  const ConvCase c{{1, 12, 12, 8}, {3, 3, 8, 16}, 1, 1, 1, 1, "SAME"};
  MakeNode("Conv2D")
      .Input(DT_FLOAT)
      .Input(DT_FLOAT)
      .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("padding", c.padding)
      .Attr("_is_filter_const", true);
  MF_ASSERT_OK(MakeOp());
  const Tensor input = test::RandomTensor<float>(TensorShape(c.input), 7);
  for (int run = 0; run < 12; ++run) {
    SCOPED_TRACE(run);
    const Tensor filter =
        test::RandomTensor<float>(TensorShape(c.filter), 20 + run % 5);
    ClearInputs();
    AddInputTensor(input);
    AddInputTensor(filter);
    MF_ASSERT_OK(RunOpKernel());
    TensorShape shape;
    const std::vector<double> ref =
        ReferenceConv<float>(c, input, filter, &shape);
    test::ExpectNearReference<float>(*GetOutput(0), shape, ref,
                                     test::SumTolerance<float>(3 * 3 * 8));
  }
}

}  // namespace
}  // namespace minflow
