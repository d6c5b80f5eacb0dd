// Shape functions of src/ops/fused_ops.cc: those of the unfused
// contraction, whatever the fused args.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/testlib/shape_inference_testutil.h"

namespace minflow {
namespace {

using Ints = std::vector<int64_t>;

TEST(FusedOpsTest, FusedMatMulIsMatMulShape) {
  ShapeInferenceTestOp op("_FusedMatMul");
  op.Attr("num_args", 1).Attr("fused_ops", std::vector<std::string>{"BiasAdd"});
  INFER_OK(op, "[2,3];[3,4];[4]", "[d0_0,d1_1]");
  INFER_OK(op, "[2,?];[?,4];[4]", "[d0_0,d1_1]");
  INFER_OK(op, "?;?;?", "[?,?]");
  op.Attr("transpose_a", true).Attr("transpose_b", true);
  INFER_OK(op, "[3,2];[4,3];[4]", "[d0_1,d1_0]");
  INFER_ERROR("Shape must be rank 2 but is rank 1", op, "[2];[3,4];[4]");
  INFER_ERROR("Dimensions must be equal, but are 2 and 3", op,
              "[2,5];[4,3];[4]");
}

TEST(FusedOpsTest, FusedConv2DIsConv2DShape) {
  ShapeInferenceTestOp op("_FusedConv2D");
  op.Attr("strides", Ints{1, 1, 1, 1})
      .Attr("padding", "VALID")
      .Attr("num_args", 1)
      .Attr("TArgs", std::vector<DataType>{DT_FLOAT})
      .Attr("fused_ops", std::vector<std::string>{"BiasAdd", "Relu"});
  INFER_OK(op, "[1,5,5,3];[3,3,3,8];[8]", "[d0_0,3,3,d1_3]");
  INFER_OK(op, "[1,?,5,3];[3,3,3,8];[8]", "[d0_0,?,3,d1_3]");
  INFER_OK(op, "?;?;?", "[?,?,?,?]");
  op.Attr("strides", Ints{1, 2, 2, 1}).Attr("padding", "SAME");
  INFER_OK(op, "[1,6,7,3];[3,3,3,8];[8]", "[d0_0,3,4,d1_3]");
  op.Attr("padding", "EXPLICIT")
      .Attr("strides", Ints{1, 1, 1, 1})
      .Attr("explicit_paddings", Ints{0, 0, 1, 1, 2, 2, 0, 0});
  INFER_OK(op, "[1,5,5,3];[3,3,3,8];[8]", "[d0_0,5,7,d1_3]");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op,
              "[5,5,3];[3,3,3,8];[8]");
  // Batch norm: four args, same output.
  op.Attr("padding", "VALID")
      .Attr("explicit_paddings", Ints{})
      .Attr("num_args", 4)
      .Attr("TArgs", std::vector<DataType>(4, DT_FLOAT))
      .Attr("fused_ops", std::vector<std::string>{"FusedBatchNorm"});
  INFER_OK(op, "[2,5,5,3];[3,3,3,8];[8];[8];[8];[8]", "[d0_0,3,3,d1_3]");
}

TEST(FusedOpsTest, FusedDepthwiseConv2dNativeIsDepthwiseShape) {
  ShapeInferenceTestOp op("_FusedDepthwiseConv2dNative");
  op.Attr("strides", Ints{1, 1, 1, 1})
      .Attr("padding", "VALID")
      .Attr("num_args", 1)
      .Attr("fused_ops", std::vector<std::string>{"BiasAdd", "Relu6"});
  INFER_OK(op, "[1,5,5,3];[3,3,3,2];[6]", "[d0_0,3,3,6]");
  INFER_OK(op, "?;?;?", "[?,?,?,?]");
  op.Attr("strides", Ints{1, 2, 2, 1}).Attr("padding", "SAME");
  INFER_OK(op, "[1,6,7,3];[3,3,3,1];[3]", "[d0_0,3,4,d0_3]");
  INFER_ERROR("Dimensions must be equal, but are 3 and 4", op,
              "[1,5,5,3];[3,3,4,1];[4]");
}

TEST(FusedOpsTest, FusedBatchNormExIsV3ShapeWithFourChannelGroups) {
  ShapeInferenceTestOp op("_FusedBatchNormEx");
  op.Attr("is_training", false).Attr("num_side_inputs", 1);
  INFER_OK(op, "[2,3,3,8];[8];[8];[8];[8];[2,3,3,8]",
           "[d0_0,d0_1,d0_2,d0_3];[d0_3];[d0_3];[d0_3];[d0_3];?");
  INFER_OK(op, "[2,3,3,?];[8];[?];[?];[?];?",
           "[d0_0,d0_1,d0_2,d1_0];[d1_0];[d1_0];[d1_0];[d1_0];?");
  INFER_ERROR("must be divisible by 4", op, "[2,3,3,6];[6];[6];[6];[6];?");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op, "[2,3,8];?;?;?;?;?");
  INFER_ERROR("Dimensions must be equal, but are 8 and 4", op,
              "[2,3,3,8];[4];?;?;?;?");
  op.Attr("data_format", "NCHW");
  INFER_OK(op, "[2,8,3,3];[8];[8];[8];[8];?",
           "[d0_0,d0_1,d0_2,d0_3];[d0_1];[d0_1];[d0_1];[d0_1];?");
}

}  // namespace
}  // namespace minflow
