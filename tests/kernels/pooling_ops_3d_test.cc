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

// One NDHWC pool.
struct Pool3DCase {
  std::vector<int64_t> input;  // N, D, H, W, C
  std::vector<int64_t> ksize;  // D, H, W
  std::vector<int64_t> strides;
  std::string padding = "VALID";
};

// Max or mean over each window's voxels inside the input, in double.
template <typename T>
std::vector<double> ReferencePool3D(const Pool3DCase& c, const Tensor& input,
                                    bool is_max, TensorShape* shape) {
  int64_t out[3], pad[3];
  for (int i = 0; i < 3; ++i) {
    const int64_t in = c.input[1 + i], k = c.ksize[i], s = c.strides[i];
    if (c.padding == "VALID") {
      out[i] = (in - k + s) / s;
      pad[i] = 0;
    } else {
      out[i] = (in + s - 1) / s;
      pad[i] = std::max<int64_t>(0, (out[i] - 1) * s + k - in) / 2;
    }
  }
  const int64_t n = c.input[0], ch = c.input[4];
  *shape = TensorShape({n, out[0], out[1], out[2], ch});
  std::vector<double> result;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t z = 0; z < out[0]; ++z)
      for (int64_t y = 0; y < out[1]; ++y)
        for (int64_t x = 0; x < out[2]; ++x)
          for (int64_t q = 0; q < ch; ++q) {
            double acc = is_max ? -std::numeric_limits<double>::infinity() : 0;
            int64_t count = 0;
            for (int64_t i = 0; i < c.ksize[0]; ++i)
              for (int64_t j = 0; j < c.ksize[1]; ++j)
                for (int64_t l = 0; l < c.ksize[2]; ++l) {
                  const int64_t iz = z * c.strides[0] - pad[0] + i;
                  const int64_t iy = y * c.strides[1] - pad[1] + j;
                  const int64_t ix = x * c.strides[2] - pad[2] + l;
                  if (iz < 0 || iz >= c.input[1] || iy < 0 ||
                      iy >= c.input[2] || ix < 0 || ix >= c.input[3]) {
                    continue;
                  }
                  const double v = test::ValueAt<T>(
                      input,
                      (((b * c.input[1] + iz) * c.input[2] + iy) * c.input[3] +
                       ix) * ch +
                          q);
                  acc = is_max ? std::max(acc, v) : acc + v;
                  ++count;
                }
            result.push_back(is_max ? acc : acc / count);
          }
  return result;
}

class Pooling3DOpTest : public test::OpsTestBase {
 protected:
  Status MakePool(const std::string& op, DataType dtype,
                  std::vector<int64_t> ksize, std::vector<int64_t> strides,
                  const std::string& padding,
                  const std::string& data_format = "NDHWC") {
    MakeNode(op)
        .Input(dtype)
        .Attr("T", dtype)
        .Attr("ksize", ksize)
        .Attr("strides", strides)
        .Attr("padding", padding)
        .Attr("data_format", data_format);
    return MakeOp();
  }

  template <typename T>
  void Check(const std::string& op, const Pool3DCase& c) {
    SCOPED_TRACE(::testing::Message()
                 << op << " " << DataTypeString(DataTypeToEnum<T>::v())
                 << " input " << TensorShape(c.input).DebugString() << " ksize "
                 << TensorShape(c.ksize).DebugString() << " strides "
                 << TensorShape(c.strides).DebugString() << " " << c.padding);
    MF_ASSERT_OK(MakePool(
        op, DataTypeToEnum<T>::v(), {1, c.ksize[0], c.ksize[1], c.ksize[2], 1},
        {1, c.strides[0], c.strides[1], c.strides[2], 1}, c.padding));
    const Tensor input = test::RandomTensor<T>(TensorShape(c.input), 9);
    AddInputTensor(input);
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(test::PredictedOutputShape(*node_def(), {input.shape()}),
              GetOutput(0)->shape().DebugString());
    TensorShape shape;
    const std::vector<double> ref =
        ReferencePool3D<T>(c, input, op == "MaxPool3D", &shape);
    test::ExpectNearReference<T>(*GetOutput(0), shape, ref,
                                 test::SumTolerance<T>(8));
  }

  template <typename T>
  void Sweep(const std::string& op) {
    const std::vector<Pool3DCase> cases = {
        {{2, 4, 4, 4, 3}, {2, 2, 2}, {2, 2, 2}},
        {{1, 5, 6, 7, 2}, {3, 3, 3}, {1, 1, 1}, "SAME"},
        {{1, 5, 6, 7, 2}, {2, 3, 2}, {2, 1, 3}, "SAME"},
        {{2, 7, 5, 6, 1}, {3, 2, 4}, {2, 2, 1}},
        {{1, 3, 3, 3, 4}, {3, 3, 3}, {1, 1, 1}},  // one window
        {{1, 4, 4, 4, 2}, {1, 1, 1}, {2, 3, 1}},  // subsampling
        {{1, 6, 6, 6, 3}, {4, 4, 4}, {3, 3, 3}, "SAME"},
    };
    for (const Pool3DCase& c : cases) Check<T>(op, c);
  }
};

TEST_F(Pooling3DOpTest, MaxPool3DMatchesReference) {
  Sweep<float>("MaxPool3D");
}
TEST_F(Pooling3DOpTest, AvgPool3DMatchesReference) {
  Sweep<float>("AvgPool3D");
}
TEST_F(Pooling3DOpTest, HalfMatchesReference) {
  Check<Eigen::half>("MaxPool3D",
                     {{1, 5, 6, 7, 2}, {3, 3, 3}, {2, 2, 2}, "SAME"});
  Check<Eigen::half>("AvgPool3D",
                     {{1, 5, 6, 7, 2}, {3, 3, 3}, {2, 2, 2}, "SAME"});
}

TEST_F(Pooling3DOpTest, SmallKnownValues) {
  // 1..8 in a 2x2x2 cube: one 2x2x2 window; SAME with 3x3x3 windows
  // averages only the voxels inside.
  const std::vector<float> cube = {1, 2, 3, 4, 5, 6, 7, 8};
  MF_ASSERT_OK(MakePool("MaxPool3D", DT_FLOAT, {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1},
                        "VALID"));
  AddInputFromArray<float>(TensorShape({1, 2, 2, 2, 1}), cube);
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>({8}, TensorShape({1, 1, 1, 1, 1})));
  MF_ASSERT_OK(MakePool("AvgPool3D", DT_FLOAT, {1, 3, 3, 3, 1}, {1, 2, 2, 2, 1},
                        "SAME"));
  AddInputFromArray<float>(TensorShape({1, 2, 2, 2, 1}), cube);
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({4.5f}, TensorShape({1, 1, 1, 1, 1})));
}

TEST_F(Pooling3DOpTest, EmptyInputGivesEmptyOutput) {
  for (const char* op : {"MaxPool3D", "AvgPool3D"}) {
    MF_ASSERT_OK(
        MakePool(op, DT_FLOAT, {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1}, "SAME"));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 3, 3, 3, 2})));
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[0,3,3,3,2]");
    MF_ASSERT_OK(
        MakePool(op, DT_FLOAT, {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1}, "VALID"));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 1, 3, 3, 2})));
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[1,0,2,2,2]");
  }
}

// Issue 17: zero-sized windows and strides are errors, never a result.
TEST_F(Pooling3DOpTest, RejectsBadAttrs) {
  struct Case {
    std::vector<int64_t> ksize, strides;
    const char* data_format;
    absl::StatusCode code;
    const char* message;
  };
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  const auto kUnimplemented = absl::StatusCode::kUnimplemented;
  for (const Case& c : {
           Case{{1, 0, 2, 2, 1},
                {1, 1, 1, 1, 1},
                "NDHWC",
                kInvalid,
                "Sliding window ksize field must have non-negative "
                "dimensions"},
           Case{{1, 2, 2, 2, 1},
                {1, 1, 0, 1, 1},
                "NDHWC",
                kInvalid,
                "Stride must be > 0, but got 0"},
           Case{{1, 2, 2, 2, 1, 1},
                {1, 1, 1, 1, 1},
                "NDHWC",
                kInvalid,
                "Sliding window ksize field must specify 5 dimensions"},
           Case{{1, 2, 2, 2, 1},
                {1, 1, 1, 1, 1, 1},
                "NDHWC",
                kInvalid,
                "Sliding window stride field must specify 5 dimensions"},
           Case{{2, 2, 2, 2, 1},
                {1, 1, 1, 1, 1},
                "NDHWC",
                kUnimplemented,
                "Pooling is not yet supported on the batch dimension."},
           Case{{1, 2, 2, 2, 2},
                {1, 1, 1, 1, 1},
                "NDHWC",
                kUnimplemented,
                "Pooling is not yet supported on the depth dimension."},
           Case{{1, int64_t{1} << 40, 2, 2, 1},
                {1, 1, 1, 1, 1},
                "NDHWC",
                kInvalid,
                "ksize and strides must each be at most"},
           Case{{1, 2, 2, 2, 1},
                {1, 1, 1, 1, 1},
                "NCDHW",
                kInvalid,
                "Default Pooling3DOp only supports NDHWC on device type CPU"},
       }) {
    for (const char* op : {"MaxPool3D", "AvgPool3D"}) {
      SCOPED_TRACE(::testing::Message() << op << ": " << c.message);
      EXPECT_THAT(
          MakePool(op, DT_FLOAT, c.ksize, c.strides, "VALID", c.data_format),
          StatusIs(c.code, HasSubstr(c.message)));
    }
  }
}

TEST_F(Pooling3DOpTest, RejectsBadInputs) {
  for (const char* op : {"MaxPool3D", "AvgPool3D"}) {
    MF_ASSERT_OK(
        MakePool(op, DT_FLOAT, {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1}, "VALID"));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 3, 3, 3})));
    EXPECT_THAT(RunOpKernel(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("tensor_in must be 5-dimensional")));
    MF_ASSERT_OK(
        MakePool(op, DT_FLOAT, {1, 4, 2, 2, 1}, {1, 1, 1, 1, 1}, "VALID"));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 2, 3, 3, 1})));
    EXPECT_THAT(RunOpKernel(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("Computed output size would be negative")));
    // No elements, so it exists; its rows would overflow the window maths.
    MF_ASSERT_OK(
        MakePool(op, DT_FLOAT, {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1}, "SAME"));
    AddInputTensor(
        Tensor(DT_FLOAT, TensorShape({1, 2, int64_t{1} << 32, 2, 0})));
    EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr("input too large")));
  }
}

}  // namespace
}  // namespace minflow
