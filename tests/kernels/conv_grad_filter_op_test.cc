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

// One Conv2D layer: NHWC input, [R,S,C/groups,K] filter.
struct FilterCase {
  std::vector<int64_t> input;   // N, H, W, C
  std::vector<int64_t> filter;  // R, S, Cg, K
  int64_t stride_h = 1, stride_w = 1;
  std::string padding = "VALID";
  std::vector<int64_t> explicit_paddings = {};
  int64_t dilation_h = 1, dilation_w = 1;
};

// TensorFlow's output size and leading pad of spatial dim `dim` (1 or 2).
void OutputAndPad(const FilterCase& c, int dim, int64_t* out, int64_t* pad) {
  const int64_t in = c.input[dim];
  const int64_t stride = dim == 1 ? c.stride_h : c.stride_w;
  const int64_t k =
      (c.filter[dim - 1] - 1) * (dim == 1 ? c.dilation_h : c.dilation_w) + 1;
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

TensorShape OutShape(const FilterCase& c) {
  int64_t oh, ow, pad;
  OutputAndPad(c, 1, &oh, &pad);
  OutputAndPad(c, 2, &ow, &pad);
  return TensorShape({c.input[0], oh, ow, c.filter[3]});
}

// The filter gradient as a sum over every output pixel, in double.
template <typename T>
std::vector<double> ReferenceFilterGrad(const FilterCase& c, const Tensor& x,
                                        const Tensor& dy) {
  const int64_t n = c.input[0], h = c.input[1], w = c.input[2], ch = c.input[3];
  const int64_t r = c.filter[0], s = c.filter[1], cg = c.filter[2],
                k = c.filter[3];
  const int64_t kg = k / (ch / cg);
  int64_t oh, ow, pt, pl;
  OutputAndPad(c, 1, &oh, &pt);
  OutputAndPad(c, 2, &ow, &pl);
  std::vector<double> df(r * s * cg * k, 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t xo = 0; xo < ow; ++xo)
        for (int64_t o = 0; o < k; ++o) {
          const double g =
              test::ValueAt<T>(dy, ((b * oh + y) * ow + xo) * k + o);
          for (int64_t i = 0; i < r; ++i)
            for (int64_t j = 0; j < s; ++j) {
              const int64_t iy = y * c.stride_h - pt + i * c.dilation_h;
              const int64_t ix = xo * c.stride_w - pl + j * c.dilation_w;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              for (int64_t q = 0; q < cg; ++q) {
                df[((i * s + j) * cg + q) * k + o] +=
                    g * test::ValueAt<T>(x, ((b * h + iy) * w + ix) * ch +
                                                (o / kg) * cg + q);
              }
            }
        }
  return df;
}

class Conv2DBackpropFilterOpTest : public test::OpsTestBase {
 protected:
  Status MakeBackprop(DataType dtype, std::vector<int64_t> strides,
                      const std::string& padding,
                      std::vector<int64_t> explicit_paddings = {},
                      std::vector<int64_t> dilations = {1, 1, 1, 1},
                      const std::string& data_format = "NHWC") {
    MakeNode("Conv2DBackpropFilter")
        .Input(dtype)
        .Input(DT_INT32)
        .Input(dtype)
        .Attr("strides", strides)
        .Attr("padding", padding)
        .Attr("dilations", dilations)
        .Attr("explicit_paddings", explicit_paddings)
        .Attr("data_format", data_format);
    return MakeOp();
  }

  template <typename T>
  void Check(const FilterCase& c) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " input "
                 << TensorShape(c.input).DebugString() << " filter "
                 << TensorShape(c.filter).DebugString() << " strides "
                 << c.stride_h << "," << c.stride_w << " " << c.padding
                 << " dilations " << c.dilation_h << "," << c.dilation_w);
    MF_ASSERT_OK(MakeBackprop(
        DataTypeToEnum<T>::v(), {1, c.stride_h, c.stride_w, 1}, c.padding,
        c.explicit_paddings, {1, c.dilation_h, c.dilation_w, 1}));
    std::vector<int32_t> sizes(c.filter.begin(), c.filter.end());
    const Tensor x = test::RandomTensor<T>(TensorShape(c.input), 5);
    const Tensor dy = test::RandomTensor<T>(OutShape(c), 6);
    AddInputTensor(x);
    AddInputTensor(test::AsTensor<int32_t>(sizes));
    AddInputTensor(dy);
    MF_ASSERT_OK(RunOpKernel());
    const int64_t terms = OutShape(c).dim_size(0) * OutShape(c).dim_size(1) *
                          OutShape(c).dim_size(2);
    test::ExpectNearReference<T>(*GetOutput(0), TensorShape(c.filter),
                                 ReferenceFilterGrad<T>(c, x, dy),
                                 test::SumTolerance<T>(terms));
  }

  template <typename T>
  void Sweep() {
    std::vector<FilterCase> cases;
    cases.push_back({{2, 5, 7, 3}, {1, 1, 3, 4}});
    cases.push_back({{2, 5, 7, 3}, {1, 1, 3, 4}, 2, 2});
    cases.push_back({{1, 7, 9, 5}, {3, 3, 5, 6}, 1, 1, "SAME"});
    cases.push_back({{2, 8, 8, 3}, {3, 3, 3, 4}, 2, 2, "SAME"});
    cases.push_back({{1, 9, 7, 2}, {4, 4, 2, 3}, 2, 2, "SAME"});
    cases.push_back({{1, 10, 11, 2}, {2, 2, 2, 3}, 3, 4, "VALID"});
    cases.push_back({{2, 6, 5, 3},
                     {3, 2, 3, 4},
                     2,
                     1,
                     "EXPLICIT",
                     {0, 0, 1, 2, 3, 0, 0, 0}});
    // The filter covers the whole image.
    cases.push_back({{3, 4, 5, 2}, {4, 5, 2, 6}});
    // Grouped: 2 groups, and one group per channel.
    cases.push_back({{2, 6, 6, 4}, {3, 3, 2, 6}, 1, 1, "SAME"});
    cases.push_back({{1, 5, 5, 4}, {2, 2, 1, 8}, 2, 1, "VALID"});
    // Dilated.
    cases.push_back({{1, 9, 8, 3}, {3, 2, 3, 4}, 1, 1, "SAME", {}, 2, 3});
    cases.push_back({{2, 9, 9, 2}, {2, 2, 2, 3}, 2, 1, "VALID", {}, 3, 2});
    for (const FilterCase& c : cases) Check<T>(c);
  }
};

TEST_F(Conv2DBackpropFilterOpTest, FloatMatchesReference) { Sweep<float>(); }
TEST_F(Conv2DBackpropFilterOpTest, DoubleMatchesReference) { Sweep<double>(); }

TEST_F(Conv2DBackpropFilterOpTest, LargeInputSumsPartialsOfBothThreads) {
  // Several tiles per thread, and the partial sums of both test threads.
  Check<float>({{2, 40, 40, 16}, {3, 3, 16, 32}, 1, 1, "SAME"});
  Check<double>({{3, 33, 17, 8}, {5, 5, 8, 16}, 2, 2, "SAME"});
}

TEST_F(Conv2DBackpropFilterOpTest, SmallKnownValues) {
  // A 3x3 input of 1..9, out_backprop 2x2 of ones, 2x2 VALID filter: each
  // filter tap sums the 2x2 block of the input it meets.
  MF_ASSERT_OK(MakeBackprop(DT_FLOAT, {1, 1, 1, 1}, "VALID"));
  AddInputFromArray<float>(TensorShape({1, 3, 3, 1}),
                           {1, 2, 3, 4, 5, 6, 7, 8, 9});
  AddInputFromArray<int32_t>(TensorShape({4}), {2, 2, 1, 1});
  AddInputFromArray<float>(TensorShape({1, 2, 2, 1}), {1, 1, 1, 1});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({12, 16, 24, 28}, TensorShape({2, 2, 1, 1})));
}

TEST_F(Conv2DBackpropFilterOpTest, EmptyOutBackpropGivesZeros) {
  MF_ASSERT_OK(MakeBackprop(DT_FLOAT, {1, 1, 1, 1}, "SAME"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 5, 5, 1})));
  AddInputFromArray<int32_t>(TensorShape({4}), {1, 1, 1, 2});
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 5, 5, 2})));
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>({0, 0}, TensorShape({1, 1, 1, 2})));
}

TEST_F(Conv2DBackpropFilterOpTest, RejectsNchwOnCpu) {
  EXPECT_THAT(
      MakeBackprop(DT_FLOAT, {1, 1, 1, 1}, "VALID", {}, {1, 1, 1, 1}, "NCHW"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Conv2DCustomBackpropFilterOp only supports NHWC.")));
  EXPECT_THAT(MakeBackprop(DT_FLOAT, {1, 1, 1}, "VALID"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("strides field must specify 4 dimensions")));
}

TEST_F(Conv2DBackpropFilterOpTest, RejectsBadFilterSizes) {
  struct Case {
    std::vector<int64_t> shape;
    std::vector<int32_t> sizes;
    const char* message;
  };
  for (const Case& c :
       {Case{{2, 2}, {3, 3, 1, 1}, "filter_sizes must be an int32 vector of 4"},
        Case{{3}, {3, 3, 1}, "filter_sizes must be an int32 vector of 4"},
        Case{{4}, {3, -3, 1, 1}, "filter_sizes must be non-negative"}}) {
    SCOPED_TRACE(c.message);
    MF_ASSERT_OK(MakeBackprop(DT_FLOAT, {1, 1, 1, 1}, "SAME"));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 4, 4, 1})));
    AddInputFromArray<int32_t>(TensorShape(c.shape), c.sizes);
    AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 4, 4, 1})));
    EXPECT_THAT(
        RunOpKernel(),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 HasSubstr(std::string("Conv2DBackpropFilter: ") + c.message)));
  }
}

TEST_F(Conv2DBackpropFilterOpTest, RejectsMismatchedShapes) {
  struct Case {
    std::vector<int64_t> input;
    std::vector<int32_t> filter;
    std::vector<int64_t> out_backprop;
    const char* message;
  };
  for (const Case& c : {
           Case{{1, 4, 4}, {3, 3, 1, 1}, {1, 4, 4, 1}, "input must be 4-dim"},
           Case{{1, 4, 4, 1},
                {3, 3, 1, 1},
                {1, 4, 4},
                "out_backprop must be 4-dimensional"},
           Case{{2, 4, 4, 1},
                {3, 3, 1, 1},
                {1, 4, 4, 1},
                "input and out_backprop must have the same batch size"},
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
                {3, 3, 0, 1},
                {1, 4, 4, 1},
                "filter depth must be strictly greated than zero"},
       }) {
    SCOPED_TRACE(c.message);
    MF_ASSERT_OK(MakeBackprop(DT_FLOAT, {1, 1, 1, 1}, "SAME"));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape(c.input)));
    AddInputFromArray<int32_t>(TensorShape({4}), c.filter);
    AddInputTensor(Tensor(DT_FLOAT, TensorShape(c.out_backprop)));
    EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr(c.message)));
  }
}

}  // namespace
}  // namespace minflow
