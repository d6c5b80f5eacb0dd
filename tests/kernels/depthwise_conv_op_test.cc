#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "tests/kernels/nn_test_util.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

struct DepthwiseCase {
  std::vector<int64_t> input;   // N, H, W, C
  std::vector<int64_t> filter;  // R, S, C, M
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  std::string padding = "VALID";
  std::vector<int64_t> explicit_paddings = {};
};

void OutputAndPad(const DepthwiseCase& c, int dim, int64_t in, int64_t k,
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
    *out = (in + c.explicit_paddings[2 * dim] +
            c.explicit_paddings[2 * dim + 1] - eff + stride) /
           stride;
    *pad = c.explicit_paddings[2 * dim];
  }
}

template <typename T>
std::vector<double> ReferenceDepthwise(const DepthwiseCase& c,
                                       const Tensor& input,
                                       const Tensor& filter,
                                       TensorShape* shape) {
  const int64_t n = c.input[0], h = c.input[1], w = c.input[2], ch = c.input[3];
  const int64_t r = c.filter[0], s = c.filter[1], m = c.filter[3];
  int64_t oh, ow, pt, pl;
  OutputAndPad(c, 1, h, r, c.stride_h, c.dilation_h, &oh, &pt);
  OutputAndPad(c, 2, w, s, c.stride_w, c.dilation_w, &ow, &pl);
  *shape = TensorShape({n, oh, ow, ch * m});
  std::vector<double> out(n * oh * ow * ch * m, 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t q = 0; q < ch; ++q)
          for (int64_t k = 0; k < m; ++k) {
            double sum = 0;
            for (int64_t i = 0; i < r; ++i)
              for (int64_t j = 0; j < s; ++j) {
                const int64_t iy = y * c.stride_h - pt + i * c.dilation_h;
                const int64_t ix = x * c.stride_w - pl + j * c.dilation_w;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                sum +=
                    test::ValueAt<T>(input, ((b * h + iy) * w + ix) * ch + q) *
                    test::ValueAt<T>(filter, ((i * s + j) * ch + q) * m + k);
              }
            out[(((b * oh + y) * ow + x) * ch + q) * m + k] = sum;
          }
  return out;
}

class DepthwiseConv2dNativeOpTest : public test::OpsTestBase {
 protected:
  Status Make(DataType dtype, std::vector<int64_t> strides,
              const std::string& padding,
              std::vector<int64_t> dilations = {1, 1, 1, 1},
              std::vector<int64_t> explicit_paddings = {},
              const std::string& data_format = "NHWC") {
    MakeNode("DepthwiseConv2dNative")
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
  void Check(const DepthwiseCase& c) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " input "
                 << TensorShape(c.input).DebugString() << " filter "
                 << TensorShape(c.filter).DebugString() << " strides "
                 << c.stride_h << "," << c.stride_w << " dilations "
                 << c.dilation_h << "," << c.dilation_w << " " << c.padding);
    MF_ASSERT_OK(Make(DataTypeToEnum<T>::v(), {1, c.stride_h, c.stride_w, 1},
                      c.padding, {1, c.dilation_h, c.dilation_w, 1},
                      c.explicit_paddings));
    const Tensor input = test::RandomTensor<T>(TensorShape(c.input), 9);
    const Tensor filter = test::RandomTensor<T>(TensorShape(c.filter), 10);
    AddInputTensor(input);
    AddInputTensor(filter);
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(test::PredictedOutputShape(*node_def(),
                                         {input.shape(), filter.shape()}),
              GetOutput(0)->shape().DebugString());
    TensorShape shape;
    const std::vector<double> ref =
        ReferenceDepthwise<T>(c, input, filter, &shape);
    test::ExpectNearReference<T>(
        *GetOutput(0), shape, ref,
        test::SumTolerance<T>(c.filter[0] * c.filter[1]));
  }

  template <typename T>
  void Sweep() {
    std::vector<DepthwiseCase> cases;
    cases.push_back({{1, 5, 5, 3}, {3, 3, 3, 1}});
    cases.push_back({{2, 7, 6, 4}, {3, 3, 4, 1}, 1, 1, 1, 1, "SAME"});
    cases.push_back({{2, 8, 8, 3}, {3, 3, 3, 2}, 2, 2, 1, 1, "SAME"});
    cases.push_back({{1, 9, 7, 5}, {2, 4, 5, 3}, 1, 2, 1, 1, "SAME"});
    cases.push_back({{1, 1, 1, 6}, {1, 1, 6, 2}});
    cases.push_back({{2, 9, 10, 2}, {3, 3, 2, 2}, 1, 1, 2, 3, "SAME"});
    cases.push_back({{1, 11, 13, 3}, {3, 2, 3, 1}, 3, 2, 2, 1, "VALID"});
    cases.push_back({{1, 5, 6, 2},
                     {3, 3, 2, 2},
                     2,
                     1,
                     1,
                     1,
                     "EXPLICIT",
                     {0, 0, 2, 1, 0, 3, 0, 0}});
    for (const DepthwiseCase& c : cases) Check<T>(c);
  }
};

TEST_F(DepthwiseConv2dNativeOpTest, FloatMatchesReference) { Sweep<float>(); }
TEST_F(DepthwiseConv2dNativeOpTest, DoubleMatchesReference) { Sweep<double>(); }

TEST_F(DepthwiseConv2dNativeOpTest, LargeInputIsSharded) {
  Check<float>({{2, 40, 40, 32}, {3, 3, 32, 1}, 1, 1, 1, 1, "SAME"});
  Check<float>({{1, 33, 31, 16}, {5, 5, 16, 2}, 2, 2, 1, 1, "SAME"});
}

TEST_F(DepthwiseConv2dNativeOpTest, EmptyBatchGivesEmptyOutput) {
  MF_ASSERT_OK(Make(DT_FLOAT, {1, 1, 1, 1}, "SAME"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 4, 4, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 3, 3, 2})));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[0,4,4,6]");
}

TEST_F(DepthwiseConv2dNativeOpTest, RejectsEmptyFilter) {
  for (const std::vector<int64_t>& filter :
       {std::vector<int64_t>{0, 0, 1, 1}, std::vector<int64_t>{3, 0, 1, 2}}) {
    SCOPED_TRACE(TensorShape(filter).DebugString());
    MF_ASSERT_OK(Make(DT_FLOAT, {1, 1, 1, 1}, "SAME"));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 4, 4, 1})));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape(filter)));
    EXPECT_THAT(RunOpKernel(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("filter must not have zero elements (i.e. "
                                   "all dimensions must be non-zero)")));
  }
}

TEST_F(DepthwiseConv2dNativeOpTest, ZeroDepthMultiplierGivesEmptyOutput) {
  MF_ASSERT_OK(Make(DT_FLOAT, {1, 1, 1, 1}, "SAME"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 4, 4, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 3, 3, 0})));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[1,4,4,0]");
}

TEST_F(DepthwiseConv2dNativeOpTest, RejectsStridesOfWrongLength) {
  EXPECT_THAT(Make(DT_FLOAT, {1, 1}, "VALID"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Sliding window strides field must specify "
                                 "4 dimensions")));
}

TEST_F(DepthwiseConv2dNativeOpTest, RejectsZeroStride) {
  EXPECT_THAT(Make(DT_FLOAT, {1, 0, 1, 1}, "VALID"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Row and column strides should be larger "
                                 "than 0.")));
}

TEST_F(DepthwiseConv2dNativeOpTest, RejectsExplicitPaddingsOfWrongLength) {
  EXPECT_THAT(Make(DT_FLOAT, {1, 1, 1, 1}, "EXPLICIT", {1, 1, 1, 1}, {1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("explicit_paddings attribute must contain 8 "
                                 "values, but got: 2")));
}

TEST_F(DepthwiseConv2dNativeOpTest, RejectsNchwOnCpu) {
  EXPECT_THAT(Make(DT_FLOAT, {1, 1, 1, 1}, "VALID", {1, 1, 1, 1}, {}, "NCHW"),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("only supported for NHWC format")));
}

TEST_F(DepthwiseConv2dNativeOpTest, RejectsInputOfRankThree) {
  MF_ASSERT_OK(Make(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({4, 4, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 3, 3, 1})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("input must be 4-dimensional[4,4,3]")));
}

TEST_F(DepthwiseConv2dNativeOpTest, RejectsFilterOfRankFive) {
  MF_ASSERT_OK(Make(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 4, 4, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 3, 3, 1, 1})));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("filter must be 4-dimensional: "
                                                "[3,3,3,1,1]")));
}

TEST_F(DepthwiseConv2dNativeOpTest, RejectsMismatchedChannels) {
  MF_ASSERT_OK(Make(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 4, 4, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 3, 4, 1})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("input and filter must have the same depth: "
                                 "3 vs 4")));
}

TEST_F(DepthwiseConv2dNativeOpTest, RejectsNegativeOutputSize) {
  MF_ASSERT_OK(Make(DT_FLOAT, {1, 1, 1, 1}, "VALID", {1, 3, 1, 1}));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 4, 4, 1})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({4, 1, 1, 1})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Computed output size would be negative")));
}

}  // namespace
}  // namespace minflow
