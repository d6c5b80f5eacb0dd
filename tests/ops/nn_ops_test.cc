// Shape functions of src/ops/nn_ops.cc.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/testlib/shape_inference_testutil.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using test::AsScalar;
using test::AsTensor;
using Ints = std::vector<int64_t>;

TEST(NnOpsTest, ActivationsKeepTheInputShape) {
  for (const char* name :
       {"Relu", "Relu6", "Elu", "Selu", "LeakyRelu", "Softplus", "Softsign"}) {
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[1,?,3]", "in0");
    INFER_OK(op, "?", "in0");
  }
}

TEST(NnOpsTest, SoftmaxNeedsAVector) {
  for (const char* name : {"Softmax", "LogSoftmax"}) {
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[2,3]", "in0");
    INFER_OK(op, "[3]", "in0");
    INFER_OK(op, "?", "?");
    INFER_ERROR("Shape must be at least rank 1 but is rank 0", op, "[]");
  }
}

TEST(NnOpsTest, BiasAdd) {
  ShapeInferenceTestOp op("BiasAdd");
  INFER_OK(op, "[2,3];[3]", "[d0_0,d0_1]");
  INFER_OK(op, "[2,?];[3]", "[d0_0,d1_0]");
  INFER_OK(op, "[4,5,2,3];[?]", "[d0_0,d0_1,d0_2,d0_3]");
  INFER_OK(op, "?;[3]", "?");
  INFER_ERROR("Shape must be at least rank 2 but is rank 1", op, "[2];[2]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[2,3];[1,3]");
  INFER_ERROR("Dimensions must be equal, but are 3 and 4", op, "[2,3];[4]");
  op.Attr("data_format", "NCHW");
  INFER_OK(op, "[2,3,4];[3]", "[d0_0,d0_1,d0_2]");
  INFER_OK(op, "[2,?,4,5];[3]", "[d0_0,d1_0,d0_2,d0_3]");
  INFER_ERROR("Shape must be at least rank 3 but is rank 2", op, "[2,3];[3]");
  op.Attr("data_format", "NCDHW");
  INFER_ERROR("Invalid data format string: NCDHW", op, "[2,3,4];[3]");
}

TEST(NnOpsTest, BiasAddGrad) {
  ShapeInferenceTestOp op("BiasAddGrad");
  INFER_OK(op, "[2,3]", "[d0_1]");
  INFER_OK(op, "[4,5,2,3]", "[d0_3]");
  INFER_OK(op, "?", "[?]");
  INFER_ERROR("Shape must be at least rank 2 but is rank 1", op, "[2]");
  op.Attr("data_format", "NCHW");
  INFER_OK(op, "[2,3,4]", "[d0_1]");
  INFER_OK(op, "[2,?,4,5]", "[d0_1]");
  INFER_ERROR("Shape must be at least rank 3 but is rank 2", op, "[2,3]");
}

TEST(NnOpsTest, ReluGradMergesItsInputs) {
  ShapeInferenceTestOp op("ReluGrad");
  INFER_OK(op, "[2,3];[2,3]", "in0");
  INFER_OK(op, "[2,?];[?,3]", "[d0_0,d1_1]");
  INFER_ERROR("Dimension 1 in both shapes must be equal, but are 3 and 4", op,
              "[2,3];[2,4]");
}

ShapeInferenceTestOp Conv(const char* name, Ints strides, const char* padding) {
  ShapeInferenceTestOp op(name);
  op.Attr("strides", strides).Attr("padding", padding);
  return op;
}

TEST(NnOpsTest, Conv2DValidAndSame) {
  ShapeInferenceTestOp op = Conv("Conv2D", {1, 1, 1, 1}, "VALID");
  INFER_OK(op, "[1,5,5,3];[3,3,3,8]", "[d0_0,3,3,d1_3]");
  INFER_OK(op, "[1,?,5,3];[3,3,3,8]", "[d0_0,?,3,d1_3]");
  INFER_OK(op, "[1,5,5,3];[?,3,3,8]", "[d0_0,?,3,d1_3]");
  INFER_OK(op, "?;?", "[?,?,?,?]");
  op = Conv("Conv2D", {1, 2, 2, 1}, "SAME");
  INFER_OK(op, "[1,5,5,3];[3,3,3,8]", "[d0_0,3,3,d1_3]");
  INFER_OK(op, "[1,6,7,3];[3,3,3,8]", "[d0_0,3,4,d1_3]");
  op = Conv("Conv2D", {1, 2, 1, 1}, "VALID");
  INFER_OK(op, "[1,6,6,3];[3,3,3,8]", "[d0_0,2,4,d1_3]");
}

TEST(NnOpsTest, Conv2DDilationsExplicitPaddingAndNCHW) {
  ShapeInferenceTestOp op = Conv("Conv2D", {1, 1, 1, 1}, "VALID");
  op.Attr("dilations", Ints{1, 2, 2, 1});
  INFER_OK(op, "[1,5,5,3];[3,3,3,8]", "[d0_0,1,1,d1_3]");
  INFER_OK(op, "[1,7,6,3];[3,3,3,8]", "[d0_0,3,2,d1_3]");
  op = Conv("Conv2D", {1, 1, 1, 1}, "EXPLICIT");
  op.Attr("explicit_paddings", Ints{0, 0, 1, 1, 2, 2, 0, 0});
  INFER_OK(op, "[1,5,5,3];[3,3,3,8]", "[d0_0,5,7,d1_3]");
  op = Conv("Conv2D", {1, 1, 1, 1}, "VALID");
  op.Attr("data_format", "NCHW");
  INFER_OK(op, "[1,3,5,5];[3,3,3,8]", "[d0_0,d1_3,3,3]");
  op = Conv("Conv2D", {1, 1, 2, 2}, "SAME");
  op.Attr("data_format", "NCHW");
  INFER_OK(op, "[1,3,5,5];[3,3,3,8]", "[d0_0,d1_3,3,3]");
}

TEST(NnOpsTest, Conv2DGroups) {
  ShapeInferenceTestOp op = Conv("Conv2D", {1, 1, 1, 1}, "VALID");
  INFER_OK(op, "[1,5,5,6];[3,3,3,8]", "[d0_0,3,3,d1_3]");
  INFER_ERROR(
      "Depth of input (6) is not a multiple of input depth of filter "
      "(4)",
      op, "[1,5,5,6];[3,3,4,8]");
  INFER_ERROR(
      "Depth of output (7) is not a multiple of the number of groups "
      "(2)",
      op, "[1,5,5,6];[3,3,3,7]");
  INFER_ERROR("input depth of filter (0)", op, "[1,5,5,6];[3,3,0,8]");
}

TEST(NnOpsTest, Conv2DRejectsBadAttrsAndShapes) {
  ShapeInferenceTestOp op = Conv("Conv2D", {1, 1, 1, 1}, "VALID");
  INFER_ERROR("Negative dimension size caused by subtracting 3 from 2", op,
              "[1,2,2,3];[3,3,3,8]");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op, "[2,2,3];[3,3,3,8]");
  INFER_ERROR("error in input 1", op, "[1,2,2,3];[3,3,8]");
  op.Attr("strides", Ints{1, 1, 1});
  INFER_ERROR(
      "Conv2D requires the strides attribute to contain 4 values, but "
      "got: 3",
      op, "[1,5,5,3];[3,3,3,8]");
  op.Attr("strides", Ints{1, 0, 1, 1});
  INFER_ERROR("Stride must be > 0, but got 0", op, "[1,5,5,3];[3,3,3,8]");
  op.Attr("strides", Ints{1, 1, 1, 1}).Attr("dilations", Ints{1, 0, 1, 1});
  INFER_ERROR("Dilation rate must be >= 1, but got 0", op,
              "[1,5,5,3];[3,3,3,8]");
  op.Attr("dilations", Ints{1, 1, 1, 1})
      .Attr("explicit_paddings", Ints{0, 0, 1, 1, 1, 1, 0, 0});
  INFER_ERROR("explicit_paddings attribute must be empty", op,
              "[1,5,5,3];[3,3,3,8]");
  op.Attr("padding", "EXPLICIT").Attr("explicit_paddings", Ints{1, 1});
  INFER_ERROR("explicit_paddings attribute must contain 8 values, but got: 2",
              op, "[1,5,5,3];[3,3,3,8]");
  op.Attr("explicit_paddings", Ints{0, 0, -1, 1, 1, 1, 0, 0});
  INFER_ERROR("All elements of explicit_paddings must be nonnegative", op,
              "[1,5,5,3];[3,3,3,8]");
  op.Attr("explicit_paddings", Ints{1, 0, 1, 1, 1, 1, 0, 0});
  INFER_ERROR("Nonzero explicit padding in the batch or depth dimensions", op,
              "[1,5,5,3];[3,3,3,8]");
  op.Attr("padding", "FULL");
  INFER_ERROR("FULL is not an allowed padding type", op, "[1,5,5,3];[3,3,3,8]");
  ShapeInferenceTestOp no_strides("Conv2D");
  no_strides.Attr("padding", "SAME");
  INFER_ERROR("strides", no_strides, "[1,5,5,3];[3,3,3,8]");
}

TEST(NnOpsTest, Conv2DBackpropInputTakesTheShapeFromInputSizes) {
  ShapeInferenceTestOp op = Conv("Conv2DBackpropInput", {1, 2, 2, 1}, "SAME");
  // Unknown values: only the batch is known, from out_backprop.
  INFER_OK(op, "[4];[3,3,2,8];[1,5,5,8]", "[d2_0,?,?,?]");
  INFER_OK(op, "?;?;?", "[?,?,?,?]");
  op.SetInputTensor(0, AsTensor<int32_t>({1, 10, 9, 2}));
  INFER_OK(op, "[4];[3,3,2,8];[1,5,5,8]", "[d2_0,10,9,2]");
  // As TensorFlow: the batch is out_backprop's even when only input_sizes
  // knows it.
  INFER_OK(op, "[4];[3,3,2,8];[?,5,5,8]", "[d2_0,10,9,2]");
  // Two values: rows and cols; batch from out_backprop, depth from the
  // filter.
  op.SetInputTensor(0, AsTensor<int32_t>({10, 9}));
  INFER_OK(op, "[2];[3,3,2,8];[1,5,5,8]", "[d2_0,10,9,d1_2]");
  op = Conv("Conv2DBackpropInput", {1, 1, 2, 2}, "VALID");
  op.Attr("data_format", "NCHW");
  op.SetInputTensor(0, AsTensor<int32_t>({3, 2, 10, 9}));
  INFER_OK(op, "[4];[3,3,2,8];[3,8,4,4]", "[d2_0,2,10,9]");
  op.SetInputTensor(0, AsTensor<int32_t>({10, 9}));
  INFER_OK(op, "[2];[3,3,2,8];[3,8,4,4]", "[d2_0,d1_2,10,9]");
}

TEST(NnOpsTest, Conv2DBackpropInputRejectsBadShapes) {
  ShapeInferenceTestOp op = Conv("Conv2DBackpropInput", {1, 1, 1, 1}, "SAME");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op,
              "[4];[3,3,2,8];[1,5,5]");
  INFER_ERROR("Shape must be rank 4 but is rank 2", op, "[4];[3,3];[1,5,5,8]");
  INFER_ERROR("Dimensions must be equal, but are 7 and 8", op,
              "[4];[3,3,2,8];[1,5,5,7]");
  op.SetInputTensor(0, AsTensor<int32_t>({1, 5, 5}));
  INFER_ERROR(
      "Conv2DBackpropInput requires input_sizes to contain 4 values or 2 "
      "values, but got: 3",
      op, "[3];[3,3,2,8];[1,5,5,8]");
  op.SetInputTensor(0, AsTensor<int32_t>({2, 5, 5, 2}));
  INFER_ERROR("Dimensions must be equal, but are 2 and 1", op,
              "[4];[3,3,2,8];[1,5,5,8]");
  op.Attr("data_format", "NCDHW");
  INFER_ERROR("Invalid data format string: NCDHW", op,
              "[4];[3,3,2,8];[1,5,5,8]");
}

TEST(NnOpsTest, Conv3D) {
  ShapeInferenceTestOp op = Conv("Conv3D", {1, 1, 1, 1, 1}, "VALID");
  op.Attr("dilations", Ints{1, 1, 1, 1, 1});
  INFER_OK(op, "[2,5,6,7,3];[3,3,3,3,8]", "[d0_0,3,4,5,d1_4]");
  INFER_OK(op, "[2,?,6,7,3];[3,?,3,3,8]", "[d0_0,?,?,5,d1_4]");
  INFER_OK(op, "?;?", "[?,?,?,?,?]");
  // Grouped: 6 channels in 2 groups of 3.
  INFER_OK(op, "[2,5,6,7,6];[3,3,3,3,8]", "[d0_0,3,4,5,d1_4]");
  op = Conv("Conv3D", {1, 2, 3, 1, 1}, "SAME");
  INFER_OK(op, "[2,5,6,7,3];[3,3,3,3,8]", "[d0_0,3,2,d0_3,d1_4]");
  op.Attr("dilations", Ints{1, 1, 2, 1, 1});
  op.Attr("strides", Ints{1, 1, 1, 1, 1}).Attr("padding", "VALID");
  INFER_OK(op, "[2,5,6,7,3];[3,3,3,3,8]", "[d0_0,3,2,5,d1_4]");
  op = Conv("Conv3D", {1, 1, 2, 1, 1}, "VALID");
  op.Attr("data_format", "NCDHW");
  INFER_OK(op, "[2,3,5,6,7];[3,3,3,3,8]", "[d0_0,d1_4,2,4,5]");
}

TEST(NnOpsTest, Conv3DRejectsBadShapesAndAttrs) {
  ShapeInferenceTestOp op = Conv("Conv3D", {1, 1, 1, 1, 1}, "VALID");
  INFER_ERROR("Shape must be rank 5 but is rank 4", op, "[2,5,6,7];?");
  INFER_ERROR("Shape must be rank 5 but is rank 4", op, "?;[3,3,3,8]");
  INFER_ERROR("Depth of filter must not be 0", op, "[2,5,6,7,3];[3,3,3,0,8]");
  INFER_ERROR(
      "Depth of input (5) is not a multiple of input depth of filter "
      "(3)",
      op, "[2,5,6,7,5];[3,3,3,3,8]");
  INFER_ERROR(
      "Depth of output (8) is not a multiple of the number of groups "
      "(3)",
      op, "[2,5,6,7,9];[3,3,3,3,8]");
  INFER_ERROR("Negative dimension size caused by subtracting 3 from 2", op,
              "[2,2,6,7,3];[3,3,3,3,8]");
  op.Attr("strides", Ints{1, 1, 1, 1});
  INFER_ERROR(
      "Conv3D requires the stride attribute to contain 5 values, but got: 4",
      op, "[2,5,6,7,3];[3,3,3,3,8]");
  op.Attr("strides", Ints{1, 1, 1, 1, 1}).Attr("dilations", Ints{1, 1, 1});
  INFER_ERROR(
      "Conv3D requires the dilation attribute to contain 5 values, but got: 3",
      op, "[2,5,6,7,3];[3,3,3,3,8]");
}

TEST(NnOpsTest, DepthwiseConv2dNative) {
  ShapeInferenceTestOp op =
      Conv("DepthwiseConv2dNative", {1, 1, 1, 1}, "VALID");
  INFER_OK(op, "[1,5,5,3];[3,3,3,2]", "[d0_0,3,3,6]");
  INFER_OK(op, "[1,5,5,3];[3,3,3,1]", "[d0_0,3,3,d0_3]");
  INFER_OK(op, "?;[3,3,3,2]", "[?,?,?,6]");
  INFER_ERROR("Dimensions must be equal, but are 3 and 4", op,
              "[1,5,5,3];[3,3,4,2]");
  op = Conv("DepthwiseConv2dNative", {1, 2, 2, 1}, "SAME");
  INFER_OK(op, "[1,5,5,3];[3,3,3,2]", "[d0_0,3,3,6]");
  op.Attr("data_format", "NCHW").Attr("strides", Ints{1, 1, 2, 2});
  INFER_OK(op, "[1,3,5,5];[3,3,3,2]", "[d0_0,6,3,3]");
  op = Conv("DepthwiseConv2dNative", {1, 1, 1, 1}, "EXPLICIT");
  op.Attr("explicit_paddings", Ints{0, 0, 1, 1, 1, 1, 0, 0});
  INFER_OK(op, "[1,5,5,3];[3,3,3,2]", "[d0_0,5,5,6]");
  op.Attr("strides", Ints{1, 1});
  INFER_ERROR(
      "DepthwiseConv2D requires the strides attribute to contain 4 "
      "values",
      op, "[1,5,5,3];[3,3,3,2]");
}

TEST(NnOpsTest, DepthwiseConv2dNativeRejectsZeroStrideOrDilation) {
  ShapeInferenceTestOp op =
      Conv("DepthwiseConv2dNative", {1, 0, 1, 1}, "VALID");
  INFER_ERROR("Stride must be > 0, but got 0", op, "[1,5,5,3];[3,3,3,2]");
  op = Conv("DepthwiseConv2dNative", {1, 1, 1, 1}, "VALID");
  op.Attr("dilations", Ints{1, 1, 0, 1});
  INFER_ERROR("Dilation rate must be >= 1, but got 0", op,
              "[1,5,5,3];[3,3,3,2]");
}

TEST(NnOpsTest, EmptyConvolutionFiltersPassShapeInferenceAsInTensorFlow) {
  // TensorFlow's shape functions give the windowed size of an empty window
  // (the kernels reject the filter when there is an output to compute).
  ShapeInferenceTestOp conv = Conv("Conv2D", {1, 1, 1, 1}, "VALID");
  INFER_OK(conv, "[1,2,2,1];[0,0,1,1]", "[d0_0,3,3,d1_3]");
  ShapeInferenceTestOp depthwise =
      Conv("DepthwiseConv2dNative", {1, 1, 1, 1}, "SAME");
  INFER_OK(depthwise, "[1,2,2,1];[0,1,1,1]", "[d0_0,d0_1,d0_2,d1_3]");
}

ShapeInferenceTestOp Pool(const char* name, Ints ksize, Ints strides,
                          const char* padding) {
  ShapeInferenceTestOp op(name);
  op.Attr("ksize", ksize).Attr("strides", strides).Attr("padding", padding);
  return op;
}

TEST(NnOpsTest, MaxPool) {
  ShapeInferenceTestOp op =
      Pool("MaxPool", {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  INFER_OK(op, "[1,4,4,3]", "[d0_0,2,2,3]");
  INFER_OK(op, "[1,4,4,?]", "[d0_0,2,2,?]");
  INFER_OK(op, "?", "[?,?,?,?]");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op, "[4,4,3]");
  op = Pool("MaxPool", {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME");
  INFER_OK(op, "[1,5,5,3]", "[d0_0,3,3,d0_3]");
  // Pooling over depth.
  op = Pool("MaxPool", {1, 1, 1, 3}, {1, 1, 1, 3}, "VALID");
  INFER_OK(op, "[1,4,4,6]", "[d0_0,4,4,2]");
  op = Pool("MaxPool", {1, 1, 2, 2}, {1, 1, 2, 2}, "VALID");
  op.Attr("data_format", "NCHW");
  INFER_OK(op, "[1,3,4,4]", "[d0_0,3,2,2]");
  op = Pool("MaxPool", {1, 3, 3, 1}, {1, 1, 1, 1}, "EXPLICIT");
  op.Attr("explicit_paddings", Ints{0, 0, 1, 1, 1, 1, 0, 0});
  INFER_OK(op, "[1,4,4,3]", "[d0_0,4,4,3]");
  op.Attr("data_format", "NCHW_VECT_C");
  INFER_ERROR("does not take EXPLICIT padding with NCHW_VECT_C", op,
              "[1,4,4,3,4]");
}

TEST(NnOpsTest, MaxPoolNchwVectC) {
  // [N, C/4, H, W, 4], windows over H and W.
  ShapeInferenceTestOp op =
      Pool("MaxPool", {1, 1, 2, 2}, {1, 1, 2, 2}, "VALID");
  op.Attr("data_format", "NCHW_VECT_C");
  INFER_OK(op, "[2,3,6,4,4]", "[d0_0,d0_1,3,2,4]");
  INFER_OK(op, "[?,?,6,?,?]", "[d0_0,d0_1,3,?,4]");
  INFER_OK(op, "?", "[?,?,?,?,4]");
  INFER_ERROR("needs a last input dimension of 4, but the input is [2,3,6,4,8]",
              op, "[2,3,6,4,8]");
  INFER_ERROR("Shape must be rank 5 but is rank 4", op, "[2,3,6,4]");
  op = Pool("MaxPool", {1, 1, 3, 3}, {1, 1, 2, 2}, "SAME");
  op.Attr("data_format", "NCHW_VECT_C");
  INFER_OK(op, "[1,2,5,5,4]", "[d0_0,d0_1,3,3,4]");
  op = Pool("MaxPool", {1, 2, 2, 2}, {1, 2, 2, 2}, "VALID");
  op.Attr("data_format", "NCHW_VECT_C");
  INFER_ERROR("pools over H and W only", op, "[1,2,6,6,4]");
}

TEST(NnOpsTest, MaxPoolRejectsBadWindows) {
  ShapeInferenceTestOp op = Pool("MaxPool", {1, 2, 2}, {1, 2, 2, 1}, "VALID");
  INFER_ERROR(
      "MaxPool requires the ksize attribute to contain 4 values, but "
      "got: 3",
      op, "[1,4,4,3]");
  op = Pool("MaxPool", {1, 0, 2, 1}, {1, 2, 2, 1}, "VALID");
  INFER_ERROR("Sliding window ksize must be positive", op, "[1,4,4,3]");
  op = Pool("MaxPool", {1, 2, 2, 1}, {1, -2, 2, 1}, "VALID");
  INFER_ERROR("Stride must be > 0, but got -2", op, "[1,4,4,3]");
  op = Pool("MaxPool", {1, 5, 2, 1}, {1, 2, 2, 1}, "VALID");
  INFER_ERROR("Negative dimension size caused by subtracting 5 from 4", op,
              "[1,4,4,3]");
}

TEST(NnOpsTest, MaxPoolV2WindowFromInputs) {
  ShapeInferenceTestOp op("MaxPoolV2");
  op.Attr("padding", "VALID");
  // Unknown window values: TensorFlow gives up on the whole shape.
  INFER_OK(op, "[1,4,4,3];[4];[4]", "?");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op, "[4,4,3];[4];[4]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[1,4,4,3];[4,1];[4]");
  INFER_ERROR("Dimension must be 4 but is 3", op, "[1,4,4,3];[4];[3]");
  op.SetInputTensor(1, AsTensor<int32_t>({1, 2, 2, 1}))
      .SetInputTensor(2, AsTensor<int32_t>({1, 2, 2, 1}));
  INFER_OK(op, "[1,4,4,3];[4];[4]", "[d0_0,2,2,3]");
  op.Attr("padding", "SAME");
  INFER_OK(op, "[1,5,5,3];[4];[4]", "[d0_0,3,3,d0_3]");
  op.SetInputTensor(1, AsTensor<int32_t>({1, 1, 1, 3}))
      .SetInputTensor(2, AsTensor<int32_t>({1, 1, 1, 3}));
  INFER_OK(op, "[1,4,4,6];[4];[4]", "[d0_0,d0_1,d0_2,2]");
  op.SetInputTensor(1, AsTensor<int32_t>({1, 0, 2, 1}));
  INFER_ERROR("Sliding window ksize must be positive, but got 0", op,
              "[1,4,4,3];[4];[4]");
  op.SetInputTensor(1, AsTensor<int32_t>({1, 2, 2, 1}))
      .SetInputTensor(2, AsTensor<int32_t>({1, 2, 2}));
  INFER_ERROR(
      "MaxPool requires the stride attribute to contain 4 values, "
      "but got: 3",
      op, "[1,4,4,3];[4];[?]");
}

TEST(NnOpsTest, AvgPool) {
  ShapeInferenceTestOp op =
      Pool("AvgPool", {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  INFER_OK(op, "[1,4,4,3]", "[d0_0,2,2,d0_3]");
  INFER_OK(op, "[?,5,4,?]", "[d0_0,2,2,d0_3]");
  op = Pool("AvgPool", {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME");
  INFER_OK(op, "[1,5,5,3]", "[d0_0,3,3,d0_3]");
  op = Pool("AvgPool", {1, 1, 2, 2}, {1, 1, 2, 2}, "VALID");
  op.Attr("data_format", "NCHW");
  INFER_OK(op, "[1,3,4,4]", "[d0_0,d0_1,2,2]");
  op = Pool("AvgPool", {1, 2, 2, 1}, {1, 2, 2}, "VALID");
  INFER_ERROR("AvgPool requires the strides attribute to contain 4 values", op,
              "[1,4,4,3]");
}

TEST(NnOpsTest, MaxPoolWithArgmaxGivesTwoOutputsOfOneShape) {
  ShapeInferenceTestOp op("MaxPoolWithArgmax");
  op.Attr("ksize", Ints{1, 2, 3, 1})
      .Attr("strides", Ints{1, 2, 2, 1})
      .Attr("padding", "VALID");
  INFER_OK(op, "[2,6,7,3]", "[d0_0,3,3,3];[d0_0,3,3,3]");
  INFER_OK(op, "?", "[?,?,?,?];[?,?,?,?]");
  op.Attr("padding", "SAME");
  INFER_OK(op, "[2,5,7,3]", "[d0_0,3,4,d0_3];[d0_0,3,4,d0_3]");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op, "[5,7,3]");
  op.Attr("ksize", Ints{1, 2, 2, 1, 1});
  INFER_ERROR("requires the ksize attribute to contain 4 values, but got: 5",
              op, "[2,5,7,3]");
}

TEST(NnOpsTest, Pool3D) {
  for (const char* name : {"MaxPool3D", "AvgPool3D"}) {
    ShapeInferenceTestOp op(name);
    op.Attr("ksize", Ints{1, 2, 3, 2, 1})
        .Attr("strides", Ints{1, 2, 1, 2, 1})
        .Attr("padding", "VALID");
    INFER_OK(op, "[2,6,7,8,3]", "[d0_0,3,5,4,d0_4]");
    INFER_OK(op, "[2,?,7,8,3]", "[d0_0,?,5,4,d0_4]");
    INFER_OK(op, "?", "[?,?,?,?,?]");
    op.Attr("padding", "SAME");
    INFER_OK(op, "[2,5,7,9,3]", "[d0_0,3,d0_2,5,d0_4]");
    op.Attr("data_format", "NCDHW")
        .Attr("ksize", Ints{1, 1, 2, 3, 2})
        .Attr("strides", Ints{1, 1, 2, 1, 2});
    INFER_OK(op, "[2,3,5,7,9]", "[d0_0,d0_1,3,d0_3,5]");
    INFER_ERROR("Shape must be rank 5 but is rank 4", op, "[2,5,7,9]");
    op.Attr("strides", Ints{1, 1, 1, 1, 1, 1});
    INFER_ERROR(
        "Pool3D ops require the stride attribute to contain 5 values, but "
        "got: 6",
        op, "[2,3,5,7,9]");
    op.Attr("strides", Ints{1, 1, 1, 1, 1})
        .Attr("ksize", Ints{1, 1, 1, 1, 1, 1});
    INFER_ERROR(
        "Pool3D requires the ksize attribute to contain 5 values, but got: 6",
        op, "[2,3,5,7,9]");
  }
}

TEST(NnOpsTest, FusedBatchNormTraining) {
  for (const char* name : {"FusedBatchNorm", "FusedBatchNormV2"}) {
    ShapeInferenceTestOp op(name);
    // Training with the default factor 1 reads only scale and offset.
    INFER_OK(op, "[2,3,4,5];[5];[5];[?];[7]",
             "[d0_0,d0_1,d0_2,d0_3];[d0_3];[d0_3];[d0_3];[d0_3]");
    INFER_OK(op, "[2,3,4,?];[?];[5];?;?",
             "[d0_0,d0_1,d0_2,d2_0];[d2_0];[d2_0];[d2_0];[d2_0]");
    INFER_OK(op, "?;?;?;?;?", "[?,?,?,?];[?];[?];[?];[?]");
    INFER_ERROR("Dimensions must be equal, but are 5 and 6", op,
                "[2,3,4,5];[6];[5];[5];[5]");
    INFER_ERROR("Shape must be rank 4 but is rank 3", op,
                "[2,3,5];[5];[5];[5];[5]");
    INFER_ERROR("Shape must be rank 1 but is rank 2", op,
                "[2,3,4,5];[5];[5,1];[5];[5]");
    op.Attr("data_format", "NCHW");
    INFER_OK(op, "[2,3,4,5];[3];[3];[3];[3]",
             "[d0_0,d0_1,d0_2,d0_3];[d0_1];[d0_1];[d0_1];[d0_1]");
  }
}

TEST(NnOpsTest, FusedBatchNormInferenceAndAveragingReadMeanAndVariance) {
  ShapeInferenceTestOp op("FusedBatchNormV2");
  op.Attr("is_training", false);
  INFER_OK(op, "[2,3,4,?];[?];[?];[5];[?]",
           "[d0_0,d0_1,d0_2,d3_0];[d3_0];[d3_0];[d3_0];[d3_0]");
  INFER_ERROR("Dimensions must be equal, but are 5 and 7", op,
              "[2,3,4,5];[5];[5];[5];[7]");
  op.Attr("is_training", true).Attr("exponential_avg_factor", 0.5f);
  INFER_ERROR("Dimensions must be equal, but are 5 and 7", op,
              "[2,3,4,5];[5];[5];[7];[5]");
}

TEST(NnOpsTest, FusedBatchNormV3TakesFiveDimensionsAndAReserveSpace) {
  ShapeInferenceTestOp op("FusedBatchNormV3");
  INFER_OK(op, "[2,3,4,5];[5];[5];[5];[5]",
           "[d0_0,d0_1,d0_2,d0_3];[d0_3];[d0_3];[d0_3];[d0_3];?");
  op.Attr("data_format", "NCDHW");
  INFER_OK(op, "[2,3,4,5,6];[3];[3];[3];[3]",
           "[d0_0,d0_1,d0_2,d0_3,d0_4];[d0_1];[d0_1];[d0_1];[d0_1];?");
  INFER_ERROR("Shape must be rank 5 but is rank 4", op,
              "[2,3,4,5];[3];[3];[3];[3]");
  op.Attr("data_format", "NDHWC");
  INFER_OK(op, "[2,3,4,5,6];[6];[6];[6];[6]",
           "[d0_0,d0_1,d0_2,d0_3,d0_4];[d0_4];[d0_4];[d0_4];[d0_4];?");
}

TEST(NnOpsTest, LRNKeepsARankFourShape) {
  ShapeInferenceTestOp op("LRN");
  INFER_OK(op, "[1,2,3,4]", "in0");
  INFER_OK(op, "?", "[?,?,?,?]");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op, "[1,2,3]");
}

TEST(NnOpsTest, TopKV2) {
  ShapeInferenceTestOp op("TopKV2");
  INFER_OK(op, "[2,5];[]", "[d0_0,?];[d0_0,?]");
  INFER_OK(op, "?;[]", "?;?");
  INFER_ERROR("Shape must be at least rank 1 but is rank 0", op, "[];[]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[5];[1]");
  op.SetInputTensor(1, AsScalar<int32_t>(3));
  INFER_OK(op, "[2,5];[]", "[d0_0,3];[d0_0,3]");
  INFER_OK(op, "[5];[]", "[3];[3]");
  INFER_OK(op, "[2,?];[]", "[d0_0,3];[d0_0,3]");
  op.SetInputTensor(1, AsScalar<int64_t>(6));
  INFER_ERROR("input must have last dimension >= k = 6 but is 5", op,
              "[2,5];[]");
  op.SetInputTensor(1, AsScalar<int32_t>(-1));
  INFER_ERROR("must be non-negative but is -1", op, "[2,5];[]");
}

// ---- The convolution and pooling gradients (issue 20): the output shape
// comes from the sizes input, or is orig_input's.

TEST(NnOpsTest, ConvBackpropFiltersTakeTheShapeFromFilterSizes) {
  for (const char* name :
       {"Conv2DBackpropFilter", "DepthwiseConv2dNativeBackpropFilter"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op = Conv(name, {1, 1, 1, 1}, "SAME");
    INFER_OK(op, "[1,5,5,2];[4];[1,5,5,8]", "[?,?,?,?]");
    op.SetInputTensor(1, AsTensor<int32_t>({3, 3, 2, 8}));
    INFER_OK(op, "[1,5,5,2];[4];[1,5,5,8]", "[3,3,2,8]");
    op.SetInputTensor(1, AsTensor<int32_t>({3, 3, 2}));
    INFER_ERROR("Shape must be rank 4 but is rank 3", op,
                "[1,5,5,2];[3];[1,5,5,8]");
  }
}

TEST(NnOpsTest, DepthwiseBackpropInputAndAvgPoolGradTakeTheShapeFromSizes) {
  ShapeInferenceTestOp op =
      Conv("DepthwiseConv2dNativeBackpropInput", {1, 1, 1, 1}, "SAME");
  INFER_OK(op, "[4];[3,3,2,1];[1,5,5,2]", "[?,?,?,?]");
  op.SetInputTensor(0, AsTensor<int32_t>({1, 5, 5, 2}));
  INFER_OK(op, "[4];[3,3,2,1];[1,5,5,2]", "[1,5,5,2]");
  op = Pool("AvgPoolGrad", {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  op.SetInputTensor(0, AsTensor<int32_t>({2, 6, 4, 3}));
  INFER_OK(op, "[4];[2,3,2,3]", "[2,6,4,3]");
  op.SetInputTensor(0, AsTensor<int32_t>({2, 6, 4}));
  INFER_ERROR("Shape must be rank 4 but is rank 3", op, "[3];[2,3,2,3]");
}

TEST(NnOpsTest, MaxPoolGradsHaveOrigInputShape) {
  ShapeInferenceTestOp op =
      Pool("MaxPoolGrad", {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  INFER_OK(op, "[2,6,4,3];[2,3,2,3];[2,3,2,3]", "in0");
  INFER_ERROR("Shape must be rank 4 but is rank 3", op, "[6,4,3];?;?");
  op = ShapeInferenceTestOp("MaxPoolGradV2");
  op.Attr("padding", "SAME");
  INFER_OK(op, "[2,6,4,3];?;?;[4];[4]", "in0");
}

// ---- Gradient ops and cross-entropies (issue 20)

TEST(NnOpsTest, ActivationGradsMergeTheirInputs) {
  for (const char* name : {"Relu6Grad", "EluGrad", "SeluGrad", "LeakyReluGrad",
                           "SoftplusGrad", "SoftsignGrad"}) {
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[2,?];[?,3]", "[d0_0,d1_1]");
    INFER_OK(op, "?;[2,3]", "in1");
    INFER_ERROR("Dimension 0 in both shapes must be equal, but are 2 and 3", op,
                "[2];[3]");
  }
}

TEST(NnOpsTest, SparseSoftmaxCrossEntropyWithLogits) {
  ShapeInferenceTestOp op("SparseSoftmaxCrossEntropyWithLogits");
  INFER_OK(op, "[2,10];[2]", "[d0_0];[d0_0,d0_1]");
  INFER_OK(op, "[?,10];[2]", "[d1_0];[d1_0,d0_1]");
  INFER_OK(op, "?;?", "[?];[?,?]");
  INFER_ERROR("Dimensions must be equal, but are 2 and 3", op, "[2,10];[3]");
  INFER_ERROR("Shape must be rank 2 but is rank 1", op, "[10];[1]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[2,10];[2,1]");
}

TEST(NnOpsTest, SoftmaxCrossEntropyWithLogits) {
  ShapeInferenceTestOp op("SoftmaxCrossEntropyWithLogits");
  INFER_OK(op, "[2,10];[2,10]", "[d0_0];in0");
  INFER_OK(op, "[?,10];[2,?]", "[d1_0];[d1_0,d0_1]");
  INFER_OK(op, "?;?", "[?];[?,?]");
  // Broadcasting (softmax_cross_entropy_with_logits_v2).
  INFER_OK(op, "[1,10];[5,10]", "[d1_0];[d1_0,d0_1]");
  INFER_OK(op, "[10];[5,10]", "[d1_0];[d1_0,d0_0]");
  INFER_OK(op, "[5,10];[10]", "[d0_0];[d0_0,d0_1]");
  INFER_ERROR("Dimensions must be equal, but are 2 and 3", op, "[2,10];[3,10]");
  INFER_ERROR(
      "logits and labels must broadcast to rank 2, but got [10] and "
      "[10]",
      op, "[10];[10]");
  INFER_ERROR("must broadcast to rank 2", op, "[1,2,10];[2,10]");
}

TEST(NnOpsTest, FusedBatchNormGrad) {
  for (const char* name : {"FusedBatchNormGrad", "FusedBatchNormGradV2"}) {
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[2,3,4,5];[2,3,4,5];[5];[5];[5]",
             "[d0_0,d0_1,d0_2,d0_3];[d0_3];[d0_3];[0];[0]");
    INFER_OK(op, "[2,3,4,?];?;[?];[5];?",
             "[d0_0,d0_1,d0_2,d3_0];[d3_0];[d3_0];[0];[0]");
    INFER_OK(op, "?;?;?;?;?", "[?,?,?,?];[?];[?];[0];[0]");
    INFER_ERROR("Dimensions must be equal, but are 5 and 6", op,
                "[2,3,4,5];[2,3,4,5];[5];[6];[5]");
    INFER_ERROR("Shape must be rank 4 but is rank 3", op,
                "[2,3,5];[2,3,5];[5];[5];[5]");
    INFER_ERROR("Shape must be rank 1 but is rank 2", op,
                "[2,3,4,5];[2,3,4,5];[5];[5];[5,1]");
    op.Attr("data_format", "NCHW");
    INFER_OK(op, "[2,3,4,5];[2,3,4,5];[3];[3];[3]",
             "[d0_0,d0_1,d0_2,d0_3];[d0_1];[d0_1];[0];[0]");
  }
  ShapeInferenceTestOp op("FusedBatchNormGradV3");
  op.Attr("data_format", "NCDHW");
  INFER_OK(op, "[2,3,4,5,6];[2,3,4,5,6];[3];[3];[3];[]",
           "[d0_0,d0_1,d0_2,d0_3,d0_4];[d0_1];[d0_1];[0];[0]");
  INFER_ERROR("Shape must be rank 5 but is rank 4", op,
              "[2,3,4,5];[2,3,4,5];[3];[3];[3];[]");
}

}  // namespace
}  // namespace minflow
