// Shape functions of src/ops/parsing_ops.cc: ParseExample, ParseExampleV2.
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor_shape.h"
#include "tests/testlib/shape_inference_testutil.h"

namespace minflow {
namespace {

// One sparse and two dense features: [1] and [2,3] per example.
TEST(ParsingOpsTest, ParseExampleBatchesTheFeatureShapes) {
  ShapeInferenceTestOp op("ParseExample");
  op.Attr("Nsparse", 1)
      .Attr("Ndense", 2)
      .Attr("sparse_types", std::vector<DataType>{DT_INT64})
      .Attr("Tdense", std::vector<DataType>{DT_FLOAT, DT_STRING})
      .Attr("dense_shapes",
            std::vector<PartialTensorShape>{PartialTensorShape({1}),
                                            PartialTensorShape({2, 3})});
  // serialized, names, 1 sparse key, 2 dense keys, 2 defaults.
  INFER_OK(op, "[?];[?];[];[];[];[1];[2,3]",
           "[?,2];[?];[2];[d0_0,1];[d0_0,2,3]");
  INFER_OK(op, "[];[];[];[];[];?;?", "[?,1];[?];[1];[1];[2,3]");
  INFER_ERROR("must be at most rank 1", op, "[2,2];?;[];[];[];?;?");
}

TEST(ParsingOpsTest, ParseExampleV2AddsRaggedVectors) {
  ShapeInferenceTestOp op("ParseExampleV2");
  op.Attr("num_sparse", 0)
      .Attr("Tdense", std::vector<DataType>{DT_FLOAT})
      .Attr("sparse_types", std::vector<DataType>{})
      .Attr("ragged_value_types", std::vector<DataType>{DT_INT64})
      .Attr("ragged_split_types", std::vector<DataType>{DT_INT32})
      .Attr("dense_shapes",
            std::vector<PartialTensorShape>{PartialTensorShape({1})});
  // serialized, names, sparse_keys, dense_keys, ragged_keys, 1 default.
  INFER_OK(op, "[4];?;[0];[1];[1];[1]", "[d0_0,1];[?];[?]");
}

}  // namespace
}  // namespace minflow
