// AddN against a naive sum, for 1 to 9 inputs.
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

class AddNOpTest : public test::CwiseOpsTestBase {
 protected:
  template <typename T>
  void Check(int n, const TensorShape& shape) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " N=" << n << " "
                 << shape.DebugString());
    MakeNode("AddN").Input(n, DataTypeToEnum<T>::v());
    MF_ASSERT_OK(MakeOp());
    std::vector<Tensor> inputs;
    for (int i = 0; i < n; ++i) {
      inputs.push_back(test::RandomValues<T>(shape, 10 + i, -20, 20));
      AddInputTensor(inputs.back());
    }
    MF_ASSERT_OK(RunOpKernel());
    std::vector<double> want(shape.num_elements(), 0.0);
    for (int64_t j = 0; j < shape.num_elements(); ++j) {
      for (const Tensor& t : inputs) want[j] += test::ElementAt<T>(t, j);
    }
    // Sums of n rounded values: allow n roundings.
    test::Tolerance tol = test::MathTolerance<T>();
    tol.atol *= 20 * n;
    test::ExpectMatches<T>(*GetOutput(0), shape, want, tol);
    ExpectShapeFnAgrees();
  }
};

TEST_P(AddNOpTest, SumsAnyNumberOfInputs) {
  for (int n : {1, 2, 3, 4, 5, 7, 9}) {
    for (const TensorShape& shape :
         {TensorShape({}), TensorShape({0}), TensorShape({5}),
          TensorShape({3, 4, 5})}) {
      Check<float>(n, shape);
      Check<int32_t>(n, shape);
    }
  }
}

TEST_P(AddNOpTest, EveryRegisteredType) {
  Check<double>(3, TensorShape({17}));
  Check<half>(3, TensorShape({17}));
  Check<bfloat16>(5, TensorShape({17}));
  Check<int64_t>(6, TensorShape({17}));
}

TEST_P(AddNOpTest, LargeInputsAreSharded) {
  Check<float>(5, TensorShape({1 << 20 | 3}));
}

TEST_P(AddNOpTest, OneInputIsPassedThrough) {
  MakeNode("AddN").Input(1, DT_FLOAT);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)));
}

TEST_P(AddNOpTest, WritesInPlaceIntoAForwardableInput) {
  MakeNode("AddN").Input(6, DT_FLOAT);
  MF_ASSERT_OK(MakeOp());
  for (int i = 0; i < 6; ++i) {
    AddInputFromArray<float>(TensorShape({3}), {1.0f * i, 2.0f, 3.0f});
  }
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)));
  test::ExpectTensorEqual<float>(*GetOutput(0),
                                 test::AsTensor<float>({15, 12, 18}));
}

TEST_P(AddNOpTest, IntegerSumsWrap) {
  MakeNode("AddN").Input(2, DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int32_t>(TensorShape({1}),
                             {std::numeric_limits<int32_t>::max()});
  AddInputFromArray<int32_t>(TensorShape({1}), {1});
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->flat<int32_t>()(0),
            std::numeric_limits<int32_t>::min());
}

TEST_P(AddNOpTest, RejectsDifferentShapes) {
  MakeNode("AddN").Input(3, DT_FLOAT);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 2})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Inputs to operation op of type AddN must "
                                 "have the same size and shape.  Input 0: "
                                 "[2,3] != input 2: [3,2]")));
}

MF_INSTANTIATE_KERNEL_TEST_DEVICES(AddNOpTest);

}  // namespace
}  // namespace minflow
