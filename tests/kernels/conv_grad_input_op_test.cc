#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
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

// One transposed convolution: the forward Conv2D's NHWC input shape and
// [R,S,C/groups,K] filter; out_backprop has the forward output's shape.
struct BackpropCase {
  std::vector<int64_t> input;   // N, H, W, C
  std::vector<int64_t> filter;  // R, S, Cg, K
  int64_t stride_h = 1, stride_w = 1;
  std::string padding = "VALID";
  std::vector<int64_t> explicit_paddings = {};  // 8 values for EXPLICIT
  int64_t dilation_h = 1, dilation_w = 1;
};

// TensorFlow's output size and leading pad of one spatial dim.
void OutputAndPad(const BackpropCase& c, int dim, int64_t in, int64_t taps,
                  int64_t stride, int64_t* out, int64_t* pad) {
  const int64_t k = (taps - 1) * (dim == 1 ? c.dilation_h : c.dilation_w) + 1;
  if (c.padding == "VALID") {
    *out = (in - k + stride) / stride;
    *pad = 0;
  } else if (c.padding == "SAME") {
    *out = (in + stride - 1) / stride;
    *pad = std::max<int64_t>(0, (*out - 1) * stride + k - in) / 2;
  } else {
    const int64_t before = c.explicit_paddings[2 * dim];
    const int64_t after = c.explicit_paddings[2 * dim + 1];
    *out = (in + before + after - k + stride) / stride;
    *pad = before;
  }
}

// The forward output shape of `c`.
TensorShape OutBackpropShape(const BackpropCase& c) {
  int64_t oh, ow, pad;
  OutputAndPad(c, 1, c.input[1], c.filter[0], c.stride_h, &oh, &pad);
  OutputAndPad(c, 2, c.input[2], c.filter[1], c.stride_w, &ow, &pad);
  return TensorShape({c.input[0], oh, ow, c.filter[3]});
}

// The input gradient by scattering every out_backprop value over its
// window, in double.
template <typename T>
std::vector<double> ReferenceBackprop(const BackpropCase& c,
                                      const Tensor& filter,
                                      const Tensor& out_backprop) {
  const int64_t n = c.input[0], h = c.input[1], w = c.input[2], ch = c.input[3];
  const int64_t r = c.filter[0], s = c.filter[1], cg = c.filter[2],
                k = c.filter[3];
  const int64_t groups = ch / cg;
  const int64_t kg = k / groups;
  int64_t oh, ow, pt, pl;
  OutputAndPad(c, 1, h, r, c.stride_h, &oh, &pt);
  OutputAndPad(c, 2, w, s, c.stride_w, &ow, &pl);
  std::vector<double> dx(n * h * w * ch, 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t o = 0; o < k; ++o) {
          const int64_t g = o / kg;
          const double dy =
              test::ValueAt<T>(out_backprop, ((b * oh + y) * ow + x) * k + o);
          for (int64_t i = 0; i < r; ++i)
            for (int64_t j = 0; j < s; ++j)
              for (int64_t q = 0; q < cg; ++q) {
                const int64_t iy = y * c.stride_h - pt + i * c.dilation_h;
                const int64_t ix = x * c.stride_w - pl + j * c.dilation_w;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                dx[((b * h + iy) * w + ix) * ch + g * cg + q] +=
                    dy *
                    test::ValueAt<T>(filter, ((i * s + j) * cg + q) * k + o);
              }
        }
  return dx;
}

// The shape the registered shape function predicts with `input_sizes`
// known, its "dI_J" references resolved against `inputs`.
std::string PredictedShape(const NodeDef& node_def, const Tensor& input_sizes,
                           const std::vector<TensorShape>& inputs) {
  ShapeInferenceTestOp op(node_def.op());
  op.node_def = node_def;
  op.SetInputTensor(0, input_sizes);
  std::vector<std::string> ins;
  for (const TensorShape& s : inputs) ins.push_back(s.DebugString());
  const StatusOr<std::string> out =
      ShapeInferenceTestutil::Infer(op, absl::StrJoin(ins, ";"));
  if (!out.ok()) return "error: " + std::string(out.status().message());
  const std::string& s = *out;
  std::string result;
  for (size_t i = 0; i < s.size();) {
    if (s[i] == 'd' && i + 3 < s.size() && s[i + 2] == '_') {
      const int input = s[i + 1] - '0';
      const int dim = s[i + 3] - '0';
      result += std::to_string(inputs[input].dim_size(dim));
      i += 4;
    } else {
      result += s[i++];
    }
  }
  return result;
}

class Conv2DBackpropInputOpTest : public test::OpsTestBase {
 protected:
  Status MakeBackprop(DataType dtype, std::vector<int64_t> strides,
                      const std::string& padding,
                      std::vector<int64_t> explicit_paddings = {},
                      std::vector<int64_t> dilations = {1, 1, 1, 1},
                      const std::string& data_format = "NHWC") {
    MakeNode("Conv2DBackpropInput")
        .Input(DT_INT32)
        .Input(dtype)
        .Input(dtype)
        .Attr("strides", strides)
        .Attr("padding", padding)
        .Attr("dilations", dilations)
        .Attr("explicit_paddings", explicit_paddings)
        .Attr("data_format", data_format);
    return MakeOp();
  }

  // Runs one case with input_sizes of 4 values (or of 2 when `short_sizes`).
  template <typename T>
  void Check(const BackpropCase& c, bool short_sizes = false) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " input "
                 << TensorShape(c.input).DebugString() << " filter "
                 << TensorShape(c.filter).DebugString() << " strides "
                 << c.stride_h << "," << c.stride_w << " " << c.padding
                 << " dilations " << c.dilation_h << "," << c.dilation_w);
    MF_ASSERT_OK(MakeBackprop(
        DataTypeToEnum<T>::v(), {1, c.stride_h, c.stride_w, 1}, c.padding,
        c.explicit_paddings, {1, c.dilation_h, c.dilation_w, 1}));
    std::vector<int32_t> sizes;
    for (int64_t v : c.input) sizes.push_back(static_cast<int32_t>(v));
    if (short_sizes) sizes = {sizes[1], sizes[2]};
    const Tensor input_sizes = test::AsTensor<int32_t>(sizes);
    const Tensor filter = test::RandomTensor<T>(TensorShape(c.filter), 3);
    const Tensor out_backprop = test::RandomTensor<T>(OutBackpropShape(c), 4);
    AddInputTensor(input_sizes);
    AddInputTensor(filter);
    AddInputTensor(out_backprop);
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(PredictedShape(
                  *node_def(), input_sizes,
                  {input_sizes.shape(), filter.shape(), out_backprop.shape()}),
              GetOutput(0)->shape().DebugString());
    const std::vector<double> ref =
        ReferenceBackprop<T>(c, filter, out_backprop);
    test::ExpectNearReference<T>(
        *GetOutput(0), TensorShape(c.input), ref,
        test::SumTolerance<T>(c.filter[0] * c.filter[1] * c.filter[3]));
  }

  template <typename T>
  void Sweep() {
    std::vector<BackpropCase> cases;
    cases.push_back({{2, 5, 7, 3}, {1, 1, 3, 4}});
    cases.push_back({{2, 5, 7, 3}, {1, 1, 3, 4}, 2, 2});
    cases.push_back({{1, 7, 9, 5}, {3, 3, 5, 6}, 1, 1, "SAME"});
    // The decoder's upsampling: stride 2, SAME, even and odd sizes.
    cases.push_back({{2, 8, 8, 3}, {3, 3, 3, 4}, 2, 2, "SAME"});
    cases.push_back({{1, 9, 7, 2}, {3, 3, 2, 4}, 2, 2, "SAME"});
    cases.push_back({{1, 8, 8, 2}, {4, 4, 2, 3}, 2, 2, "SAME"});
    // Stride larger than the filter: input pixels no window reaches.
    cases.push_back({{1, 10, 11, 2}, {2, 2, 2, 3}, 3, 4, "VALID"});
    cases.push_back({{3, 11, 13, 5}, {3, 5, 5, 7}, 2, 3});
    cases.push_back({{2, 6, 5, 3},
                     {3, 2, 3, 4},
                     2,
                     1,
                     "EXPLICIT",
                     {0, 0, 1, 2, 3, 0, 0, 0}});
    cases.push_back({{1, 4, 4, 2},
                     {3, 3, 2, 2},
                     1,
                     2,
                     "EXPLICIT",
                     {0, 0, 4, 0, 0, 5, 0, 0}});
    // The filter covers the whole image.
    cases.push_back({{3, 4, 5, 2}, {4, 5, 2, 6}});
    // Grouped: 2 groups, and one group per channel.
    cases.push_back({{2, 6, 6, 4}, {3, 3, 2, 6}, 1, 1, "SAME"});
    cases.push_back({{1, 5, 5, 4}, {2, 2, 1, 8}, 2, 1, "VALID"});
    // Dilated: stride 1 (as a forward convolution, Note [Stride-1 backprop
    // as a forward convolution]) and stride 2 (GEMM + col2im).
    cases.push_back({{1, 7, 8, 3}, {3, 3, 3, 4}, 1, 1, "SAME", {}, 2, 2});
    cases.push_back({{2, 9, 7, 2}, {2, 3, 2, 3}, 1, 1, "VALID", {}, 3, 1});
    cases.push_back({{1, 9, 9, 2}, {3, 2, 2, 3}, 2, 2, "SAME", {}, 2, 3});
    // Explicit padding wider than the window: not a forward convolution.
    cases.push_back({{1, 4, 5, 2},
                     {2, 2, 2, 3},
                     1,
                     1,
                     "EXPLICIT",
                     {0, 0, 3, 0, 0, 2, 0, 0}});
    for (const BackpropCase& c : cases) Check<T>(c);
  }
};

TEST_F(Conv2DBackpropInputOpTest, FloatMatchesReference) { Sweep<float>(); }
TEST_F(Conv2DBackpropInputOpTest, DoubleMatchesReference) { Sweep<double>(); }
TEST_F(Conv2DBackpropInputOpTest, Int32MatchesReference) { Sweep<int32_t>(); }

TEST_F(Conv2DBackpropInputOpTest, LargeInputIsSplitIntoRowBlocks) {
  // Several row blocks per image and several tiles per block.
  Check<float>({{1, 64, 64, 16}, {3, 3, 16, 32}, 2, 2, "SAME"});
  Check<float>({{3, 33, 17, 8}, {5, 5, 8, 16}, 1, 1, "SAME"});
}

TEST_F(Conv2DBackpropInputOpTest, TwoInputSizesAreRowsAndCols) {
  // The batch comes from out_backprop and the depth from the filter (so
  // never grouped), as in TensorFlow.
  Check<float>({{2, 8, 8, 3}, {3, 3, 3, 4}, 2, 2, "SAME"},
               /*short_sizes=*/true);
  Check<float>({{1, 7, 6, 2}, {2, 3, 2, 5}, 1, 2, "VALID"},
               /*short_sizes=*/true);
}

TEST_F(Conv2DBackpropInputOpTest, SmallKnownValues) {
  // A 2x2 filter of 1..4 spread from a single gradient value of 1 over a
  // 3x3 input with stride 1, VALID: out_backprop 2x2 of ones overlaps the
  // filter into the full correlation.
  MF_ASSERT_OK(MakeBackprop(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputFromArray<int32_t>(TensorShape({4}), {1, 3, 3, 1});
  AddInputFromArray<float>(TensorShape({2, 2, 1, 1}), {1, 2, 3, 4});
  AddInputFromArray<float>(TensorShape({1, 2, 2, 1}), {1, 1, 1, 1});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>({1, 3, 2, 4, 10, 6, 3, 7, 4},
                                           TensorShape({1, 3, 3, 1})));
}

TEST_F(Conv2DBackpropInputOpTest, EmptyShapesGiveZerosOrEmptyOutput) {
  // Empty batch: empty gradient.
  MF_ASSERT_OK(MakeBackprop(DT_FLOAT, {1, 1, 1, 1}, "SAME"));
  AddInputFromArray<int32_t>(TensorShape({4}), {0, 5, 5, 3});
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 3, 3, 4})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 5, 5, 4})));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[0,5,5,3]");

  // A filter larger than the input: no output pixel, so a zero gradient.
  MF_ASSERT_OK(MakeBackprop(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputFromArray<int32_t>(TensorShape({4}), {1, 2, 2, 1});
  AddInputFromArray<float>(TensorShape({3, 3, 1, 1}),
                           {1, 1, 1, 1, 1, 1, 1, 1, 1});
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 0, 0, 1})));
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({0, 0, 0, 0}, TensorShape({1, 2, 2, 1})));
}

// Issue 17: a zero-sized window has no taps; rejected as Conv2D does.
TEST_F(Conv2DBackpropInputOpTest, RejectsEmptyFilter) {
  MF_ASSERT_OK(MakeBackprop(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputFromArray<int32_t>(TensorShape({4}), {1, 2, 2, 1});
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 0, 1, 1})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 3, 3, 1})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("filter must not have zero elements")));
  // Filter depth 0: TensorFlow's own message.
  MF_ASSERT_OK(MakeBackprop(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputFromArray<int32_t>(TensorShape({4}), {1, 2, 2, 0});
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 1, 0, 1})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("filter depth must be strictly greated than "
                                 "zero")));
}

// --- attrs

TEST_F(Conv2DBackpropInputOpTest, RejectsNchwOnCpu) {
  EXPECT_THAT(
      MakeBackprop(DT_FLOAT, {1, 1, 1, 1}, "VALID", {}, {1, 1, 1, 1}, "NCHW"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Conv2DCustomBackpropInputOp only supports NHWC.")));
}

TEST_F(Conv2DBackpropInputOpTest, RejectsBadDilations) {
  EXPECT_THAT(MakeBackprop(DT_FLOAT, {1, 1, 1, 1}, "VALID", {}, {1, 0, 1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Dilated rates should be larger than 0.")));
  EXPECT_THAT(MakeBackprop(DT_FLOAT, {1, 1, 1, 1}, "VALID", {}, {2, 1, 1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("dilations in the batch and depth")));
}

TEST_F(Conv2DBackpropInputOpTest, RejectsBadStridesAndPaddings) {
  EXPECT_THAT(MakeBackprop(DT_FLOAT, {1, 1, 1}, "VALID"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Sliding window strides field must specify "
                                 "4 dimensions")));
  EXPECT_THAT(MakeBackprop(DT_FLOAT, {1, 0, 1, 1}, "VALID"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Row and column strides should be larger "
                                 "than 0.")));
  EXPECT_THAT(MakeBackprop(DT_FLOAT, {1, 1, 1, 2}, "VALID"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("does not yet support strides in the "
                                 "batch and depth dimensions")));
  EXPECT_THAT(
      MakeBackprop(DT_FLOAT, {1, 1, 1, 1}, "EXPLICIT", {0, 0, 1, 1, 1, 1}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("explicit_paddings attribute must contain 8 "
                         "values, but got: 6")));
}

// --- inputs

TEST_F(Conv2DBackpropInputOpTest, RejectsBadInputSizes) {
  struct Case {
    std::vector<int64_t> sizes_shape;
    std::vector<int32_t> sizes;
    const char* message;
  };
  for (const Case& c :
       {Case{{2, 2}, {1, 4, 4, 1}, "input_sizes input must be 1-dim, not 2"},
        Case{{3},
             {1, 4, 4},
             "requires input_sizes to contain 4 values or 2 "
             "values, but got: 3"},
        Case{{4}, {1, -4, 4, 1}, "-4"}}) {
    SCOPED_TRACE(c.message);
    MF_ASSERT_OK(MakeBackprop(DT_FLOAT, {1, 1, 1, 1}, "SAME"));
    AddInputFromArray<int32_t>(TensorShape(c.sizes_shape), c.sizes);
    AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 3, 1, 1})));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 4, 4, 1})));
    EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr(c.message)));
  }
}

TEST_F(Conv2DBackpropInputOpTest, RejectsMismatchedShapes) {
  struct Case {
    std::vector<int32_t> sizes;
    std::vector<int64_t> filter, out_backprop;
    const char* message;
  };
  for (const Case& c : {
           Case{{1, 4, 4, 1},
                {3, 3, 1},
                {1, 4, 4, 1},
                "Conv2DCustomBackpropInput: filter must be 4-dimensional"},
           Case{{1, 4, 4, 1},
                {3, 3, 1, 1},
                {1, 4, 4},
                "Conv2DCustomBackpropInput: out_backprop must be "
                "4-dimensional"},
           Case{{4, 4},
                {3, 3, 1, 1},
                {4, 4},
                "filter and out_backprop must be 4-dimensional"},
           Case{{2, 4, 4, 1},
                {3, 3, 1, 1},
                {1, 4, 4, 1},
                "input and out_backprop must have the same batch size. Input "
                "batch: 2, outbackprop batch: 1"},
           Case{{1, 4, 4, 3},
                {3, 3, 2, 1},
                {1, 4, 4, 1},
                "input depth must be evenly divisible by filter depth"},
           Case{{1, 4, 4, 1},
                {3, 3, 1, 2},
                {1, 4, 4, 1},
                "filter and out_backprop must have the same out_depth"},
           Case{{1, 4, 4, 1},
                {3, 3, 1, 1},
                {1, 4, 3, 1},
                "Size of out_backprop doesn't match computed: actual = 3, "
                "computed = 4 spatial_dim: 2"},
           Case{{1, 4, 4, 1},
                {3, 3, 1, 1},
                {1, 5, 4, 1},
                "actual = 5, computed = 4 spatial_dim: 1"},
       }) {
    SCOPED_TRACE(c.message);
    MF_ASSERT_OK(MakeBackprop(DT_FLOAT, {1, 1, 1, 1}, "SAME"));
    AddInputFromArray<int32_t>(
        TensorShape({static_cast<int64_t>(c.sizes.size())}), c.sizes);
    AddInputTensor(Tensor(DT_FLOAT, TensorShape(c.filter)));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape(c.out_backprop)));
    EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr(c.message)));
  }
}

TEST_F(Conv2DBackpropInputOpTest, RejectsUngroupableOutputDepth) {
  // 4 input channels in 2 groups of 2, but 3 output channels.
  MF_ASSERT_OK(MakeBackprop(DT_FLOAT, {1, 1, 1, 1}, "SAME"));
  AddInputFromArray<int32_t>(TensorShape({4}), {1, 4, 4, 4});
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 3, 2, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 4, 4, 3})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("output depth must be evenly divisible by "
                                 "number of groups: 3 vs 2")));
}

TEST_F(Conv2DBackpropInputOpTest, RejectsHugeEmptyFilter) {
  // No elements, so it exists; its rows would overflow the window maths.
  MF_ASSERT_OK(MakeBackprop(DT_FLOAT, {1, 1, 1, 1}, "SAME"));
  AddInputFromArray<int32_t>(TensorShape({4}), {1, 4, 4, 1});
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({int64_t{1} << 32, 1, 1, 0})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 4, 4, 0})));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("filter too large")));
}

TEST_F(Conv2DBackpropInputOpTest, RejectsInputSmallerThanFilter) {
  // VALID with a filter larger than the input: no forward output size.
  MF_ASSERT_OK(MakeBackprop(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputFromArray<int32_t>(TensorShape({4}), {1, 2, 2, 1});
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({5, 5, 1, 1})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 1, 1, 1})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Computed output size would be negative")));
}

}  // namespace
}  // namespace minflow
