// The neural-network gradients against central differences, in float and
// double. Tolerances: kTol (float 2e-3, double 1e-7) for the piecewise
// linear ops, where only rounding separates the two Jacobians; kSmoothTol
// for the smooth ones, whose differences also carry the step's curvature
// error (step 1e-3 in float, 1e-6 in double).
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/cc/ops/standard_ops.h"
#include "tests/cc/gradients/grad_test_util.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using test::GradTolerance;

template <typename T>
class NnGradTest : public test::GradCheckTest<T> {};
TYPED_TEST_SUITE(NnGradTest, test::GradTypes);

constexpr GradTolerance kTol = {2e-3, 1e-7};
constexpr GradTolerance kSmoothTol = {2e-3, 1e-8};

TYPED_TEST(NnGradTest, Relu) {
  // Relu's kink at 0 is no place for differences: inputs keep |x| >= 0.1
  // (the step is 1e-3).
  this->Check(
      {{TensorShape({3, 4}), -1, 1, 0.1}},
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::Relu(s, x[0]).activations;
      },
      kTol);
}

TYPED_TEST(NnGradTest, BiasAddBothLayouts) {
  for (const char* format : {"NHWC", "NCHW"}) {
    SCOPED_TRACE(format);
    const TensorShape value = std::string(format) == "NHWC"
                                  ? TensorShape({2, 3, 2, 4})
                                  : TensorShape({2, 4, 3, 2});
    this->Check(
        {{value}, {TensorShape({4})}},
        [format](const Scope& s, const std::vector<Output>& x) {
          return ops::BiasAdd(s, x[0], x[1], ops::BiasAdd::DataFormat(format))
              .output;
        },
        kTol);
  }
  // Rank 2.
  this->Check(
      {{TensorShape({3, 5})}, {TensorShape({5})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::BiasAdd(s, x[0], x[1]).output;
      },
      kTol);
}

// Inputs keep |x| >= 0.1 off the kinks at 0 (and the step is 1e-3).
TYPED_TEST(NnGradTest, Relu6) {
  // [-2, 8) reaches past the cap at 6; the values drawn keep 1e-3 from it.
  this->Check(
      {{TensorShape({4, 5}), -2, 8, 0.1}},
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::Relu6(s, x[0]).activations;
      },
      kTol);
}

TYPED_TEST(NnGradTest, Elu) {
  this->Check(
      {{TensorShape({3, 4}), -2, 2, 0.1}},
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::Elu(s, x[0]).activations;
      },
      kSmoothTol);
}

TYPED_TEST(NnGradTest, Selu) {
  this->Check(
      {{TensorShape({3, 4}), -2, 2, 0.1}},
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::Selu(s, x[0]).activations;
      },
      kSmoothTol);
}

TYPED_TEST(NnGradTest, LeakyRelu) {
  for (float alpha : {0.2f, 0.7f}) {
    this->Check(
        {{TensorShape({3, 4}), -2, 2, 0.1}},
        [alpha](const Scope& s, const std::vector<Output>& x) {
          return ops::LeakyRelu(s, x[0], ops::LeakyRelu::Alpha(alpha))
              .activations;
        },
        kTol);
  }
}

TYPED_TEST(NnGradTest, Softplus) {
  this->Check(
      {{TensorShape({3, 4}), -4, 4}},
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::Softplus(s, x[0]).activations;
      },
      kSmoothTol);
}

TYPED_TEST(NnGradTest, Softsign) {
  this->Check(
      {{TensorShape({3, 4}), -3, 3, 0.1}},
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::Softsign(s, x[0]).activations;
      },
      kSmoothTol);
}

TYPED_TEST(NnGradTest, Softmax) {
  this->Check(
      {{TensorShape({3, 5}), -2, 2}},
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::Softmax(s, x[0]).softmax;
      },
      kSmoothTol);
  // Rank 3: the last axis is the one normalised.
  this->Check(
      {{TensorShape({2, 2, 3}), -2, 2}},
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::Softmax(s, x[0]).softmax;
      },
      kSmoothTol);
}

TYPED_TEST(NnGradTest, LogSoftmax) {
  this->Check(
      {{TensorShape({4, 3}), -2, 2}},
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::LogSoftmax(s, x[0]).logsoftmax;
      },
      kSmoothTol);
}

TYPED_TEST(NnGradTest, SparseSoftmaxCrossEntropyLoss) {
  for (DataType label_type : {DT_INT32, DT_INT64}) {
    SCOPED_TRACE(DataTypeString(label_type));
    this->Check(
        {{TensorShape({4, 5}), -3, 3}},
        [label_type](const Scope& s, const std::vector<Output>& x) {
          auto labels = ops::Cast(s, ops::Const(s, {0, 4, 2, 2}), label_type);
          return ops::SparseSoftmaxCrossEntropyWithLogits(s, x[0], labels).loss;
        },
        kSmoothTol);
  }
}

// A gradient reaching backprop adds the softmax's Jacobian (Note
// [Cross-entropy gradients]): here only backprop is differentiated.
TYPED_TEST(NnGradTest, SparseSoftmaxCrossEntropyBackprop) {
  this->Check(
      {{TensorShape({3, 4}), -2, 2}},
      [](const Scope& s, const std::vector<Output>& x) {
        auto labels = ops::Const(s, test::AsTensor<int64_t>({3, 0, 1}));
        return ops::SparseSoftmaxCrossEntropyWithLogits(s, x[0], labels)
            .backprop;
      },
      kSmoothTol);
  // Both outputs feed y.
  this->Check(
      {{TensorShape({3, 4}), -2, 2}},
      [](const Scope& s, const std::vector<Output>& x) {
        auto labels = ops::Const(s, {1, 1, 2});
        auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(s, x[0], labels);
        return ops::Add(s, ops::Reshape(s, xent.loss, {-1, 1}), xent.backprop)
            .z;
      },
      kSmoothTol);
}

// The labels are softmax(x[1]), so each row sums to 1 as the op's
// backprop assumes; their gradient flows back through Softmax.
TYPED_TEST(NnGradTest, SoftmaxCrossEntropyLossAndLabels) {
  const auto xent = [](const Scope& s, const std::vector<Output>& x) {
    return ops::SoftmaxCrossEntropyWithLogits(s, x[0], ops::Softmax(s, x[1]))
        .loss;
  };
  this->Check({{TensorShape({3, 4}), -3, 3}, {TensorShape({3, 4}), -2, 2}},
              xent, kSmoothTol);
  // Broadcasting: one row of logits for the batch, and one row of labels.
  this->Check({{TensorShape({1, 4}), -3, 3}, {TensorShape({3, 4}), -2, 2}},
              xent, kSmoothTol);
  this->Check({{TensorShape({3, 4}), -3, 3}, {TensorShape({1, 4}), -2, 2}},
              xent, kSmoothTol);
}

TYPED_TEST(NnGradTest, SoftmaxCrossEntropyBackprop) {
  this->Check(
      {{TensorShape({3, 4}), -2, 2}, {TensorShape({3, 4}), -2, 2}},
      [](const Scope& s, const std::vector<Output>& x) {
        auto xent =
            ops::SoftmaxCrossEntropyWithLogits(s, x[0], ops::Softmax(s, x[1]));
        return ops::Add(s, ops::Reshape(s, xent.loss, {-1, 1}), xent.backprop)
            .z;
      },
      kSmoothTol);
}

// FusedBatchNorm takes float x only (TensorFlow's OpDefs), so these run in
// float alone. x, scale and offset are differentiated; mean and variance
// get no gradient. Tolerance 5e-3: training normalises by the batch's
// own statistics, which the float differences carry with more rounding.
class FusedBatchNormGradTest : public test::GradCheckTest<float> {
 protected:
  static constexpr GradTolerance kBnTol = {5e-3, 0};

  void CheckBatchNorm(const char* op, const TensorShape& x, const char* format,
                      bool training) {
    SCOPED_TRACE(::testing::Message() << op << " " << x.DebugString() << " "
                                      << format << " training " << training);
    const int cdim = format[1] == 'C' ? 1 : x.dims() - 1;
    const TensorShape vec({x.dim_size(cdim)});
    const std::string type = op;
    Check(
        {{x, -1, 1}, {vec, 0.5, 1.5}, {vec}},
        [&](const Scope& s, const std::vector<Output>& in) {
          const Tensor mean = test::RandomUniform<float>(vec, -0.5, 0.5, 5);
          const Tensor var = test::RandomUniform<float>(vec, 0.5, 1.5, 6);
          if (type == "FusedBatchNorm") {
            return ops::FusedBatchNorm(
                       s, in[0], in[1], in[2], mean, var,
                       ops::FusedBatchNorm::DataFormat(format).IsTraining(
                           training))
                .y;
          }
          if (type == "FusedBatchNormV2") {
            return ops::FusedBatchNormV2(
                       s, in[0], in[1], in[2], mean, var,
                       ops::FusedBatchNormV2::DataFormat(format).IsTraining(
                           training))
                .y;
          }
          return ops::FusedBatchNormV3(
                     s, in[0], in[1], in[2], mean, var,
                     ops::FusedBatchNormV3::DataFormat(format).IsTraining(
                         training))
              .y;
        },
        kBnTol);
  }
};

TEST_F(FusedBatchNormGradTest, EveryVersionBothModesBothLayouts) {
  for (const char* op :
       {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    for (bool training : {true, false}) {
      CheckBatchNorm(op, TensorShape({2, 2, 3, 3}), "NHWC", training);
      CheckBatchNorm(op, TensorShape({2, 3, 2, 2}), "NCHW", training);
    }
  }
}

TEST_F(FusedBatchNormGradTest, FiveDimensionalV3) {
  CheckBatchNorm("FusedBatchNormV3", TensorShape({2, 2, 2, 2, 3}), "NDHWC",
                 true);
  CheckBatchNorm("FusedBatchNormV3", TensorShape({2, 3, 2, 2, 2}), "NCDHW",
                 false);
}

}  // namespace
}  // namespace minflow
