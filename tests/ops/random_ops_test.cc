// Shape functions of src/ops/random_ops.cc.
#include <cstdint>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/testlib/shape_inference_testutil.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using test::AsScalar;
using test::AsTensor;

TEST(RandomOpsTest, OutputShapeIsTheShapeInputsValue) {
  for (const char* name :
       {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    op.Attr("dtype", DT_FLOAT);
    // Value unknown: the shape vector's length gives the rank.
    INFER_OK(op, "[3]", "[?,?,?]");
    INFER_OK(op, "?", "?");
    INFER_OK(op, "[?]", "?");
    INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[1,2]");
    op.SetInputTensor(0, AsTensor<int32_t>({2, 3}));
    INFER_OK(op, "[2]", "[2,3]");
    op.SetInputTensor(0, AsTensor<int64_t>({4, 0, 5}));
    INFER_OK(op, "[3]", "[4,0,5]");
    op.SetInputTensor(0, AsTensor<int32_t>({}));
    INFER_OK(op, "[0]", "[]");
    // -1 is TensorFlow's "unknown" in a partial shape.
    op.SetInputTensor(0, AsTensor<int32_t>({-1, 2}));
    INFER_OK(op, "[2]", "[?,2]");
  }
}

TEST(RandomOpsTest, RandomUniformIntNeedsScalarBounds) {
  ShapeInferenceTestOp op("RandomUniformInt");
  INFER_OK(op, "[2];[];[]", "[?,?]");
  INFER_OK(op, "?;?;?", "?");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[2];[1];[]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[2];[];[1]");
  op.SetInputTensor(0, AsTensor<int64_t>({7}));
  INFER_OK(op, "[1];[];[]", "[7]");
}

TEST(RandomOpsTest, MultinomialIsBatchByNumSamples) {
  ShapeInferenceTestOp op("Multinomial");
  INFER_OK(op, "[3,5];[]", "[d0_0,?]");
  INFER_OK(op, "?;?", "[?,?]");
  INFER_ERROR("Shape must be rank 2 but is rank 1", op, "[3];[]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[3,5];[1]");
  op.SetInputTensor(1, AsScalar<int32_t>(4));
  INFER_OK(op, "[3,5];[]", "[d0_0,4]");
  INFER_OK(op, "[?,5];[]", "[d0_0,4]");
  op.SetInputTensor(1, AsScalar<int32_t>(-2));
  INFER_ERROR("must be non-negative but is -2", op, "[3,5];[]");
}

}  // namespace
}  // namespace minflow
