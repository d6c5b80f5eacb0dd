#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class ClipOpTest : public test::ArrayOpTest {
 protected:
  template <typename T>
  void Check(const TensorShape& shape, bool scalar_lo, bool scalar_hi) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v())
                 << shape.DebugString() << scalar_lo << scalar_hi);
    const DataType dtype = DataTypeToEnum<T>::v();
    MakeNode("ClipByValue").Input(dtype).Input(dtype).Input(dtype);
    MF_ASSERT_OK(MakeOp());
    const int64_t n = shape.num_elements();
    std::vector<T> x, lo, hi, expected;
    for (int64_t i = 0; i < n; ++i) {
      x.push_back(static_cast<T>((i * 5) % 23));
      lo.push_back(static_cast<T>(scalar_lo ? 4 : (i % 7)));
      hi.push_back(static_cast<T>(scalar_hi ? 15 : 10 + (i % 9)));
    }
    for (int64_t i = 0; i < n; ++i) {
      // Reference in double: max(min(x, hi), lo).
      const double v = std::max(
          std::min(static_cast<double>(x[i]), static_cast<double>(hi[i])),
          static_cast<double>(lo[i]));
      expected.push_back(static_cast<T>(v));
    }
    AddInputFromArray<T>(shape, x);
    if (scalar_lo) {
      AddInputFromArray<T>(TensorShape({}), {static_cast<T>(4)});
    } else {
      AddInputFromArray<T>(shape, lo);
    }
    if (scalar_hi) {
      AddInputFromArray<T>(TensorShape({}), {static_cast<T>(15)});
    } else {
      AddInputFromArray<T>(shape, hi);
    }
    RunAndCheckShapes();
    test::ExpectEqual(*GetOutput(0), test::AsTensor<T>(expected, shape));
  }
  void Make(DataType dtype = DT_FLOAT) {
    MakeNode("ClipByValue").Input(dtype).Input(dtype).Input(dtype);
    MF_ASSERT_OK(MakeOp());
  }
};

TEST_F(ClipOpTest, ScalarAndTensorBounds) {
  for (bool slo : {true, false}) {
    for (bool shi : {true, false}) {
      Check<float>(TensorShape({3, 7}), slo, shi);
      Check<int32_t>(TensorShape({20}), slo, shi);
      Check<uint8_t>(TensorShape({2, 2, 5}), slo, shi);
      Check<double>(TensorShape({0, 4}), slo, shi);
      Check<Eigen::half>(TensorShape({9}), slo, shi);
      Check<int64_t>(TensorShape({}), slo, shi);
    }
  }
}

TEST_F(ClipOpTest, LowerAboveUpperAndNaN) {
  Make();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  AddInputFromArray<float>(TensorShape({3}), {-5, nan, 5});
  AddInputFromArray<float>(TensorShape({}), {2});
  AddInputFromArray<float>(TensorShape({}), {1});
  RunAndCheckShapes();
  const auto out = GetOutput(0)->flat<float>();
  EXPECT_EQ(out(0), 2);
  EXPECT_TRUE(std::isnan(out(1)));
  EXPECT_EQ(out(2), 2);
}

TEST_F(ClipOpTest, RejectsMismatchedBounds) {
  Make();
  AddInputFromArray<float>(TensorShape({2, 2}), {1, 2, 3, 4});
  AddInputFromArray<float>(TensorShape({2}), {0, 0});
  AddInputFromArray<float>(TensorShape({}), {3});
  ExpectInvalid(
      "clip_value_min and clip_value_max must be either of the same shape as "
      "input, or a scalar. input shape: [2,2]clip_value_min shape: [2]");
  Make();
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  AddInputFromArray<float>(TensorShape({}), {0});
  AddInputFromArray<float>(TensorShape({1}), {3});
  ExpectInvalid("clip_value_max shape: [1]");
}

}  // namespace
}  // namespace minflow
