// The gradients of src/cc/gradients/reduction_grad.cc against central
// differences, in float and double, with the ties and zeros that the
// differences cannot see checked against worked-out values. Tolerances:
// float 2e-3 (1e-2 where products or norms run to a few units), double
// 1e-7.
#include <vector>

#include "gtest/gtest.h"
#include "minflow/cc/framework/gradients.h"
#include "minflow/cc/ops/standard_ops.h"
#include "tests/cc/gradients/grad_test_util.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using test::GradInput;
using test::GradTolerance;

template <typename T>
class ReductionGradTest : public test::GradCheckTest<T> {
 protected:
  // The gradient of sum(f(x)) at `x`, computed by the graph.
  template <typename Fn>
  Tensor GradientAt(const Tensor& x_value, Fn fn) {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root, DataTypeToEnum<T>::v());
    std::vector<Output> grads;
    EXPECT_TRUE(
        AddSymbolicGradients(root, {fn(root, Output(x))}, {x}, &grads).ok());
    ClientSession session(root);
    std::vector<Tensor> out;
    EXPECT_TRUE(session.Run({{x, x_value}}, {grads[0]}, &out).ok());
    return out.empty() ? Tensor() : out[0];
  }
};
TYPED_TEST_SUITE(ReductionGradTest, test::GradTypes);

constexpr GradTolerance kTight = {2e-3, 1e-7};
constexpr GradTolerance kLoose = {1e-2, 1e-7};

const std::vector<std::vector<int>>& AxisSets() {
  static const auto* axes = new std::vector<std::vector<int>>{
      {0}, {1}, {-1}, {0, 2}, {2, 0}, {0, 1, 2}, {}};
  return *axes;
}

TYPED_TEST(ReductionGradTest, MaxAndMinOverAnyAxes) {
  // Distinct random values: the extremum is unique, and moving it by the
  // step does not change which element it is.
  const GradInput x{TensorShape({2, 3, 4})};
  for (bool keep : {false, true}) {
    for (const std::vector<int>& axes : AxisSets()) {
      SCOPED_TRACE(::testing::Message()
                   << "keep_dims " << keep << " axes " << axes.size());
      const Tensor axes_t = test::AsTensor<int32_t>(axes);
      this->Check(
          {x},
          [&](const Scope& s, const std::vector<Output>& in) {
            return ops::Max(s, in[0], axes_t, ops::Max::KeepDims(keep)).output;
          },
          kTight);
      this->Check(
          {x},
          [&](const Scope& s, const std::vector<Output>& in) {
            return ops::Min(s, in[0], axes_t, ops::Min::KeepDims(keep)).output;
          },
          kTight);
    }
  }
}

TYPED_TEST(ReductionGradTest, MaxSplitsTiesEvenly) {
  using T = TypeParam;
  // Row 0 has a three-way tie at 5, row 1 a unique max of 4.
  const Tensor x = test::AsTensor<T>({5, 1, 5, 5, 0, 4, 2, 3}, {2, 4});
  const Tensor g = this->GradientAt(x, [](const Scope& s, const Output& in) {
    return ops::Max(s, in, 1).output;
  });
  const T third = T(1) / T(3);
  test::ExpectTensorNear<T>(
      g, test::AsTensor<T>({third, 0, third, third, 0, 1, 0, 0}, {2, 4}), 1e-6);
  // Min over every axis: the two zeros share the gradient.
  const Tensor gmin = this->GradientAt(test::AsTensor<T>({0, 2, 0, 1}),
                                       [](const Scope& s, const Output& in) {
                                         return ops::Min(s, in, 0).output;
                                       });
  test::ExpectTensorNear<T>(gmin, test::AsTensor<T>({0.5, 0, 0.5, 0}), 1e-6);
}

TYPED_TEST(ReductionGradTest, ProdOverAnyAxes) {
  // Values in [0.5, 1.5]: products of up to 24 stay near 1.
  const GradInput x{TensorShape({2, 3, 4}), 0.5, 1.5};
  for (bool keep : {false, true}) {
    for (const std::vector<int>& axes : AxisSets()) {
      SCOPED_TRACE(::testing::Message()
                   << "keep_dims " << keep << " axes " << axes.size());
      const Tensor axes_t = test::AsTensor<int32_t>(axes);
      this->Check(
          {x},
          [&](const Scope& s, const std::vector<Output>& in) {
            return ops::Prod(s, in[0], axes_t, ops::Prod::KeepDims(keep))
                .output;
          },
          kLoose);
    }
  }
  // A scalar int64 axis, and negative axes.
  this->Check(
      {x},
      [](const Scope& s, const std::vector<Output>& in) {
        return ops::Prod(s, in[0], int64_t{1}).output;
      },
      kLoose);
  this->Check(
      {x},
      [](const Scope& s, const std::vector<Output>& in) {
        return ops::Prod(s, in[0], {-1, 0}).output;
      },
      kLoose);
}

TYPED_TEST(ReductionGradTest, ProdGradientIsExactAtZeros) {
  using T = TypeParam;
  // One zero: its gradient is the product of the others, theirs 0.
  // Two zeros: every gradient is 0. No division, so no NaN.
  const Tensor g =
      this->GradientAt(test::AsTensor<T>({2, 0, 3, 0, 0, 5}, {2, 3}),
                       [](const Scope& s, const Output& in) {
                         return ops::Prod(s, in, 1).output;
                       });
  test::ExpectTensorEqual<T>(g, test::AsTensor<T>({0, 6, 0, 0, 0, 0}, {2, 3}));
}

TYPED_TEST(ReductionGradTest, L2LossAndEuclideanNorm) {
  this->Check(
      {{TensorShape({2, 3})}},
      [](const Scope& s, const std::vector<Output>& in) -> Output {
        return ops::L2Loss(s, in[0]);
      },
      kTight);
  // Entries of one sign keep every norm away from 0.
  const GradInput x{TensorShape({2, 3, 4}), 0.5, 1.5};
  for (bool keep : {false, true}) {
    for (const std::vector<int>& axes : AxisSets()) {
      SCOPED_TRACE(::testing::Message()
                   << "keep_dims " << keep << " axes " << axes.size());
      const Tensor axes_t = test::AsTensor<int32_t>(axes);
      this->Check(
          {x},
          [&](const Scope& s, const std::vector<Output>& in) {
            return ops::EuclideanNorm(s, in[0], axes_t,
                                      ops::EuclideanNorm::KeepDims(keep))
                .output;
          },
          kTight);
    }
  }
}

TYPED_TEST(ReductionGradTest, CumsumAndCumprodEveryDirection) {
  const GradInput x{TensorShape({3, 4})};
  // Cumprod divides by x: values away from 0.
  const GradInput nonzero{TensorShape({3, 4}), 0.5, 1.5};
  for (bool exclusive : {false, true}) {
    for (bool reverse : {false, true}) {
      for (int axis : {0, 1, -1}) {
        SCOPED_TRACE(::testing::Message()
                     << "exclusive " << exclusive << " reverse " << reverse
                     << " axis " << axis);
        this->Check(
            {x},
            [=](const Scope& s, const std::vector<Output>& in) -> Output {
              return ops::Cumsum(
                  s, in[0], axis,
                  ops::Cumsum::Exclusive(exclusive).Reverse(reverse));
            },
            kTight);
        this->Check(
            {nonzero},
            [=](const Scope& s, const std::vector<Output>& in) -> Output {
              return ops::Cumprod(
                  s, in[0], axis,
                  ops::Cumprod::Exclusive(exclusive).Reverse(reverse));
            },
            kTight);
      }
    }
  }
}

TYPED_TEST(ReductionGradTest, SegmentSums) {
  const Tensor sorted = test::AsTensor<int32_t>({0, 0, 1, 3});
  this->Check(
      {{TensorShape({4, 3})}},
      [&](const Scope& s, const std::vector<Output>& in) -> Output {
        return ops::SegmentSum(s, in[0], sorted);
      },
      kTight);
  // Unsorted, with a negative id (that slice is dropped: gradient 0) and
  // ids of two dimensions.
  const Tensor ids = test::AsTensor<int64_t>({2, -1, 0, 2, 1, 0}, {2, 3});
  this->Check(
      {{TensorShape({2, 3, 2})}},
      [&](const Scope& s, const std::vector<Output>& in) -> Output {
        return ops::UnsortedSegmentSum(s, in[0], ids, 4);
      },
      kTight);
  const Tensor g = this->GradientAt(
      test::AsTensor<TypeParam>({1, 2, 3}),
      [](const Scope& s, const Output& in) -> Output {
        auto sums = ops::UnsortedSegmentSum(
            s, in, test::AsTensor<int32_t>({1, -1, 0}), 2);
        // Weights 10 and 20 on the two segments.
        return ops::Mul(s, sums,
                        ops::Cast(s, test::AsTensor<float>({10, 20}),
                                  DataTypeToEnum<TypeParam>::v()));
      });
  test::ExpectTensorEqual<TypeParam>(g, test::AsTensor<TypeParam>({20, 0, 10}));
}

TYPED_TEST(ReductionGradTest, UnsortedSegmentMaxAndMin) {
  // Distinct random values, a negative id, ids of two dimensions, and a
  // segment (3) that no id names.
  const Tensor ids = test::AsTensor<int32_t>({2, -1, 0, 2, 1, 0}, {2, 3});
  this->Check(
      {{TensorShape({2, 3, 2})}},
      [&](const Scope& s, const std::vector<Output>& in) -> Output {
        return ops::UnsortedSegmentMax(s, in[0], ids, 4);
      },
      kTight);
  this->Check(
      {{TensorShape({2, 3, 2})}},
      [&](const Scope& s, const std::vector<Output>& in) -> Output {
        return ops::UnsortedSegmentMin(s, in[0], ids, 4);
      },
      kTight);
  // Segment 0 = max(4, 1, 4): a tie, each 4 gets half; segment 1 = 7;
  // the element with id -1 gets nothing. Weights 10 and 20 per segment.
  const Tensor g = this->GradientAt(
      test::AsTensor<TypeParam>({4, 7, 1, 4, 9}),
      [](const Scope& s, const Output& in) -> Output {
        auto maxes = ops::UnsortedSegmentMax(
            s, in, test::AsTensor<int64_t>({0, 1, 0, 0, -1}), 2);
        return ops::Mul(s, maxes,
                        ops::Cast(s, test::AsTensor<float>({10, 20}),
                                  DataTypeToEnum<TypeParam>::v()));
      });
  test::ExpectTensorEqual<TypeParam>(
      g, test::AsTensor<TypeParam>({5, 20, 0, 5, 0}));
}

}  // namespace
}  // namespace minflow
