// Shape functions of src/ops/image_ops.cc.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testlib/shape_inference_testutil.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using Ints = std::vector<int64_t>;

ShapeInferenceTestOp Patches(Ints ksizes, Ints strides, Ints rates,
                             const char* padding) {
  ShapeInferenceTestOp op("ExtractImagePatches");
  op.Attr("ksizes", ksizes)
      .Attr("strides", strides)
      .Attr("rates", rates)
      .Attr("padding", padding);
  return op;
}

TEST(ImageOpsTest, ExtractImagePatches) {
  ShapeInferenceTestOp op =
      Patches({1, 3, 3, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID");
  INFER_OK(op, "[2,5,5,3]", "[d0_0,3,3,27]");
  INFER_OK(op, "[2,?,5,3]", "[d0_0,?,3,27]");
  INFER_OK(op, "[2,5,5,?]", "[d0_0,3,3,?]");
  INFER_OK(op, "?", "[?,?,?,?]");
  op = Patches({1, 3, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}, "SAME");
  INFER_OK(op, "[2,5,5,3]", "[d0_0,3,3,27]");
  op = Patches({1, 3, 2, 1}, {1, 1, 1, 1}, {1, 2, 2, 1}, "VALID");
  INFER_OK(op, "[2,5,5,1]", "[d0_0,1,3,6]");
  op = Patches({1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID");
  INFER_OK(op, "[2,5,5,3]", "[d0_0,5,5,d0_3]");
}

TEST(ImageOpsTest, ExtractImagePatchesRejectsBadInput) {
  ShapeInferenceTestOp op =
      Patches({1, 3, 3}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID");
  INFER_ERROR(
      "ExtractImagePatches requires the ksizes attribute to contain 4 "
      "values, but got: 3",
      op, "[2,5,5,3]");
  op = Patches({1, 0, 3, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID");
  INFER_ERROR("ksizes must be positive", op, "[2,5,5,3]");
  op = Patches({1, 3, 3, 1}, {1, 0, 1, 1}, {1, 1, 1, 1}, "VALID");
  INFER_ERROR("Stride must be > 0, but got 0", op, "[2,5,5,3]");
  op = Patches({1, 3, 3, 1}, {1, 1, 1, 1}, {1, 0, 1, 1}, "VALID");
  INFER_ERROR("Dilation rate must be >= 1, but got 0", op, "[2,5,5,3]");
  op = Patches({1, 3, 3, 1}, {1, 1, 1, 1}, {1, 3, 3, 1}, "VALID");
  INFER_ERROR("Negative dimension size caused by subtracting 7 from 5", op,
              "[2,5,5,3]");
  op = Patches({1, 3000000000, 3000000000, 1}, {1, 1, 1, 1}, {1, 1, 1, 1},
               "SAME");
  INFER_ERROR("overflow", op, "[2,5,5,3]");
  op = Patches({1, 3, 3, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op, "[5,5,3]");
}

TEST(ImageOpsTest, ResizeOutputsTheSizeTensorsValue) {
  for (const char* name :
       {"ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[1,5,5,3];[2]", "[d0_0,?,?,d0_3]");
    INFER_OK(op, "?;?", "[?,?,?,?]");
    op.SetInputTensor(1, test::AsTensor<int32_t>({7, 9}));
    INFER_OK(op, "[2,5,6,3];[2]", "[d0_0,7,9,d0_3]");
    INFER_OK(op, "[?,5,6,?];[2]", "[d0_0,7,9,d0_3]");
    // -1 is an unknown size, as in any shape tensor.
    op.SetInputTensor(1, test::AsTensor<int32_t>({-1, 4}));
    INFER_OK(op, "[2,5,6,3];[2]", "[d0_0,?,4,d0_3]");
  }
}

TEST(ImageOpsTest, ResizeRejectsBadShapes) {
  for (const char* name :
       {"ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    INFER_ERROR("Shape must be rank 4 but is rank 3", op, "[5,5,3];[2]");
    INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[1,5,5,3];[1,2]");
    INFER_ERROR("Dimension must be 2 but is 3", op, "[1,5,5,3];[3]");
    op.SetInputTensor(1, test::AsTensor<int32_t>({-2, 4}));
    INFER_ERROR("Invalid value in tensor used for shape: -2", op,
                "[1,5,5,3];[2]");
  }
}

TEST(ImageOpsTest, CropAndResize) {
  ShapeInferenceTestOp op("CropAndResize");
  INFER_OK(op, "[1,5,5,3];[7,4];[7];[2]", "[d0_0|d1_0|d2_0,?,?,d0_3]");
  INFER_OK(op, "[1,5,5,3];[?,4];[7];[2]", "[d2_0,?,?,d0_3]");
  op.SetInputTensor(3, test::AsTensor<int32_t>({4, 6}));
  INFER_OK(op, "[1,5,5,3];[7,4];[?];[2]", "[d1_0,4,6,d0_3]");
  INFER_OK(op, "?;?;?;[2]", "[?,4,6,?]");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op,
              "[5,5,3];[7,4];[7];[2]");
  INFER_ERROR("Shape must be rank 2 but is rank 1", op,
              "[1,5,5,3];[4];[7];[2]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op,
              "[1,5,5,3];[7,4];[7,1];[2]");
  INFER_ERROR("Dimensions must be equal, but are 7 and 6", op,
              "[1,5,5,3];[7,4];[6];[2]");
  INFER_ERROR("Dimension must be 4 but is 3", op, "[1,5,5,3];[7,3];[7];[2]");
  op.ClearInputTensor(3);
  INFER_ERROR("Dimension must be 2 but is 3", op, "[1,5,5,3];[7,4];[7];[3]");
}

TEST(ImageOpsTest, NonMaxSuppressionV3AndV4) {
  ShapeInferenceTestOp op("NonMaxSuppressionV3");
  INFER_OK(op, "[6,4];[6];[];[];[]", "[?]");
  INFER_OK(op, "?;?;?;?;?", "[?]");
  INFER_ERROR("Shape must be rank 2 but is rank 1", op, "[6];[6];[];[];[]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[6,4];[6,1];[];[];[]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[6,4];[6];[1];[];[]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[6,4];[6];[];[];[1]");
  INFER_ERROR("Dimensions must be equal, but are 6 and 5", op,
              "[6,4];[5];[];[];[]");
  INFER_ERROR("Dimension must be 4 but is 3", op, "[6,3];[6];[];[];[]");
  op = ShapeInferenceTestOp("NonMaxSuppressionV4");
  INFER_OK(op, "[6,4];[6];[];[];[]", "[?];[]");
  op.Attr("pad_to_max_output_size", true);
  INFER_OK(op, "[6,4];[6];[];[];[]", "[?];[]");
  op.SetInputTensor(2, test::AsScalar<int32_t>(5));
  INFER_OK(op, "[6,4];[6];[];[];[]", "[5];[]");
}

TEST(ImageOpsTest, NonMaxSuppressionV5) {
  ShapeInferenceTestOp op("NonMaxSuppressionV5");
  INFER_OK(op, "[6,4];[6];[];[];[];[]", "[?];[?];[]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op,
              "[6,4];[6];[];[];[];[1]");
  op.Attr("pad_to_max_output_size", true);
  op.SetInputTensor(2, test::AsScalar<int32_t>(3));
  INFER_OK(op, "[6,4];[6];[];[];[];[]", "[3];[3];[]");
}

TEST(ImageOpsTest, CombinedNonMaxSuppression) {
  ShapeInferenceTestOp op("CombinedNonMaxSuppression");
  INFER_OK(op, "[2,6,1,4];[2,6,3];[];[];[];[]",
           "[d0_0,?,4];[d0_0,?];[d0_0,?];[d0_0]");
  op.SetInputTensor(2, test::AsScalar<int32_t>(2))
      .SetInputTensor(3, test::AsScalar<int32_t>(10));
  INFER_OK(op, "[2,6,3,4];[2,6,3];[];[];[];[]",
           "[d0_0,10,4];[d0_0,10];[d0_0,10];[d0_0]");
  op.Attr("pad_per_class", true);
  INFER_OK(op, "[2,6,3,4];[2,6,3];[];[];[];[]",
           "[d0_0,6,4];[d0_0,6];[d0_0,6];[d0_0]");
  INFER_OK(op, "[2,6,1,4];[2,6,?];[];[];[];[]",
           "[d0_0,?,4];[d0_0,?];[d0_0,?];[d0_0]");
  INFER_ERROR(
      "third dimension of boxes must be either 1 or equal to the "
      "third dimension of scores",
      op, "[2,6,2,4];[2,6,3];[];[];[];[]");
  INFER_ERROR("Dimensions must be equal, but are 2 and 3", op,
              "[2,6,1,4];[3,6,3];[];[];[];[]");
  INFER_ERROR("Dimensions must be equal, but are 6 and 5", op,
              "[2,6,1,4];[2,5,3];[];[];[];[]");
  INFER_ERROR("Dimension must be 4 but is 2", op,
              "[2,6,1,2];[2,6,3];[];[];[];[]");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op,
              "[2,6,4];[2,6,3];[];[];[];[]");
  op.SetInputTensor(2, test::AsScalar<int32_t>(0));
  INFER_ERROR("max_output_size_per_class must be > 0 if pad_per_class is true",
              op, "[2,6,1,4];[2,6,3];[];[];[];[]");
  op.SetInputTensor(3, test::AsScalar<int32_t>(0));
  INFER_ERROR("max_total_size should be > 0", op,
              "[2,6,1,4];[2,6,3];[];[];[];[]");
}

}  // namespace
}  // namespace minflow
