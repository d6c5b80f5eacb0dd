// SparseSoftmaxCrossEntropyWithLogits against a reference in double, for
// every logits and label type, and each input check.
#include <cmath>
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

// loss[i] = logsumexp(row) - row[label]; backprop = softmax - one_hot.
void Reference(const std::vector<double>& logits, int64_t classes,
               const std::vector<int64_t>& labels, std::vector<double>* loss,
               std::vector<double>* backprop) {
  loss->clear();
  backprop->clear();
  for (size_t i = 0; i < labels.size(); ++i) {
    const double* row = logits.data() + i * classes;
    double max = row[0];
    for (int64_t j = 1; j < classes; ++j) max = std::max(max, row[j]);
    double sum = 0;
    for (int64_t j = 0; j < classes; ++j) sum += std::exp(row[j] - max);
    loss->push_back(std::log(sum) + max - row[labels[i]]);
    for (int64_t j = 0; j < classes; ++j) {
      backprop->push_back(std::exp(row[j] - max) / sum -
                          (j == labels[i] ? 1 : 0));
    }
  }
}

class SparseXentOpTest : public test::OpsTestBase {
 protected:
  template <typename T, typename Index>
  Status Run(const TensorShape& logits_shape, const std::vector<double>& logits,
             const TensorShape& labels_shape,
             const std::vector<int64_t>& labels) {
    MakeNode("SparseSoftmaxCrossEntropyWithLogits")
        .Input(DataTypeToEnum<T>::v())
        .Input(DataTypeToEnum<Index>::v());
    MF_RETURN_IF_ERROR(MakeOp());
    std::vector<T> l;
    for (double v : logits) l.push_back(static_cast<T>(v));
    std::vector<Index> lab;
    for (int64_t v : labels) lab.push_back(static_cast<Index>(v));
    AddInputFromArray<T>(logits_shape, absl::Span<const T>(l));
    AddInputFromArray<Index>(labels_shape, absl::Span<const Index>(lab));
    return RunOpKernel();
  }

  template <typename T, typename Index>
  void CheckAgainstReference(int64_t batch, int64_t classes, double scale,
                             double tol) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " labels "
                 << DataTypeString(DataTypeToEnum<Index>::v()) << " [" << batch
                 << "," << classes << "]");
    const Tensor r = test::RandomTensor<double>({batch, classes}, 3);
    std::vector<double> logits;
    for (int64_t i = 0; i < r.NumElements(); ++i) {
      // Round through T, so the reference sees the kernel's inputs.
      logits.push_back(
          static_cast<double>(static_cast<T>(scale * r.flat<double>()(i))));
    }
    std::vector<int64_t> labels;
    for (int64_t i = 0; i < batch; ++i) labels.push_back((i * 7 + 3) % classes);
    MF_ASSERT_OK((Run<T, Index>({batch, classes}, logits, {batch}, labels)));
    std::vector<double> loss;
    std::vector<double> backprop;
    Reference(logits, classes, labels, &loss, &backprop);
    const Tensor& got_loss = *GetOutput(0);
    const Tensor& got_back = *GetOutput(1);
    ASSERT_EQ(got_loss.shape(), TensorShape({batch}));
    ASSERT_EQ(got_back.shape(), TensorShape({batch, classes}));
    for (int64_t i = 0; i < batch; ++i) {
      EXPECT_NEAR(static_cast<double>(got_loss.flat<T>()(i)), loss[i],
                  tol * std::max(1.0, std::abs(loss[i])))
          << "loss " << i;
    }
    for (int64_t i = 0; i < batch * classes; ++i) {
      EXPECT_NEAR(static_cast<double>(got_back.flat<T>()(i)), backprop[i], tol)
          << "backprop " << i;
    }
  }
};

TEST_F(SparseXentOpTest, MatchesReferenceForEveryType) {
  CheckAgainstReference<float, int32_t>(5, 10, 4, 2e-6);
  CheckAgainstReference<float, int64_t>(64, 10, 4, 2e-6);
  CheckAgainstReference<double, int32_t>(7, 3, 4, 1e-14);
  CheckAgainstReference<double, int64_t>(300, 33, 4, 1e-14);
  CheckAgainstReference<Eigen::half, int32_t>(4, 6, 2, 4e-3);
  CheckAgainstReference<bfloat16, int64_t>(4, 6, 2, 2e-2);
}

TEST_F(SparseXentOpTest, KnownValues) {
  // Row 0: uniform over 4 classes, loss log(4). Row 1: one class.
  MF_ASSERT_OK(
      (Run<float, int32_t>({2, 4}, {1, 1, 1, 1, 5, 5, 5, 5}, {2}, {3, 0})));
  test::ExpectTensorNear<float>(
      *GetOutput(0), test::AsTensor<float>({std::log(4.0f), std::log(4.0f)}),
      1e-6);
  test::ExpectTensorNear<float>(
      *GetOutput(1),
      test::AsTensor<float>(
          {0.25f, 0.25f, 0.25f, -0.75f, -0.75f, 0.25f, 0.25f, 0.25f}, {2, 4}),
      1e-6);
}

TEST_F(SparseXentOpTest, LargeLogitsDoNotOverflow) {
  // exp(1000) overflows even double; the row's maximum is subtracted
  // first. The loss of the far smaller class is the whole gap.
  MF_ASSERT_OK((Run<float, int64_t>({2, 2}, {1000, 0, 1000, 0}, {2}, {0, 1})));
  EXPECT_NEAR(GetOutput(0)->flat<float>()(0), 0, 1e-6);
  EXPECT_NEAR(GetOutput(0)->flat<float>()(1), 1000, 1e-3);
  test::ExpectTensorNear<float>(
      *GetOutput(1), test::AsTensor<float>({0, 0, 1, -1}, {2, 2}), 1e-6);
}

TEST_F(SparseXentOpTest, EmptyBatchGivesEmptyOutputs) {
  MF_ASSERT_OK((Run<float, int32_t>({0, 3}, {}, {0}, {})));
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0}));
  EXPECT_EQ(GetOutput(1)->shape(), TensorShape({0, 3}));
}

TEST_F(SparseXentOpTest, RejectsALabelOutOfRange) {
  for (int64_t bad : {int64_t{4}, int64_t{-1}}) {
    EXPECT_THAT(
        (Run<float, int64_t>({2, 4}, std::vector<double>(8, 0), {2}, {1, bad})),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 HasSubstr("SparseSoftmaxCrossEntropyWithLogits: "
                           "Received a label value of " +
                           std::to_string(bad) +
                           " which is outside the valid range of "
                           "[0, 4).  Label values: 1 " +
                           std::to_string(bad))));
  }
  EXPECT_THAT((Run<double, int32_t>({1, 3}, {0, 0, 0}, {1}, {3})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Received a label value of 3")));
}

TEST_F(SparseXentOpTest, RejectsWrongRanksAndSizes) {
  EXPECT_THAT((Run<float, int32_t>({4}, {0, 0, 0, 0}, {1}, {0})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("logits must be 2-D, but got shape [4]")));
  EXPECT_THAT((Run<float, int32_t>({1, 2}, {0, 0}, {1, 1}, {0})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("labels must be 1-D, but got shape [1,1]")));
  EXPECT_THAT((Run<float, int32_t>({2, 2}, {0, 0, 0, 0}, {3}, {0, 0, 0})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("logits and labels must have the same first "
                                 "dimension, got logits shape [2,2] and labels "
                                 "shape [3]")));
  EXPECT_THAT((Run<float, int32_t>({2, 0}, {}, {2}, {0, 0})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Must have at least one class, but got "
                                 "logits shape [2,0]")));
}

}  // namespace
}  // namespace minflow
