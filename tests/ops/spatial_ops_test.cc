// Shape functions of src/ops/spatial_ops.cc: DepthToSpace, SpaceToDepth,
// SpaceToBatchND and BatchToSpaceND.
#include <cstdint>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/testlib/shape_inference_testutil.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using test::AsTensor;

TEST(SpatialOpsTest, DepthToSpaceScalesSpaceAndDividesDepth) {
  ShapeInferenceTestOp op("DepthToSpace");
  op.Attr("block_size", 2);
  INFER_OK(op, "[1,2,3,8]", "[d0_0,4,6,2]");
  INFER_OK(op, "[?,?,3,?]", "[d0_0,?,6,?]");
  INFER_OK(op, "?", "[?,?,?,?]");
  INFER_ERROR("Dimension size must be evenly divisible by 4 but is 6", op,
              "[1,2,3,6]");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op, "[2,3,8]");
  op.Attr("data_format", "NCHW");
  INFER_OK(op, "[1,8,2,3]", "[d0_0,2,4,6]");
  op.Attr("data_format", "NCHW_VECT_C");
  INFER_OK(op, "[1,8,2,3,4]", "[d0_0,2,4,6,4]");
  INFER_ERROR("Shape must be rank 5 but is rank 4", op, "[1,8,2,3]");
}

TEST(SpatialOpsTest, SpaceToDepthDividesSpaceAndScalesDepth) {
  ShapeInferenceTestOp op("SpaceToDepth");
  op.Attr("block_size", 3);
  INFER_OK(op, "[2,6,9,5]", "[d0_0,2,3,45]");
  INFER_OK(op, "[2,?,9,?]", "[d0_0,?,3,?]");
  INFER_ERROR("Dimension size must be evenly divisible by 3 but is 4", op,
              "[2,6,4,5]");
  op.Attr("data_format", "NCHW");
  INFER_OK(op, "[2,5,6,9]", "[d0_0,45,2,3]");
}

TEST(SpatialOpsTest, SpaceToBatchNDWithKnownValues) {
  ShapeInferenceTestOp op("SpaceToBatchND");
  op.SetInputTensor(1, AsTensor<int32_t>({2, 3}))
      .SetInputTensor(2, AsTensor<int64_t>({0, 1, 1, 2}, TensorShape({2, 2})));
  INFER_OK(op, "[3,3,9,5];[2];[2,2]", "[18,2,4,d0_3]");
  INFER_OK(op, "[?,3,9];[2];[2,2]", "[?,2,4]");
  INFER_ERROR("Dimension size must be evenly divisible by 2 but is 5", op,
              "[3,4,9,5];[2];[2,2]");
  INFER_ERROR("Shape must be at least rank 3 but is rank 2", op,
              "[3,3];[2];[2,2]");
  op.SetInputTensor(1, AsTensor<int32_t>({2, 0}));
  INFER_ERROR("block_shape must be positive", op, "[3,3,9,5];[2];[2,2]");
  op.SetInputTensor(1, AsTensor<int32_t>({2, 3}))
      .SetInputTensor(2, AsTensor<int32_t>({0, -1, 1, 2}, TensorShape({2, 2})));
  INFER_ERROR("paddings cannot be negative", op, "[3,3,9,5];[2];[2,2]");
}

TEST(SpatialOpsTest, SpaceToBatchNDWithUnknownValues) {
  ShapeInferenceTestOp op("SpaceToBatchND");
  INFER_OK(op, "[3,3,9,5];[2];[2,2]", "[?,?,?,d0_3]");
  INFER_OK(op, "[3,3];[0];[0,2]", "[d0_0,d0_1]");
  INFER_ERROR("block_shape must have rank 1.", op, "[3,3,9,5];?;[2,2]");
  INFER_ERROR("block_shape must have known size.", op, "[3,3,9,5];[?];[2,2]");
  INFER_ERROR("Dimension 0 in both shapes must be equal, but are 3 and 2", op,
              "[3,3,9,5];[2];[3,2]");
  // Known paddings alone do not give the spatial sizes.
  op.SetInputTensor(2, AsTensor<int32_t>({0, 1, 1, 2}, TensorShape({2, 2})));
  INFER_OK(op, "[3,3,9,5];[2];[2,2]", "[?,?,?,d0_3]");
}

TEST(SpatialOpsTest, BatchToSpaceNDWithKnownValues) {
  ShapeInferenceTestOp op("BatchToSpaceND");
  op.SetInputTensor(1, AsTensor<int64_t>({2, 3}))
      .SetInputTensor(2, AsTensor<int32_t>({0, 1, 1, 2}, TensorShape({2, 2})));
  INFER_OK(op, "[18,2,4,5];[2];[2,2]", "[3,3,9,d0_3]");
  INFER_OK(op, "[?,2,?];[2];[2,2]", "[?,3,?]");
  INFER_ERROR("Dimension size must be evenly divisible by 3 but is 4", op,
              "[8,2,4,5];[2];[2,2]");
  INFER_ERROR("Negative dimension size caused by subtracting", op,
              "[18,0,4,5];[2];[2,2]");
  op.SetInputTensor(2, AsTensor<int32_t>({0, 1, -1, 2}, TensorShape({2, 2})));
  INFER_ERROR("crops cannot be negative", op, "[18,2,4,5];[2];[2,2]");
  op.SetInputTensor(1, AsTensor<int64_t>({-2, 3}));
  INFER_ERROR("block_shape must be positive", op, "[18,2,4,5];[2];[2,2]");
}

TEST(SpatialOpsTest, BatchToSpaceNDWithUnknownValues) {
  ShapeInferenceTestOp op("BatchToSpaceND");
  INFER_OK(op, "[18,2,4,5];[2];[2,2]", "[?,?,?,d0_3]");
  INFER_OK(op, "[18,2];[0];[0,2]", "[d0_0,d0_1]");
  INFER_ERROR("block_shape must have rank 1.", op, "[18,2,4,5];[];[2,2]");
}

}  // namespace
}  // namespace minflow
