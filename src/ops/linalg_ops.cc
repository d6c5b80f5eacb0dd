// Ops on the innermost matrices of a tensor: MatrixBandPart, MatrixDiagV3
// and MatrixSetDiagV3 (array ops in TensorFlow's source). Interfaces match
// TensorFlow's.
#include <algorithm>
#include <cstdint>

#include "minflow/core/tensor.h"
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"
#include "minflow/framework/shape_inference.h"

namespace minflow {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

// k as (lower, upper): a scalar, or a vector of one or two elements.
Status ReadDiagIndex(const Tensor& k, int32_t* lower, int32_t* upper) {
  if (k.dims() > 0 && (k.dim_size(0) < 1 || k.dim_size(0) > 2)) {
    return errors::InvalidArgument(
        "diag_index must be a vector with one or two elements. It has ",
        k.dim_size(0), " elements.");
  }
  *lower = k.flat<int32_t>()(0);
  *upper = k.NumElements() > 1 ? k.flat<int32_t>()(1) : *lower;
  if (*lower > *upper) {
    return errors::InvalidArgument(
        "lower_diag_index is greater than upper_diag_index");
  }
  return OkStatus();
}

// The bounds TensorFlow puts on k for a [num_rows, num_cols] matrix; 0 is
// always allowed (for empty matrices).
Status CheckDiagIndexBounds(int64_t num_rows, int64_t num_cols, int32_t lower,
                            int32_t upper) {
  if (lower != 0 && (-num_rows >= lower || lower >= num_cols)) {
    return errors::InvalidArgument("lower_diag_index is out of bound.");
  }
  if (upper != 0 && (-num_rows >= upper || upper >= num_cols)) {
    return errors::InvalidArgument("upper_diag_index is out of bound.");
  }
  return OkStatus();
}

// TensorFlow's MatrixDiagV2Shape, except that an unknown diagonal length or
// number of diagonals yields unknown dims instead of a check against -1.
Status MatrixDiagV3Shape(InferenceContext* c) {
  ShapeHandle diagonal;
  ShapeHandle k_shape;
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &diagonal));
  MF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), 1, &k_shape));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(3), 0, &unused));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(4), 0, &unused));
  const Tensor* k = c->input_tensor(1);
  if (!c->RankKnown(diagonal) || !c->FullyDefined(k_shape) || k == nullptr) {
    c->set_output(0, c->UnknownShape());
    return OkStatus();
  }
  int32_t lower = 0;
  int32_t upper = 0;
  MF_RETURN_IF_ERROR(ReadDiagIndex(*k, &lower, &upper));
  const int32_t rank = c->Rank(diagonal);
  if (lower < upper) {
    if (rank < 2) {
      return errors::InvalidArgument(
          "diagonal must be at least 2-dim when d_lower < d_upper, but got "
          "rank ",
          rank);
    }
    const int64_t num_diags = c->Value(c->Dim(diagonal, rank - 2));
    if (num_diags != InferenceContext::kUnknownDim &&
        num_diags != int64_t{upper} - lower + 1) {
      return errors::InvalidArgument(
          "The number of rows of `diagonal` doesn't match the number of "
          "diagonals implied from `d_lower` and `d_upper`.\n",
          "num_diags = ", num_diags, ", d_lower = ", lower,
          ", d_upper = ", upper);
    }
  }
  int64_t num_rows = -1;
  int64_t num_cols = -1;
  if (const Tensor* t = c->input_tensor(2)) {
    MF_RETURN_IF_ERROR(c->GetScalarFromTensor(t, &num_rows));
  }
  if (const Tensor* t = c->input_tensor(3)) {
    MF_RETURN_IF_ERROR(c->GetScalarFromTensor(t, &num_cols));
  }
  const int64_t max_diag_len = c->Value(c->Dim(diagonal, rank - 1));
  if (max_diag_len != InferenceContext::kUnknownDim) {
    const int64_t min_num_rows = max_diag_len - std::min(upper, 0);
    const int64_t min_num_cols = max_diag_len + std::max(lower, 0);
    if (num_rows == -1 && num_cols == -1) {
      num_rows = std::max(min_num_rows, min_num_cols);
      num_cols = num_rows;
    }
    if (num_rows == -1) {
      num_rows = min_num_rows;
    } else if (num_rows < min_num_rows) {
      return errors::InvalidArgument("num_rows is too small");
    }
    if (num_cols == -1) {
      num_cols = min_num_cols;
    } else if (num_cols < min_num_cols) {
      return errors::InvalidArgument("num_cols is too small.");
    }
    if (num_rows != min_num_rows && num_cols != min_num_cols) {
      return errors::InvalidArgument(
          "num_rows and num_cols are not consistent with lower_diag_index, "
          "upper_diag_index, and the length of the given diagonals.\n",
          "num_rows = ", num_rows, " != min_num_rows = ", min_num_rows,
          ", num_cols = ", num_cols, " != min_num_cols = ", min_num_cols);
    }
  }
  const DimensionHandle rows_dim =
      num_rows < 0 ? c->UnknownDim() : c->MakeDim(num_rows);
  const DimensionHandle cols_dim =
      num_cols < 0 ? c->UnknownDim() : c->MakeDim(num_cols);
  ShapeHandle out;
  if (lower == upper) {
    MF_RETURN_IF_ERROR(c->ReplaceDim(diagonal, rank - 1, rows_dim, &out));
    MF_RETURN_IF_ERROR(c->Concatenate(out, c->Vector(cols_dim), &out));
  } else {
    MF_RETURN_IF_ERROR(c->ReplaceDim(diagonal, rank - 2, rows_dim, &out));
    MF_RETURN_IF_ERROR(c->ReplaceDim(out, rank - 1, cols_dim, &out));
  }
  c->set_output(0, out);
  return OkStatus();
}

Status MatrixSetDiagV3Shape(InferenceContext* c) {
  ShapeHandle input;
  ShapeHandle diag;
  ShapeHandle k_shape;
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &input));
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &diag));
  MF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(2), 1, &k_shape));
  int32_t lower = 0;
  int32_t upper = 0;
  bool k_known = false;
  const Tensor* k = c->input_tensor(2);
  if (k != nullptr && c->FullyDefined(k_shape)) {
    k_known = true;
    MF_RETURN_IF_ERROR(ReadDiagIndex(*k, &lower, &upper));
  }
  if (c->RankKnown(input)) {
    const int32_t rank = c->Rank(input);
    if (k_known) {
      MF_RETURN_IF_ERROR(
          c->WithRank(c->input(1), lower == upper ? rank - 1 : rank, &diag));
    } else {
      MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), rank - 1, &diag));
      MF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), rank, &diag));
    }
    const int64_t num_rows = c->Value(c->Dim(input, rank - 2));
    const int64_t num_cols = c->Value(c->Dim(input, rank - 1));
    if (num_rows != InferenceContext::kUnknownDim &&
        num_cols != InferenceContext::kUnknownDim) {
      MF_RETURN_IF_ERROR(
          CheckDiagIndexBounds(num_rows, num_cols, lower, upper));
    }
  }
  ShapeHandle out = input;
  if (c->RankKnown(diag) && !c->FullyDefined(input)) {
    // The batch dims of the diagonals are the input's; the matrix dims
    // cannot be told from the diagonals' lengths.
    ShapeHandle prefix;
    MF_RETURN_IF_ERROR(c->Subshape(diag, 0, lower == upper ? -1 : -2, &prefix));
    MF_RETURN_IF_ERROR(
        c->Concatenate(prefix, c->UnknownShapeOfRank(2), &prefix));
    MF_RETURN_IF_ERROR(c->Merge(input, prefix, &out));
  }
  c->set_output(0, out);
  return OkStatus();
}

}  // namespace

REGISTER_OP("MatrixBandPart")
    .Input("input: T")
    .Input("num_lower: Tindex")
    .Input("num_upper: Tindex")
    .Output("band: T")
    .Attr("T: type")
    .Attr("Tindex: {int32, int64} = DT_INT64")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Keeps a band around the diagonal of each innermost matrix and zeros the rest.

Element (i, j) is kept when i - j <= num_lower and j - i <= num_upper, with
a negative bound meaning no bound.

num_lower: A scalar, how many subdiagonals to keep; negative keeps all.
num_upper: A scalar, how many superdiagonals to keep; negative keeps all.
)doc");

REGISTER_OP("MatrixDiagV3")
    .Input("diagonal: T")
    .Input("k: int32")
    .Input("num_rows: int32")
    .Input("num_cols: int32")
    .Input("padding_value: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr(
        "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = "
        "'RIGHT_LEFT'")
    .SetShapeFn(MatrixDiagV3Shape)
    .Doc(R"doc(
Builds matrices whose diagonals k[0] .. k[1] come from diagonal.

Diagonal d sits at elements (i, i + d): 0 is the main one, positive ones
are above it. Every other element is padding_value.

diagonal: One diagonal (k a scalar, or k[0] == k[1]) or a stack of them,
  from the highest (k[1]) down, each as long as the longest one; the
  innermost matrices when batched.
k: A scalar or a pair [low, high] of diagonal offsets.
num_rows: A scalar; -1 infers it from the diagonals.
num_cols: A scalar; -1 infers it from the diagonals.
padding_value: A scalar, the value off the given diagonals.
align: For a stack of diagonals, where a shorter one sits in its row of
  diagonal: the first word is for superdiagonals, the second for
  subdiagonals (the main one counts as both).
)doc");

REGISTER_OP("MatrixSetDiagV3")
    .Input("input: T")
    .Input("diagonal: T")
    .Input("k: int32")
    .Output("output: T")
    .Attr("T: type")
    .Attr(
        "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = "
        "'RIGHT_LEFT'")
    .SetShapeFn(MatrixSetDiagV3Shape)
    .Doc(R"doc(
A copy of input whose diagonals k[0] .. k[1] are replaced by diagonal.

diagonal: One diagonal (k a scalar, or k[0] == k[1]) or a stack of them,
  from the highest (k[1]) down, each as long as the longest one.
k: A scalar or a pair [low, high] of diagonal offsets; 0 is the main one.
align: For a stack of diagonals, where a shorter one sits in its row of
  diagonal: the first word is for superdiagonals, the second for
  subdiagonals (the main one counts as both).
)doc");

}  // namespace minflow
