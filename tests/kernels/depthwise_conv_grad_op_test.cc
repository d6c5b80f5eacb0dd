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

// One depthwise layer: NHWC input, [R,S,C,M] filter.
struct DepthwiseCase {
  std::vector<int64_t> input;   // N, H, W, C
  std::vector<int64_t> filter;  // R, S, C, M
  int64_t stride_h = 1, stride_w = 1;
  std::string padding = "VALID";
  std::vector<int64_t> explicit_paddings = {};
  int64_t dilation_h = 1, dilation_w = 1;
};

void OutputAndPad(const DepthwiseCase& c, int dim, int64_t* out, int64_t* pad) {
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
    *out = (in + c.explicit_paddings[2 * dim] +
            c.explicit_paddings[2 * dim + 1] - k + stride) /
           stride;
    *pad = c.explicit_paddings[2 * dim];
  }
}

TensorShape OutShape(const DepthwiseCase& c) {
  int64_t oh, ow, pad;
  OutputAndPad(c, 1, &oh, &pad);
  OutputAndPad(c, 2, &ow, &pad);
  return TensorShape({c.input[0], oh, ow, c.filter[2] * c.filter[3]});
}

// Both gradients by visiting every (output pixel, tap, channel) once, in
// double: dx gets dy * filter, dfilter gets dy * x.
template <typename T>
void Reference(const DepthwiseCase& c, const Tensor& x, const Tensor& filter,
               const Tensor& dy, std::vector<double>* dx,
               std::vector<double>* df) {
  const int64_t n = c.input[0], h = c.input[1], w = c.input[2], ch = c.input[3];
  const int64_t r = c.filter[0], s = c.filter[1], m = c.filter[3];
  int64_t oh, ow, pt, pl;
  OutputAndPad(c, 1, &oh, &pt);
  OutputAndPad(c, 2, &ow, &pl);
  dx->assign(n * h * w * ch, 0.0);
  df->assign(r * s * ch * m, 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t xo = 0; xo < ow; ++xo)
        for (int64_t i = 0; i < r; ++i)
          for (int64_t j = 0; j < s; ++j) {
            const int64_t iy = y * c.stride_h - pt + i * c.dilation_h;
            const int64_t ix = xo * c.stride_w - pl + j * c.dilation_w;
            if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
            for (int64_t q = 0; q < ch; ++q)
              for (int64_t k = 0; k < m; ++k) {
                const double g = test::ValueAt<T>(
                    dy, ((b * oh + y) * ow + xo) * ch * m + q * m + k);
                const int64_t xi = ((b * h + iy) * w + ix) * ch + q;
                const int64_t fi = ((i * s + j) * ch + q) * m + k;
                (*dx)[xi] += g * test::ValueAt<T>(filter, fi);
                (*df)[fi] += g * test::ValueAt<T>(x, xi);
              }
          }
}

class DepthwiseConvGradOpTest : public test::OpsTestBase {
 protected:
  Status MakeBackprop(const std::string& op, DataType dtype,
                      std::vector<int64_t> strides, const std::string& padding,
                      std::vector<int64_t> explicit_paddings = {},
                      std::vector<int64_t> dilations = {1, 1, 1, 1},
                      const std::string& data_format = "NHWC") {
    const bool input_grad = op == "DepthwiseConv2dNativeBackpropInput";
    MakeNode(op)
        .Input(input_grad ? DT_INT32 : dtype)
        .Input(input_grad ? dtype : DT_INT32)
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
                 << c.stride_h << "," << c.stride_w << " " << c.padding);
    const Tensor x = test::RandomTensor<T>(TensorShape(c.input), 7);
    const Tensor filter = test::RandomTensor<T>(TensorShape(c.filter), 8);
    const Tensor dy = test::RandomTensor<T>(OutShape(c), 9);
    std::vector<double> dx, df;
    Reference<T>(c, x, filter, dy, &dx, &df);
    const std::vector<int64_t> strides = {1, c.stride_h, c.stride_w, 1};
    const std::vector<int64_t> dilations = {1, c.dilation_h, c.dilation_w, 1};
    std::vector<int32_t> input_sizes(c.input.begin(), c.input.end());
    std::vector<int32_t> filter_sizes(c.filter.begin(), c.filter.end());

    MF_ASSERT_OK(MakeBackprop("DepthwiseConv2dNativeBackpropInput",
                              DataTypeToEnum<T>::v(), strides, c.padding,
                              c.explicit_paddings, dilations));
    AddInputTensor(test::AsTensor<int32_t>(input_sizes));
    AddInputTensor(filter);
    AddInputTensor(dy);
    MF_ASSERT_OK(RunOpKernel());
    test::ExpectNearReference<T>(
        *GetOutput(0), TensorShape(c.input), dx,
        test::SumTolerance<T>(c.filter[0] * c.filter[1] * c.filter[3]));

    MF_ASSERT_OK(MakeBackprop("DepthwiseConv2dNativeBackpropFilter",
                              DataTypeToEnum<T>::v(), strides, c.padding,
                              c.explicit_paddings, dilations));
    AddInputTensor(x);
    AddInputTensor(test::AsTensor<int32_t>(filter_sizes));
    AddInputTensor(dy);
    MF_ASSERT_OK(RunOpKernel());
    test::ExpectNearReference<T>(
        *GetOutput(0), TensorShape(c.filter), df,
        test::SumTolerance<T>(OutShape(c).dim_size(0) *
                              OutShape(c).dim_size(1) *
                              OutShape(c).dim_size(2)));
  }

  template <typename T>
  void Sweep() {
    std::vector<DepthwiseCase> cases;
    cases.push_back({{2, 5, 7, 3}, {1, 1, 3, 1}});
    cases.push_back({{1, 7, 9, 4}, {3, 3, 4, 1}, 1, 1, "SAME"});
    cases.push_back({{2, 8, 8, 3}, {3, 3, 3, 2}, 2, 2, "SAME"});
    cases.push_back({{1, 9, 7, 2}, {4, 4, 2, 3}, 2, 2, "SAME"});
    cases.push_back({{1, 10, 11, 2}, {2, 2, 2, 1}, 3, 4, "VALID"});
    cases.push_back({{2, 6, 5, 3},
                     {3, 2, 3, 2},
                     2,
                     1,
                     "EXPLICIT",
                     {0, 0, 1, 2, 3, 0, 0, 0}});
    cases.push_back({{1, 9, 8, 3}, {3, 2, 3, 1}, 1, 1, "SAME", {}, 2, 3});
    // A MobileNet-like layer: several shards of the filter partial sums.
    cases.push_back({{2, 28, 28, 16}, {3, 3, 16, 1}, 1, 1, "SAME"});
    for (const DepthwiseCase& c : cases) Check<T>(c);
  }
};

TEST_F(DepthwiseConvGradOpTest, FloatMatchesReference) { Sweep<float>(); }
TEST_F(DepthwiseConvGradOpTest, DoubleMatchesReference) { Sweep<double>(); }

TEST_F(DepthwiseConvGradOpTest, EmptyOutBackpropGivesZeros) {
  MF_ASSERT_OK(MakeBackprop("DepthwiseConv2dNativeBackpropFilter", DT_FLOAT,
                            {1, 1, 1, 1}, "SAME"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 4, 4, 2})));
  AddInputFromArray<int32_t>(TensorShape({4}), {1, 1, 2, 1});
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 4, 4, 2})));
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>({0, 0}, TensorShape({1, 1, 2, 1})));
}

TEST_F(DepthwiseConvGradOpTest, RejectsNchwOnCpu) {
  for (const char* op : {"DepthwiseConv2dNativeBackpropInput",
                         "DepthwiseConv2dNativeBackpropFilter"}) {
    EXPECT_THAT(MakeBackprop(op, DT_FLOAT, {1, 1, 1, 1}, "VALID", {},
                             {1, 1, 1, 1}, "NCHW"),
                StatusIs(absl::StatusCode::kUnimplemented,
                         HasSubstr(std::string(op) + " only supports NHWC")));
  }
}

TEST_F(DepthwiseConvGradOpTest, RejectsBadSizesAndShapes) {
  struct Case {
    const char* op;
    std::vector<int64_t> first;   // input_sizes' shape, or input's
    std::vector<int32_t> sizes;   // input_sizes or filter_sizes
    std::vector<int64_t> second;  // filter's shape (BackpropInput only)
    std::vector<int64_t> out_backprop;
    const char* message;
  };
  const char* kInput = "DepthwiseConv2dNativeBackpropInput";
  const char* kFilter = "DepthwiseConv2dNativeBackpropFilter";
  for (const Case& c : {
           Case{kInput,
                {3},
                {1, 4, 4},
                {3, 3, 2, 1},
                {1, 4, 4, 2},
                "DepthwiseConv2dNativeBackpropInput: input_sizes must be an "
                "int32 vector of 4 values"},
           Case{kFilter,
                {1, 4, 4, 2},
                {3, 3, -2, 1},
                {},
                {1, 4, 4, 2},
                "DepthwiseConv2dNativeBackpropFilter: filter_sizes must be "
                "non-negative"},
           Case{kInput,
                {4},
                {1, 4, 4, 3},
                {3, 3, 2, 1},
                {1, 4, 4, 2},
                "input and filter must have the same depth: 3 vs 2"},
           Case{kFilter,
                {1, 4, 4, 2},
                {3, 3, 2, 2},
                {},
                {1, 4, 4, 2},
                "out_backprop depth must be in_depth * depth_multiplier (4), "
                "but got 2"},
           Case{kFilter,
                {1, 4, 4, 2},
                {3, 3, 2, 1},
                {},
                {2, 4, 4, 2},
                "input and out_backprop must have the same batch size"},
           Case{kInput,
                {4},
                {1, 4, 4, 2},
                {3, 3, 2, 1},
                {1, 3, 4, 2},
                "Size of out_backprop doesn't match computed: actual = 3, "
                "computed = 4 spatial_dim: 1"},
           Case{kInput,
                {4},
                {1, 4, 4, 2},
                {3, 3, 2},
                {1, 4, 4, 2},
                "filter must be 4-dimensional"},
       }) {
    SCOPED_TRACE(c.message);
    const bool input_grad = std::string(c.op) == kInput;
    MF_ASSERT_OK(MakeBackprop(c.op, DT_FLOAT, {1, 1, 1, 1}, "SAME"));
    if (input_grad) {
      AddInputFromArray<int32_t>(TensorShape(c.first), c.sizes);
      AddInputTensor(Tensor(DT_FLOAT, TensorShape(c.second)));
    } else {
      AddInputTensor(Tensor(DT_FLOAT, TensorShape(c.first)));
      AddInputFromArray<int32_t>(TensorShape({4}), c.sizes);
    }
    AddInputTensor(Tensor(DT_FLOAT, TensorShape(c.out_backprop)));
    EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr(c.message)));
  }
}

TEST_F(DepthwiseConvGradOpTest, RejectsEmptyFilter) {
  MF_ASSERT_OK(MakeBackprop("DepthwiseConv2dNativeBackpropInput", DT_FLOAT,
                            {1, 1, 1, 1}, "VALID"));
  AddInputFromArray<int32_t>(TensorShape({4}), {1, 2, 2, 1});
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 0, 1, 1})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 3, 3, 1})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("filter must not have zero elements")));
}

}  // namespace
}  // namespace minflow
