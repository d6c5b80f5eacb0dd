// Shape functions of src/ops/array_ops.cc (and NoOp), in TensorFlow's
// INFER_OK / INFER_ERROR notation.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/testlib/shape_inference_testutil.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using test::AsScalar;
using test::AsTensor;

TEST(ArrayOpsTest, Const) {
  ShapeInferenceTestOp op("Const");
  op.Attr("dtype", DT_FLOAT)
      .Attr("value", Tensor(DT_FLOAT, TensorShape({2, 3})));
  INFER_OK(op, "", "[2,3]");
  op.Attr("value", AsScalar<int32_t>(1));
  INFER_OK(op, "", "[]");
  ShapeInferenceTestOp no_value("Const");
  INFER_ERROR("value", no_value, "");
}

TEST(ArrayOpsTest, Placeholder) {
  ShapeInferenceTestOp op("Placeholder");
  op.Attr("dtype", DT_FLOAT);
  INFER_OK(op, "", "?");
  op.Attr("shape", PartialTensorShape({2, -1}));
  INFER_OK(op, "", "[2,?]");
  op.Attr("shape", PartialTensorShape({}));
  INFER_OK(op, "", "[]");
}

TEST(ArrayOpsTest, PlaceholderWithDefault) {
  ShapeInferenceTestOp op("PlaceholderWithDefault");
  op.Attr("dtype", DT_FLOAT).Attr("shape", PartialTensorShape({-1, 2}));
  INFER_OK(op, "[3,2]", "[?,2]");
  INFER_OK(op, "?", "[?,2]");
  INFER_ERROR("Dimension 1 in both shapes must be equal, but are 3 and 2", op,
              "[3,3]");
  INFER_ERROR("Shapes must be equal rank", op, "[3]");
}

TEST(ArrayOpsTest, IdentitiesPassTheSameShape) {
  for (const char* name :
       {"Identity", "StopGradient", "ZerosLike", "OnesLike"}) {
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[1,?,3]", "in0");
    INFER_OK(op, "?", "in0");
    INFER_OK(op, "[]", "in0");
  }
}

TEST(ArrayOpsTest, IdentityN) {
  ShapeInferenceTestOp op("IdentityN");
  INFER_OK(op, "[1];[2,?];?", "in0;in1;in2");
  INFER_OK(op, "[]", "in0");
}

TEST(ArrayOpsTest, NoOp) {
  ShapeInferenceTestOp op("NoOp");
  INFER_OK(op, "", "");
  INFER_ERROR("Wrong number of inputs passed: 1 while 0 expected", op, "[1]");
}

TEST(ArrayOpsTest, ShapeSizeRank) {
  ShapeInferenceTestOp shape("Shape");
  INFER_OK(shape, "[1,?,3]", "[3]");
  INFER_OK(shape, "[]", "[0]");
  INFER_OK(shape, "?", "[?]");
  for (const char* name : {"Size", "Rank"}) {
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[1,?,3]", "[]");
    INFER_OK(op, "?", "[]");
  }
}

// ---- Reshape
// ---------------------------------------------------------------------

TEST(ArrayOpsTest, ReshapeWithKnownShape) {
  ShapeInferenceTestOp op("Reshape");
  op.SetInputTensor(1, AsTensor<int32_t>({2, 3}));
  INFER_OK(op, "[3,2];[2]", "[2,3]");
  INFER_OK(op, "?;[2]", "[2,3]");
  INFER_OK(op, "[?,2];[2]", "[2,3]");
  INFER_ERROR(
      "Cannot reshape a tensor with 8 elements to shape [2,3] "
      "(6 elements)",
      op, "[4,2];[2]");
  // The shape input must be a vector.
  ShapeInferenceTestOp no_value("Reshape");
  INFER_ERROR("Shape must be rank 1 but is rank 0", no_value, "[6];[]");
}

TEST(ArrayOpsTest, ReshapeResolvesMinusOne) {
  ShapeInferenceTestOp op("Reshape");
  op.SetInputTensor(1, AsTensor<int32_t>({-1, 2}));
  INFER_OK(op, "[3,2];[2]", "[3,2]");
  INFER_OK(op, "[12];[2]", "[6,2]");
  // One unknown on each side with equal known parts: the same dim.
  INFER_OK(op, "[?,2];[2]", "[d0_0,2]");
  // Unknown elements: the -1 stays unknown.
  INFER_OK(op, "[3,?];[2]", "[?,2]");
  INFER_OK(op, "?;[2]", "[?,2]");
  INFER_OK(op, "[0,4];[2]", "[0,2]");
  INFER_ERROR("evenly divisible by 2 but is 15", op, "[3,5];[2]");
  op.SetInputTensor(1, AsTensor<int64_t>({2, -1}));
  INFER_OK(op, "[4,3];[2]", "[2,6]");
}

TEST(ArrayOpsTest, ReshapeChecksTheInputsUnknownDim) {
  ShapeInferenceTestOp op("Reshape");
  op.SetInputTensor(1, AsTensor<int32_t>({5, 2}));
  INFER_OK(op, "[?,2];[2]", "[5,2]");
  INFER_ERROR("evenly divisible by 3 but is 10", op, "[?,3];[2]");
}

TEST(ArrayOpsTest, ReshapeWithUnknownShapeValue) {
  ShapeInferenceTestOp op("Reshape");
  INFER_OK(op, "[2,3];[3]", "[?,?,?]");
  INFER_OK(op, "[2,3];?", "?");
  INFER_OK(op, "?;[?]", "?");
}

TEST(ArrayOpsTest, ReshapeRejectsBadShapeValues) {
  ShapeInferenceTestOp op("Reshape");
  op.SetInputTensor(1, AsTensor<int32_t>({-1, -1}));
  INFER_ERROR("Only one input size may be -1, not both 0 and 1", op, "[4];[2]");
  op.SetInputTensor(1, AsTensor<int32_t>({2, -2}));
  INFER_ERROR("Size 1 must be non-negative, not -2", op, "[4];[2]");
  op.SetInputTensor(1, AsTensor<float>({2.0f, 2.0f}));
  INFER_ERROR("must be int32 or int64", op, "[4];[2]");
  op.SetInputTensor(1, AsTensor<int64_t>({int64_t{1} << 40, int64_t{1} << 40}));
  INFER_ERROR("more elements than int64 can count", op, "?;[2]");
}

// ---- ExpandDims, Squeeze, Transpose
// --------------------------------------------------

TEST(ArrayOpsTest, ExpandDims) {
  ShapeInferenceTestOp op("ExpandDims");
  INFER_OK(op, "[2,3];[]", "?");
  op.SetInputTensor(1, AsScalar<int32_t>(0));
  INFER_OK(op, "[2,3];[]", "[1,d0_0,d0_1]");
  INFER_OK(op, "?;[]", "?");
  op.SetInputTensor(1, AsScalar<int32_t>(-1));
  INFER_OK(op, "[2,3];[]", "[d0_0,d0_1,1]");
  op.SetInputTensor(1, AsScalar<int64_t>(2));
  INFER_OK(op, "[2,3];[]", "[d0_0,d0_1,1]");
  op.SetInputTensor(1, AsScalar<int32_t>(-3));
  INFER_OK(op, "[2,3];[]", "[1,d0_0,d0_1]");
  op.SetInputTensor(1, AsScalar<int32_t>(3));
  INFER_ERROR("dim 3 not in the interval [-3, 2].", op, "[2,3];[]");
  op.SetInputTensor(1, AsScalar<int32_t>(-4));
  INFER_ERROR("dim -4 not in the interval [-3, 2].", op, "[2,3];[]");
  op.SetInputTensor(1, AsTensor<int32_t>({0, 1}));
  INFER_ERROR("'dim' input must be a tensor with a single value", op,
              "[2,3];[2]");
  op.SetInputTensor(1, AsScalar<float>(0.0f));
  INFER_ERROR("must be int32 or int64", op, "[2,3];[]");
}

TEST(ArrayOpsTest, Squeeze) {
  ShapeInferenceTestOp op("Squeeze");
  INFER_OK(op, "[1,2,1]", "[d0_1]");
  INFER_OK(op, "[2,3]", "[d0_0,d0_1]");
  INFER_OK(op, "[1,?,2]", "?");
  INFER_OK(op, "?", "?");
  op.Attr("squeeze_dims", std::vector<int64_t>{0});
  INFER_OK(op, "[1,2,1]", "[d0_1,d0_2]");
  INFER_OK(op, "[?,2]", "[d0_1]");
  op.Attr("squeeze_dims", std::vector<int64_t>{-1, 0});
  INFER_OK(op, "[1,2,1]", "[d0_1]");
  op.Attr("squeeze_dims", std::vector<int64_t>{1});
  INFER_ERROR("Can not squeeze dim[1], expected a dimension of 1, got 2", op,
              "[1,2]");
  op.Attr("squeeze_dims", std::vector<int64_t>{2});
  INFER_ERROR("squeeze_dims[0] not in [-2,2).", op, "[1,1]");
}

TEST(ArrayOpsTest, TransposeWithKnownPerm) {
  ShapeInferenceTestOp op("Transpose");
  op.SetInputTensor(1, AsTensor<int32_t>({1, 0}));
  INFER_OK(op, "[2,3];[2]", "[d0_1,d0_0]");
  INFER_OK(op, "?;[2]", "[?,?]");
  op.SetInputTensor(1, AsTensor<int64_t>({2, 0, 1}));
  INFER_OK(op, "[2,3,4];[3]", "[d0_2,d0_0,d0_1]");
}

TEST(ArrayOpsTest, TransposeWithUnknownPerm) {
  ShapeInferenceTestOp op("Transpose");
  INFER_OK(op, "[2,3];[2]", "[?,?]");
  INFER_OK(op, "[2,3];?", "[?,?]");
  INFER_OK(op, "?;[3]", "[?,?,?]");
  INFER_OK(op, "?;?", "?");
  // A one-element perm fits a scalar and a vector alike.
  INFER_OK(op, "?;[1]", "in0");
  INFER_ERROR("Dimension must be 2 but is 3", op, "[2,3];[3]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[2,3];[2,1]");
}

TEST(ArrayOpsTest, TransposeRejectsBadPerms) {
  ShapeInferenceTestOp op("Transpose");
  op.SetInputTensor(1, AsTensor<int32_t>({2, 0}));
  INFER_ERROR("perm dim 2 is out of range of input rank 2", op, "[2,3];[2]");
  op.SetInputTensor(1, AsTensor<int32_t>({-1, 0}));
  INFER_ERROR("perm dim -1 is out of range of input rank 2", op, "[2,3];[2]");
  op.SetInputTensor(1, AsTensor<int32_t>({0, 0}));
  INFER_ERROR("0 is duplicated in perm", op, "[2,3];[2]");
  op.SetInputTensor(1, AsTensor<int32_t>({0, 1, 2}));
  INFER_ERROR("transpose expects a vector of size 2", op, "[2,3];?");
}

// ---- ConcatV2, Pack, Unpack
// ------------------------------------------------------------

TEST(ArrayOpsTest, ConcatV2WithKnownAxis) {
  ShapeInferenceTestOp op("ConcatV2");
  op.SetInputTensor(2, AsScalar<int32_t>(0));
  INFER_OK(op, "[1,2];[3,2];[]", "[4,d0_1]");
  INFER_OK(op, "[?,2];[3,2];[]", "[?,d0_1]");
  INFER_OK(op, "[1,?];[3,2];[]", "[4,d1_1]");
  INFER_OK(op, "?;[3,2];[]", "[?,d1_1]");
  INFER_OK(op, "?;?;[]", "?");
  INFER_ERROR("Dimension 0 in both shapes must be equal, but are 2 and 3", op,
              "[1,2];[1,3];[]");
  INFER_ERROR("Shape must be at least rank 1 but is rank 0", op, "[];[1];[]");
  op.SetInputTensor(2, AsScalar<int64_t>(-1));
  INFER_OK(op, "[2,1];[2,3];[]", "[d0_0,4]");
  op.SetInputTensor(2, AsScalar<int32_t>(1));
  INFER_OK(op, "[2,1];[2,3];[]", "[d0_0,4]");
  op.SetInputTensor(2, AsScalar<int32_t>(2));
  INFER_ERROR("Shape must be at least rank 3 but is rank 2", op,
              "[2,1];[2,3];[]");
  op.SetInputTensor(2, AsScalar<int64_t>(int64_t{1} << 40));
  INFER_ERROR("beyond the maximum rank", op, "[2,1];[2,3];[]");
  // Three inputs: N follows from the inputs given.
  op.SetInputTensor(3, AsScalar<int32_t>(0));
  op.ClearInputTensor(2);
  INFER_OK(op, "[1];[2];[3];[]", "[6]");
}

TEST(ArrayOpsTest, ConcatV2WithUnknownAxis) {
  ShapeInferenceTestOp op("ConcatV2");
  INFER_OK(op, "[2,1];[2,3];[]", "[?,?]");
  INFER_OK(op, "?;[2,3];[]", "[?,?]");
  INFER_OK(op, "?;?;[]", "?");
  INFER_ERROR("Can't concatenate scalars", op, "[];[];[]");
  INFER_ERROR("Shape must be rank 2 but is rank 1", op, "[2,1];[2];[]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[2];[2];[1]");
  op.SetInputTensor(2, AsScalar<float>(0.0f));
  INFER_ERROR("axis must be int32 or int64", op, "[2];[2];[]");
}

TEST(ArrayOpsTest, Pack) {
  ShapeInferenceTestOp op("Pack");
  INFER_OK(op, "[2,3];[2,3]", "[2,d0_0,d0_1]");
  INFER_OK(op, "[2,?];[?,3]", "[2,d0_0,d1_1]");
  INFER_OK(op, "?;?;?", "?");
  INFER_OK(op, "[];[]", "[2]");
  op.Attr("axis", 1);
  INFER_OK(op, "[2,3];[2,3];[2,3]", "[d0_0,3,d0_1]");
  op.Attr("axis", -1);
  INFER_OK(op, "[2,3];[2,3]", "[d0_0,d0_1,2]");
  op.Attr("axis", 3);
  INFER_ERROR("Invalid axis: 3; must be in [-3,3)", op, "[2,3];[2,3]");
  op.Attr("axis", 0);
  INFER_ERROR("From merging shape 0 with other shapes.", op, "[2];[3]");
  INFER_ERROR("Shapes must be equal rank", op, "[2];[2,3]");
}

TEST(ArrayOpsTest, Unpack) {
  ShapeInferenceTestOp op("Unpack");
  op.Attr("num", 2);
  INFER_OK(op, "[2,3]", "[d0_1];[d0_1]");
  INFER_OK(op, "[?,3]", "[d0_1];[d0_1]");
  INFER_OK(op, "?", "?;?");
  INFER_ERROR("Dimension must be 2 but is 3", op, "[3,3]");
  op.Attr("num", 3).Attr("axis", -1);
  INFER_OK(op, "[2,3]", "[d0_0];[d0_0];[d0_0]");
  op.Attr("axis", 2);
  INFER_ERROR("Invalid axis: 2; must be in [-2,2)", op, "[2,3]");
  ShapeInferenceTestOp no_num("Unpack");
  INFER_ERROR("num", no_num, "[2,3]");
}

// ---- Split, SplitV
// ---------------------------------------------------------------------

TEST(ArrayOpsTest, Split) {
  ShapeInferenceTestOp op("Split");
  op.Attr("num_split", 2);
  INFER_OK(op, "[];[2,4]", "[?,?];[?,?]");
  INFER_OK(op, "[];?", "?;?");
  op.SetInputTensor(0, AsScalar<int32_t>(1));
  INFER_OK(op, "[];[2,4]", "[d1_0,2];[d1_0,2]");
  INFER_OK(op, "[];[2,?]", "[d1_0,?];[d1_0,?]");
  op.SetInputTensor(0, AsScalar<int32_t>(-1));
  INFER_OK(op, "[];[2,4]", "[d1_0,2];[d1_0,2]");
  op.SetInputTensor(0, AsScalar<int32_t>(0));
  INFER_ERROR(
      "Number of ways to split should evenly divide the split "
      "dimension",
      op, "[];[3,4]");
  op.SetInputTensor(0, AsScalar<int32_t>(2));
  INFER_ERROR("must be in range [-2, 2)", op, "[];[2,4]");
  op.ClearInputTensor(0);
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[1];[2,4]");
}

TEST(ArrayOpsTest, SplitV) {
  ShapeInferenceTestOp op("SplitV");
  op.Attr("num_split", 2);
  INFER_OK(op, "[2,4];[2];[]", "[?,?];[?,?]");
  INFER_OK(op, "?;[2];[]", "?;?");
  INFER_ERROR("Can't split scalars", op, "[];[2];[]");
  op.SetInputTensor(2, AsScalar<int32_t>(1));
  INFER_OK(op, "[2,4];[2];[]", "[d0_0,?];[d0_0,?]");
  op.SetInputTensor(1, AsTensor<int64_t>({1, -1}));
  INFER_OK(op, "[2,4];[2];[]", "[d0_0,1];[d0_0,3]");
  INFER_OK(op, "[2,?];[2];[]", "[d0_0,1];[d0_0,?]");
  op.SetInputTensor(1, AsTensor<int32_t>({1, 3}));
  INFER_OK(op, "[2,4];[2];[]", "[d0_0,1];[d0_0,3]");
  op.SetInputTensor(1, AsTensor<int32_t>({1, 2}));
  INFER_ERROR("can't split axis of size 4 into pieces of size [1,2]", op,
              "[2,4];[2];[]");
  op.SetInputTensor(1, AsTensor<int32_t>({-1, -1}));
  INFER_ERROR("size_splits can only have one -1", op, "[2,4];[2];[]");
  op.SetInputTensor(1, AsTensor<int32_t>({1, -3}));
  INFER_ERROR("size_splits must be >= -1, but got -3", op, "[2,4];[2];[]");
  op.SetInputTensor(1, AsTensor<int32_t>({1, 1, 2}));
  INFER_ERROR("Length of size_splits should be equal to num_outputs", op,
              "[2,4];[3];[]");
  op.SetInputTensor(1, AsTensor<int64_t>({int64_t{1} << 62, int64_t{1} << 62}));
  INFER_ERROR("size_splits sum overflows int64", op, "[2,4];[2];[]");
}

// ---- Fill, Tile
// ------------------------------------------------------------------------

TEST(ArrayOpsTest, Fill) {
  ShapeInferenceTestOp op("Fill");
  INFER_OK(op, "[2];[]", "[?,?]");
  INFER_OK(op, "?;[]", "?");
  op.SetInputTensor(0, AsTensor<int32_t>({2, 3}));
  INFER_OK(op, "[2];[]", "[2,3]");
  op.SetInputTensor(0, AsTensor<int64_t>({0, 5}));
  INFER_OK(op, "[2];[]", "[0,5]");
  op.SetInputTensor(0, AsTensor<int32_t>({2, -3}));
  INFER_ERROR("Fill dimensions must be >= 0", op, "[2];[]");
  op.SetInputTensor(0, AsTensor<float>({2.0f}));
  INFER_ERROR("must be int32 or int64", op, "[1];[]");
  op.ClearInputTensor(0);
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[2];[1]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[2,2];[]");
  // A huge rank cannot be a shape.
  INFER_ERROR("more than the maximum rank", op, "[1000];[]");
}

TEST(ArrayOpsTest, Tile) {
  ShapeInferenceTestOp op("Tile");
  INFER_OK(op, "[2,3];[2]", "[?,?]");
  INFER_OK(op, "?;[2]", "[?,?]");
  INFER_OK(op, "?;?", "?");
  INFER_ERROR("Shape must be rank 2 but is rank 1", op, "[2,3];[1]");
  op.SetInputTensor(1, AsTensor<int32_t>({2, 1}));
  INFER_OK(op, "[2,3];[2]", "[4,d0_1]");
  INFER_OK(op, "[?,3];[2]", "[?,d0_1]");
  op.SetInputTensor(1, AsTensor<int32_t>({0, 3}));
  INFER_OK(op, "[2,3];[2]", "[0,9]");
  op.SetInputTensor(1, AsTensor<int32_t>({-1, 1}));
  INFER_ERROR("Expected multiples[0] >= 0, but got -1", op, "[2,3];[2]");
  op.SetInputTensor(1, AsTensor<int64_t>({int64_t{1} << 62, 1}));
  INFER_ERROR("overflow", op, "[8,3];[2]");
}

// ---- Pad, PadV2, MirrorPad
// ---------------------------------------------------------------

TEST(ArrayOpsTest, Pad) {
  for (const char* name : {"Pad", "PadV2"}) {
    ShapeInferenceTestOp op(name);
    const bool v2 = std::string(name) == "PadV2";
    auto in = [v2](const std::string& s) { return v2 ? s + ";[]" : s; };
    INFER_OK(op, in("[2,3];[2,2]"), "[?,?]");
    INFER_OK(op, in("?;[3,2]"), "[?,?,?]");
    INFER_OK(op, in("?;[?,2]"), "?");
    INFER_ERROR("Dimension must be 2 but is 3", op, in("[2,3];[2,3]"));
    INFER_ERROR("Shape must be rank 3 but is rank 2", op, in("[2,3];[3,2]"));
    op.SetInputTensor(1, AsTensor<int32_t>({1, 1, 0, 0}, TensorShape({2, 2})));
    INFER_OK(op, in("[2,3];[2,2]"), "[4,d0_1]");
    INFER_OK(op, in("?;[2,2]"), "[?,?]");
    op.SetInputTensor(1, AsTensor<int64_t>({1, -1, 0, 0}, TensorShape({2, 2})));
    INFER_ERROR("Paddings must be non-negative", op, in("[2,3];[2,2]"));
    op.SetInputTensor(1, AsTensor<int64_t>({int64_t{1} << 62, int64_t{1} << 62},
                                           TensorShape({1, 2})));
    INFER_ERROR("overflow", op, in("[2];[1,2]"));
  }
}

TEST(ArrayOpsTest, MirrorPad) {
  ShapeInferenceTestOp op("MirrorPad");
  op.Attr("mode", "REFLECT");
  INFER_OK(op, "[3];[1,2]", "[?]");
  op.SetInputTensor(1, AsTensor<int32_t>({2, 2}, TensorShape({1, 2})));
  INFER_OK(op, "[3];[1,2]", "[7]");
  INFER_OK(op, "[?];[1,2]", "[?]");
  op.SetInputTensor(1, AsTensor<int32_t>({3, 0}, TensorShape({1, 2})));
  INFER_ERROR("paddings must be no greater than the dimension size minus 1", op,
              "[3];[1,2]");
  op.Attr("mode", "SYMMETRIC");
  INFER_OK(op, "[3];[1,2]", "[6]");
  op.SetInputTensor(1, AsTensor<int32_t>({4, 0}, TensorShape({1, 2})));
  INFER_ERROR("paddings must be no greater than the dimension size", op,
              "[3];[1,2]");
  ShapeInferenceTestOp no_mode("MirrorPad");
  INFER_ERROR("mode", no_mode, "[3];[1,2]");
}

TEST(ArrayOpsTest, BroadcastTo) {
  ShapeInferenceTestOp op("BroadcastTo");
  op.SetInputTensor(1, AsTensor<int32_t>({2, 3, 4}));
  INFER_OK(op, "[3,1];[3]", "[2,d0_0,4]");
  INFER_OK(op, "[4];[3]", "[2,3,d0_0]");
  INFER_OK(op, "?;[3]", "[2,3,4]");
  INFER_OK(op, "[1,1,1];[3]", "[2,3,4]");
  INFER_ERROR("Dimensions must be equal, but are 5 and 4", op, "[5];[3]");
  INFER_ERROR("Shape must be at most rank 3 but is rank 4", op,
              "[1,2,3,4];[3]");
  ShapeInferenceTestOp unknown("BroadcastTo");
  INFER_ERROR("Shape must be rank 1 but is rank 2", unknown, "[1];[3,1]");
  INFER_OK(unknown, "[3];[2]", "[?,d0_0]");
  INFER_OK(unknown, "[3];?", "?");
}

TEST(ArrayOpsTest, BroadcastArgs) {
  ShapeInferenceTestOp op("BroadcastArgs");
  INFER_OK(op, "[3];[2]", "[3]");
  INFER_OK(op, "[1];[4]", "[4]");
  INFER_OK(op, "[?];[2]", "[?]");
  INFER_OK(op, "?;?", "[?]");
  INFER_ERROR("Shape must be rank 1 but is rank 0", op, "[];[2]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[2];[2,1]");
}

TEST(ArrayOpsTest, BroadcastGradientArgs) {
  ShapeInferenceTestOp op("BroadcastGradientArgs");
  // The lengths depend on the values, even when the inputs are known.
  INFER_OK(op, "[3];[2]", "[?];[?]");
  INFER_OK(op, "?;?", "[?];[?]");
  INFER_ERROR("Shape must be rank 1 but is rank 0", op, "[];[2]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[2];[2,1]");
}

TEST(ArrayOpsTest, Where) {
  ShapeInferenceTestOp op("Where");
  INFER_OK(op, "[2,3]", "[?,2]");
  INFER_OK(op, "[]", "[?,0]");
  INFER_OK(op, "?", "[?,?]");
}

TEST(ArrayOpsTest, ReverseV2) {
  ShapeInferenceTestOp op("ReverseV2");
  INFER_OK(op, "[2,3];[1]", "in0");
  INFER_OK(op, "?;[2]", "in0");
  INFER_ERROR("Shape must be rank 1 but is rank 0", op, "[2];[]");
  INFER_ERROR("reverse does not work on tensors with more than 8 dimensions",
              op, "[1,1,1,1,1,1,1,1,1];[1]");
  op.SetInputTensor(1, AsTensor<int32_t>({-1, 0}));
  INFER_OK(op, "[2,3];[2]", "in0");
  op.SetInputTensor(1, AsTensor<int64_t>({2}));
  INFER_ERROR("'axis'[0] = 2 is out of valid range [0, 1", op, "[2,3];[1]");
  op.SetInputTensor(1, AsTensor<int32_t>({1, -1}));
  INFER_ERROR("axis 1 specified more than once.", op, "[2,3];[2]");
}

TEST(ArrayOpsTest, InvertPermutation) {
  ShapeInferenceTestOp op("InvertPermutation");
  INFER_OK(op, "[5]", "in0");
  INFER_OK(op, "?", "[?]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[1,2]");
}

TEST(ArrayOpsTest, ShapeN) {
  ShapeInferenceTestOp op("ShapeN");
  INFER_OK(op, "[2,3];?;[]", "[2];[?];[0]");
  INFER_OK(op, "[?,?,?,?]", "[4]");
}

TEST(ArrayOpsTest, EnsureShape) {
  ShapeInferenceTestOp op("EnsureShape");
  op.Attr("shape", PartialTensorShape({2, -1}));
  INFER_OK(op, "?", "[2,?]");
  INFER_OK(op, "[?,3]", "[2,d0_1]");
  INFER_OK(op, "[2,3]", "in0");
  INFER_ERROR("Dimension 0 in both shapes must be equal, but are 2 and 3", op,
              "[3,3]");
  INFER_ERROR("Shapes must be equal rank, but are 2 and 1", op, "[2]");
  op.Attr("shape", PartialTensorShape());
  INFER_OK(op, "[2,3]", "in0");
}

TEST(ArrayOpsTest, Snapshot) {
  ShapeInferenceTestOp op("Snapshot");
  INFER_OK(op, "[2,?]", "in0");
  INFER_OK(op, "?", "in0");
}

TEST(ArrayOpsTest, Unique) {
  ShapeInferenceTestOp op("Unique");
  INFER_OK(op, "[5]", "[?];in0");
  INFER_OK(op, "?", "[?];in0");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[5,1]");
}

TEST(ArrayOpsTest, ReverseSequence) {
  ShapeInferenceTestOp op("ReverseSequence");
  op.Attr("seq_dim", int64_t{1}).Attr("batch_dim", int64_t{0});
  INFER_OK(op, "[2,5,3];[2]", "[d0_0,d0_1,d0_2]");
  INFER_OK(op, "[?,5,3];[2]", "[d1_0,d0_1,d0_2]");
  INFER_OK(op, "?;[2]", "?");
  INFER_ERROR("Dimensions must be equal, but are 2 and 3", op, "[2,5];[3]");
  INFER_ERROR("Shape must be rank 1 but is rank 0", op, "[2,5];[]");
  op.Attr("seq_dim", int64_t{2});
  INFER_ERROR("seq_dim must be < input rank: 2 vs. 2", op, "[2,5];[2]");
  op.Attr("seq_dim", int64_t{0}).Attr("batch_dim", int64_t{3});
  INFER_ERROR("batch_dim must be < input rank: 3 vs. 2", op, "[2,5];[2]");
  op.Attr("batch_dim", int64_t{-1});
  INFER_ERROR("batch_dim must be >=0, got -1", op, "[2,5];[2]");
}

// ---- ConcatOffset, StridedSliceGrad, MirrorPadGrad (the gradients' helpers)

TEST(ArrayOpsTest, ConcatOffset) {
  ShapeInferenceTestOp op("ConcatOffset");
  INFER_OK(op, "[];[3];[3]", "in1;in1");
  INFER_OK(op, "[];[?];[3];[?]", "in2;in2;in2");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[1];[3];[3]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[];[3];[3,1]");
  INFER_ERROR("Dimension 0 in both shapes must be equal, but are 3 and 2", op,
              "[];[3];[2]");
}

TEST(ArrayOpsTest, StridedSliceGrad) {
  ShapeInferenceTestOp op("StridedSliceGrad");
  INFER_OK(op, "[2];[1];[1];[1];[?]", "[?,?]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[2,1];[1];[1];[1];?");
  op.SetInputTensor(0, AsTensor<int32_t>({4, 3}));
  INFER_OK(op, "[2];[1];[1];[1];[?]", "[4,3]");
}

TEST(ArrayOpsTest, MirrorPadGrad) {
  ShapeInferenceTestOp op("MirrorPadGrad");
  op.Attr("mode", "REFLECT");
  INFER_OK(op, "[7,2];[2,2]", "[?,?]");
  INFER_OK(op, "?;[?,2]", "?");
  INFER_ERROR("Dimension must be 2 but is 3", op, "[7];[1,3]");
  INFER_ERROR("Shape must be rank 2 but is rank 1", op, "[7];[2,2]");
  op.SetInputTensor(1, AsTensor<int64_t>({2, 1, 0, 0}, TensorShape({2, 2})));
  INFER_OK(op, "[7,2];[2,2]", "[4,d0_1]");
  INFER_OK(op, "[?,2];[2,2]", "[?,d0_1]");
  op.SetInputTensor(1, AsTensor<int32_t>({-1, 1}, TensorShape({1, 2})));
  INFER_ERROR("Paddings must be non-negative, but got -1, 1", op, "[7];[1,2]");
}

}  // namespace
}  // namespace minflow
