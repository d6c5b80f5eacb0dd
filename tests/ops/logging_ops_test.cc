// Shape functions of src/ops/logging_ops.cc: Assert and CheckNumerics.
#include "gtest/gtest.h"
#include "tests/testlib/shape_inference_testutil.h"

namespace minflow {
namespace {

TEST(LoggingOpsTest, AssertHasNoOutputs) {
  ShapeInferenceTestOp op("Assert");
  INFER_OK(op, "[];[2,3]", "");
  INFER_OK(op, "?;?;[]", "");
}

TEST(LoggingOpsTest, CheckNumericsKeepsTheShape) {
  ShapeInferenceTestOp op("CheckNumerics");
  INFER_OK(op, "[2,?]", "in0");
  INFER_OK(op, "?", "in0");
}

}  // namespace
}  // namespace minflow
