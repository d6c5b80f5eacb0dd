// Shape functions of src/ops/stateless_random_ops.cc.
#include <cstdint>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/testlib/shape_inference_testutil.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using test::AsTensor;

TEST(StatelessRandomOpsTest, V2OpsCheckKeyCounterAlgAndUseTheShapeValue) {
  for (const char* name :
       {"StatelessRandomUniformV2", "StatelessRandomNormalV2",
        "StatelessTruncatedNormalV2"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[2];[1];[2];[]", "[?,?]");
    INFER_OK(op, "?;?;?;?", "?");
    INFER_OK(op, "[2];[?];[?];[]", "[?,?]");
    INFER_ERROR("Shape must be rank 1 but is rank 0", op, "[2];[];[2];[]");
    INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[2];[1];[1,2];[]");
    INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[2];[1];[2];[1]");
    INFER_ERROR("Dimension must be 1 but is 2", op, "[2];[2];[2];[]");
    INFER_ERROR("Shape must be rank 1 but is rank 2", op, "[2,1];[1];[2];[]");
    op.SetInputTensor(0, AsTensor<int32_t>({3, 4}));
    INFER_OK(op, "[2];[1];[2];[]", "[3,4]");
    op.SetInputTensor(0, AsTensor<int64_t>({0}));
    INFER_OK(op, "[1];[1];[2];[]", "[0]");
  }
}

}  // namespace
}  // namespace minflow
