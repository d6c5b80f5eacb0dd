// Shape functions of src/ops/array_index_ops.cc: Slice, StridedSlice,
// GatherV2, OneHot, GatherNd, ScatterNd and the TensorScatter ops.
#include <cstdint>
#include <initializer_list>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/testlib/shape_inference_testutil.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using test::AsScalar;
using test::AsTensor;

TEST(ArrayIndexOpsTest, SliceWithKnownValues) {
  ShapeInferenceTestOp op("Slice");
  op.SetInputTensor(1, AsTensor<int32_t>({1, 0}))
      .SetInputTensor(2, AsTensor<int32_t>({2, -1}));
  INFER_OK(op, "[4,3];[2];[2]", "[2,d0_1]");
  INFER_OK(op, "[4,?];[2];[2]", "[2,d0_1]");
  INFER_OK(op, "?;[2];[2]", "[2,?]");
  op.SetInputTensor(1, AsTensor<int64_t>({1, 1}))
      .SetInputTensor(2, AsTensor<int64_t>({3, -1}));
  INFER_OK(op, "[4,3];[2];[2]", "[3,2]");
  INFER_ERROR("Shape must be rank 2 but is rank 3", op, "[4,3,1];[2];[2]");
}

TEST(ArrayIndexOpsTest, SliceWithUnknownValues) {
  ShapeInferenceTestOp op("Slice");
  INFER_OK(op, "[4,3];[2];[2]", "[?,?]");
  INFER_OK(op, "[4,3];?;?", "[?,?]");
  INFER_OK(op, "?;?;?", "?");
  INFER_ERROR("Dimension 0 in both shapes must be equal, but are 1 and 2", op,
              "[4];[1];[2]");
  INFER_ERROR("Shape must be rank 1 but is rank 0", op, "[4];[];[1]");
  // Sizes known, begin unknown: -1 sizes stay unknown.
  op.SetInputTensor(2, AsTensor<int32_t>({2, -1}));
  INFER_OK(op, "[4,3];[2];[2]", "[2,?]");
}

TEST(ArrayIndexOpsTest, SliceRejectsBadValues) {
  ShapeInferenceTestOp op("Slice");
  op.SetInputTensor(1, AsTensor<int32_t>({0}))
      .SetInputTensor(2, AsTensor<int32_t>({-2}));
  INFER_ERROR("sizes vector cannot be < -1, but was -2", op, "[4];[1];[1]");
  op.SetInputTensor(1, AsTensor<int32_t>({1}))
      .SetInputTensor(2, AsTensor<int32_t>({4}));
  INFER_ERROR("Expected size[0] in [0, 3], but got 4", op, "[4];[1];[1]");
  op.SetInputTensor(1, AsTensor<int32_t>({5}))
      .SetInputTensor(2, AsTensor<int32_t>({-1}));
  INFER_ERROR("Negative dimension size caused by subtracting 5 from 4", op,
              "[4];[1];[1]");
  op.SetInputTensor(1, AsTensor<int32_t>({-2}));
  INFER_ERROR("Invalid value in tensor used for shape: -2", op, "[4];[1];[1]");
}

// x[begin:end:strides] on `spec` with `masks` = {begin, end, ellipsis,
// new_axis, shrink_axis}.
ShapeInferenceTestOp StridedSlice(std::initializer_list<int32_t> begin,
                                  std::initializer_list<int32_t> end,
                                  std::initializer_list<int32_t> strides,
                                  std::initializer_list<int> masks = {0, 0, 0,
                                                                      0, 0}) {
  ShapeInferenceTestOp op("StridedSlice");
  op.SetInputTensor(1, AsTensor<int32_t>(begin))
      .SetInputTensor(2, AsTensor<int32_t>(end))
      .SetInputTensor(3, AsTensor<int32_t>(strides));
  const char* const names[] = {"begin_mask", "end_mask", "ellipsis_mask",
                               "new_axis_mask", "shrink_axis_mask"};
  int i = 0;
  for (int m : masks) op.Attr(names[i++], m);
  return op;
}

TEST(ArrayIndexOpsTest, StridedSliceUnknowns) {
  ShapeInferenceTestOp op("StridedSlice");
  INFER_OK(op, "[10,20];[2];[2];[2]", "?");
  op.SetInputTensor(3, AsTensor<int32_t>({1, 1}));
  INFER_OK(op, "?;[2];[2];[2]", "?");
  INFER_OK(op, "[10,20];?;?;?", "?");
  INFER_OK(op, "[10,20];[2];[2];[2]", "[?,?]");
  // Masked ranges need no values.
  op.Attr("begin_mask", 3).Attr("end_mask", 3);
  INFER_OK(op, "[10,20];[2];[2];[2]", "[10,20]");
  INFER_OK(op, "[?,20];[2];[2];[2]", "[?,20]");
  INFER_ERROR("Dimension 0 in both shapes must be equal, but are 2 and 3", op,
              "[10,20];[2];[3];[2]");
}

TEST(ArrayIndexOpsTest, StridedSliceRanges) {
  INFER_OK(StridedSlice({2, 0}, {8, 20}, {2, 1}), "[10,20];[2];[2];[2]",
           "[3,20]");
  // x[-3:]
  INFER_OK(StridedSlice({-3}, {0}, {1}, {0, 1, 0, 0, 0}), "[10];[1];[1];[1]",
           "[3]");
  // x[::-1] and x[8:2:-2]
  INFER_OK(StridedSlice({0}, {0}, {-1}, {1, 1, 0, 0, 0}), "[10];[1];[1];[1]",
           "[10]");
  INFER_OK(StridedSlice({8}, {2}, {-2}), "[10];[1];[1];[1]", "[3]");
  // Out-of-range values clamp; empty ranges give 0.
  INFER_OK(StridedSlice({-100}, {100}, {1}), "[10];[1];[1];[1]", "[10]");
  INFER_OK(StridedSlice({5}, {2}, {1}), "[10];[1];[1];[1]", "[0]");
  // Fewer indices than dims: the rest are taken whole.
  INFER_OK(StridedSlice({1}, {3}, {1}), "[10,20,30];[1];[1];[1]", "[2,20,30]");
  // Unknown dims stay unknown.
  INFER_OK(StridedSlice({1}, {3}, {1}), "[?,20];[1];[1];[1]", "[?,20]");
}

TEST(ArrayIndexOpsTest, StridedSliceShrinkNewAxisEllipsis) {
  // x[3]
  INFER_OK(StridedSlice({3}, {4}, {1}, {0, 0, 0, 0, 1}), "[10,20];[1];[1];[1]",
           "[20]");
  // x[-1, 2]
  INFER_OK(StridedSlice({-1, 2}, {0, 3}, {1, 1}, {0, 0, 0, 0, 3}),
           "[10,20];[2];[2];[2]", "[]");
  INFER_OK(StridedSlice({3}, {4}, {1}, {0, 0, 0, 0, 1}), "[?,20];[1];[1];[1]",
           "[20]");
  // x[tf.newaxis, 1:3]
  INFER_OK(StridedSlice({0, 1}, {0, 3}, {1, 1}, {0, 0, 0, 1, 0}),
           "[10];[2];[2];[2]", "[1,2]");
  // x[..., 1:3]
  INFER_OK(StridedSlice({0, 1}, {0, 3}, {1, 1}, {0, 0, 1, 0, 0}),
           "[4,5,6];[2];[2];[2]", "[4,5,2]");
  // x[..., tf.newaxis]
  INFER_OK(StridedSlice({0, 0}, {0, 0}, {1, 1}, {0, 0, 1, 2, 0}),
           "[4,5];[2];[2];[2]", "[4,5,1]");
  // x[1, ..., 2]
  INFER_OK(StridedSlice({1, 0, 2}, {2, 0, 3}, {1, 1, 1}, {0, 0, 2, 0, 5}),
           "[4,5,6,7];[3];[3];[3]", "[5,6]");
}

TEST(ArrayIndexOpsTest, StridedSliceRejectsBadSpecs) {
  INFER_ERROR("slice index 12 of dimension 0 out of bounds.",
              StridedSlice({12}, {13}, {1}, {0, 0, 0, 0, 1}),
              "[10];[1];[1];[1]");
  INFER_ERROR("slice index -11 of dimension 0 out of bounds.",
              StridedSlice({-11}, {0}, {1}, {0, 0, 0, 0, 1}),
              "[10];[1];[1];[1]");
  INFER_ERROR("strides[0] must be non-zero", StridedSlice({0}, {1}, {0}),
              "[10];[1];[1];[1]");
  INFER_ERROR("only stride 1 allowed on non-range indexing.",
              StridedSlice({1}, {2}, {-1}, {0, 0, 0, 0, 1}),
              "[10];[1];[1];[1]");
  INFER_ERROR("Multiple ellipses in slice spec not allowed",
              StridedSlice({0, 0}, {0, 0}, {1, 1}, {0, 0, 3, 0, 0}),
              "[10];[2];[2];[2]");
  INFER_ERROR("Index out of range using input dim 2; input has only 2 dims",
              StridedSlice({1, 2, 3}, {2, 3, 4}, {1, 1, 1}),
              "[4,5];[3];[3];[3]");
  // Lengths of unknown inputs leave the output unknown before any check.
  INFER_OK(StridedSlice({1, 2}, {2, 3}, {1}), "[4,5];?;?;?", "?");
  ShapeInferenceTestOp op("StridedSlice");
  op.SetInputTensor(3, Tensor(DT_INT32, TensorShape({40})));
  INFER_ERROR("Expected begin, end, and strides to be 1D equal size tensors",
              op, "[4,5];[40];[40];[40]");
  op.SetInputTensor(3, AsTensor<float>({1.0f}));
  INFER_ERROR("strides must be int32 or int64", op, "[4];[1];[1];[1]");
}

// ---- GatherV2, OneHot
// ----------------------------------------------------------------------

TEST(ArrayIndexOpsTest, GatherV2) {
  ShapeInferenceTestOp op("GatherV2");
  INFER_OK(op, "[5,3];[2,4];[]", "[?,?,?]");
  INFER_OK(op, "?;[2,4];[]", "?");
  INFER_ERROR("Shape must be at least rank 1 but is rank 0", op, "[];[2];[]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[5];[2];[1]");
  op.SetInputTensor(2, AsScalar<int32_t>(0));
  INFER_OK(op, "[5,3];[2,4];[]", "[d1_0,d1_1,d0_1]");
  INFER_OK(op, "[5];[];[]", "[]");
  INFER_OK(op, "?;[2];[]", "?");
  op.SetInputTensor(2, AsScalar<int64_t>(1));
  INFER_OK(op, "[5,3];[2,4];[]", "[d0_0,d1_0,d1_1]");
  op.SetInputTensor(2, AsScalar<int32_t>(-1));
  INFER_OK(op, "[5,3];[2,4];[]", "[d0_0,d1_0,d1_1]");
  op.SetInputTensor(2, AsScalar<int32_t>(2));
  INFER_ERROR("Shape must be at least rank 3 but is rank 2", op,
              "[5,3];[2];[]");
  op.SetInputTensor(2, AsScalar<int32_t>(-3));
  INFER_ERROR("Shape must be at least rank 3 but is rank 2", op,
              "[5,3];[2];[]");
}

TEST(ArrayIndexOpsTest, GatherV2WithBatchDims) {
  ShapeInferenceTestOp op("GatherV2");
  op.Attr("batch_dims", 1).SetInputTensor(2, AsScalar<int32_t>(1));
  INFER_OK(op, "[2,5,7];[2,3];[]", "[d0_0,d1_1,d0_2]");
  INFER_ERROR("Dimensions must be equal, but are 2 and 4", op,
              "[2,5];[4,3];[]");
  op.SetInputTensor(2, AsScalar<int32_t>(0));
  INFER_ERROR("batch_dims (1) must be less than or equal to axis (0)", op,
              "[2,5];[2,3];[]");
  op.Attr("batch_dims", -1).SetInputTensor(2, AsScalar<int32_t>(1));
  INFER_OK(op, "[2,5];[2,3];[]", "[d0_0,d1_1]");
  op.Attr("batch_dims", 3);
  INFER_ERROR("Shape must be at least rank 3 but is rank 2", op,
              "[2,5];[2,3];[]");
}

TEST(ArrayIndexOpsTest, OneHot) {
  ShapeInferenceTestOp op("OneHot");
  INFER_OK(op, "[2,3];[];[];[]", "[d0_0,d0_1,?]");
  INFER_OK(op, "?;[];[];[]", "?");
  op.SetInputTensor(1, AsScalar<int32_t>(5));
  INFER_OK(op, "[2,3];[];[];[]", "[d0_0,d0_1,5]");
  INFER_OK(op, "[];[];[];[]", "[5]");
  op.Attr("axis", 0);
  INFER_OK(op, "[2,3];[];[];[]", "[5,d0_0,d0_1]");
  op.Attr("axis", 1);
  INFER_OK(op, "[2,3];[];[];[]", "[d0_0,5,d0_1]");
  op.Attr("axis", 3);
  INFER_ERROR("Expected axis to be -1 or between [0, 3)", op, "[2,3];[];[];[]");
  op.Attr("axis", -2);
  INFER_ERROR("axis must be >= -1", op, "[2,3];[];[];[]");
  op.Attr("axis", -1).SetInputTensor(1, AsScalar<int32_t>(-5));
  INFER_ERROR("must be non-negative but is -5", op, "[2,3];[];[];[]");
  op.ClearInputTensor(1);
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[2,3];[1];[];[]");
  INFER_ERROR("Shape must be rank 0 but is rank 1", op, "[2,3];[];[2];[]");
}

TEST(ArrayIndexOpsTest, GatherNdShape) {
  ShapeInferenceTestOp op("GatherNd");
  INFER_OK(op, "[4,3];[2,1]", "[d1_0,d0_1]");
  INFER_OK(op, "[4,3,5];[2,7,2]", "[d1_0,d1_1,d0_2]");
  INFER_OK(op, "[4,3];[2]", "[]");
  INFER_OK(op, "[4,3];[5,0]", "[d1_0,d0_0,d0_1]");
  INFER_OK(op, "?;[2,1]", "?");
  INFER_OK(op, "[4,3];[2,?]", "?");
  INFER_OK(op, "[4,?];?", "?");
  INFER_ERROR("Shape must be at least rank 1 but is rank 0", op, "[];[1]");
  INFER_ERROR("Shape must be at least rank 1 but is rank 0", op, "[1];[]");
  INFER_ERROR(
      "indices.shape[-1] must be <= params.rank, but saw indices shape: "
      "[2,3] and params shape: [4,3]",
      op, "[4,3];[2,3]");
}

TEST(ArrayIndexOpsTest, ScatterNdShape) {
  ShapeInferenceTestOp op("ScatterNd");
  op.SetInputTensor(2, AsTensor<int32_t>({4, 3}));
  INFER_OK(op, "[2,1];[2,3];[2]", "[4,3]");
  INFER_OK(op, "[2,2];[2];[2]", "[4,3]");
  INFER_OK(op, "?;?;[2]", "[4,3]");
  INFER_OK(op, "[2,?];[2,3];[2]", "[4,3]");
  INFER_ERROR(
      "Dimensions [0,1) of indices[shape=[2,1]] = [2] must match dimensions "
      "[0,1) of updates[shape=[5,3]] = [5]",
      op, "[2,1];[5,3];[2]");
  INFER_ERROR(
      "Dimensions [1,2) of input[shape=[4,3]] = [3] must match dimensions "
      "[1,2) of updates[shape=[2,4]] = [4]",
      op, "[2,1];[2,4];[2]");
  INFER_ERROR("Shape must be at least rank 1 but is rank 0", op, "[];[2];[2]");
  INFER_ERROR("Shape must be at least rank 1 but is rank 0", op, "[2];[];[2]");
  op.SetInputTensor(2, AsTensor<int32_t>({0, 3}));
  INFER_ERROR("Indices and updates specified for empty input", op,
              "[2,1];[2,3];[2]");
  INFER_OK(op, "[0,1];[0,3];[2]", "[0,3]");
  // An unknown shape tensor of known length gives a known rank.
  ShapeInferenceTestOp unknown("ScatterNd");
  INFER_OK(unknown, "[2,1];[2,3];[2]", "[?,?]");
}

TEST(ArrayIndexOpsTest, TensorScatterShape) {
  for (const char* name : {"TensorScatterUpdate", "TensorScatterAdd"}) {
    ShapeInferenceTestOp op(name);
    INFER_OK(op, "[4,3];[2,1];[2,3]", "in0");
    INFER_OK(op, "[4,3];[2,2];[2]", "in0");
    INFER_OK(op, "?;[2,1];[2,3]", "?");
    INFER_OK(op, "[4,3];?;?", "in0");
    INFER_ERROR("must match dimensions [1,2) of updates[shape=[2,4]]", op,
                "[4,3];[2,1];[2,4]");
    INFER_ERROR("must match dimensions [0,1) of updates[shape=[3,3]]", op,
                "[4,3];[2,1];[3,3]");
    INFER_ERROR("Indices and updates specified for empty input", op,
                "[0,3];[2,1];[2,3]");
    INFER_ERROR("Shape must be at least rank 1 but is rank 0", op,
                "[];[2,1];[2]");
    INFER_ERROR("Shape must be at least rank 1 but is rank 0", op,
                "[4,3];[2,1];[]");
  }
}

}  // namespace
}  // namespace minflow
