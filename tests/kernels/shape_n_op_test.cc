#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class ShapeNOpTest : public test::ArrayOpTest {};

TEST_F(ShapeNOpTest, ShapeOfEachInput) {
  MakeNode("ShapeN").Input({DT_FLOAT, DT_FLOAT, DT_FLOAT});
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 4, 1})));
  RunAndCheckShapes();
  test::ExpectTensorEqual<int32_t>(*GetOutput(0),
                                   test::AsTensor<int32_t>({2, 3}));
  EXPECT_EQ(GetOutput(1)->shape(), TensorShape({0}));
  test::ExpectTensorEqual<int32_t>(*GetOutput(2),
                                   test::AsTensor<int32_t>({0, 4, 1}));
  MakeNode("ShapeN").Input({DT_STRING, DT_STRING}).Attr("out_type", DT_INT64);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(Tensor(DT_STRING, TensorShape({5})));
  AddInputTensor(Tensor(DT_STRING, TensorShape({1, 2})));
  RunAndCheckShapes();
  test::ExpectTensorEqual<int64_t>(*GetOutput(0), test::AsTensor<int64_t>({5}));
  test::ExpectTensorEqual<int64_t>(*GetOutput(1),
                                   test::AsTensor<int64_t>({1, 2}));
}

TEST_F(ShapeNOpTest, RejectsDimsPastInt32) {
  MakeNode("ShapeN").Input({DT_FLOAT, DT_FLOAT});
  MF_ASSERT_OK(MakeOp());
  std::vector<Tensor> inputs = {
      Tensor(DT_FLOAT, TensorShape({1})),
      HugeTensor(DT_FLOAT, TensorShape({2, int64_t{1} << 33}))};
  EXPECT_THAT(RunOnTensors(&inputs),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("ShapeN output type is 32-bit but "
                                       "shape 1 dim 1 is 8589934592")));
}

TEST_F(ShapeNOpTest, EnsureShapePassesCompatibleInputsThrough) {
  MakeNode("EnsureShape")
      .Input(DT_FLOAT)
      .Attr("shape", PartialTensorShape({-1, 3}));
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({4, 3})));
  RunAndCheckShapes();
  test::ExpectSharesBuffer(*GetOutput(0), GetInput(0));
  test::ExpectEqual(*GetOutput(0), GetInput(0));
  MakeNode("EnsureShape").Input(DT_INT32).Attr("shape", PartialTensorShape());
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_INT32, TensorShape({0, 2, 1})));
  RunAndCheckShapes();
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0, 2, 1}));
}

TEST_F(ShapeNOpTest, EnsureShapeRejectsOtherShapes) {
  MakeNode("EnsureShape")
      .Input(DT_FLOAT)
      .Attr("shape", PartialTensorShape({-1, 3}));
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({4, 2})));
  ExpectInvalid("[4,2] is not compatible with expected shape [?,3].");
  MakeNode("EnsureShape")
      .Input(DT_FLOAT)
      .Attr("shape", PartialTensorShape({-1, 3}));
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({3})));
  ExpectInvalid("is not compatible with expected shape");
}

}  // namespace
}  // namespace minflow
