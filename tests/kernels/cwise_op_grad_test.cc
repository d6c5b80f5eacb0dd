// ReluGrad, TanhGrad, SigmoidGrad, SqrtGrad, RsqrtGrad, ReciprocalGrad and
// BiasAddGrad against formulas worked out element by element.
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

class GradOpTest : public test::OpsTestBase {
 protected:
  template <typename T>
  void RunBinary(const std::string& op, const Tensor& a, const Tensor& b) {
    MakeNode(op).Input(DataTypeToEnum<T>::v()).Input(DataTypeToEnum<T>::v());
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(a);
    AddInputTensor(b);
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(GetOutput(0)->shape(), a.shape());
    // The shape function merges the two inputs: it names one of them.
    EXPECT_THAT(test::PredictedOutputShape(*node_def(), {a.shape(), b.shape()}),
                ::testing::AnyOf("in0", "in1", a.shape().DebugString()));
  }
};

template <typename T>
void ExpectValues(const Tensor& t, const std::vector<double>& want,
                  double tolerance) {
  ASSERT_EQ(t.NumElements(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(static_cast<double>(t.flat<T>()(i)), want[i], tolerance)
        << "element " << i;
  }
}

TEST_F(GradOpTest, ReluGradPassesGradientWherePositive) {
  RunBinary<float>("ReluGrad",
                   test::AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}),
                   test::AsTensor<float>({-1, 0, 0.5f, 2, -3, 1e-6f}, {2, 3}));
  // At 0 exactly, the gradient is 0, as TensorFlow's.
  ExpectValues<float>(*GetOutput(0), {0, 0, 3, 4, 0, 6}, 0);
  RunBinary<int32_t>("ReluGrad", test::AsTensor<int32_t>({7, 8, 9}),
                     test::AsTensor<int32_t>({-2, 0, 5}));
  ExpectValues<int32_t>(*GetOutput(0), {0, 0, 9}, 0);
}

TEST_F(GradOpTest, TanhGradIsOneMinusYSquared) {
  const std::vector<double> y = {-0.9, -0.2, 0, 0.5, 0.99};
  const std::vector<double> dy = {1, 2, -3, 0.5, 4};
  std::vector<double> want;
  for (size_t i = 0; i < y.size(); ++i)
    want.push_back(dy[i] * (1 - y[i] * y[i]));
  RunBinary<double>("TanhGrad", test::AsTensor<double>(y),
                    test::AsTensor<double>(dy));
  ExpectValues<double>(*GetOutput(0), want, 1e-15);
  RunBinary<float>("TanhGrad",
                   test::AsTensor<float>({-0.9f, -0.2f, 0, 0.5f, 0.99f}),
                   test::AsTensor<float>({1, 2, -3, 0.5f, 4}));
  ExpectValues<float>(*GetOutput(0), want, 1e-6);
}

TEST_F(GradOpTest, SigmoidGradIsYTimesOneMinusY) {
  const std::vector<double> y = {0.1, 0.5, 0.25, 0.9};
  const std::vector<double> dy = {1, -2, 3, 0.5};
  std::vector<double> want;
  for (size_t i = 0; i < y.size(); ++i)
    want.push_back(dy[i] * y[i] * (1 - y[i]));
  RunBinary<double>("SigmoidGrad", test::AsTensor<double>(y, {2, 2}),
                    test::AsTensor<double>(dy, {2, 2}));
  ExpectValues<double>(*GetOutput(0), want, 1e-15);
  RunBinary<float>("SigmoidGrad",
                   test::AsTensor<float>({0.1f, 0.5f, 0.25f, 0.9f}),
                   test::AsTensor<float>({1, -2, 3, 0.5f}));
  ExpectValues<float>(*GetOutput(0), want, 1e-6);
}

TEST_F(GradOpTest, EmptyInputsGiveEmptyOutput) {
  RunBinary<float>("TanhGrad", Tensor(DT_FLOAT, TensorShape({0, 3})),
                   Tensor(DT_FLOAT, TensorShape({0, 3})));
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0, 3}));
}

TEST_F(GradOpTest, RejectsInputsOfDifferentShapes) {
  for (const char* op : {"ReluGrad", "TanhGrad", "SigmoidGrad"}) {
    MakeNode(op).Input(DT_FLOAT).Input(DT_FLOAT);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::AsTensor<float>({1, 2, 3}));
    AddInputTensor(test::AsTensor<float>({1, 2}));
    EXPECT_THAT(RunOpKernel(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr(std::string(op) +
                                   "'s two inputs must have the same shape, "
                                   "but got [3] and [2]")));
  }
}

class BiasAddGradOpTest : public test::OpsTestBase {
 protected:
  // out[c] = sum of grad over every element of channel c.
  template <typename T>
  void Check(const TensorShape& shape, const std::string& data_format) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " "
                 << shape.DebugString() << " " << data_format);
    MakeNode("BiasAddGrad")
        .Input(DataTypeToEnum<T>::v())
        .Attr("data_format", data_format);
    MF_ASSERT_OK(MakeOp());
    const int channel_dim = data_format == "NCHW" ? 1 : shape.dims() - 1;
    const int64_t channels = shape.dim_size(channel_dim);
    int64_t inner = 1;
    for (int d = channel_dim + 1; d < shape.dims(); ++d) {
      inner *= shape.dim_size(d);
    }
    const Tensor grad = test::RandomTensor<T>(shape, 7);
    AddInputTensor(grad);
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(test::PredictedOutputShape(*node_def(), {grad.shape()}),
              GetOutput(0)->shape().DebugString());
    std::vector<double> ref(channels, 0.0);
    for (int64_t i = 0; i < grad.NumElements(); ++i) {
      ref[(i / inner) % channels] += test::ValueAt<T>(grad, i);
    }
    const int64_t per_channel =
        channels == 0 ? 0 : grad.NumElements() / channels;
    test::ExpectNearReference<T>(*GetOutput(0), TensorShape({channels}), ref,
                                 test::SumTolerance<T>(per_channel));
  }

  template <typename T>
  void Sweep() {
    for (const TensorShape& s :
         {TensorShape({3, 5}), TensorShape({2, 3, 7}),
          TensorShape({2, 3, 4, 5}), TensorShape({1, 1}),
          TensorShape({4, 0, 3}), TensorShape({2, 3, 2, 3, 4})}) {
      Check<T>(s, "NHWC");
      if (s.dims() >= 3) Check<T>(s, "NCHW");
    }
  }
};

TEST_F(BiasAddGradOpTest, FloatMatchesReference) { Sweep<float>(); }
TEST_F(BiasAddGradOpTest, DoubleMatchesReference) { Sweep<double>(); }
TEST_F(BiasAddGradOpTest, Int32MatchesReference) { Sweep<int32_t>(); }

TEST_F(BiasAddGradOpTest, RejectsTooFewDims) {
  MakeNode("BiasAddGrad").Input(DT_FLOAT).Attr("data_format", "NCHW");
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::AsTensor<float>({1, 2, 3, 4}, {2, 2}));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("out_backprop must be at least 3D for NCHW, "
                                 "but got shape [2,2]")));
  MakeNode("BiasAddGrad").Input(DT_FLOAT);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::AsTensor<float>({1, 2}));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("out_backprop must be at least 2D for NHWC")));
}

// SqrtGrad, RsqrtGrad, ReciprocalGrad: y is the forward output, so each
// is checked against the derivative written in terms of y.
TEST_F(GradOpTest, SqrtRsqrtReciprocalGradsFromOutput) {
  const std::vector<double> y = {0.25, 0.5, 1, 2, 3};
  const std::vector<double> dy = {1, -2, 0.5, 3, -1};
  struct Case {
    const char* op;
    double (*dx)(double y, double dy);
  };
  const Case cases[] = {
      {"SqrtGrad", [](double y, double dy) { return dy * 0.5 / y; }},
      {"RsqrtGrad", [](double y, double dy) { return -0.5 * dy * y * y * y; }},
      {"ReciprocalGrad", [](double y, double dy) { return -dy * y * y; }}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    std::vector<double> want;
    for (size_t i = 0; i < y.size(); ++i) want.push_back(c.dx(y[i], dy[i]));
    RunBinary<double>(c.op, test::AsTensor<double>(y, {5}),
                      test::AsTensor<double>(dy, {5}));
    ExpectValues<double>(*GetOutput(0), want, 1e-14);
    std::vector<float> yf(y.begin(), y.end()), dyf(dy.begin(), dy.end());
    RunBinary<float>(c.op, test::AsTensor<float>(yf, {5}),
                     test::AsTensor<float>(dyf, {5}));
    ExpectValues<float>(*GetOutput(0), want, 1e-5);
    RunBinary<Eigen::half>(
        c.op, test::AsTensor<Eigen::half>({Eigen::half(0.5), Eigen::half(2)}),
        test::AsTensor<Eigen::half>({Eigen::half(1), Eigen::half(-1)}));
    ExpectValues<Eigen::half>(*GetOutput(0), {c.dx(0.5, 1), c.dx(2, -1)}, 1e-2);
  }
}

TEST_F(GradOpTest, SqrtRsqrtReciprocalGradsRejectMismatchedShapes) {
  for (const char* op : {"SqrtGrad", "RsqrtGrad", "ReciprocalGrad"}) {
    MakeNode(op).Input(DT_DOUBLE).Input(DT_DOUBLE);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::AsTensor<double>({1, 2, 3, 4}, {2, 2}));
    AddInputTensor(test::AsTensor<double>({1, 2, 3, 4}, {4}));
    EXPECT_THAT(RunOpKernel(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr(std::string(op) +
                                   "'s two inputs must have the same shape, "
                                   "but got [2,2] and [4]")));
  }
}

TEST_F(GradOpTest, SqrtGradOfEmptyIsEmpty) {
  RunBinary<float>("SqrtGrad", Tensor(DT_FLOAT, TensorShape({2, 0})),
                   Tensor(DT_FLOAT, TensorShape({2, 0})));
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({2, 0}));
}

TEST_F(GradOpTest, SqrtGradRejectsIntegers) {
  MakeNode("SqrtGrad").Input(DT_INT32).Input(DT_INT32);
  EXPECT_FALSE(MakeOp().ok());
}

}  // namespace
}  // namespace minflow
