// Softmax and LogSoftmax against a per-row double-precision reference.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "tests/kernels/cwise_test_util.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

class SoftmaxOpTest : public test::CwiseOpsTestBase {
 protected:
  template <typename T>
  void Check(bool log, const TensorShape& shape, double lo = -10,
             double hi = 10) {
    const std::string op = log ? "LogSoftmax" : "Softmax";
    SCOPED_TRACE(::testing::Message()
                 << op << " " << DataTypeString(DataTypeToEnum<T>::v()) << " "
                 << shape.DebugString());
    MakeNode(op).Input(DataTypeToEnum<T>::v());
    MF_ASSERT_OK(MakeOp());
    const Tensor x = test::RandomValues<T>(shape, 3, lo, hi);
    AddInputTensor(x);
    MF_ASSERT_OK(RunOpKernel());
    const int64_t classes = shape.dim_size(shape.dims() - 1);
    const int64_t rows = classes == 0 ? 0 : shape.num_elements() / classes;
    std::vector<double> want(shape.num_elements());
    for (int64_t r = 0; r < rows; ++r) {
      double max = -INFINITY;
      for (int64_t c = 0; c < classes; ++c) {
        max = std::max(max, test::ElementAt<T>(x, r * classes + c));
      }
      double sum = 0;
      for (int64_t c = 0; c < classes; ++c) {
        sum += std::exp(test::ElementAt<T>(x, r * classes + c) - max);
      }
      for (int64_t c = 0; c < classes; ++c) {
        const double shifted = test::ElementAt<T>(x, r * classes + c) - max;
        want[r * classes + c] =
            log ? shifted - std::log(sum) : std::exp(shifted) / sum;
      }
    }
    test::Tolerance tol = test::MathTolerance<T>();
    tol.atol *= 4;
    tol.rtol *= 4;
    test::ExpectMatches<T>(*GetOutput(0), shape, want, tol);
    ExpectShapeFnAgrees();
  }

  template <typename T>
  void Sweep(bool log) {
    for (const TensorShape& shape :
         {TensorShape({1}), TensorShape({7}), TensorShape({3, 10}),
          TensorShape({2, 3, 17}), TensorShape({0, 5}), TensorShape({4, 0})}) {
      Check<T>(log, shape);
    }
  }
};

TEST_P(SoftmaxOpTest, Softmax) {
  Sweep<float>(false);
  Sweep<double>(false);
  Sweep<half>(false);
  Sweep<bfloat16>(false);
}

TEST_P(SoftmaxOpTest, LogSoftmax) {
  Sweep<float>(true);
  Sweep<double>(true);
  Sweep<half>(true);
  Sweep<bfloat16>(true);
}

TEST_P(SoftmaxOpTest, LargeLogitsAreStable) {
  Check<float>(false, TensorShape({4, 33}), 500, 1000);
  Check<float>(true, TensorShape({4, 33}), -1000, -500);
}

TEST_P(SoftmaxOpTest, LargeInputsAreSharded) {
  Check<float>(false, TensorShape({1024, 1000}));
  Check<float>(true, TensorShape({3, 300000}));
}

TEST_P(SoftmaxOpTest, WritesInPlaceWhenTheInputCanBeForwarded) {
  MakeNode("Softmax").Input(DT_FLOAT);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<float>(TensorShape({2, 2}), {0, 0, 1, 1});
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)));
  test::ExpectTensorNear<float>(
      *GetOutput(0),
      test::AsTensor<float>({0.5, 0.5, 0.5, 0.5}, TensorShape({2, 2})));
}

TEST_P(SoftmaxOpTest, RejectsScalars) {
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    MakeNode(op).Input(DT_FLOAT);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::AsScalar<float>(1));
    EXPECT_THAT(RunOpKernel(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("logits must have >= 1 dimension, got []")));
  }
}

MF_INSTANTIATE_KERNEL_TEST_DEVICES(SoftmaxOpTest);

}  // namespace
}  // namespace minflow
