// Example: every element doubled, through the CPU ExampleFunctor, on every
// numbertype, and across threads for large inputs.
#include <complex>
#include <cstdint>
#include <limits>
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

class ExampleOpTest : public test::OpsTestBase {
 protected:
  template <typename T>
  void Check(const std::vector<T>& in, const TensorShape& shape) {
    SCOPED_TRACE(::testing::Message() << DataTypeString(DataTypeToEnum<T>::v())
                                      << " " << shape.DebugString());
    MakeNode("Example").Input(DataTypeToEnum<T>::v());
    MF_ASSERT_OK(MakeOp());
    AddInputFromArray<T>(shape, absl::Span<const T>(in));
    MF_ASSERT_OK(RunOpKernel());
    std::vector<T> want;
    for (const T& v : in) want.push_back(v + v);
    test::ExpectTensorEqual<T>(
        *GetOutput(0), test::AsTensor<T>(absl::Span<const T>(want), shape));
    // The shape function passes the input's shape through ("in0").
    EXPECT_EQ(test::PredictedOutputShape(*node_def(), {shape}), "in0");
  }

  template <typename T>
  void CheckType() {
    Check<T>({T(1), T(-2), T(3), T(0), T(5), T(-6)}, TensorShape({2, 3}));
    Check<T>({}, TensorShape({0, 4}));
    Check<T>({T(7)}, TensorShape({}));
  }
};

TEST_F(ExampleOpTest, DoublesEveryNumberType) {
  CheckType<float>();
  CheckType<double>();
  CheckType<half>();
  CheckType<bfloat16>();
  CheckType<int8_t>();
  CheckType<int16_t>();
  CheckType<int32_t>();
  CheckType<int64_t>();
  CheckType<complex64>();
  CheckType<complex128>();
}

TEST_F(ExampleOpTest, DoublesUnsignedTypes) {
  Check<uint8_t>({1, 100, 200}, TensorShape({3}));
  Check<uint16_t>({1, 100, 40000}, TensorShape({3}));
  Check<uint32_t>({1, 100, 3000000000u}, TensorShape({3}));
  Check<uint64_t>({1, 100, uint64_t{1} << 63}, TensorShape({3}));
}

TEST_F(ExampleOpTest, SignedOverflowWraps) {
  MakeNode("Example").Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int32_t>(TensorShape({2}),
                             {std::numeric_limits<int32_t>::max(),
                              std::numeric_limits<int32_t>::min()});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<int32_t>(*GetOutput(0),
                                   test::AsTensor<int32_t>({-2, 0}));
}

TEST_F(ExampleOpTest, LargeInputIsSplitAcrossThreads) {
  const TensorShape shape({(1 << 20) + 7});
  MakeNode("Example").Input(DT_FLOAT);
  MF_ASSERT_OK(MakeOp());
  AddInput<float>(shape, [](int i) { return static_cast<float>(i % 1000); });
  MF_ASSERT_OK(RunOpKernel());
  const float* out = GetOutput(0)->base<const float>();
  for (int64_t i = 0; i < shape.num_elements(); ++i) {
    ASSERT_EQ(out[i], 2.0f * static_cast<float>(i % 1000)) << i;
  }
}

TEST_F(ExampleOpTest, RejectsNonNumberTypes) {
  MakeNode("Example").Input(DT_BOOL);
  EXPECT_THAT(MakeOp(),
              ::minflow::testing::StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace minflow
