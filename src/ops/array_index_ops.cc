// Slicing and indexing ops: Slice, StridedSlice (with begin, end, ellipsis,
// new-axis and shrink-axis masks), GatherV2, OneHot, GatherNd, ScatterNd and
// the TensorScatter ops. Interfaces match TensorFlow's.
#include <cstdint>
#include <cstdlib>

#include "minflow/core/tensor.h"
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"
#include "minflow/framework/shape_inference.h"
#include "minflow/framework/strided_slice_spec.h"

namespace minflow {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

// StridedSlice's index semantics are the framework's (strided_slice_spec.h),
// shared with its kernels; unknown begin, end or dims give unknown lengths.
Status StridedSliceShape(InferenceContext* c) {
  const ShapeHandle input = c->input(0);
  ShapeHandle begin_shape;
  ShapeHandle end_shape;
  ShapeHandle strides_shape;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &begin_shape));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &end_shape));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(3), 1, &strides_shape));
  MF_RETURN_IF_ERROR(c->Merge(begin_shape, end_shape, &begin_shape));
  MF_RETURN_IF_ERROR(c->Merge(begin_shape, strides_shape, &begin_shape));
  const DimensionHandle sparse_dims_dim = c->Dim(begin_shape, 0);
  const Tensor* strides_t = c->input_tensor(3);
  if (!c->RankKnown(input) || !c->ValueKnown(sparse_dims_dim) ||
      strides_t == nullptr) {
    c->set_output(0, c->UnknownShape());
    return OkStatus();
  }
  StridedSliceMasks masks;
  MF_RETURN_IF_ERROR(c->GetAttr("begin_mask", &masks.begin_mask));
  MF_RETURN_IF_ERROR(c->GetAttr("end_mask", &masks.end_mask));
  MF_RETURN_IF_ERROR(c->GetAttr("ellipsis_mask", &masks.ellipsis_mask));
  MF_RETURN_IF_ERROR(c->GetAttr("new_axis_mask", &masks.new_axis_mask));
  MF_RETURN_IF_ERROR(c->GetAttr("shrink_axis_mask", &masks.shrink_axis_mask));
  StridedSliceAnalysis analysis;
  MF_RETURN_IF_ERROR(ValidateStridedSliceOp(
      c->input_tensor(1), c->input_tensor(2), *strides_t,
      InferenceContext::AsPartialTensorShape(input), masks.begin_mask,
      masks.end_mask, masks.ellipsis_mask, masks.new_axis_mask,
      masks.shrink_axis_mask, &analysis));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(
      c->MakeShapeFromPartialTensorShape(analysis.final_shape, &out));
  c->set_output(0, out);
  return OkStatus();
}

// ---- GatherV2, OneHot
// ---------------------------------------------------------------------

Status GatherV2Shape(InferenceContext* c) {
  ShapeHandle params;
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &params));
  ShapeHandle indices = c->input(1);
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  int64_t batch_dims;
  MF_RETURN_IF_ERROR(c->GetAttr("batch_dims", &batch_dims));
  if (batch_dims > kMaxTensorRank || batch_dims < -kMaxTensorRank) {
    return errors::InvalidArgument("batch_dims ", batch_dims,
                                   " is beyond the maximum rank");
  }
  MF_RETURN_IF_ERROR(
      c->WithRankAtLeast(indices, std::abs(batch_dims), &indices));
  if (batch_dims < 0) {
    if (!c->RankKnown(indices)) return shape_inference::UnknownShape(c);
    batch_dims += c->Rank(indices);
  }
  const Tensor* axis_t = c->input_tensor(2);
  if (axis_t == nullptr) {
    // params[:axis] + indices[batch_dims:] + params[axis+1:].
    if (c->RankKnown(params) && c->RankKnown(indices)) {
      const int64_t rank =
          int64_t{c->Rank(params)} + c->Rank(indices) - 1 - batch_dims;
      if (rank < 0) {
        return errors::InvalidArgument("batch_dims (", batch_dims,
                                       ") must be less than rank(params) (",
                                       c->Rank(params), ")");
      }
      c->set_output(0, c->UnknownShapeOfRank(rank));
    } else {
      c->set_output(0, c->UnknownShape());
    }
    return OkStatus();
  }
  int64_t axis;
  MF_RETURN_IF_ERROR(c->GetScalarFromTensor(axis_t, &axis));
  if (axis >= kMaxTensorRank || axis < -kMaxTensorRank) {
    return errors::InvalidArgument(
        "Expected axis in the range [-rank, rank), "
        "but got ",
        axis);
  }
  MF_RETURN_IF_ERROR(
      c->WithRankAtLeast(params, axis < 0 ? -axis : axis + 1, &unused));
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(params, batch_dims + 1, &unused));
  if (c->RankKnown(params)) {
    const int64_t normalized = axis < 0 ? axis + c->Rank(params) : axis;
    if (batch_dims > normalized) {
      return errors::InvalidArgument("batch_dims (", batch_dims,
                                     ") must be less than or equal to axis (",
                                     axis, ")");
    }
  }
  // The batch dims of params and indices are the same dims.
  if (c->RankKnown(params) && c->RankKnown(indices)) {
    for (int64_t i = 0; i < batch_dims; ++i) {
      DimensionHandle merged;
      MF_RETURN_IF_ERROR(
          c->Merge(c->Dim(params, i), c->Dim(indices, i), &merged));
    }
  }
  ShapeHandle out;
  ShapeHandle indices_inner;
  MF_RETURN_IF_ERROR(c->Subshape(params, 0, axis, &out));
  MF_RETURN_IF_ERROR(c->Subshape(indices, batch_dims, &indices_inner));
  MF_RETURN_IF_ERROR(c->Concatenate(out, indices_inner, &out));
  if (axis != -1) {
    ShapeHandle params_inner;
    MF_RETURN_IF_ERROR(c->Subshape(params, axis + 1, &params_inner));
    MF_RETURN_IF_ERROR(c->Concatenate(out, params_inner, &out));
  }
  c->set_output(0, out);
  return OkStatus();
}

Status OneHotShape(InferenceContext* c) {
  int64_t axis;
  MF_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  if (axis < -1) return errors::InvalidArgument("axis must be >= -1");
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(3), 0, &unused));
  DimensionHandle depth;
  MF_RETURN_IF_ERROR(c->MakeDimForScalarInput(1, &depth));
  const ShapeHandle indices = c->input(0);
  if (!c->RankKnown(indices)) return shape_inference::UnknownShape(c);
  const int64_t new_rank = int64_t{c->Rank(indices)} + 1;
  if (axis >= new_rank) {
    return errors::InvalidArgument("Expected axis to be -1 or between [0, ",
                                   new_rank, ").  But received: ", axis);
  }
  const int64_t depth_index = axis == -1 ? new_rank - 1 : axis;
  ShapeHandle front;
  ShapeHandle back;
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->Subshape(indices, 0, depth_index, &front));
  MF_RETURN_IF_ERROR(c->Subshape(indices, depth_index, &back));
  MF_RETURN_IF_ERROR(c->Concatenate(front, c->Vector(depth), &front));
  MF_RETURN_IF_ERROR(c->Concatenate(front, back, &out));
  c->set_output(0, out);
  return OkStatus();
}

// ---- GatherNd, ScatterNd, TensorScatter*
// ------------------------------------------------------------

// output = indices.shape[:-1] + params.shape[indices.shape[-1]:].
Status GatherNdShape(InferenceContext* c) {
  ShapeHandle params;
  ShapeHandle indices;
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &params));
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &indices));
  const DimensionHandle r_dim = c->Dim(indices, -1);
  if (!c->RankKnown(params) || !c->ValueKnown(r_dim)) {
    c->set_output(0, c->UnknownShape());
    return OkStatus();
  }
  if (c->Value(r_dim) > c->Rank(params)) {
    return errors::InvalidArgument(
        "indices.shape[-1] must be <= params.rank, but saw indices shape: ",
        c->DebugString(indices), " and params shape: ", c->DebugString(params));
  }
  ShapeHandle indices_outer;
  ShapeHandle params_inner;
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->Subshape(indices, 0, -1, &indices_outer));
  MF_RETURN_IF_ERROR(c->Subshape(params, c->Value(r_dim), &params_inner));
  MF_RETURN_IF_ERROR(c->Concatenate(indices_outer, params_inner, &out));
  c->set_output(0, out);
  return OkStatus();
}

// The checks TF's ScatterNdShapeHelper makes: updates.shape must be
// indices.shape[:-1] + output.shape[indices.shape[-1]:]. Output is `output`.
Status ScatterNdShapeHelper(InferenceContext* c, ShapeHandle indices,
                            ShapeHandle updates, ShapeHandle output) {
  if (c->Value(c->NumElements(output)) == 0 &&
      (c->Value(c->NumElements(indices)) > 0 ||
       c->Value(c->NumElements(updates)) > 0)) {
    return errors::InvalidArgument(
        "Indices and updates specified for empty input");
  }
  if (c->RankKnown(indices) && c->RankKnown(updates) && c->Rank(updates) != 0) {
    const int64_t outer_dims = c->Rank(indices) - 1;
    const DimensionHandle ixdim = c->Dim(indices, -1);
    if (c->ValueKnown(ixdim)) {
      const int64_t ix = c->Value(ixdim);
      ShapeHandle unused;
      ShapeHandle prefix_indices;
      ShapeHandle prefix_updates;
      MF_RETURN_IF_ERROR(c->Subshape(indices, 0, outer_dims, &prefix_indices));
      MF_RETURN_IF_ERROR(c->Subshape(updates, 0, outer_dims, &prefix_updates));
      Status s = c->Merge(prefix_indices, prefix_updates, &unused);
      if (!s.ok()) {
        return errors::InvalidArgument(
            "Dimensions [0,", outer_dims,
            ") of indices[shape=", c->DebugString(indices),
            "] = ", c->DebugString(prefix_indices),
            " must match dimensions [0,", outer_dims,
            ") of updates[shape=", c->DebugString(updates),
            "] = ", c->DebugString(prefix_updates), ": ", s.message());
      }
      ShapeHandle suffix_output;
      ShapeHandle suffix_updates;
      MF_RETURN_IF_ERROR(c->Subshape(output, ix, &suffix_output));
      MF_RETURN_IF_ERROR(c->Subshape(updates, outer_dims, &suffix_updates));
      s = c->Merge(suffix_output, suffix_updates, &unused);
      if (!s.ok()) {
        return errors::InvalidArgument(
            "Dimensions [", ix, ",", c->Rank(output),
            ") of input[shape=", c->DebugString(output),
            "] = ", c->DebugString(suffix_output), " must match dimensions [",
            outer_dims, ",", c->Rank(updates),
            ") of updates[shape=", c->DebugString(updates),
            "] = ", c->DebugString(suffix_updates), ": ", s.message());
      }
    }
  }
  c->set_output(0, output);
  return OkStatus();
}

Status ScatterNdShape(InferenceContext* c) {
  ShapeHandle indices;
  ShapeHandle updates;
  ShapeHandle output;
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &indices));
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &updates));
  MF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(2, &output));
  return ScatterNdShapeHelper(c, indices, updates, output);
}

Status TensorScatterShape(InferenceContext* c) {
  ShapeHandle output;
  ShapeHandle indices;
  ShapeHandle updates;
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &output));
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &indices));
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(2), 1, &updates));
  return ScatterNdShapeHelper(c, indices, updates, output);
}

}  // namespace

REGISTER_OP("Slice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("size: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .SetShapeFn(shape_inference::SliceShape)
    .Doc(R"doc(
The block of input that starts at begin and has the given size.

begin: A vector, the first index in each dimension.
size: A vector, the extent in each dimension; -1 takes everything from
  begin to the end of that dimension.
)doc");

REGISTER_OP("StridedSlice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int16, int32, int64}")
    .Attr("begin_mask: int = 0")
    .Attr("end_mask: int = 0")
    .Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0")
    .Attr("shrink_axis_mask: int = 0")
    .SetShapeFn(StridedSliceShape)
    .Doc(R"doc(
Python-style slicing input[begin:end:strides] with numpy's index syntax.

Entry i of begin, end and strides slices one dimension, as begin:end:stride
does in Python: negative indices count from the end, and out-of-range ones
are clamped. Each mask is a bit field whose bit i changes entry i.

begin_mask: Bit i set ignores begin[i] and starts from the first (or, with
  a negative stride, last) element.
end_mask: Bit i set ignores end[i] and runs to the end.
ellipsis_mask: Bit i set makes entry i an ellipsis (...) standing for all the
  dimensions not otherwise sliced. At most one bit.
new_axis_mask: Bit i set makes entry i insert a dimension of size 1
  (numpy's newaxis).
shrink_axis_mask: Bit i set takes the single element begin[i] of that
  dimension and removes the dimension, as a plain integer index does.
)doc");

REGISTER_OP("GatherV2")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Input("axis: Taxis")
    .Attr("batch_dims: int = 0")
    .Output("output: Tparams")
    .Attr("Tparams: type")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("Taxis: {int32, int64}")
    .SetShapeFn(GatherV2Shape)
    .Doc(R"doc(
Slices of params along axis, picked by indices.

The output's shape is params.shape[:axis] + indices.shape[batch_dims:] +
params.shape[axis + 1:]. An index outside [0, params.shape[axis]) is an
error.

axis: A scalar; negative counts from the end.
batch_dims: The number of leading dimensions that params and indices share
  and that are matched one to one instead of gathered over.
)doc");

REGISTER_OP("OneHot")
    .Input("indices: TI")
    .Input("depth: int32")
    .Input("on_value: T")
    .Input("off_value: T")
    .Attr("axis: int = -1")
    .Output("output: T")
    .Attr("T: type")
    .Attr("TI: {uint8, int8, int32, int64} = DT_INT64")
    .SetShapeFn(OneHotShape)
    .Doc(R"doc(
A one-hot encoding of indices: on_value at each index, off_value elsewhere.

A new dimension of size depth goes at axis. An index outside [0, depth)
gives a row of only off_value, not an error.

depth: A scalar, the size of the new dimension.
on_value: A scalar.
off_value: A scalar.
axis: Where the new dimension goes; -1 appends it.
)doc");

REGISTER_OP("GatherNd")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Output("output: Tparams")
    .Attr("Tparams: type")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("bad_indices_policy: string = ''")
    .SetShapeFn(GatherNdShape)
    .Doc(R"doc(
Slices of params addressed by the index tuples in the last dimension of indices.

With K = indices.shape[-1], each tuple names a slice params[i0, ..., iK-1];
the output's shape is indices.shape[:-1] + params.shape[K:].

bad_indices_policy: "" or "DEFAULT" or "ERROR": an out-of-range tuple is an
  error. "IGNORE": its slice is zeros.
)doc");

REGISTER_OP("ScatterNd")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Input("shape: Tindices")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("bad_indices_policy: string = ''")
    .SetShapeFn(ScatterNdShape)
    .Doc(R"doc(
A zero tensor of the given shape with updates added at index tuples.

Duplicate tuples add up. With K = indices.shape[-1], updates has shape
indices.shape[:-1] + shape[K:].

shape: A vector, the output's shape.
bad_indices_policy: "" or "DEFAULT" or "ERROR": an out-of-range tuple is an
  error. "IGNORE": its update is skipped.
)doc");

REGISTER_OP("TensorScatterUpdate")
    .Input("tensor: T")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int16, int32, int64, uint16}")
    .Attr("bad_indices_policy: string = ''")
    .SetShapeFn(TensorScatterShape)
    .Doc(R"doc(
A copy of tensor with the slices at index tuples replaced by updates.

With K = indices.shape[-1], updates has shape indices.shape[:-1] +
tensor.shape[K:]. For duplicate tuples the last update wins (TensorFlow
leaves that order unspecified).

bad_indices_policy: "" or "DEFAULT" or "ERROR": an out-of-range tuple is an
  error. "IGNORE": its update is skipped.
)doc");

REGISTER_OP("TensorScatterAdd")
    .Input("tensor: T")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int32, int64}")
    .Attr("bad_indices_policy: string = ''")
    .SetShapeFn(TensorScatterShape)
    .Doc(R"doc(
A copy of tensor with updates added to the slices at index tuples.

With K = indices.shape[-1], updates has shape indices.shape[:-1] +
tensor.shape[K:]. Duplicate tuples add up.

bad_indices_policy: "" or "DEFAULT" or "ERROR": an out-of-range tuple is an
  error. "IGNORE": its update is skipped.
)doc");

}  // namespace minflow
