// Shape functions of src/ops/bitwise_ops.cc.
#include "gtest/gtest.h"
#include "tests/testlib/shape_inference_testutil.h"

namespace minflow {
namespace {

TEST(BitwiseOpsTest, InvertKeepsTheInputShape) {
  ShapeInferenceTestOp op("Invert");
  INFER_OK(op, "[1,?,3]", "in0");
  INFER_OK(op, "?", "in0");
  INFER_OK(op, "[]", "in0");
}

TEST(BitwiseOpsTest, BinaryOpsBroadcast) {
  for (const char* name :
       {"BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[2,3];[2,3]", "[d0_0,d0_1]");
    INFER_OK(op, "[1,3];[2,1]", "[d1_0,d0_1]");
    INFER_OK(op, "[];[2,3]", "[d1_0,d1_1]");
    INFER_OK(op, "[1,2];?", "?");
    INFER_ERROR("Dimensions must be equal, but are 2 and 3", op, "[2];[3]");
  }
}

}  // namespace
}  // namespace minflow
