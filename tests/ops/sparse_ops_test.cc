// Shape functions of src/ops/sparse_ops.cc.
#include <cstdint>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/testlib/shape_inference_testutil.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

TEST(SparseOpsTest, SparseToDenseTakesTheShapeFromOutputShape) {
  ShapeInferenceTestOp op("SparseToDense");
  INFER_OK(op, "[3,2];[2];[3];[]", "[?,?]");
  INFER_OK(op, "[3,2];?;[3];[]", "?");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[3,2];[2,1];[3];[]");
  op.SetInputTensor(1, test::AsTensor<int32_t>({4, 5}));
  INFER_OK(op, "[3,2];[2];[3];[]", "[4,5]");
  op.SetInputTensor(1, test::AsTensor<int64_t>({7}));
  INFER_OK(op, "[3];[1];[];[]", "[7]");
}

}  // namespace
}  // namespace minflow
