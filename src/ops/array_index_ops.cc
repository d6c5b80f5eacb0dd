// Slicing and indexing ops: Slice, StridedSlice (with begin, end, ellipsis,
// new-axis and shrink-axis masks), GatherV2 and OneHot. Interfaces match
// TensorFlow's.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"
#include "minflow/framework/shape_inference.h"

namespace minflow {

using shape_inference::DimensionHandle;
using shape_inference::GetIntValues;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

// Note [StridedSlice shape]
// The slice spec is "sparse": one entry per index expression (x[1, ..., 2:,
// tf.newaxis]), while the input has one dim per axis. The ellipsis stands for
// as many full-range dims as needed (one is implied at the end when absent),
// new axes add size-1 dims without consuming an input dim, and shrink axes
// consume one and drop it. The spec is first expanded to a "dense" one with
// an entry per input dim, then each dim's length is computed from its
// canonical [begin, end) range and stride (Python semantics: negative
// indices from the end, out-of-range values clamped, masked ends take the
// whole range in the stride's direction); unknown begin/end values or dims
// give unknown lengths. This is TensorFlow's ValidateStridedSliceOp.

constexpr int kNewAxis = -1;
constexpr int kShrinkAxis = -2;

struct DenseSlice {
  std::vector<int64_t> begin, end, strides;
  uint64_t begin_mask = 0, end_mask = 0, shrink_mask = 0;
  // Per output dim of the dense spec: the input dim, or kNewAxis/kShrinkAxis.
  std::vector<int> final_gather;
};

Status BuildDenseSlice(int64_t input_rank, int64_t sparse_dims,
                       uint64_t ellipsis_mask, uint64_t new_axis_mask,
                       uint64_t begin_mask, uint64_t end_mask,
                       uint64_t shrink_mask, int num_add_axis_after_ellipsis,
                       const std::vector<int64_t>* begin,
                       const std::vector<int64_t>* end,
                       const std::vector<int64_t>& strides, DenseSlice* dense) {
  dense->begin.assign(input_rank, 0);
  dense->end.assign(input_rank, 0);
  dense->strides.assign(input_rank, 1);
  int64_t full = 0;
  for (int64_t i = 0; i < sparse_dims; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    if (ellipsis_mask & bit) {
      const int64_t next = std::min(
          input_rank - (sparse_dims - i) + 1 + num_add_axis_after_ellipsis,
          input_rank);
      for (; full < next; ++full) {
        dense->begin_mask |= uint64_t{1} << full;
        dense->end_mask |= uint64_t{1} << full;
        dense->final_gather.push_back(static_cast<int>(full));
      }
    } else if (new_axis_mask & bit) {
      dense->final_gather.push_back(kNewAxis);
    } else {
      if (full == input_rank) {
        return errors::InvalidArgument("Index out of range using input dim ",
                                       full, "; input has only ", input_rank,
                                       " dims");
      }
      // The sparse entries beyond the given ones are the implied ellipsis.
      if (begin != nullptr) dense->begin[full] = (*begin)[i];
      if (end != nullptr) dense->end[full] = (*end)[i];
      dense->strides[full] = strides[i];
      if (begin_mask & bit) dense->begin_mask |= uint64_t{1} << full;
      if (end_mask & bit) dense->end_mask |= uint64_t{1} << full;
      if (shrink_mask & bit) {
        dense->final_gather.push_back(kShrinkAxis);
        dense->shrink_mask |= uint64_t{1} << full;
      } else {
        dense->final_gather.push_back(static_cast<int>(full));
      }
      ++full;
    }
  }
  return OkStatus();
}

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
  int64_t masks[5];
  const char* const kMaskNames[5] = {"begin_mask", "end_mask", "ellipsis_mask",
                                     "new_axis_mask", "shrink_axis_mask"};
  for (int i = 0; i < 5; ++i) {
    MF_RETURN_IF_ERROR(c->GetAttr(kMaskNames[i], &masks[i]));
  }
  // Masks are 32-bit fields in TensorFlow.
  const uint64_t begin_mask = static_cast<uint32_t>(masks[0]);
  const uint64_t end_mask = static_cast<uint32_t>(masks[1]);
  const uint64_t ellipsis_mask = static_cast<uint32_t>(masks[2]);
  const uint64_t new_axis_mask = static_cast<uint32_t>(masks[3]);
  const uint64_t shrink_mask = static_cast<uint32_t>(masks[4]);

  std::vector<int64_t> strides;
  MF_RETURN_IF_ERROR(
      shape_inference::GetIntValues(*strides_t, "strides", &strides));
  const Tensor* begin_t = c->input_tensor(1);
  const Tensor* end_t = c->input_tensor(2);
  std::vector<int64_t> begin;
  std::vector<int64_t> end;
  if (begin_t != nullptr) {
    MF_RETURN_IF_ERROR(
        shape_inference::GetIntValues(*begin_t, "begin", &begin));
  }
  if (end_t != nullptr) {
    MF_RETURN_IF_ERROR(shape_inference::GetIntValues(*end_t, "end", &end));
  }
  const int64_t sparse_count = static_cast<int64_t>(strides.size());
  const bool shapes_ok =
      strides_t->dims() == 1 && sparse_count < 32 &&
      (begin_t == nullptr ||
       (begin_t->dims() == 1 && begin.size() == strides.size())) &&
      (end_t == nullptr ||
       (end_t->dims() == 1 && end.size() == strides.size()));
  if (!shapes_ok) {
    return errors::InvalidArgument(
        "Expected begin, end, and strides to be 1D equal size tensors, but "
        "got shapes ",
        begin_t ? begin_t->shape().DebugString() : "?", ", ",
        end_t ? end_t->shape().DebugString() : "?", ", and ",
        strides_t->shape().DebugString(), " instead.");
  }
  if (ellipsis_mask & (ellipsis_mask - 1)) {
    return errors::InvalidArgument(
        "Multiple ellipses in slice spec not allowed");
  }

  // New axes after the ellipsis do not consume input dims.
  int num_add_axis_after_ellipsis = 0;
  bool ellipsis_seen = false;
  for (int64_t i = 0; i < sparse_count; ++i) {
    if (ellipsis_seen && (new_axis_mask & (uint64_t{1} << i))) {
      ++num_add_axis_after_ellipsis;
    }
    if (ellipsis_mask & (uint64_t{1} << i)) ellipsis_seen = true;
  }
  uint64_t full_ellipsis_mask = ellipsis_mask;
  int64_t sparse_dims = sparse_count;
  if (!ellipsis_seen) {
    full_ellipsis_mask |= uint64_t{1} << sparse_dims;
    ++sparse_dims;
  }

  const int64_t rank = c->Rank(input);
  DenseSlice dense;
  MF_RETURN_IF_ERROR(BuildDenseSlice(
      rank, sparse_dims, full_ellipsis_mask, new_axis_mask, begin_mask,
      end_mask, shrink_mask, num_add_axis_after_ellipsis,
      begin_t ? &begin : nullptr, end_t ? &end : nullptr, strides, &dense));

  // Length of each input dim after slicing (-1 when unknown).
  std::vector<int64_t> processing(rank, -1);
  const bool values_known = begin_t != nullptr && end_t != nullptr;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t stride = dense.strides[i];
    if (stride == 0) {
      return errors::InvalidArgument("strides[", i, "] must be non-zero");
    }
    const bool shrink = dense.shrink_mask & (uint64_t{1} << i);
    const bool begin_masked = dense.begin_mask & (uint64_t{1} << i);
    const bool end_masked = dense.end_mask & (uint64_t{1} << i);
    const int64_t dim = c->Value(c->Dim(input, i));
    if (shrink && stride <= 0) {
      return errors::InvalidArgument(
          "only stride 1 allowed on non-range indexing.");
    }
    if (dim == InferenceContext::kUnknownDim) {
      processing[i] = shrink ? 1 : -1;
      continue;
    }
    // Valid canonical positions: [0, dim] going forward, [-1, dim-1] back.
    const int64_t lo = stride > 0 ? 0 : -1;
    const int64_t hi = stride > 0 ? dim : dim - 1;
    auto canonical = [&](int64_t x, bool masked, bool is_end) {
      if (masked) return (stride > 0) == is_end ? hi : lo;
      const int64_t fwd = x < 0 ? dim + x : x;
      return fwd < lo ? lo : (fwd > hi ? hi : fwd);
    };
    int64_t interval = 0;
    bool known = false;
    if (values_known) {
      int64_t b = dense.begin[i];
      int64_t e = dense.end[i];
      if (shrink) {
        const int64_t fwd = b < 0 ? dim + b : b;
        if (fwd < 0 || fwd >= dim) {
          return errors::InvalidArgument("slice index ", b, " of dimension ", i,
                                         " out of bounds.");
        }
        b = fwd;
        e = fwd + 1;
      } else {
        b = canonical(b, begin_masked, /*is_end=*/false);
        e = canonical(e, end_masked, /*is_end=*/true);
      }
      interval = e - b;
      known = true;
    } else if (shrink) {
      interval = 1;
      known = true;
    } else if (begin_masked && end_masked) {
      interval = stride < 0 ? -dim : dim;
      known = true;
    }
    if (known) {
      if (interval == 0 || ((interval < 0) != (stride < 0))) {
        processing[i] = 0;
      } else {
        processing[i] = interval / stride + (interval % stride != 0 ? 1 : 0);
      }
    }
  }

  std::vector<DimensionHandle> dims;
  for (int gather : dense.final_gather) {
    if (gather >= 0) {
      dims.push_back(c->MakeDim(processing[gather]));
    } else if (gather == kNewAxis) {
      dims.push_back(c->MakeDim(1));
    }
  }
  c->set_output(0, c->MakeShape(dims));
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

}  // namespace

REGISTER_OP("Slice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("size: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .SetShapeFn(shape_inference::SliceShape);

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
    .SetShapeFn(StridedSliceShape);

REGISTER_OP("GatherV2")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Input("axis: Taxis")
    .Attr("batch_dims: int = 0")
    .Output("output: Tparams")
    .Attr("Tparams: type")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("Taxis: {int32, int64}")
    .SetShapeFn(GatherV2Shape);

REGISTER_OP("OneHot")
    .Input("indices: TI")
    .Input("depth: int32")
    .Input("on_value: T")
    .Input("off_value: T")
    .Attr("axis: int = -1")
    .Output("output: T")
    .Attr("T: type")
    .Attr("TI: {uint8, int8, int32, int64} = DT_INT64")
    .SetShapeFn(OneHotShape);

}  // namespace minflow
