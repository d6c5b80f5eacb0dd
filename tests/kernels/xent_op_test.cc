// SoftmaxCrossEntropyWithLogits against a reference in double: equal
// shapes, broadcasting in either input, every type, and each input check.
#include <cmath>
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

// x of shape [rows, cols] (rank <= 2) read at [i, j] of the broadcast.
double At(const std::vector<double>& x, const TensorShape& shape, int64_t i,
          int64_t j) {
  const int64_t rows = shape.dims() == 2 ? shape.dim_size(0) : 1;
  const int64_t cols = shape.dims() >= 1 ? shape.dim_size(shape.dims() - 1) : 1;
  return x[(rows == 1 ? 0 : i) * cols + (cols == 1 ? 0 : j)];
}

class XentOpTest : public test::OpsTestBase {
 protected:
  template <typename T>
  Status Run(const TensorShape& logits_shape, const std::vector<double>& logits,
             const TensorShape& labels_shape,
             const std::vector<double>& labels) {
    MakeNode("SoftmaxCrossEntropyWithLogits")
        .Input(DataTypeToEnum<T>::v())
        .Input(DataTypeToEnum<T>::v());
    MF_RETURN_IF_ERROR(MakeOp());
    std::vector<T> l, y;
    for (double v : logits) l.push_back(static_cast<T>(v));
    for (double v : labels) y.push_back(static_cast<T>(v));
    AddInputFromArray<T>(logits_shape, absl::Span<const T>(l));
    AddInputFromArray<T>(labels_shape, absl::Span<const T>(y));
    return RunOpKernel();
  }

  // Random logits and labels (rows of labels sum to 1) of these shapes,
  // broadcast to [batch, classes], against the formula in double.
  template <typename T>
  void Check(const TensorShape& logits_shape, const TensorShape& labels_shape,
             int64_t batch, int64_t classes, double tol) {
    SCOPED_TRACE(::testing::Message() << DataTypeString(DataTypeToEnum<T>::v())
                                      << " " << logits_shape.DebugString()
                                      << " " << labels_shape.DebugString());
    auto rounded = [](const Tensor& t, double scale) {
      std::vector<double> v;
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        v.push_back(static_cast<double>(
            static_cast<T>(scale * std::abs(t.flat<double>()(i)))));
      }
      return v;
    };
    std::vector<double> logits =
        rounded(test::RandomTensor<double>(logits_shape, 5), 4);
    for (double& v : logits) v -= 2;
    const std::vector<double> labels =
        rounded(test::RandomTensor<double>(labels_shape, 6), 1);
    MF_ASSERT_OK(Run<T>(logits_shape, logits, labels_shape, labels));
    const Tensor& loss = *GetOutput(0);
    const Tensor& back = *GetOutput(1);
    ASSERT_EQ(loss.shape(), TensorShape({batch}));
    ASSERT_EQ(back.shape(), TensorShape({batch, classes}));
    for (int64_t i = 0; i < batch; ++i) {
      double max = At(logits, logits_shape, i, 0);
      for (int64_t j = 1; j < classes; ++j) {
        max = std::max(max, At(logits, logits_shape, i, j));
      }
      double sum = 0;
      for (int64_t j = 0; j < classes; ++j) {
        sum += std::exp(At(logits, logits_shape, i, j) - max);
      }
      double want_loss = 0;
      for (int64_t j = 0; j < classes; ++j) {
        const double l = At(logits, logits_shape, i, j);
        const double y = At(labels, labels_shape, i, j);
        want_loss += y * (std::log(sum) + max - l);
        EXPECT_NEAR(static_cast<double>(back.flat<T>()(i * classes + j)),
                    std::exp(l - max) / sum - y, tol)
            << "backprop " << i << "," << j;
      }
      EXPECT_NEAR(static_cast<double>(loss.flat<T>()(i)), want_loss,
                  tol * std::max(1.0, want_loss))
          << "loss " << i;
    }
  }
};

TEST_F(XentOpTest, MatchesReferenceForEveryType) {
  Check<float>({6, 10}, {6, 10}, 6, 10, 2e-6);
  Check<double>({130, 7}, {130, 7}, 130, 7, 1e-14);
  Check<Eigen::half>({3, 5}, {3, 5}, 3, 5, 1e-2);
  Check<bfloat16>({3, 5}, {3, 5}, 3, 5, 5e-2);
}

TEST_F(XentOpTest, BroadcastsEitherInput) {
  Check<float>({1, 4}, {3, 4}, 3, 4, 2e-6);    // one logits row
  Check<double>({3, 4}, {1, 4}, 3, 4, 1e-14);  // one labels row
  Check<double>({4}, {3, 4}, 3, 4, 1e-14);     // logits a vector
  Check<double>({3, 1}, {3, 4}, 3, 4, 1e-14);  // one logit per row
  Check<float>({2, 5}, {5}, 2, 5, 2e-6);       // labels a vector
}

TEST_F(XentOpTest, KnownValuesAndNoOverflow) {
  // Row 0 uniform: loss log(3) for a one-hot label. Row 1: exp(1000)
  // would overflow without the row's maximum subtracted.
  MF_ASSERT_OK(Run<float>({2, 3}, {2, 2, 2, 1000, 0, 0}, {2, 3},
                          {0, 1, 0, 0.5, 0.5, 0}));
  test::ExpectTensorNear<float>(
      *GetOutput(0), test::AsTensor<float>({std::log(3.0f), 500.0f}), 1e-3);
  test::ExpectTensorNear<float>(
      *GetOutput(1),
      test::AsTensor<float>({1 / 3.0f, 1 / 3.0f - 1, 1 / 3.0f, 0.5f, -0.5f, 0},
                            {2, 3}),
      1e-6);
}

TEST_F(XentOpTest, EmptyInputs) {
  MF_ASSERT_OK(Run<float>({0, 3}, {}, {0, 3}, {}));
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0}));
  EXPECT_EQ(GetOutput(1)->shape(), TensorShape({0, 3}));
  // No classes: each loss is an empty sum.
  MF_ASSERT_OK(Run<double>({2, 0}, {}, {2, 0}, {}));
  test::ExpectTensorEqual<double>(*GetOutput(0),
                                  test::AsTensor<double>({0, 0}));
}

TEST_F(XentOpTest, RejectsShapesThatDoNotBroadcastToAMatrix) {
  EXPECT_THAT(Run<float>({2, 3}, std::vector<double>(6), {3, 3},
                         std::vector<double>(9)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("SoftmaxCrossEntropyWithLogits: logits and "
                                 "labels must be broadcastable: "
                                 "logits_size=[2,3] labels_size=[3,3]")));
  // Broadcastable, but to rank 3.
  EXPECT_THAT(Run<float>({1, 2, 3}, std::vector<double>(6), {2, 3},
                         std::vector<double>(6)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("broadcasted to be 2-dimensional, but got "
                                 "logits [1,2,3] and labels [2,3]")));
  for (const TensorShape& shape :
       {TensorShape({3}), TensorShape({1, 1, 3}), TensorShape({})}) {
    const std::vector<double> v(shape.num_elements());
    EXPECT_THAT(Run<double>(shape, v, shape, v),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("logits and labels must be either "
                                   "2-dimensional, or broadcasted to be "
                                   "2-dimensional, but got logits " +
                                   shape.DebugString())));
  }
}

}  // namespace
}  // namespace minflow
