#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class ShapeOpsTest : public test::ArrayOpTest {
 protected:
  // Runs `op` (Shape, Size or Rank) on a tensor of `shape` that needs no
  // buffer (zero elements) or a small one.
  void Run(const std::string& op, DataType dtype, const TensorShape& shape,
           DataType out_type = DT_INT32) {
    auto& node = MakeNode(op).Input(dtype);
    if (op != "Rank") node.Attr("out_type", out_type);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(Tensor(dtype, shape));
    RunAndCheckShapes();
  }
};

TEST_F(ShapeOpsTest, ShapeOfEveryRankAndType) {
  for (DataType dtype : test::MovementTypes()) {
    Run("Shape", dtype, TensorShape({2, 0, 5}));
    test::ExpectTensorEqual<int32_t>(*GetOutput(0),
                                     test::AsTensor<int32_t>({2, 0, 5}));
  }
  Run("Shape", DT_FLOAT, TensorShape({}), DT_INT64);
  test::ExpectTensorEqual<int64_t>(
      *GetOutput(0), test::AsTensor<int64_t>({}, TensorShape({0})));
  Run("Shape", DT_FLOAT, TensorShape({1, 2, 3, 4, 5}), DT_INT64);
  test::ExpectTensorEqual<int64_t>(*GetOutput(0),
                                   test::AsTensor<int64_t>({1, 2, 3, 4, 5}));
}

TEST_F(ShapeOpsTest, ShapeInt64HoldsHugeDims) {
  const int64_t big = int64_t{1} << 40;
  Run("Shape", DT_FLOAT, TensorShape({0, big}), DT_INT64);
  test::ExpectTensorEqual<int64_t>(*GetOutput(0),
                                   test::AsTensor<int64_t>({0, big}));
}

TEST_F(ShapeOpsTest, ShapeInt32RejectsHugeDims) {
  MakeNode("Shape").Input(DT_FLOAT).Attr("out_type", DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, int64_t{1} << 40})));
  ExpectInvalid("Shape output type is 32-bit  but dim 1 is 1099511627776");
}

TEST_F(ShapeOpsTest, SizeCountsElements) {
  for (DataType dtype : test::MovementTypes()) {
    Run("Size", dtype, TensorShape({2, 3, 4}));
    test::ExpectTensorEqual<int32_t>(*GetOutput(0),
                                     test::AsScalar<int32_t>(24));
  }
  Run("Size", DT_FLOAT, TensorShape({}), DT_INT64);
  test::ExpectTensorEqual<int64_t>(*GetOutput(0), test::AsScalar<int64_t>(1));
  Run("Size", DT_FLOAT, TensorShape({7, 0}), DT_INT64);
  test::ExpectTensorEqual<int64_t>(*GetOutput(0), test::AsScalar<int64_t>(0));
}

TEST_F(ShapeOpsTest, SizeInt32RejectsHugeCounts) {
  // 2^31 int8 elements: the kernel reads only the shape.
  MakeNode("Size").Input(DT_INT8).Attr("out_type", DT_INT32);
  MF_ASSERT_OK(MakeOp());
  std::vector<Tensor> inputs = {
      HugeTensor(DT_INT8, TensorShape({int64_t{1} << 31}))};
  EXPECT_THAT(RunOnTensors(&inputs),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("Number of elements was larger than "
                                       "representable by 32-bit output type")));
}

TEST_F(ShapeOpsTest, RankCountsDims) {
  Run("Rank", DT_FLOAT, TensorShape({}));
  test::ExpectTensorEqual<int32_t>(*GetOutput(0), test::AsScalar<int32_t>(0));
  Run("Rank", DT_STRING, TensorShape({2, 0, 1, 3}));
  test::ExpectTensorEqual<int32_t>(*GetOutput(0), test::AsScalar<int32_t>(4));
}

}  // namespace
}  // namespace minflow
