// Shape functions of src/ops/training_ops.cc: the variable, its slots and
// the gradient share one shape; hyperparameters are scalars. The resource
// forms read the variables' shapes from their handles, which this notation
// cannot give, so here they check only what their inputs carry
// (tests/kernels/training_ops_test.cc builds graphs with known handles).
#include "gtest/gtest.h"
#include "tests/testlib/shape_inference_testutil.h"

namespace minflow {
namespace {

TEST(TrainingOpsTest, GradientDescentMergesVarAndDelta) {
  ShapeInferenceTestOp op("ApplyGradientDescent");
  INFER_OK(op, "[2,?];[];[?,3]", "[d0_0,d2_1]");
  INFER_OK(op, "?;?;?", "in0");
  INFER_ERROR("must be rank 0", op, "[2];[1];[2]");
  INFER_ERROR("Dimension 0 in both shapes must be equal", op, "[2];[];[3]");
}

TEST(TrainingOpsTest, MomentumMergesVarAccumAndGrad) {
  ShapeInferenceTestOp op("ApplyMomentum");
  // var, accum, lr, grad, momentum.
  INFER_OK(op, "[?,2];[3,?];[];[?,?];[]", "[d1_0,d0_1]");
  INFER_ERROR("Dimension 1 in both shapes must be equal", op,
              "[1,2];[1,3];[];?;[]");
  INFER_ERROR("must be rank 0", op, "?;?;?;?;[1]");
  INFER_ERROR("Shapes must be equal rank", op, "[1];?;[];[1,1];[]");
}

TEST(TrainingOpsTest, AdamChecksSlotsScalarsAndGrad) {
  ShapeInferenceTestOp op("ApplyAdam");
  // var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad.
  INFER_OK(op, "[4];?;[?];[];[];[];[];[];[];?", "in0");
  INFER_ERROR("Dimension 0 in both shapes must be equal", op,
              "[4];?;[5];[];[];[];[];[];[];?");
  for (int scalar = 3; scalar <= 8; ++scalar) {
    std::string ins;
    for (int i = 0; i < 10; ++i) {
      if (i > 0) ins += ";";
      ins += i == scalar ? "[2]" : "?";
    }
    INFER_ERROR("must be rank 0", op, ins);
  }
  INFER_ERROR("Dimension 0 in both shapes must be equal", op,
              "[4];?;?;[];[];[];[];[];[];[3]");
}

TEST(TrainingOpsTest, RMSPropChecksSlotsScalarsAndGrad) {
  ShapeInferenceTestOp op("ApplyRMSProp");
  // var, ms, mom, lr, rho, momentum, epsilon, grad.
  INFER_OK(op, "?;[2];?;[];[];[];[];?", "in1");
  INFER_ERROR("must be rank 0", op, "?;?;?;[];[];[];[1];?");
  INFER_ERROR("Dimension 0 in both shapes must be equal", op,
              "?;[2];[3];[];[];[];[];?");
}

TEST(TrainingOpsTest, AdagradChecksAccumScalarAndGrad) {
  ShapeInferenceTestOp op("ApplyAdagrad");
  INFER_OK(op, "[2,2];?;[];?", "in0");
  INFER_ERROR("must be rank 0", op, "?;?;[2];?");
  INFER_ERROR("Dimension 1 in both shapes must be equal", op,
              "[2,2];?;[];[2,3]");
}

// Without handle data a resource variable's shape is unknown (the handle
// itself is a scalar and says nothing); the hyperparameters and the
// gradient are still checked, and there is no output.
TEST(TrainingOpsTest, ResourceFormsWithoutHandleDataCheckScalars) {
  {
    ShapeInferenceTestOp op("ResourceApplyGradientDescent");
    INFER_OK(op, "[];[];[5,6]", "");
    INFER_ERROR("must be rank 0", op, "[];[2];[5,6]");
  }
  {
    ShapeInferenceTestOp op("ResourceApplyAdam");
    INFER_OK(op, "[];[];[];[];[];[];[];[];[];[3]", "");
    INFER_ERROR("must be rank 0", op, "[];[];[];[];[];[];[];[];[2];[3]");
  }
  {
    ShapeInferenceTestOp op("ResourceApplyMomentum");
    INFER_OK(op, "[];[];[];[3];[]", "");
    INFER_ERROR("must be rank 0", op, "[];[];[];[3];[1,1]");
  }
  {
    ShapeInferenceTestOp op("ResourceApplyRMSProp");
    INFER_OK(op, "[];[];[];[];[];[];[];[3]", "");
    INFER_ERROR("must be rank 0", op, "[];[];[];[2];[];[];[];[3]");
  }
  {
    ShapeInferenceTestOp op("ResourceApplyAdagrad");
    INFER_OK(op, "[];[];[];[3]", "");
    INFER_ERROR("must be rank 0", op, "[];[];[3];[3]");
  }
}

}  // namespace
}  // namespace minflow
