// Shape functions of src/ops/linalg_ops.cc.
#include <cstdint>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/testlib/shape_inference_testutil.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using test::AsScalar;
using test::AsTensor;

TEST(LinalgOpsTest, MatrixBandPartKeepsTheInputShape) {
  ShapeInferenceTestOp op("MatrixBandPart");
  INFER_OK(op, "[2,3,4];[];[]", "in0");
  INFER_OK(op, "?;[];[]", "in0");
}

TEST(LinalgOpsTest, MatrixDiagV3) {
  ShapeInferenceTestOp op("MatrixDiagV3");
  // k unknown: nothing known.
  INFER_OK(op, "[2,3];[];[];[];[]", "?");
  INFER_ERROR("Shape must be at least rank 1 but is rank 0", op,
              "[];[];[];[];[]");
  INFER_ERROR("Shape must be at most rank 1 but is rank 2", op,
              "[3];[1,1];[];[];[]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[3];[];[1];[];[]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[3];[];[];[1];[]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[3];[];[];[];[1]");

  op.SetInputTensor(1, AsScalar<int32_t>(0));
  INFER_OK(op, "[2,3];[];[];[];[]", "[d0_0,3,3]");
  INFER_OK(op, "[2,?];[];[];[];[]", "[d0_0,?,?]");
  op.SetInputTensor(1, AsTensor<int32_t>({1}));
  INFER_OK(op, "[3];[1];[];[];[]", "[4,4]");
  op.SetInputTensor(1, AsTensor<int32_t>({-1, 1}));
  INFER_OK(op, "[5,3,3];[2];[];[];[]", "[d0_0,3,3]");
  INFER_ERROR("doesn't match the number of diagonals", op,
              "[5,2,3];[2];[];[];[]");
  INFER_OK(op, "[5,?,3];[2];[];[];[]", "[d0_0,3,3]");
  op.SetInputTensor(1, AsTensor<int32_t>({1, -1}));
  INFER_ERROR("lower_diag_index is greater than upper_diag_index", op,
              "[5,3,3];[2];[];[];[]");
  op.SetInputTensor(1, AsTensor<int32_t>({1, 2, 3}));
  INFER_ERROR("diag_index must be a vector with one or two elements", op,
              "[5,3,3];[3];[];[];[]");

  // Given sizes.
  op.SetInputTensor(1, AsScalar<int32_t>(-1));
  op.SetInputTensor(2, AsScalar<int32_t>(3));
  op.SetInputTensor(3, AsScalar<int32_t>(4));
  INFER_OK(op, "[2];[];[];[];[]", "[3,4]");
  op.SetInputTensor(3, AsScalar<int32_t>(-1));
  INFER_OK(op, "[2];[];[];[];[]", "[3,2]");
  op.SetInputTensor(2, AsScalar<int32_t>(2));
  INFER_ERROR("num_rows is too small", op, "[2];[];[];[];[]");
  op.SetInputTensor(2, AsScalar<int32_t>(-1));
  op.SetInputTensor(3, AsScalar<int32_t>(1));
  INFER_ERROR("num_cols is too small.", op, "[2];[];[];[];[]");
  op.SetInputTensor(2, AsScalar<int32_t>(4));
  op.SetInputTensor(3, AsScalar<int32_t>(4));
  INFER_ERROR("num_rows and num_cols are not consistent", op,
              "[2];[];[];[];[]");
}

TEST(LinalgOpsTest, MatrixSetDiagV3) {
  ShapeInferenceTestOp op("MatrixSetDiagV3");
  INFER_OK(op, "[2,3,4];[2,3];[]", "in0");
  INFER_OK(op, "?;?;[]", "?");
  // As in TensorFlow, an unknown k is read as 0 for the batch dims.
  INFER_OK(op, "?;[2,3];[]", "[d1_0,?,?]");
  INFER_ERROR("Shape must be at least rank 2 but is rank 1", op, "[3];[3];[]");
  INFER_ERROR("Shape must be at least rank 1 but is rank 0", op, "[3,3];[];[]");
  INFER_ERROR("Shape must be at most rank 1 but is rank 2", op,
              "[3,3];[3];[1,1]");
  // k unknown: the diagonals have rank rank(input) - 1 or rank(input).
  INFER_ERROR("Shape must be at least rank 2 but is rank 1", op,
              "[2,3,4];[3];[]");
  INFER_ERROR("Shape must be at most rank 3 but is rank 4", op,
              "[2,3,4];[2,3,4,5];[]");
  op.SetInputTensor(2, AsScalar<int32_t>(0));
  INFER_OK(op, "[2,3,4];[2,3];[]", "in0");
  INFER_OK(op, "[?,3,4];[2,3];[]", "[d1_0,d0_1,d0_2]");
  INFER_OK(op, "?;[2,3];[]", "[d1_0,?,?]");
  INFER_ERROR("Shape must be rank 2 but is rank 3", op, "[2,3,4];[2,3,1];[]");
  op.SetInputTensor(2, AsTensor<int32_t>({-1, 2}));
  INFER_OK(op, "[2,3,4];[2,4,3];[2]", "in0");
  INFER_OK(op, "[?,3,4];[2,4,3];[2]", "[d1_0,d0_1,d0_2]");
  INFER_ERROR("Shape must be rank 3 but is rank 2", op, "[2,3,4];[4,3];[2]");
  op.SetInputTensor(2, AsTensor<int32_t>({-3, 0}));
  INFER_ERROR("lower_diag_index is out of bound.", op, "[3,4];[4,3];[2]");
  op.SetInputTensor(2, AsTensor<int32_t>({0, 4}));
  INFER_ERROR("upper_diag_index is out of bound.", op, "[3,4];[5,3];[2]");
  op.SetInputTensor(2, AsTensor<int32_t>({2, 1}));
  INFER_ERROR("lower_diag_index is greater than upper_diag_index", op,
              "[3,4];[2,3];[2]");
}

}  // namespace
}  // namespace minflow
