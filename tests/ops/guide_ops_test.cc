// Shape functions of src/ops/guide_ops.cc: ZeroOut, Example, MedianPool2D.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testlib/shape_inference_testutil.h"

namespace minflow {
namespace {

using Ints = std::vector<int64_t>;

TEST(GuideOpsTest, ZeroOut) {
  ShapeInferenceTestOp op("ZeroOut");
  INFER_OK(op, "[5]", "in0");
  INFER_OK(op, "[?]", "in0");
  INFER_OK(op, "?", "[?]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[2,3]");
  op.Attr("preserve_index", 4);
  INFER_OK(op, "[5]", "in0");
  INFER_OK(op, "[?]", "in0");
  op.Attr("preserve_index", 5);
  INFER_ERROR("preserve_index out of range: 5 for a vector of 5 elements", op,
              "[5]");
}

TEST(GuideOpsTest, ZeroOutRejectsNegativePreserveIndex) {
  ShapeInferenceTestOp op("ZeroOut");
  op.Attr("preserve_index", -1);
  INFER_ERROR("Need preserve_index >= 0, got -1", op, "[5]");
}

TEST(GuideOpsTest, Example) {
  ShapeInferenceTestOp op("Example");
  INFER_OK(op, "[2,?]", "in0");
  INFER_OK(op, "?", "in0");
}

ShapeInferenceTestOp Median(Ints ksize, Ints strides, const char* padding) {
  ShapeInferenceTestOp op("MedianPool2D");
  op.Attr("ksize", ksize).Attr("strides", strides).Attr("padding", padding);
  return op;
}

TEST(GuideOpsTest, MedianPool2D) {
  ShapeInferenceTestOp op = Median({1, 3, 3, 1}, {1, 1, 1, 1}, "VALID");
  INFER_OK(op, "[1,5,5,2]", "[d0_0,3,3,d0_3]");
  INFER_OK(op, "[?,?,5,?]", "[d0_0,?,3,d0_3]");
  INFER_OK(op, "?", "[?,?,?,?]");
  op = Median({1, 3, 3, 1}, {1, 2, 2, 1}, "SAME");
  INFER_OK(op, "[1,5,5,2]", "[d0_0,3,3,d0_3]");
  INFER_OK(op, "[1,1,1,2]", "[d0_0,1,1,d0_3]");
}

TEST(GuideOpsTest, MedianPool2DRejectsBadInput) {
  ShapeInferenceTestOp op = Median({2, 3, 3, 1}, {1, 1, 1, 1}, "VALID");
  INFER_ERROR("does not pool over the batch or depth dimensions", op,
              "[1,5,5,2]");
  op = Median({1, 3, 3}, {1, 1, 1, 1}, "VALID");
  INFER_ERROR("requires ksize and strides to contain 4 values", op,
              "[1,5,5,2]");
  op = Median({1, 0, 3, 1}, {1, 1, 1, 1}, "VALID");
  INFER_ERROR("Sliding window ksize must be positive", op, "[1,5,5,2]");
  op = Median({1, 3, 3, 1}, {1, 0, 1, 1}, "VALID");
  INFER_ERROR("Stride must be > 0, but got 0", op, "[1,5,5,2]");
  op = Median({1, 6, 3, 1}, {1, 1, 1, 1}, "VALID");
  INFER_ERROR("Negative dimension size caused by subtracting 6 from 5", op,
              "[1,5,5,2]");
  op = Median({1, 3, 3, 1}, {1, 1, 1, 1}, "VALID");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op, "[5,5,2]");
  op.Attr("data_format", "NCHW");
  INFER_ERROR("supports only the NHWC data format", op, "[1,5,5,2]");
  ShapeInferenceTestOp no_padding("MedianPool2D");
  no_padding.Attr("ksize", Ints{1, 3, 3, 1}).Attr("strides", Ints{1, 1, 1, 1});
  INFER_ERROR("padding", no_padding, "[1,5,5,2]");
}

}  // namespace
}  // namespace minflow
