#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/op_kernel.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

class IdentityOpTest : public test::OpsTestBaseP {};

TEST_P(IdentityOpTest, OutputSharesTheInputForEveryDtype) {
  const Tensor inputs[] = {
      test::AsTensor<float>({1.5f, -2}, {2, 1}),
      test::AsTensor<int64_t>({1, 2, 3}),
      test::AsTensor<bool>({true, false}),
      test::AsTensor<tstring>({"x", "yz"}),
      test::AsTensor<bfloat16>({bfloat16(1.0f)}),
      Tensor(DT_DOUBLE, TensorShape({0})),
      test::AsScalar<int8_t>(-3),
  };
  for (const char* op : {"Identity", "StopGradient"}) {
    for (const Tensor& in : inputs) {
      SCOPED_TRACE(absl::StrCat(op, " ", in.DebugString()));
      MakeNode(op).Input(in.dtype());
      MF_ASSERT_OK(MakeOp());
      EXPECT_FALSE(op_kernel()->IsExpensive());
      AddInputTensor(in);
      MF_ASSERT_OK(RunOpKernel());
      test::ExpectEqual(*GetOutput(0), in);
      if (in.NumElements() > 0) {
        EXPECT_TRUE(
            context()->mutable_output(0)->SharesBufferWith(GetInput(0)));
      }
    }
  }
}

TEST_P(IdentityOpTest, PlaceholderWithDefaultPassesTheDefaultThrough) {
  MakeNode("PlaceholderWithDefault")
      .Input(DT_INT32)
      .Attr("shape", TensorShape({3}));
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int32_t>(TensorShape({3}), {4, 5, 6});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<int32_t>(*GetOutput(0),
                                   test::AsTensor<int32_t>({4, 5, 6}));
}

TEST_P(IdentityOpTest, IdentityNPassesEachInputToItsOutput) {
  MakeNode("IdentityN").Input({DT_FLOAT, DT_STRING, DT_INT32});
  MF_ASSERT_OK(MakeOp());
  EXPECT_FALSE(op_kernel()->IsExpensive());
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  AddInputFromArray<tstring>(TensorShape({}), {"s"});
  AddInputFromArray<int32_t>(TensorShape({1, 1}), {9});
  MF_ASSERT_OK(RunOpKernel());
  ASSERT_EQ(context()->num_outputs(), 3);
  for (int i = 0; i < 3; ++i) test::ExpectEqual(*GetOutput(i), GetInput(i));
}

MF_INSTANTIATE_KERNEL_TEST_DEVICES(IdentityOpTest);

}  // namespace
}  // namespace minflow
