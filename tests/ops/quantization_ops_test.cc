#include "gtest/gtest.h"
#include "tests/testlib/shape_inference_testutil.h"

namespace minflow {
namespace {

TEST(QuantizationOpsTest, FakeQuantWithMinMaxArgs) {
  ShapeInferenceTestOp op("FakeQuantWithMinMaxArgs");
  INFER_OK(op, "?", "in0");
  INFER_OK(op, "[2,?]", "in0");
}

TEST(QuantizationOpsTest, FakeQuantWithMinMaxVars) {
  ShapeInferenceTestOp op("FakeQuantWithMinMaxVars");
  INFER_OK(op, "[2,3];[];[]", "in0");
  INFER_OK(op, "?;?;?", "in0");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[2];[1];[]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[2];[];[1]");
}

TEST(QuantizationOpsTest, FakeQuantWithMinMaxVarsPerChannel) {
  ShapeInferenceTestOp op("FakeQuantWithMinMaxVarsPerChannel");
  INFER_OK(op, "[2,3];[3];[3]", "in0");
  INFER_OK(op, "[2,?];[3];[?]", "in0");
  INFER_OK(op, "?;?;?", "?");
  INFER_ERROR("Dimensions must be equal, but are 3 and 4", op, "[2,3];[4];[3]");
  INFER_ERROR("Dimensions must be equal, but are 3 and 4", op, "[2,3];[3];[4]");
  INFER_ERROR("Shape must be at least rank 1 but is rank 0", op, "[];[1];[1]");
  INFER_ERROR("Shape must be rank 1 but is rank 0", op, "[3];[];[3]");
}

TEST(QuantizationOpsTest, QuantizeAndDequantize) {
  for (const char* name :
       {"QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[2,3];[];[]", "in0");
    INFER_OK(op, "?;?;?", "in0");
    INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[2];[1];[]");
    INFER_ERROR("Shapes must be equal rank, but are 1 and 0", op, "[2];[];[1]");
    op.Attr("axis", 1);
    INFER_OK(op, "[2,3];[3];[3]", "in0");
    INFER_OK(op, "[2,3];[?];[?]", "in0");
    INFER_ERROR("Dimensions must be equal, but are 4 and 3", op,
                "[2,3];[4];[4]");
    INFER_ERROR("Shape must be at least rank 2 but is rank 1", op,
                "[3];[3];[3]");
    INFER_ERROR("Shape must be rank 1 but is rank 0", op, "[2,3];[];[3]");
    op.Attr("axis", -2);
    INFER_ERROR("axis should be at least -1, got -2", op, "?;?;?");
  }
  ShapeInferenceTestOp v3("QuantizeAndDequantizeV3");
  INFER_OK(v3, "[2,3];[];[];[]", "in0");
  INFER_ERROR("Shape must be rank 0 but is rank 1", v3, "[2,3];[];[];[1]");
  v3.Attr("axis", 0);
  INFER_OK(v3, "[2,3];[2];[2];[]", "in0");
}

}  // namespace
}  // namespace minflow
