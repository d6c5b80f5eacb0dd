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
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

// One 2-D pooling over an NHWC input.
struct PoolCase {
  std::vector<int64_t> input;  // N, H, W, C
  int64_t k_h, k_w, stride_h, stride_w;
  std::string padding;
  std::vector<int64_t> explicit_paddings = {};
};

void OutputAndPad(const PoolCase& c, int dim, int64_t* out, int64_t* pad) {
  const int64_t in = c.input[dim];
  const int64_t k = dim == 1 ? c.k_h : c.k_w;
  const int64_t stride = dim == 1 ? c.stride_h : c.stride_w;
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

TensorShape OutShape(const PoolCase& c) {
  int64_t oh, ow, pad;
  OutputAndPad(c, 1, &oh, &pad);
  OutputAndPad(c, 2, &ow, &pad);
  return TensorShape({c.input[0], oh, ow, c.input[3]});
}

// Calls fn(output index, input indices of the window's in-image taps in
// row-major order) for every output element.
template <typename Fn>
void ForEachWindow(const PoolCase& c, Fn fn) {
  const int64_t n = c.input[0], h = c.input[1], w = c.input[2], ch = c.input[3];
  int64_t oh, ow, pt, pl;
  OutputAndPad(c, 1, &oh, &pt);
  OutputAndPad(c, 2, &ow, &pl);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t q = 0; q < ch; ++q) {
          std::vector<int64_t> taps;
          for (int64_t i = 0; i < c.k_h; ++i)
            for (int64_t j = 0; j < c.k_w; ++j) {
              const int64_t iy = y * c.stride_h - pt + i;
              const int64_t ix = x * c.stride_w - pl + j;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              taps.push_back(((b * h + iy) * w + ix) * ch + q);
            }
          fn(((b * oh + y) * ow + x) * ch + q, taps);
        }
}

class PoolingGradOpsTest : public test::OpsTestBase {
 protected:
  Status MakeMaxPoolGrad(DataType dtype, const PoolCase& c) {
    MakeNode("MaxPoolGrad")
        .Input(dtype)
        .Input(dtype)
        .Input(dtype)
        .Attr("ksize", std::vector<int64_t>{1, c.k_h, c.k_w, 1})
        .Attr("strides", std::vector<int64_t>{1, c.stride_h, c.stride_w, 1})
        .Attr("padding", c.padding)
        .Attr("explicit_paddings", c.explicit_paddings);
    return MakeOp();
  }
  Status MakeAvgPoolGrad(DataType dtype, const PoolCase& c) {
    MakeNode("AvgPoolGrad")
        .Input(DT_INT32)
        .Input(dtype)
        .Attr("ksize", std::vector<int64_t>{1, c.k_h, c.k_w, 1})
        .Attr("strides", std::vector<int64_t>{1, c.stride_h, c.stride_w, 1})
        .Attr("padding", c.padding);
    return MakeOp();
  }

  template <typename T>
  void CheckMax(const PoolCase& c, bool v2) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " input "
                 << TensorShape(c.input).DebugString() << " window " << c.k_h
                 << "x" << c.k_w << " strides " << c.stride_h << ","
                 << c.stride_w << " " << c.padding << (v2 ? " V2" : ""));
    // Integer-valued inputs in [-3, 3] from a float draw: many ties, where
    // the first maximum must win.
    Tensor x = test::RandomTensor<T>(TensorShape(c.input), 11);
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      x.flat<T>()(i) = static_cast<T>(
          static_cast<int>(x.flat<T>()(i) * static_cast<T>(3.5)));
    }
    const Tensor dy = test::RandomTensor<T>(OutShape(c), 12);
    Tensor y(DataTypeToEnum<T>::v(), OutShape(c));
    std::vector<double> dx(x.NumElements(), 0.0);
    ForEachWindow(c, [&](int64_t o, const std::vector<int64_t>& taps) {
      if (taps.empty()) {
        y.flat<T>()(o) = -std::numeric_limits<T>::infinity();
        return;
      }
      int64_t best = taps[0];
      for (int64_t t : taps) {
        if (x.flat<T>()(t) > x.flat<T>()(best)) best = t;
      }
      y.flat<T>()(o) = x.flat<T>()(best);
      dx[best] += test::ValueAt<T>(dy, o);
    });
    if (v2) {
      MakeNode("MaxPoolGradV2")
          .Input(DataTypeToEnum<T>::v())
          .Input(DataTypeToEnum<T>::v())
          .Input(DataTypeToEnum<T>::v())
          .Input(DT_INT32)
          .Input(DT_INT32)
          .Attr("padding", c.padding);
      MF_ASSERT_OK(MakeOp());
    } else {
      MF_ASSERT_OK(MakeMaxPoolGrad(DataTypeToEnum<T>::v(), c));
    }
    AddInputTensor(x);
    AddInputTensor(y);
    AddInputTensor(dy);
    if (v2) {
      AddInputFromArray<int32_t>(
          TensorShape({4}),
          {1, static_cast<int32_t>(c.k_h), static_cast<int32_t>(c.k_w), 1});
      AddInputFromArray<int32_t>(TensorShape({4}),
                                 {1, static_cast<int32_t>(c.stride_h),
                                  static_cast<int32_t>(c.stride_w), 1});
    }
    MF_ASSERT_OK(RunOpKernel());
    test::ExpectNearReference<T>(*GetOutput(0), TensorShape(c.input), dx,
                                 test::SumTolerance<T>(c.k_h * c.k_w));
  }

  template <typename T>
  void CheckAvg(const PoolCase& c) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " input "
                 << TensorShape(c.input).DebugString() << " window " << c.k_h
                 << "x" << c.k_w << " " << c.padding);
    const Tensor dy = test::RandomTensor<T>(OutShape(c), 13);
    std::vector<double> dx(TensorShape(c.input).num_elements(), 0.0);
    ForEachWindow(c, [&](int64_t o, const std::vector<int64_t>& taps) {
      for (int64_t t : taps) {
        dx[t] += test::ValueAt<T>(dy, o) / static_cast<double>(taps.size());
      }
    });
    MF_ASSERT_OK(MakeAvgPoolGrad(DataTypeToEnum<T>::v(), c));
    std::vector<int32_t> sizes(c.input.begin(), c.input.end());
    AddInputFromArray<int32_t>(TensorShape({4}), sizes);
    AddInputTensor(dy);
    MF_ASSERT_OK(RunOpKernel());
    test::ExpectNearReference<T>(*GetOutput(0), TensorShape(c.input), dx,
                                 test::SumTolerance<T>(c.k_h * c.k_w));
  }

  static std::vector<PoolCase> Cases() {
    return {
        {{2, 4, 4, 3}, 2, 2, 2, 2, "VALID"},
        {{1, 7, 6, 2}, 3, 3, 2, 2, "SAME"},
        {{2, 5, 8, 4}, 2, 3, 1, 2, "SAME"},
        {{1, 9, 9, 1}, 3, 2, 3, 1, "VALID"},
        // The ResNet stem's pool: several images over the two threads.
        {{4, 16, 16, 8}, 3, 3, 2, 2, "SAME"},
    };
  }
};

TEST_F(PoolingGradOpsTest, MaxPoolGradGivesTheFirstMaximumTheGradient) {
  for (const PoolCase& c : Cases()) {
    CheckMax<float>(c, false);
    CheckMax<double>(c, false);
    CheckMax<float>(c, true);
  }
  // EXPLICIT padding (MaxPoolGrad only), a window wholly in the padding:
  // it has no maximum, and its gradient goes nowhere.
  CheckMax<float>(
      {{1, 4, 4, 2}, 2, 2, 2, 2, "EXPLICIT", {0, 0, 1, 3, 0, 2, 0, 0}}, false);
}

TEST_F(PoolingGradOpsTest, MaxPoolGradTieGoesToTheFirstInRowMajorOrder) {
  // One 2x2 window of equal values: the top-left one takes it all.
  MF_ASSERT_OK(MakeMaxPoolGrad(DT_FLOAT, {{1, 2, 2, 1}, 2, 2, 2, 2, "VALID"}));
  AddInputFromArray<float>(TensorShape({1, 2, 2, 1}), {5, 5, 5, 5});
  AddInputFromArray<float>(TensorShape({1, 1, 1, 1}), {5});
  AddInputFromArray<float>(TensorShape({1, 1, 1, 1}), {7});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({7, 0, 0, 0}, TensorShape({1, 2, 2, 1})));
}

TEST_F(PoolingGradOpsTest, AvgPoolGradDividesByTheTapsInside) {
  for (const PoolCase& c : Cases()) {
    CheckAvg<float>(c);
    CheckAvg<double>(c);
  }
}

TEST_F(PoolingGradOpsTest, RejectsNchwAndDepthWindows) {
  // A 2x2 window in NCHW order.
  for (const char* op : {"MaxPoolGrad", "AvgPoolGrad"}) {
    MakeNode(op)
        .Input(std::string(op) == "MaxPoolGrad" ? DT_FLOAT : DT_INT32)
        .Input(DT_FLOAT)
        .Attr("ksize", std::vector<int64_t>{1, 1, 2, 2})
        .Attr("strides", std::vector<int64_t>{1, 1, 2, 2})
        .Attr("padding", "VALID")
        .Attr("data_format", "NCHW")
        .Attr("T", DT_FLOAT);
    EXPECT_THAT(MakeOp(), StatusIs(absl::StatusCode::kInvalidArgument,
                                   HasSubstr("PoolingGradOp only supports NHWC "
                                             "on device type CPU")));
  }
  MakeNode("MaxPoolGrad")
      .Input(DT_FLOAT)
      .Input(DT_FLOAT)
      .Input(DT_FLOAT)
      .Attr("ksize", std::vector<int64_t>{1, 1, 1, 2})
      .Attr("strides", std::vector<int64_t>{1, 1, 1, 2})
      .Attr("padding", "VALID");
  EXPECT_THAT(MakeOp(), StatusIs(absl::StatusCode::kUnimplemented,
                                 HasSubstr("not yet supported on the depth "
                                           "dimension")));
  MakeNode("AvgPoolGrad")
      .Input(DT_INT32)
      .Input(DT_FLOAT)
      .Attr("ksize", std::vector<int64_t>{1, 2, 2, 1})
      .Attr("strides", std::vector<int64_t>{1, 0, 2, 1})
      .Attr("padding", "VALID");
  EXPECT_THAT(MakeOp(), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(PoolingGradOpsTest, MaxPoolGradRejectsMismatchedShapes) {
  const PoolCase c = {{1, 4, 4, 1}, 2, 2, 2, 2, "VALID"};
  struct Case {
    std::vector<int64_t> in, out, grad;
    const char* message;
  };
  for (const Case& t : {
           Case{{4, 4, 1},
                {1, 2, 2, 1},
                {1, 2, 2, 1},
                "tensor_in must be 4-dimensional"},
           Case{{1, 4, 4, 1},
                {2, 2, 1},
                {1, 2, 2, 1},
                "tensor_out must be 4-dimensional"},
           Case{{1, 4, 4, 1},
                {1, 2, 2, 1},
                {2, 2, 1},
                "out_backprop must be 4-dimensional"},
           Case{{1, 4, 4, 1},
                {1, 2, 3, 1},
                {1, 2, 2, 1},
                "Expected orig_output shape to be [1,2,2,1], but got "
                "[1,2,3,1]"},
           Case{{1, 4, 4, 1},
                {1, 2, 2, 1},
                {1, 2, 2, 2},
                "Expected grad shape to be [1,2,2,1], but got [1,2,2,2]"},
       }) {
    SCOPED_TRACE(t.message);
    MF_ASSERT_OK(MakeMaxPoolGrad(DT_FLOAT, c));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape(t.in)));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape(t.out)));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape(t.grad)));
    EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr(t.message)));
  }
}

TEST_F(PoolingGradOpsTest, MaxPoolGradV2RejectsBadWindows) {
  MakeNode("MaxPoolGradV2")
      .Input(DT_FLOAT)
      .Input(DT_FLOAT)
      .Input(DT_FLOAT)
      .Input(DT_INT32)
      .Input(DT_INT32)
      .Attr("padding", "VALID");
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 4, 4, 1})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1})));
  AddInputFromArray<int32_t>(TensorShape({3}), {1, 2, 2});
  AddInputFromArray<int32_t>(TensorShape({4}), {1, 2, 2, 1});
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("ksize field must specify 4 dimensions")));
  // A window over depth, which MaxPoolV2 takes but its gradient does not.
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 4, 4, 2})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 4, 4, 1})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 4, 4, 1})));
  AddInputFromArray<int32_t>(TensorShape({4}), {1, 1, 1, 2});
  AddInputFromArray<int32_t>(TensorShape({4}), {1, 1, 1, 2});
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("not yet supported on the depth dimension")));
}

TEST_F(PoolingGradOpsTest, AvgPoolGradRejectsBadShapes) {
  const PoolCase c = {{1, 4, 4, 1}, 2, 2, 2, 2, "VALID"};
  struct Case {
    std::vector<int64_t> sizes_shape;
    std::vector<int32_t> sizes;
    std::vector<int64_t> grad;
    const char* message;
  };
  for (const Case& t : {
           Case{{3},
                {1, 4, 4},
                {1, 2, 2, 1},
                "AvgPoolGrad: orig_input_shape must be an int32 vector of 4"},
           Case{{4},
                {1, -4, 4, 1},
                {1, 2, 2, 1},
                "orig_input_shape must be non-negative"},
           Case{{4},
                {1, 4, 4, 1},
                {2, 2, 1},
                "out_backprop must be 4-dimensional"},
           Case{{4},
                {1, 4, 4, 1},
                {1, 3, 2, 1},
                "Expected grad shape to be [1,2,2,1], but got [1,3,2,1]"},
       }) {
    SCOPED_TRACE(t.message);
    MF_ASSERT_OK(MakeAvgPoolGrad(DT_FLOAT, c));
    AddInputFromArray<int32_t>(TensorShape(t.sizes_shape), t.sizes);
    AddInputTensor(Tensor(DT_FLOAT, TensorShape(t.grad)));
    EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr(t.message)));
  }
}

TEST_F(PoolingGradOpsTest, EmptyInputGivesEmptyGradient) {
  const PoolCase c = {{0, 4, 4, 1}, 2, 2, 2, 2, "VALID"};
  MF_ASSERT_OK(MakeAvgPoolGrad(DT_FLOAT, c));
  AddInputFromArray<int32_t>(TensorShape({4}), {0, 4, 4, 1});
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 2, 2, 1})));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[0,4,4,1]");
}

}  // namespace
}  // namespace minflow
