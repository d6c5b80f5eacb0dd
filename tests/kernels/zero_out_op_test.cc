// ZeroOut: every element but preserve_index zeroed, on every real type, and
// each attr and input check.
#include <cstdint>
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

class ZeroOutOpTest : public test::OpsTestBase {
 protected:
  Status Make(DataType dtype, int64_t preserve_index) {
    MakeNode("ZeroOut").Input(dtype).Attr("preserve_index", preserve_index);
    return MakeOp();
  }

  template <typename T>
  void Check(const std::vector<T>& in, int64_t preserve_index) {
    SCOPED_TRACE(::testing::Message() << DataTypeString(DataTypeToEnum<T>::v())
                                      << " keep " << preserve_index);
    MF_ASSERT_OK(Make(DataTypeToEnum<T>::v(), preserve_index));
    const TensorShape shape({static_cast<int64_t>(in.size())});
    AddInputFromArray<T>(shape, absl::Span<const T>(in));
    MF_ASSERT_OK(RunOpKernel());
    std::vector<T> want(in.size(), T(0));
    want[preserve_index] = in[preserve_index];
    test::ExpectTensorEqual<T>(*GetOutput(0),
                               test::AsTensor<T>(absl::Span<const T>(want)));
    // The shape function passes the input's shape through ("in0").
    EXPECT_EQ(test::PredictedOutputShape(*node_def(), {shape}), "in0");
  }

  template <typename T>
  void CheckType() {
    const std::vector<T> in = {T(5), T(6), T(7), T(8)};
    Check<T>(in, 0);
    Check<T>(in, 2);
    Check<T>(in, 3);
  }
};

TEST_F(ZeroOutOpTest, KeepsFirstByDefault) {
  MakeNode("ZeroOut").Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int32_t>(TensorShape({3}), {5, 6, 7});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<int32_t>(*GetOutput(0),
                                   test::AsTensor<int32_t>({5, 0, 0}));
}

TEST_F(ZeroOutOpTest, KeepsPreserveIndexOnEveryRealType) {
  CheckType<float>();
  CheckType<double>();
  CheckType<half>();
  CheckType<bfloat16>();
  CheckType<int8_t>();
  CheckType<uint8_t>();
  CheckType<int16_t>();
  CheckType<uint16_t>();
  CheckType<int32_t>();
  CheckType<uint32_t>();
  CheckType<int64_t>();
  CheckType<uint64_t>();
}

TEST_F(ZeroOutOpTest, SingleElementIsKept) { Check<float>({-2.5f}, 0); }

TEST_F(ZeroOutOpTest, RejectsNegativePreserveIndex) {
  EXPECT_THAT(Make(DT_FLOAT, -1),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Need preserve_index >= 0, got -1")));
}

TEST_F(ZeroOutOpTest, RejectsPreserveIndexPastTheEnd) {
  MF_ASSERT_OK(Make(DT_FLOAT, 3));
  AddInputFromArray<float>(TensorShape({3}), {1, 2, 3});
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("preserve_index out of range: 3 for a "
                                 "vector of 3 elements")));
}

TEST_F(ZeroOutOpTest, RejectsEmptyVector) {
  MF_ASSERT_OK(Make(DT_INT64, 0));
  AddInputTensor(Tensor(DT_INT64, TensorShape({0})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("preserve_index out of range")));
}

TEST_F(ZeroOutOpTest, RejectsNonVectors) {
  for (const TensorShape& shape :
       {TensorShape({}), TensorShape({2, 2}), TensorShape({1, 3, 1})}) {
    MF_ASSERT_OK(Make(DT_FLOAT, 0));
    AddInputTensor(Tensor(DT_FLOAT, shape));
    EXPECT_THAT(RunOpKernel(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("ZeroOut expects a 1-D vector.")))
        << shape.DebugString();
  }
}

TEST_F(ZeroOutOpTest, RejectsTypesOutsideRealNumberType) {
  EXPECT_THAT(Make(DT_BOOL, 0), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Make(DT_COMPLEX64, 0),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace minflow
