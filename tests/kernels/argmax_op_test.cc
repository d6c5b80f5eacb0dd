// ArgMax and ArgMin against a naive reference of Note [ArgMax ties and NaN].
#include <cmath>
#include <cstdint>
#include <limits>
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

class ArgOpTest : public test::CwiseOpsTestBase {
 protected:
  template <typename T, typename Tout = int64_t, typename Tidx = int32_t>
  Status Run(bool is_max, const Tensor& input, Tidx dim) {
    MakeNode(is_max ? "ArgMax" : "ArgMin")
        .Input(DataTypeToEnum<T>::v())
        .Input(DataTypeToEnum<Tidx>::v())
        .Attr("output_type", DataTypeToEnum<Tout>::v());
    MF_RETURN_IF_ERROR(MakeOp());
    AddInputTensor(input);
    AddInputTensor(test::AsScalar<Tidx>(dim));
    return RunOpKernel();
  }

  template <typename T, typename Tout = int64_t, typename Tidx = int32_t>
  void Check(bool is_max, const Tensor& input, Tidx dim) {
    SCOPED_TRACE(::testing::Message()
                 << (is_max ? "ArgMax " : "ArgMin ")
                 << DataTypeString(DataTypeToEnum<T>::v()) << " "
                 << input.shape().DebugString() << " dim " << dim);
    MF_ASSERT_OK((Run<T, Tout, Tidx>(is_max, input, dim)));
    const int rank = input.dims();
    const int axis = dim < 0 ? dim + rank : dim;
    int64_t outer = 1;
    int64_t inner = 1;
    std::vector<int64_t> out_dims;
    for (int d = 0; d < rank; ++d) {
      if (d == axis) continue;
      out_dims.push_back(input.dim_size(d));
      (d < axis ? outer : inner) *= input.dim_size(d);
    }
    const int64_t n = input.dim_size(axis);
    std::vector<double> want;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        // Eigen's reducer: start from (0, lowest) and take strictly better.
        double best = test::ToDouble(is_max ? Eigen::NumTraits<T>::lowest()
                                            : Eigen::NumTraits<T>::highest());
        int64_t index = 0;
        for (int64_t k = 0; k < n; ++k) {
          const double v = test::ElementAt<T>(input, (o * n + k) * inner + i);
          if (is_max ? v > best : v < best) {
            best = v;
            index = k;
          }
        }
        want.push_back(static_cast<double>(index));
      }
    }
    test::ExpectMatches<Tout>(
        *GetOutput(0), TensorShape(absl::Span<const int64_t>(out_dims)), want);
    ExpectShapeFnAgrees();
  }

  template <typename T>
  void Sweep() {
    for (const TensorShape& shape :
         {TensorShape({7}), TensorShape({3, 5}), TensorShape({2, 3, 4}),
          TensorShape({4, 1, 300}), TensorShape({0, 3}),
          TensorShape({2, 5, 0})}) {
      // Narrow value range: many ties.
      const Tensor x = test::RandomValues<T>(shape, 4, -3, 3);
      for (int d = -shape.dims(); d < shape.dims(); ++d) {
        if (shape.dim_size(d < 0 ? d + shape.dims() : d) == 0) continue;
        Check<T>(true, x, d);
        Check<T>(false, x, d);
      }
    }
  }
};

TEST_P(ArgOpTest, EveryRegisteredType) {
  Sweep<float>();
  Sweep<double>();
  Sweep<int32_t>();
  Sweep<int64_t>();
  Sweep<half>();
  Sweep<bfloat16>();
  Sweep<bool>();
}

TEST_P(ArgOpTest, Int32OutputAndInt64OrInt16Dimension) {
  const Tensor x = test::RandomValues<float>(TensorShape({3, 4}), 5, -3, 3);
  Check<float, int32_t, int32_t>(true, x, 1);
  Check<float, int32_t, int64_t>(false, x, 0);
  Check<float, int64_t, int16_t>(true, x, -1);
}

TEST_P(ArgOpTest, TiesGiveTheFirstIndex) {
  MF_ASSERT_OK(Run<int32_t>(true, test::AsTensor<int32_t>({1, 5, 5, 2}), 0));
  EXPECT_EQ(GetOutput(0)->scalar<int64_t>()(), 1);
  MF_ASSERT_OK(Run<int32_t>(false, test::AsTensor<int32_t>({1, 0, 0}), 0));
  EXPECT_EQ(GetOutput(0)->scalar<int64_t>()(), 1);
}

TEST_P(ArgOpTest, NaNIsNeverChosen) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  MF_ASSERT_OK(Run<float>(true, test::AsTensor<float>({nan, 1, 3, nan}), 0));
  EXPECT_EQ(GetOutput(0)->scalar<int64_t>()(), 2);
  MF_ASSERT_OK(Run<float>(false, test::AsTensor<float>({2, nan, 1}), 0));
  EXPECT_EQ(GetOutput(0)->scalar<int64_t>()(), 2);
  MF_ASSERT_OK(Run<float>(true, test::AsTensor<float>({nan, nan}), 0));
  EXPECT_EQ(GetOutput(0)->scalar<int64_t>()(), 0);
}

TEST_P(ArgOpTest, LargeInputsAreSharded) {
  const Tensor rows =
      test::RandomValues<float>(TensorShape({2048, 513}), 6, -1, 1);
  Check<float>(true, rows, 1);
  Check<float>(false, rows, 0);
  const Tensor column =
      test::RandomValues<float>(TensorShape({3, 1000, 700}), 7, -1, 1);
  Check<float>(true, column, 1);
}

TEST_P(ArgOpTest, RejectsNonScalarDimension) {
  MakeNode("ArgMax").Input(DT_FLOAT).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 2})));
  AddInputTensor(test::AsTensor<int32_t>({0}));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("dim must be a scalar, but received tensor of "
                                 "shape: [1]")));
}

TEST_P(ArgOpTest, RejectsOutOfRangeDimension) {
  const Tensor x(DT_FLOAT, TensorShape({2, 2}));
  EXPECT_THAT(Run<float>(true, x, 2),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Expected dimension in the range [-2, 2), but "
                                 "got 2")));
  EXPECT_THAT(
      Run<float>(false, x, -3),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("but got -3")));
  EXPECT_THAT(Run<float>(true, test::AsScalar<float>(1), 0),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Expected dimension in the range [0, 0)")));
}

TEST_P(ArgOpTest, RejectsEmptyAxis) {
  EXPECT_THAT(Run<float>(true, Tensor(DT_FLOAT, TensorShape({3, 0})), 1),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Reduction axis 1 is empty in shape [3,0]")));
}

MF_INSTANTIATE_KERNEL_TEST_DEVICES(ArgOpTest);

}  // namespace
}  // namespace minflow
