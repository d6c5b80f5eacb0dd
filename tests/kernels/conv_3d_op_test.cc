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

// One NDHWC convolution.
struct Conv3DCase {
  std::vector<int64_t> input;   // N, D, H, W, C
  std::vector<int64_t> filter;  // KD, KH, KW, C, K
  std::vector<int64_t> strides = {1, 1, 1};
  std::string padding = "VALID";
};

// Nested loops in double over TensorFlow's definition of the output size
// and leading padding.
template <typename T>
std::vector<double> ReferenceConv3D(const Conv3DCase& c, const Tensor& input,
                                    const Tensor& filter, TensorShape* shape) {
  int64_t out[3], pad[3];
  for (int i = 0; i < 3; ++i) {
    const int64_t in = c.input[1 + i], k = c.filter[i], s = c.strides[i];
    if (c.padding == "VALID") {
      out[i] = (in - k + s) / s;
      pad[i] = 0;
    } else {
      out[i] = (in + s - 1) / s;
      pad[i] = std::max<int64_t>(0, (out[i] - 1) * s + k - in) / 2;
    }
  }
  const int64_t n = c.input[0], ch = c.input[4], k = c.filter[4];
  *shape = TensorShape({n, out[0], out[1], out[2], k});
  std::vector<double> result(shape->num_elements(), 0.0);
  int64_t idx = 0;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t z = 0; z < out[0]; ++z)
      for (int64_t y = 0; y < out[1]; ++y)
        for (int64_t x = 0; x < out[2]; ++x)
          for (int64_t o = 0; o < k; ++o, ++idx) {
            double sum = 0;
            for (int64_t i = 0; i < c.filter[0]; ++i)
              for (int64_t j = 0; j < c.filter[1]; ++j)
                for (int64_t l = 0; l < c.filter[2]; ++l)
                  for (int64_t q = 0; q < ch; ++q) {
                    const int64_t iz = z * c.strides[0] - pad[0] + i;
                    const int64_t iy = y * c.strides[1] - pad[1] + j;
                    const int64_t ix = x * c.strides[2] - pad[2] + l;
                    if (iz < 0 || iz >= c.input[1] || iy < 0 ||
                        iy >= c.input[2] || ix < 0 || ix >= c.input[3]) {
                      continue;
                    }
                    const int64_t in_idx =
                        (((b * c.input[1] + iz) * c.input[2] + iy) *
                             c.input[3] +
                         ix) *
                            ch +
                        q;
                    const int64_t f_idx =
                        (((i * c.filter[1] + j) * c.filter[2] + l) * ch + q) *
                            k +
                        o;
                    sum += test::ValueAt<T>(input, in_idx) *
                           test::ValueAt<T>(filter, f_idx);
                  }
            result[idx] = sum;
          }
  return result;
}

class Conv3DOpTest : public test::OpsTestBase {
 protected:
  Status MakeConv(DataType dtype, std::vector<int64_t> strides,
                  const std::string& padding,
                  std::vector<int64_t> dilations = {1, 1, 1, 1, 1},
                  const std::string& data_format = "NDHWC") {
    MakeNode("Conv3D")
        .Input(dtype)
        .Input(dtype)
        .Attr("strides", strides)
        .Attr("padding", padding)
        .Attr("dilations", dilations)
        .Attr("data_format", data_format);
    return MakeOp();
  }

  template <typename T>
  void Check(const Conv3DCase& c) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " input "
                 << TensorShape(c.input).DebugString() << " filter "
                 << TensorShape(c.filter).DebugString() << " " << c.padding);
    MF_ASSERT_OK(MakeConv(DataTypeToEnum<T>::v(),
                          {1, c.strides[0], c.strides[1], c.strides[2], 1},
                          c.padding));
    const Tensor input = test::RandomTensor<T>(TensorShape(c.input), 5);
    const Tensor filter = test::RandomTensor<T>(TensorShape(c.filter), 6);
    AddInputTensor(input);
    AddInputTensor(filter);
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(test::PredictedOutputShape(*node_def(),
                                         {input.shape(), filter.shape()}),
              GetOutput(0)->shape().DebugString());
    TensorShape shape;
    const std::vector<double> ref =
        ReferenceConv3D<T>(c, input, filter, &shape);
    test::ExpectNearReference<T>(
        *GetOutput(0), shape, ref,
        test::SumTolerance<T>(c.filter[0] * c.filter[1] * c.filter[2] *
                              c.filter[3]));
  }

  template <typename T>
  void Sweep() {
    std::vector<Conv3DCase> cases;
    cases.push_back({{2, 3, 4, 5, 2}, {1, 1, 1, 2, 3}});
    cases.push_back({{1, 5, 6, 7, 3}, {3, 3, 3, 3, 4}, {1, 1, 1}, "SAME"});
    cases.push_back({{2, 6, 5, 8, 2}, {2, 3, 2, 2, 3}, {2, 1, 3}, "SAME"});
    cases.push_back({{1, 7, 6, 5, 2}, {3, 2, 4, 2, 2}, {2, 2, 1}});
    cases.push_back({{1, 4, 4, 4, 1}, {4, 4, 4, 1, 2}});  // whole volume
    cases.push_back({{2, 5, 5, 5, 3}, {2, 2, 2, 3, 2}, {3, 3, 3}, "SAME"});
    for (const Conv3DCase& c : cases) Check<T>(c);
  }
};

TEST_F(Conv3DOpTest, FloatMatchesReference) { Sweep<float>(); }
TEST_F(Conv3DOpTest, DoubleMatchesReference) { Sweep<double>(); }

TEST_F(Conv3DOpTest, LargeInputIsShardedAndTiled) {
  Check<float>({{2, 8, 16, 16, 8}, {3, 3, 3, 8, 16}, {1, 1, 1}, "SAME"});
}

TEST_F(Conv3DOpTest, SmallKnownValues) {
  // A 2x2x2 filter of ones over a 2x2x3 volume of 1..12: window sums.
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1, 1}, "VALID"));
  AddInputFromArray<float>(TensorShape({1, 2, 2, 3, 1}),
                           {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  AddInputFromArray<float>(TensorShape({2, 2, 2, 1, 1}),
                           {1, 1, 1, 1, 1, 1, 1, 1});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({48, 56}, TensorShape({1, 1, 1, 2, 1})));
}

TEST_F(Conv3DOpTest, EmptyShapesGiveEmptyOutput) {
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1, 1}, "SAME"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 3, 3, 3, 2})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 2, 2, 2, 4})));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[0,3,3,3,4]");

  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 1, 3, 3, 2})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 2, 2, 2, 4})));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[1,0,2,2,4]");
}

// Issue 17: a zero-sized window is rejected as in TensorFlow.
TEST_F(Conv3DOpTest, RejectsEmptyFilter) {
  for (const std::vector<int64_t>& filter :
       {std::vector<int64_t>{0, 2, 2, 2, 4},
        std::vector<int64_t>{2, 2, 2, 2, 0},
        std::vector<int64_t>{0, 0, 0, 2, 1}}) {
    SCOPED_TRACE(TensorShape(filter).DebugString());
    MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1, 1}, "SAME"));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 3, 3, 3, 2})));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape(filter)));
    EXPECT_THAT(RunOpKernel(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("filter must not have zero elements")));
  }
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1, 1}, "SAME"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 3, 3, 3, 0})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 2, 2, 0, 1})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("filter_depth must be non-zero")));
}

TEST_F(Conv3DOpTest, RejectsBadAttrs) {
  struct Case {
    std::vector<int64_t> strides, dilations;
    const char* message;
  };
  for (const Case& c : {
           // Fewer than 5 fail the OpDef's minimum; more reach the kernel.
           Case{{1, 1, 1, 1, 1, 1},
                {1, 1, 1, 1, 1},
                "Sliding window strides field must specify 5 dimensions"},
           Case{{2, 1, 1, 1, 1},
                {1, 1, 1, 1, 1},
                "does not yet support strides in the batch and depth"},
           Case{{1, 1, 0, 1, 1},
                {1, 1, 1, 1, 1},
                "Spatial strides should be larger than 0."},
           Case{{1, 1, 1, 1, 1},
                {1, 1, 1, 1},
                "Dilation rates field must specify 5 dimensions"},
           Case{{1, 1, 1, 1, 1},
                {1, 1, 1, 1, 2},
                "does not yet support dilation rates in the batch and depth"},
           Case{{1, 1, 1, 1, 1},
                {1, 0, 1, 1, 1},
                "Dilated rates should be larger than 0."},
           Case{{1, 1, int64_t{1} << 40, 1, 1},
                {1, 1, 1, 1, 1},
                "strides must each be at most 2147483647"},
       }) {
    SCOPED_TRACE(c.message);
    EXPECT_THAT(
        MakeConv(DT_FLOAT, c.strides, "VALID", c.dilations),
        StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)));
  }
}

TEST_F(Conv3DOpTest, RejectsBadShapes) {
  struct Case {
    std::vector<int64_t> input, filter;
    const char* message;
  };
  for (const Case& c : {
           Case{{1, 3, 3, 3}, {1, 1, 1, 1, 1}, "input must be 5-dimensional"},
           Case{{1, 3, 3, 3, 1}, {1, 1, 1, 1}, "filter must be 5-dimensional"},
           Case{{1, 3, 3, 3, 5},
                {1, 1, 1, 2, 1},
                "Input depth must be evenly divisible by filter depth: 5 vs 2"},
           // Groups: TensorFlow's CPU kernel does not run them.
           Case{{1, 3, 3, 3, 4},
                {1, 1, 1, 2, 2},
                "Number of channels in filter (2) must match last dimension "
                "of input (4)"},
           Case{{1, 2, 3, 3, 1},
                {4, 1, 1, 1, 1},
                "Computed output size would be negative"},
       }) {
    SCOPED_TRACE(c.message);
    MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1, 1}, "VALID"));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape(c.input)));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape(c.filter)));
    EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr(c.message)));
  }
}

TEST_F(Conv3DOpTest, RejectsHugeEmptyInput) {
  // No elements, so it exists; its planes would overflow the window maths.
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1, 1}, "SAME"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, int64_t{1} << 32, 1, 1, 0})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 1, 1, 1, 1})));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("input too large")));
}

TEST_F(Conv3DOpTest, RejectsNcdhwAndDilationsOnCpu) {
  MF_ASSERT_OK(
      MakeConv(DT_FLOAT, {1, 1, 1, 1, 1}, "VALID", {1, 1, 1, 1, 1}, "NCDHW"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 1, 3, 3, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 1, 1, 1, 1})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("CPU implementation of Conv3D currently only "
                                 "supports the NHWC tensor format.")));
  MF_ASSERT_OK(MakeConv(DT_FLOAT, {1, 1, 1, 1, 1}, "VALID", {1, 2, 1, 1, 1}));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 3, 3, 3, 1})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 1, 1, 1, 1})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("currently only supports dilated rates of "
                                 "1.")));
}

}  // namespace
}  // namespace minflow
