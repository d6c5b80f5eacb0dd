// Shape functions of src/ops/scan_ops.cc: Cumsum and Cumprod.
#include "gtest/gtest.h"
#include "tests/testlib/shape_inference_testutil.h"

namespace minflow {
namespace {

TEST(ScanOpsTest, OutputIsTheInputShape) {
  for (const char* name : {"Cumsum", "Cumprod"}) {
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[2,?,4];[]", "in0");
    INFER_OK(op, "?;?", "in0");
  }
}

}  // namespace
}  // namespace minflow
