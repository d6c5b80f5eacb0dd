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

class BiasAddOpTest : public test::OpsTestBase {
 protected:
  Status Make(DataType dtype, const std::string& data_format) {
    MakeNode("BiasAdd").Input(dtype).Input(dtype).Attr("data_format",
                                                       data_format);
    return MakeOp();
  }

  // Reference: the channel of flat index i from its coordinates.
  template <typename T>
  void Check(const TensorShape& shape, const std::string& data_format) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " "
                 << shape.DebugString() << " " << data_format);
    MF_ASSERT_OK(Make(DataTypeToEnum<T>::v(), data_format));
    const int channel_dim = data_format == "NCHW" ? 1 : shape.dims() - 1;
    const int64_t channels = shape.dim_size(channel_dim);
    int64_t inner = 1;
    for (int d = channel_dim + 1; d < shape.dims(); ++d) {
      inner *= shape.dim_size(d);
    }
    const Tensor value = test::RandomTensor<T>(shape, 5);
    const Tensor bias = test::RandomTensor<T>(TensorShape({channels}), 6);
    AddInputTensor(value);
    AddInputTensor(bias);
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(
        test::PredictedOutputShape(*node_def(), {value.shape(), bias.shape()}),
        GetOutput(0)->shape().DebugString());
    std::vector<double> ref(value.NumElements());
    for (int64_t i = 0; i < value.NumElements(); ++i) {
      const int64_t c = (i / inner) % channels;
      ref[i] = test::ValueAt<T>(value, i) + test::ValueAt<T>(bias, c);
    }
    test::ExpectNearReference<T>(*GetOutput(0), shape, ref,
                                 test::SumTolerance<T>(1));
  }

  template <typename T>
  void Sweep() {
    const std::vector<TensorShape> shapes = {
        TensorShape({3, 5}),       TensorShape({2, 3, 7}),
        TensorShape({2, 3, 4, 5}), TensorShape({2, 3, 2, 3, 4}),
        TensorShape({1, 1}),       TensorShape({2, 3, 4, 2, 1, 3})};
    for (const TensorShape& s : shapes) {
      Check<T>(s, "NHWC");
      if (s.dims() >= 3) Check<T>(s, "NCHW");
    }
  }
};

TEST_F(BiasAddOpTest, FloatMatchesReference) { Sweep<float>(); }
TEST_F(BiasAddOpTest, DoubleMatchesReference) { Sweep<double>(); }
TEST_F(BiasAddOpTest, Int32MatchesReference) { Sweep<int32_t>(); }
TEST_F(BiasAddOpTest, Int64MatchesReference) { Sweep<int64_t>(); }
TEST_F(BiasAddOpTest, HalfMatchesReference) { Sweep<half>(); }
TEST_F(BiasAddOpTest, Bfloat16MatchesReference) { Sweep<bfloat16>(); }

TEST_F(BiasAddOpTest, LargeInputIsCorrect) {
  Check<float>(TensorShape({8, 64, 64, 33}), "NHWC");
  Check<float>(TensorShape({8, 33, 64, 64}), "NCHW");
}

TEST_F(BiasAddOpTest, SmallKnownValues) {
  MF_ASSERT_OK(Make(DT_FLOAT, "NCHW"));
  AddInputFromArray<float>(TensorShape({1, 2, 2}), {1, 2, 3, 4});
  AddInputFromArray<float>(TensorShape({2}), {10, 20});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({11, 12, 23, 24}, TensorShape({1, 2, 2})));
}

TEST_F(BiasAddOpTest, EmptyInputGivesEmptyOutput) {
  MF_ASSERT_OK(Make(DT_FLOAT, "NHWC"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3})));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[0,3]");
}

TEST_F(BiasAddOpTest, RejectsRankOneInput) {
  MF_ASSERT_OK(Make(DT_FLOAT, "NHWC"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Input tensor must be at least 2D: [3]")));
}

TEST_F(BiasAddOpTest, RejectsRankTwoInputForNchw) {
  MF_ASSERT_OK(Make(DT_FLOAT, "NCHW"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Input tensor must be at least 3D for data "
                                 "format NCHW: [2,3]")));
}

TEST_F(BiasAddOpTest, RejectsMatrixBias) {
  MF_ASSERT_OK(Make(DT_FLOAT, "NHWC"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 3})));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("Biases must be 1D: [1,3]")));
}

TEST_F(BiasAddOpTest, RejectsBiasOfWrongLength) {
  MF_ASSERT_OK(Make(DT_FLOAT, "NHWC"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({4})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Must provide as many biases as the last "
                                 "dimension of the input tensor: [4] vs. "
                                 "[2,3]")));
}

TEST_F(BiasAddOpTest, RejectsBiasOfWrongLengthForNchw) {
  MF_ASSERT_OK(Make(DT_FLOAT, "NCHW"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 3, 4})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({4})));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("[4] vs. [2,3,4]")));
}

TEST_F(BiasAddOpTest, RejectsUnknownDataFormat) {
  // The OpDef's allowed values stop it before the kernel's own check.
  EXPECT_THAT(Make(DT_FLOAT, "NCDHW"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("NCDHW")));
}

}  // namespace
}  // namespace minflow
