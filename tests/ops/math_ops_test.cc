// Shape functions of src/ops/math_ops.cc.
#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/testlib/shape_inference_testutil.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using test::AsScalar;
using test::AsTensor;

TEST(MathOpsTest, UnaryOpsKeepTheInputShape) {
  for (const char* name :
       {"Neg",        "Abs",   "Sign",  "Square", "Sqrt",     "Rsqrt",
        "Exp",        "Log",   "Log1p", "Tanh",   "Sigmoid",  "Sin",
        "Cos",        "Atan",  "Floor", "Ceil",   "Round",    "Reciprocal",
        "LogicalNot", "Cast",  "Tan",   "Asin",   "Acos",     "Sinh",
        "Cosh",       "Asinh", "Acosh", "Atanh",  "Erf",      "Erfc",
        "Expm1",      "Rint",  "IsNan", "IsInf",  "IsFinite", "Bucketize"}) {
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[1,?,3]", "in0");
    INFER_OK(op, "?", "in0");
    INFER_OK(op, "[]", "in0");
    INFER_ERROR("Wrong number of inputs passed: 2 while 1 expected", op,
                "[1];[1]");
  }
}

TEST(MathOpsTest, UnaryGradOpsMergeTheirInputs) {
  for (const char* name :
       {"TanhGrad", "SigmoidGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad"}) {
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[2,3];[2,3]", "in0");
    INFER_OK(op, "?;[2,3]", "in1");
    INFER_ERROR("Dimension 0 in both shapes must be equal, but are 2 and 3", op,
                "[2];[3]");
  }
}

TEST(MathOpsTest, BinaryOpsBroadcast) {
  for (const char* name :
       {"Add",     "AddV2",        "Sub",         "Mul",
        "Div",     "RealDiv",      "FloorDiv",    "FloorMod",
        "Maximum", "Minimum",      "Pow",         "SquaredDifference",
        "Equal",   "NotEqual",     "Less",        "LessEqual",
        "Greater", "GreaterEqual", "LogicalAnd",  "LogicalOr",
        "Atan2",   "Mod",          "TruncateDiv", "TruncateMod",
        "Xlogy",   "Xdivy",        "DivNoNan",    "MulNoNan"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[1,2];?", "?");
    INFER_OK(op, "?;[1,2]", "?");
    INFER_OK(op, "[2,3];[2,3]", "[d0_0,d0_1]");
    INFER_OK(op, "[1,3];[2,1]", "[d1_0,d0_1]");
    INFER_OK(op, "[3];[2,3]", "[d1_0,d0_0]");
    INFER_OK(op, "[2,3];[3]", "[d0_0,d0_1]");
    INFER_OK(op, "[];[2,3]", "[d1_0,d1_1]");
    INFER_OK(op, "[1];[]", "[d0_0]");
    INFER_OK(op, "[];[]", "[]");
    // Unknown dims: a known dim > 1 wins, a 1 yields the other side.
    INFER_OK(op, "[2,?];[?,3]", "[d0_0,d1_1]");
    INFER_OK(op, "[?];[1]", "[d0_0]");
    INFER_OK(op, "[1];[?]", "[d1_0]");
    INFER_OK(op, "[?];[?]", "[?]");
    INFER_OK(op, "[0];[?]", "[?]");
    INFER_OK(op, "[?,2];[5,?,2]", "[d1_0,?,d0_1]");
    INFER_ERROR("Dimensions must be equal, but are 2 and 3", op, "[2];[3]");
    INFER_ERROR("Dimensions must be equal, but are 4 and 3", op, "[4,5];[3,5]");
  }
}

TEST(MathOpsTest, EqualWithoutIncompatibleShapeError) {
  for (const char* name : {"Equal", "NotEqual"}) {
    ShapeInferenceTestOp op(name);
    op.Attr("incompatible_shape_error", false);
    INFER_OK(op, "[2];[3]", "[]");
    INFER_OK(op, "[2];[?]", "?");
    INFER_OK(op, "[2,3];[2,3]", "[d0_0,d0_1]");
  }
}

TEST(MathOpsTest, Select) {
  ShapeInferenceTestOp op("Select");
  INFER_OK(op, "[];[2,3];[2,3]", "in1");
  INFER_OK(op, "?;[2,3];[2,3]", "in1");
  INFER_OK(op, "[2];[2,3];[2,3]", "in1");
  INFER_OK(op, "[2,3];[2,3];[2,3]", "in1");
  INFER_OK(op, "[?];[2,3];?", "in1");
  INFER_OK(op, "[2,?];[?,3];[?,3]", "[d0_0,d1_1]");
  INFER_OK(op, "[];[];[]", "in1");
  INFER_ERROR("Dimension 0 in both shapes must be equal, but are 3 and 2", op,
              "[3];[2,3];[2,3]");
  INFER_ERROR("Shapes must be equal rank, but are 0 and 1", op, "[2];[];[]");
  INFER_ERROR("Shapes must be equal rank, but are 1 and 2", op,
              "[2,3];[2];[2]");
  INFER_ERROR("Dimension 1 in both shapes must be equal, but are 3 and 4", op,
              "[];[2,3];[2,4]");
}

TEST(MathOpsTest, SelectV2Broadcasts) {
  ShapeInferenceTestOp op("SelectV2");
  INFER_OK(op, "[1,3];[2,1];[]", "[d1_0,d0_1]");
  INFER_OK(op, "[];[2,3];[2,3]", "[d1_0,d1_1]");
  INFER_OK(op, "?;[2,3];[2,3]", "?");
  INFER_ERROR("Dimensions must be equal, but are 2 and 3", op, "[2];[3];[]");
}

TEST(MathOpsTest, AddN) {
  ShapeInferenceTestOp op("AddN");
  INFER_OK(op, "[2]", "in0");
  INFER_OK(op, "[2,?];[?,3]", "[d0_0,d1_1]");
  INFER_OK(op, "[2,3];[2,3];?", "in0");
  INFER_OK(op, "?;?", "in0");
  INFER_ERROR("From merging shape 0 with other shapes.", op, "[2];[3]");
}

TEST(MathOpsTest, MatMul) {
  ShapeInferenceTestOp op("MatMul");
  INFER_OK(op, "[2,3];[3,4]", "[d0_0,d1_1]");
  INFER_OK(op, "?;?", "[?,?]");
  INFER_OK(op, "[2,?];[?,4]", "[d0_0,d1_1]");
  INFER_ERROR("Dimensions must be equal, but are 3 and 4", op, "[2,3];[4,5]");
  INFER_ERROR("Shape must be rank 2 but is rank 1", op, "[2];[2,3]");
  INFER_ERROR("error in input 1", op, "[2,3];[2,3,4]");
  op.Attr("transpose_a", true);
  INFER_OK(op, "[3,2];[3,4]", "[d0_1,d1_1]");
  op.Attr("transpose_b", true);
  INFER_OK(op, "[3,2];[4,3]", "[d0_1,d1_0]");
  op.Attr("transpose_a", false);
  INFER_OK(op, "[2,3];[4,3]", "[d0_0,d1_0]");
}

TEST(MathOpsTest, BatchMatMulV2) {
  ShapeInferenceTestOp op("BatchMatMulV2");
  INFER_OK(op, "[2,3];[3,4]", "[d0_0,d1_1]");
  INFER_OK(op, "[5,2,3];[3,4]", "[d0_0,d0_1,d1_1]");
  INFER_OK(op, "[1,2,3];[7,3,4]", "[d1_0,d0_1,d1_2]");
  INFER_OK(op, "[6,1,2,3];[5,3,4]", "[d0_0,d1_0,d0_2,d1_2]");
  INFER_OK(op, "?;[3,4]", "?");
  INFER_OK(op, "[?,2,3];[?,3,4]", "[?,d0_1,d1_2]");
  INFER_ERROR("Dimensions must be equal, but are 3 and 4", op, "[2,3];[4,5]");
  INFER_ERROR("Shape must be at least rank 2 but is rank 1", op, "[2];[2,3]");
  INFER_ERROR("Dimensions must be equal, but are 2 and 3", op,
              "[2,2,3];[3,3,4]");
  op.Attr("adj_x", true).Attr("adj_y", true);
  INFER_OK(op, "[5,3,2];[5,4,3]", "[d0_0,d0_2,d1_1]");
}

TEST(MathOpsTest, BatchMatMul) {
  ShapeInferenceTestOp op("BatchMatMul");
  INFER_OK(op, "[2,3];[3,4]", "[d0_0,d1_1]");
  INFER_OK(op, "[5,2,3];[5,3,4]", "[d0_0,d0_1,d1_2]");
  INFER_OK(op, "[?,2,3];[5,3,4]", "[d1_0,d0_1,d1_2]");
  INFER_OK(op, "?;[5,3,4]", "[d1_0,?,d1_2]");
  INFER_ERROR("Dimension 0 in both shapes must be equal, but are 1 and 7", op,
              "[1,2,3];[7,3,4]");
  INFER_ERROR("Shapes must be equal rank, but are 1 and 0", op,
              "[5,2,3];[3,4]");
  INFER_ERROR("Dimensions must be equal, but are 3 and 4", op,
              "[5,2,3];[5,4,5]");
  INFER_ERROR("Shape must be at least rank 2 but is rank 1", op, "[2];[2,3]");
  op.Attr("adj_x", true).Attr("adj_y", true);
  INFER_OK(op, "[5,3,2];[5,4,3]", "[d0_0,d0_2,d1_1]");
}

TEST(MathOpsTest, BatchMatMulV3) {
  ShapeInferenceTestOp op("BatchMatMulV3");
  op.Attr("Ta", DT_INT8).Attr("Tb", DT_INT8).Attr("Tout", DT_INT32);
  INFER_OK(op, "[1,2,3];[7,3,4]", "[d1_0,d0_1,d1_2]");
  INFER_OK(op, "[6,1,2,3];[5,3,4]", "[d0_0,d1_0,d0_2,d1_2]");
  INFER_ERROR("Dimensions must be equal, but are 2 and 3", op,
              "[2,2,3];[3,3,4]");
  op.Attr("adj_x", true);
  INFER_OK(op, "[3,2];[3,4]", "[d0_1,d1_1]");
}

TEST(MathOpsTest, Einsum) {
  ShapeInferenceTestOp op("Einsum");
  op.Attr("equation", "ij,jk->ik");
  INFER_OK(op, "[2,3];[3,4]", "[d0_0,d1_1]");
  INFER_OK(op, "[2,?];[3,4]", "[d0_0,d1_1]");
  INFER_OK(op, "?;[3,4]", "?");
  INFER_ERROR("Dimensions must be equal, but are 3 and 5", op, "[2,3];[5,4]");
  INFER_ERROR("Expected input 0 to have rank 2 but got: 3", op,
              "[2,3,4];[3,4]");
  op.Attr("equation", "...ij,...jk->...ik");
  INFER_OK(op, "[5,1,2,3];[4,3,6]", "[d0_0,d1_0,d0_2,d1_2]");
  INFER_OK(op, "[2,3];[7,3,6]", "[d1_0,d0_0,d1_2]");
  INFER_OK(op, "[?,2,3];[7,3,6]", "[d1_0,d0_1,d1_2]");
  INFER_OK(op, "[?,2,3];[1,3,6]", "[d0_0,d0_1,d1_2]");
  INFER_OK(op, "[1,2,3];[?,3,6]", "[d1_0,d0_1,d1_2]");
  INFER_ERROR("Expected dimension 5 at axis 0 of input 1 but got dimension 4",
              op, "[5,2,3];[4,3,6]");
  INFER_ERROR("Expected input 1 to have rank at least 2 but got: 1", op,
              "[2,3];[3]");
  op.Attr("equation", "bij,bkj->bik");
  INFER_OK(op, "[5,2,3];[5,4,3]", "[d0_0,d0_1,d1_1]");
  op.Attr("equation", "ij,jk");
  INFER_ERROR("Expecting exactly one '->' in einsum equation: ij,jk", op,
              "?;?");
  op.Attr("equation", "i,j,k->ijk");
  INFER_ERROR("Expecting 1 or 2 input subscripts", op, "?;?");
  op.Attr("equation", "i->ij");
  INFER_ERROR("Expected 1 inputs for equation i->ij but got: 2", op, "?;?");

  ShapeInferenceTestOp unary("Einsum");
  unary.Attr("equation", "ij->ji");
  INFER_OK(unary, "[2,3]", "[d0_1,d0_0]");
  unary.Attr("equation", "ii->i");
  INFER_OK(unary, "[3,?]", "[d0_0]");
  INFER_ERROR("Dimensions must be equal, but are 3 and 4", unary, "[3,4]");
  unary.Attr("equation", "...ij->...");
  INFER_OK(unary, "[5,6,2,3]", "[d0_0,d0_1]");
  unary.Attr("equation", "i->j");
  INFER_ERROR("Output subscript label 'j' appears in no input", unary, "[2]");
  unary.Attr("equation", "i->ii");
  INFER_ERROR("Output subscript contains repeated label 'i'", unary, "[2]");
  unary.Attr("equation", "i2->i");
  INFER_ERROR("Invalid character '2' in einsum equation", unary, "[2,2]");
  unary.Attr("equation", "..i->i");
  INFER_ERROR("Invalid ellipsis in einsum subscript '..i'", unary, "[2,2]");
  unary.Attr("equation", "...i...->i");
  INFER_ERROR("Invalid ellipsis", unary, "[2,2]");
}

TEST(MathOpsTest, Reductions) {
  for (const char* name :
       {"Sum", "Mean", "Max", "Min", "Prod", "All", "Any", "EuclideanNorm"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[2,3];[1]", "?");
    INFER_OK(op, "?;[1]", "?");
    INFER_ERROR("Shape must be at most rank 1 but is rank 2", op,
                "[2,3];[1,1]");
    op.SetInputTensor(1, AsTensor<int32_t>({1}));
    INFER_OK(op, "[2,3,4];[1]", "[d0_0,d0_2]");
    INFER_OK(op, "?;[1]", "?");
    op.SetInputTensor(1, AsTensor<int64_t>({-1, 0}));
    INFER_OK(op, "[2,3,4];[2]", "[d0_1]");
    op.SetInputTensor(1, AsScalar<int32_t>(0));
    INFER_OK(op, "[2,3];[]", "[d0_1]");
    op.SetInputTensor(1, Tensor(DT_INT32, TensorShape({0})));
    INFER_OK(op, "[2,3];[0]", "[d0_0,d0_1]");
    op.SetInputTensor(1, AsTensor<int32_t>({2}));
    INFER_ERROR("Invalid reduction dimension 2 for input with 2 dimensions.",
                op, "[2,3];[1]");
    op.SetInputTensor(1, AsTensor<int32_t>({0, -2}));
    INFER_ERROR("Axes contains duplicate dimension: 0", op, "[2,3];[2]");
    op.SetInputTensor(1, AsTensor<float>({0.0f}));
    INFER_ERROR("reduction_indices must be int32 or int64", op, "[2,3];[1]");

    op.Attr("keep_dims", true);
    op.ClearInputTensor(1);
    INFER_OK(op, "[2,3];[1]", "[?,?]");
    INFER_OK(op, "?;[1]", "?");
    op.SetInputTensor(1, AsTensor<int32_t>({1}));
    INFER_OK(op, "[2,3,4];[1]", "[d0_0,1,d0_2]");
  }
}

TEST(MathOpsTest, ArgMaxArgMin) {
  for (const char* name : {"ArgMax", "ArgMin"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[2,3];[]", "[?]");
    INFER_OK(op, "[5];[]", "[]");
    INFER_OK(op, "?;[]", "?");
    INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[2,3];[1]");
    op.SetInputTensor(1, AsScalar<int32_t>(1));
    INFER_OK(op, "[2,3,4];[]", "[d0_0,d0_2]");
    op.SetInputTensor(1, AsScalar<int64_t>(-1));
    INFER_OK(op, "[2,3];[]", "[d0_0]");
    op.SetInputTensor(1, AsScalar<int32_t>(2));
    INFER_ERROR("Dimension (2) must be in the range [-2, 2)", op, "[2,3];[]");
    op.SetInputTensor(1, AsScalar<int32_t>(-3));
    INFER_ERROR("Dimension (-3) must be in the range [-2, 2)", op, "[2,3];[]");
  }
}

TEST(MathOpsTest, Range) {
  ShapeInferenceTestOp op("Range");
  INFER_OK(op, "[];[];[]", "[?]");
  INFER_ERROR("for 'start'", op, "[1];[];[]");
  INFER_ERROR("for 'limit'", op, "[];[1];[]");
  INFER_ERROR("for 'delta'", op, "[];[];[1]");
  auto set = [&op](const Tensor& a, const Tensor& b, const Tensor& c) {
    op.SetInputTensor(0, a).SetInputTensor(1, b).SetInputTensor(2, c);
  };
  set(AsScalar<int32_t>(0), AsScalar<int32_t>(10), AsScalar<int32_t>(3));
  INFER_OK(op, "[];[];[]", "[4]");
  set(AsScalar<int32_t>(10), AsScalar<int32_t>(0), AsScalar<int32_t>(-3));
  INFER_OK(op, "[];[];[]", "[4]");
  set(AsScalar<int32_t>(3), AsScalar<int32_t>(3), AsScalar<int32_t>(1));
  INFER_OK(op, "[];[];[]", "[0]");
  set(AsScalar<float>(0.0f), AsScalar<float>(1.0f), AsScalar<float>(0.3f));
  INFER_OK(op, "[];[];[]", "[4]");
  set(AsScalar<double>(0), AsScalar<double>(1), AsScalar<double>(0.5));
  INFER_OK(op, "[];[];[]", "[2]");
  set(AsScalar<int32_t>(0), AsScalar<int32_t>(10), AsScalar<int32_t>(0));
  INFER_ERROR("Requires delta != 0", op, "[];[];[]");
  set(AsScalar<int32_t>(10), AsScalar<int32_t>(0), AsScalar<int32_t>(1));
  INFER_ERROR("Requires start <= limit when delta > 0: 10/0", op, "[];[];[]");
  set(AsScalar<int32_t>(0), AsScalar<int32_t>(10), AsScalar<int32_t>(-1));
  INFER_ERROR("Requires start >= limit when delta < 0: 0/10", op, "[];[];[]");
  set(AsScalar<int64_t>(std::numeric_limits<int64_t>::min()),
      AsScalar<int64_t>(std::numeric_limits<int64_t>::max()),
      AsScalar<int64_t>(1));
  INFER_ERROR("Requires ((limit - start) / delta) <=", op, "[];[];[]");
  set(AsScalar<float>(0.0f), AsScalar<float>(1e30f), AsScalar<float>(1e-30f));
  INFER_ERROR("Requires ((limit - start) / delta) <=", op, "[];[];[]");
  set(AsScalar<float>(0.0f), AsScalar<float>(NAN), AsScalar<float>(1.0f));
  INFER_ERROR("Requires finite start, limit and delta", op, "[];[];[]");
  set(AsScalar<int32_t>(0), AsScalar<int64_t>(10), AsScalar<int32_t>(1));
  INFER_ERROR("must have one dtype", op, "[];[];[]");
}

TEST(MathOpsTest, LinSpace) {
  ShapeInferenceTestOp op("LinSpace");
  INFER_OK(op, "[];[];[]", "[?]");
  INFER_OK(op, "?;?;?", "[?]");
  INFER_ERROR("for 'start'", op, "[1];[];[]");
  INFER_ERROR("for 'stop'", op, "[];[1];[]");
  INFER_ERROR("for 'num'", op, "[];[];[1]");
  op.SetInputTensor(2, AsScalar<int32_t>(5));
  INFER_OK(op, "[];[];[]", "[5]");
  op.SetInputTensor(2, AsScalar<int64_t>(1));
  INFER_OK(op, "[];[];[]", "[1]");
  op.SetInputTensor(2, AsScalar<int32_t>(0));
  INFER_ERROR("Requires num > 0: 0", op, "[];[];[]");
}

TEST(MathOpsTest, L2LossIsAScalar) {
  ShapeInferenceTestOp op("L2Loss");
  INFER_OK(op, "[2,3]", "[]");
  INFER_OK(op, "?", "[]");
}

TEST(MathOpsTest, ClipByValueKeepsTheInputShape) {
  ShapeInferenceTestOp op("ClipByValue");
  INFER_OK(op, "[2,3];[];[]", "in0");
  INFER_OK(op, "[2,3];[2,3];[]", "in0");
  INFER_OK(op, "?;[];[]", "in0");
}

TEST(MathOpsTest, SegmentSum) {
  ShapeInferenceTestOp op("SegmentSum");
  INFER_OK(op, "[4,2,3];[4]", "[?,d0_1,d0_2]");
  INFER_OK(op, "[4];?", "[?]");
  INFER_OK(op, "?;[4]", "?");
  INFER_ERROR("Shape must be at least rank 1 but is rank 0", op, "[];[1]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[4];[4,1]");
}

TEST(MathOpsTest, UnsortedSegmentReductions) {
  for (const char* name :
       {"UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[4,2,3];[4];[]", "[?,d0_1,d0_2]");
    INFER_OK(op, "[4,2,3];[4,2];[]", "[?,d0_2]");
    INFER_OK(op, "[4,2];?;[]", "?");
    INFER_OK(op, "?;[4,2];[]", "?");
    INFER_OK(op, "[?,2];[4];[]", "[?,d0_1]");
    INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[4];[4];[1]");
    INFER_ERROR("Dimensions must be equal, but are 4 and 3", op,
                "[4,2];[3];[]");
    INFER_ERROR("Shape must be at least rank 2 but is rank 1", op,
                "[4];[4,2];[]");
    op.SetInputTensor(2, AsScalar<int32_t>(7));
    INFER_OK(op, "[4,2,3];[4];[]", "[7,d0_1,d0_2]");
    INFER_OK(op, "[4];[4];[]", "[7]");
    op.SetInputTensor(2, AsScalar<int64_t>(0));
    INFER_OK(op, "[4,5];[4,5];[]", "[0]");
    op.SetInputTensor(2, AsScalar<int32_t>(-1));
    INFER_ERROR("must be non-negative but is -1", op, "[4];[4];[]");
  }
}

}  // namespace
}  // namespace minflow
