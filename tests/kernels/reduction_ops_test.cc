// Sum, Mean, Prod, Max and Min against a naive reference over every axis
// subset of ranks 0 to 5, with keep_dims, negative and int64 axes, empty
// inputs and TensorFlow's identities.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
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

enum class Kind { kSum, kMean, kProd, kMax, kMin };

const char* OpName(Kind k) {
  switch (k) {
    case Kind::kSum:
      return "Sum";
    case Kind::kMean:
      return "Mean";
    case Kind::kProd:
      return "Prod";
    case Kind::kMax:
      return "Max";
    case Kind::kMin:
      return "Min";
  }
  return "";
}

constexpr Kind kKinds[] = {Kind::kSum, Kind::kMean, Kind::kProd, Kind::kMax,
                           Kind::kMin};

// The reduction of `values` in double (integers: Mean truncates, as TF).
template <typename T>
double Reduce(Kind k, const std::vector<double>& values) {
  constexpr bool kInt = std::is_integral<T>::value;
  double acc = 0;
  switch (k) {
    case Kind::kSum:
    case Kind::kMean:
      for (double v : values) acc += v;
      if (k == Kind::kMean) {
        if (values.empty()) {
          return kInt ? 0 : std::numeric_limits<double>::quiet_NaN();
        }
        acc /= static_cast<double>(values.size());
        if (kInt) acc = std::trunc(acc);
      }
      return acc;
    case Kind::kProd:
      acc = 1;
      for (double v : values) acc *= v;
      return acc;
    case Kind::kMax:
      acc = kInt ? static_cast<double>(std::numeric_limits<T>::lowest())
                 : -INFINITY;
      for (double v : values) acc = std::isnan(v) || v > acc ? v : acc;
      return acc;
    case Kind::kMin:
      acc =
          kInt ? static_cast<double>(std::numeric_limits<T>::max()) : INFINITY;
      for (double v : values) acc = std::isnan(v) || v < acc ? v : acc;
      return acc;
  }
  return acc;
}

class ReductionOpTest : public test::CwiseOpsTestBase {
 protected:
  template <typename T, typename Tidx = int32_t>
  Status Run(Kind k, const Tensor& data, const std::vector<Tidx>& axes,
             bool keep_dims) {
    MakeNode(OpName(k))
        .Input(DataTypeToEnum<T>::v())
        .Input(DataTypeToEnum<Tidx>::v())
        .Attr("keep_dims", keep_dims);
    MF_RETURN_IF_ERROR(MakeOp());
    AddInputTensor(data);
    AddInputTensor(test::AsTensor<Tidx>(absl::Span<const Tidx>(axes)));
    return RunOpKernel();
  }

  // Reduces `data` over `axes` and compares with the naive reference.
  template <typename T, typename Tidx = int32_t>
  void Check(Kind k, const Tensor& data, const std::vector<Tidx>& axes,
             bool keep_dims) {
    SCOPED_TRACE(::testing::Message()
                 << OpName(k) << " " << DataTypeString(DataTypeToEnum<T>::v())
                 << " " << data.shape().DebugString() << " axes "
                 << ::testing::PrintToString(axes) << " keep " << keep_dims);
    MF_ASSERT_OK((Run<T, Tidx>(k, data, axes, keep_dims)));
    const int rank = data.dims();
    std::vector<bool> reduced(rank, false);
    for (Tidx a : axes) reduced[a < 0 ? a + rank : a] = true;
    std::vector<int64_t> out_dims;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) {
        out_dims.push_back(data.dim_size(d));
      } else if (keep_dims) {
        out_dims.push_back(1);
      }
    }
    const TensorShape out_shape{absl::Span<const int64_t>(out_dims)};
    // Group input elements by the output element they reduce into.
    std::vector<std::vector<double>> groups(out_shape.num_elements());
    for (int64_t i = 0; i < data.NumElements(); ++i) {
      int64_t rem = i;
      int64_t out_index = 0;
      int64_t out_stride = 1;
      for (int d = rank - 1; d >= 0; --d) {
        const int64_t coord = rem % data.dim_size(d);
        rem /= data.dim_size(d);
        if (!reduced[d]) {
          out_index += coord * out_stride;
          out_stride *= data.dim_size(d);
        }
      }
      groups[out_index].push_back(test::ElementAt<T>(data, i));
    }
    std::vector<double> want;
    int64_t max_group = 1;
    for (const auto& g : groups) {
      want.push_back(Reduce<T>(k, g));
      max_group = std::max<int64_t>(max_group, g.size());
    }
    test::Tolerance tol = test::MathTolerance<T>();
    if (k == Kind::kSum || k == Kind::kMean) {
      // Reassociated sums: a few roundings of the running sum per term.
      tol.atol *= 10 * static_cast<double>(max_group);
    }
    if (k == Kind::kProd) tol.rtol *= 4 * static_cast<double>(max_group);
    test::ExpectMatches<T>(*GetOutput(0), out_shape, want, tol);
    ExpectShapeFnAgrees();
  }

  // Every subset of axes of `shape`, with and without keep_dims; values in
  // a range where Prod stays finite.
  template <typename T>
  void SweepAxes(Kind k, const TensorShape& shape) {
    double lo = -10;
    double hi = 10;
    if (k == Kind::kProd) {
      // Integers: -1, 0 or 1, so products cannot overflow.
      lo = std::is_integral<T>::value ? -1.99 : 0.5;
      hi = std::is_integral<T>::value ? 1.99 : 1.5;
    }
    const Tensor data =
        test::RandomValues<T>(shape, shape.num_elements(), lo, hi);
    const int rank = shape.dims();
    for (int mask = 0; mask < (1 << rank); ++mask) {
      std::vector<int32_t> axes;
      for (int d = 0; d < rank; ++d) {
        // Alternate positive and negative spellings of the same axis.
        if (mask & (1 << d)) axes.push_back(mask % 2 ? d - rank : d);
      }
      Check<T>(k, data, axes, mask % 3 == 0);
    }
  }
};

TEST_P(ReductionOpTest, EveryAxisSubsetUpToRankFive) {
  for (Kind k : kKinds) {
    for (const TensorShape& shape :
         {TensorShape({}), TensorShape({7}), TensorShape({3, 4}),
          TensorShape({2, 1, 5}), TensorShape({2, 3, 4, 2}),
          TensorShape({2, 3, 1, 2, 3})}) {
      SweepAxes<float>(k, shape);
    }
  }
}

TEST_P(ReductionOpTest, EveryRegisteredType) {
  for (Kind k : kKinds) {
    for (const TensorShape& shape :
         {TensorShape({6}), TensorShape({3, 4}), TensorShape({2, 3, 4}),
          TensorShape({2, 3, 2, 3})}) {
      SweepAxes<double>(k, shape);
      SweepAxes<int32_t>(k, shape);
      SweepAxes<int64_t>(k, shape);
      SweepAxes<half>(k, shape);
      SweepAxes<bfloat16>(k, shape);
    }
  }
}

TEST_P(ReductionOpTest, Int64Axes) {
  const Tensor data =
      test::RandomValues<float>(TensorShape({3, 4, 5}), 1, -1, 1);
  Check<float, int64_t>(Kind::kSum, data, {-1, 0}, false);
  Check<float, int64_t>(Kind::kMax, data, {1}, true);
}

TEST_P(ReductionOpTest, EmptyReductionsGiveIdentities) {
  const Tensor empty(DT_FLOAT, TensorShape({0, 3}));
  for (Kind k : kKinds) {
    Check<float>(k, empty, {0}, false);  // [3] of identities
    Check<float>(k, empty, {1}, true);   // [0,1]: nothing
    Check<float>(k, empty, {0, 1}, false);
  }
  for (Kind k : kKinds) {
    Check<int32_t>(k, Tensor(DT_INT32, TensorShape({2, 0})), {1}, false);
    Check<half>(k, Tensor(DT_HALF, TensorShape({2, 0})), {1}, false);
  }
  // The values themselves, as TensorFlow gives them.
  MF_ASSERT_OK(Run<float>(Kind::kMax, empty, {0}, false));
  EXPECT_EQ(GetOutput(0)->flat<float>()(0), -INFINITY);
  MF_ASSERT_OK(
      Run<int32_t>(Kind::kMin, Tensor(DT_INT32, TensorShape({0})), {0}, false));
  EXPECT_EQ(GetOutput(0)->scalar<int32_t>()(), 2147483647);
  MF_ASSERT_OK(Run<float>(Kind::kMean, empty, {0}, false));
  EXPECT_TRUE(std::isnan(GetOutput(0)->flat<float>()(0)));
}

TEST_P(ReductionOpTest, ReducingNothingReturnsTheInput) {
  const Tensor data =
      test::RandomValues<float>(TensorShape({2, 1, 3}), 2, -1, 1);
  for (Kind k : kKinds) {
    Check<float>(k, data, {}, false);
    Check<float>(k, data, {1}, false);
    EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)));
  }
}

TEST_P(ReductionOpTest, MaxAndMinPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> v(50, 1.0f);
  v[17] = nan;
  const Tensor data = test::AsTensor<float>(absl::Span<const float>(v));
  for (Kind k : {Kind::kMax, Kind::kMin}) {
    MF_ASSERT_OK(Run<float>(k, data, {0}, false));
    EXPECT_TRUE(std::isnan(GetOutput(0)->scalar<float>()())) << OpName(k);
  }
}

TEST_P(ReductionOpTest, IntegerMeanTruncatesAndSumsInInt64) {
  // The sum overflows int32; TensorFlow's Mean accumulates in int64.
  const int32_t big = 2000000000;
  MF_ASSERT_OK(Run<int32_t>(
      Kind::kMean, test::AsTensor<int32_t>({big, big, big, -7}), {0}, false));
  EXPECT_EQ(GetOutput(0)->scalar<int32_t>()(), 1499999998);
  MF_ASSERT_OK(
      Run<int32_t>(Kind::kMean, test::AsTensor<int32_t>({-7, 0}), {0}, false));
  EXPECT_EQ(GetOutput(0)->scalar<int32_t>()(), -3);
  // Sum wraps (Note [Integer overflow in kernels]).
  MF_ASSERT_OK(Run<int32_t>(Kind::kSum, test::AsTensor<int32_t>({big, big}),
                            {0}, false));
  EXPECT_EQ(GetOutput(0)->scalar<int32_t>()(), -294967296);
}

TEST_P(ReductionOpTest, LargeInputsAreSharded) {
  const Tensor data =
      test::RandomValues<float>(TensorShape({1030, 1024}), 5, -1, 1);
  for (Kind k : {Kind::kSum, Kind::kMean, Kind::kMax}) {
    Check<float>(k, data, {0}, false);
    Check<float>(k, data, {1}, false);
    Check<float>(k, data, {0, 1}, false);
  }
  const Tensor data4 =
      test::RandomValues<float>(TensorShape({16, 64, 32, 33}), 6, -1, 1);
  Check<float>(Kind::kSum, data4, {0, 2}, true);
  Check<float>(Kind::kMin, data4, {1, 3}, false);
}

TEST_P(ReductionOpTest, RejectsBadAxes) {
  const Tensor data(DT_FLOAT, TensorShape({2, 3}));
  EXPECT_THAT(Run<float>(Kind::kSum, data, {2}, false),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Invalid reduction dimension (2 for input "
                                 "with 2 dimension(s)")));
  EXPECT_THAT((Run<float, int64_t>(Kind::kMax, data, {-3}, false)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Invalid reduction dimension (-3")));
  EXPECT_THAT(Run<float>(Kind::kMean, data, {0, -2}, false),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Axes contains duplicate dimension: 0")));
}

MF_INSTANTIATE_KERNEL_TEST_DEVICES(ReductionOpTest);

}  // namespace
}  // namespace minflow
