// Shape functions of src/ops/string_ops.cc: StringJoin,
// StaticRegexFullMatch.
#include "gtest/gtest.h"
#include "tests/testlib/shape_inference_testutil.h"

namespace minflow {
namespace {

TEST(StringOpsTest, StringJoinBroadcastsScalars) {
  ShapeInferenceTestOp op("StringJoin");
  INFER_OK(op, "[];[]", "[]");
  INFER_OK(op, "[];[2,3]", "in1");
  INFER_OK(op, "[2,?];[];[?,3]", "[d0_0,d2_1]");
  INFER_OK(op, "?;[]", "in0");
  INFER_ERROR("Dimension 0 in both shapes must be equal", op, "[2];[3]");
}

TEST(StringOpsTest, StaticRegexFullMatchKeepsTheShape) {
  ShapeInferenceTestOp op("StaticRegexFullMatch");
  op.Attr("pattern", "^s3://.*");
  INFER_OK(op, "[2,?]", "in0");
  INFER_OK(op, "?", "in0");
}

}  // namespace
}  // namespace minflow
