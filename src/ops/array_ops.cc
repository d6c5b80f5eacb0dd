// Array ops: constants and placeholders, identities, shape queries, and
// the ops that rearrange a tensor without computing on it (Reshape,
// ExpandDims, Squeeze, Transpose, ConcatV2, Pack/Unpack, Split/SplitV, Fill,
// Tile, Pad/PadV2/MirrorPad, BroadcastTo, ReverseV2, ReverseSequence), shape
// helpers (ShapeN, BroadcastArgs, EnsureShape, InvertPermutation), Where,
// Unique and Snapshot. Slicing and indexing live in array_index_ops.cc.
// Interfaces match TensorFlow's.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"
#include "minflow/framework/shape_inference.h"
#include "minflow/tensor.pb.h"
#include "minflow/tensor_shape.pb.h"

namespace minflow {

using shape_inference::DimensionHandle;
using shape_inference::GetIntValues;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

// ---- Constants, placeholders, identities -----------------------------------

Status ConstShape(InferenceContext* c) {
  const TensorProto* proto = nullptr;
  MF_RETURN_IF_ERROR(c->GetAttr("value", &proto));
  MF_RETURN_IF_ERROR(TensorShape::IsValidShape(proto->tensor_shape()));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->MakeShapeFromShapeProto(proto->tensor_shape(), &out));
  c->set_output(0, out);
  return OkStatus();
}

Status PlaceholderShape(InferenceContext* c) {
  PartialTensorShape shape;
  MF_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  // Graphs this old could not tell a scalar shape attr from an unknown one.
  if (c->graph_def_version() <= 21 && shape.dims() <= 0) {
    return shape_inference::UnknownShape(c);
  }
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shape, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status PlaceholderWithDefaultShape(InferenceContext* c) {
  PartialTensorShape shape;
  MF_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shape, &out));
  // The default must fit the declared shape, but the output is the declared
  // shape: a fed value may be any shape it allows.
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->Merge(c->input(0), out, &unused));
  c->set_output(0, out);
  return OkStatus();
}

Status IdentityNShape(InferenceContext* c) {
  std::vector<ShapeHandle> inputs;
  MF_RETURN_IF_ERROR(c->input("input", &inputs));
  return c->set_output("output", inputs);
}

// ---- Shape queries
// ------------------------------------------------------------

Status ShapeOpShape(InferenceContext* c) {
  const ShapeHandle input = c->input(0);
  c->set_output(0, c->Vector(c->RankKnown(input) ? c->MakeDim(c->Rank(input))
                                                 : c->UnknownDim()));
  return OkStatus();
}

// ---- Reshape
// ----------------------------------------------------------------------

// Checks a known `shape` value as the kernel will: one -1 at most, no other
// negative sizes.
Status CheckReshapeValue(const Tensor& shape_t) {
  std::vector<int64_t> sizes;
  MF_RETURN_IF_ERROR(GetIntValues(shape_t, "shape", &sizes));
  int unknown = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      if (unknown >= 0) {
        return errors::InvalidArgument(
            "Only one input size may be -1, not "
            "both ",
            unknown, " and ", i);
      }
      unknown = static_cast<int>(i);
    } else if (sizes[i] < 0) {
      return errors::InvalidArgument("Size ", i, " must be non-negative, not ",
                                     sizes[i]);
    }
  }
  return OkStatus();
}

// Known elements of `s` and the index of its single unknown dim (-1 if
// none); *too_many when it has more than one. Dims marked in `cancelled`
// are left out (they appear on both sides of the reshape).
Status KnownElements(InferenceContext* c, ShapeHandle s,
                     const std::vector<bool>& cancelled, DimensionHandle* known,
                     int* unknown_idx, bool* too_many) {
  *unknown_idx = -1;
  *known = c->MakeDim(1);
  for (int i = 0; i < c->Rank(s); ++i) {
    const DimensionHandle dim = c->Dim(s, i);
    if (cancelled[i]) continue;
    if (c->ValueKnown(dim)) {
      MF_RETURN_IF_ERROR(c->Multiply(*known, dim, known));
    } else if (*unknown_idx >= 0) {
      *too_many = true;
      return OkStatus();
    } else {
      *unknown_idx = i;
    }
  }
  return OkStatus();
}

Status ReshapeShape(InferenceContext* c) {
  const Tensor* shape_t = c->input_tensor(1);
  if (shape_t != nullptr) {
    MF_RETURN_IF_ERROR(CheckReshapeValue(*shape_t));
  }
  const ShapeHandle in = c->input(0);
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &out));
  if (!c->RankKnown(out) || !c->RankKnown(in)) {
    c->set_output(0, out);
    return OkStatus();
  }
  // With at most one unknown dim on each side, the element counts tell the
  // missing dim (or show the reshape impossible). An unknown dim that is the
  // very same object on both sides (a shape computed from the input's own
  // shape) is equal on both sides and cancels out; TensorFlow, which does
  // not carry that identity through shape computations, leaves such
  // reshapes with two unknowns.
  std::vector<bool> out_cancelled(c->Rank(out), false);
  std::vector<bool> in_cancelled(c->Rank(in), false);
  for (int i = 0; i < c->Rank(out); ++i) {
    const DimensionHandle d = c->Dim(out, i);
    if (c->ValueKnown(d)) continue;
    for (int j = 0; j < c->Rank(in); ++j) {
      if (!in_cancelled[j] && d.SameHandle(c->Dim(in, j))) {
        out_cancelled[i] = in_cancelled[j] = true;
        break;
      }
    }
  }
  bool too_many = false;
  DimensionHandle known_out;
  DimensionHandle known_in;
  int out_unknown;
  int in_unknown = -1;
  MF_RETURN_IF_ERROR(KnownElements(c, out, out_cancelled, &known_out,
                                   &out_unknown, &too_many));
  if (!too_many) {
    MF_RETURN_IF_ERROR(
        KnownElements(c, in, in_cancelled, &known_in, &in_unknown, &too_many));
  }
  if (!too_many) {
    const int64_t in_elems = c->Value(known_in);
    const int64_t out_elems = c->Value(known_out);
    if (in_unknown < 0 && out_unknown < 0) {
      const bool cancelled = std::find(in_cancelled.begin(), in_cancelled.end(),
                                       true) != in_cancelled.end();
      if (in_elems != out_elems && cancelled) {
        return errors::InvalidArgument("Cannot reshape a tensor of shape ",
                                       c->DebugString(in), " to shape ",
                                       c->DebugString(out));
      }
      if (in_elems != out_elems) {
        return errors::InvalidArgument(
            "Cannot reshape a tensor with ", in_elems, " elements to shape ",
            c->DebugString(out), " (", out_elems, " elements)");
      }
    } else if (in_unknown < 0 && out_unknown >= 0 && out_elems > 0) {
      DimensionHandle inferred;
      MF_RETURN_IF_ERROR(c->Divide(known_in, out_elems,
                                   /*evenly_divisible=*/true, &inferred));
      MF_RETURN_IF_ERROR(c->ReplaceDim(out, out_unknown, inferred, &out));
    } else if (in_unknown >= 0 && out_unknown < 0 && in_elems != 0) {
      // Only a check: the input's unknown dim must divide evenly.
      DimensionHandle inferred;
      MF_RETURN_IF_ERROR(c->Divide(known_out, in_elems,
                                   /*evenly_divisible=*/true, &inferred));
      DimensionHandle unused;
      MF_RETURN_IF_ERROR(c->Merge(c->Dim(in, in_unknown), inferred, &unused));
    } else if (in_unknown >= 0 && out_unknown >= 0 && in_elems == out_elems) {
      MF_RETURN_IF_ERROR(
          c->ReplaceDim(out, out_unknown, c->Dim(in, in_unknown), &out));
    }
  }
  c->set_output(0, out);
  return OkStatus();
}

// ---- ExpandDims, Squeeze, Transpose
// -------------------------------------------------

Status ExpandDimsShape(InferenceContext* c) {
  const ShapeHandle input = c->input(0);
  const Tensor* dim_t = c->input_tensor(1);
  if (dim_t != nullptr && dim_t->NumElements() != 1) {
    return errors::InvalidArgument(
        "'dim' input must be a tensor with a single value");
  }
  if (dim_t == nullptr || !c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return OkStatus();
  }
  std::vector<int64_t> values;
  MF_RETURN_IF_ERROR(GetIntValues(*dim_t, "dim", &values));
  int64_t dim = values[0];
  const int32_t rank = c->Rank(input);
  const int64_t min_dim = -int64_t{rank} - 1;
  if (dim < min_dim || dim > rank) {
    return errors::InvalidArgument("dim ", dim, " not in the interval [",
                                   min_dim, ", ", rank, "].");
  }
  if (dim < 0) dim += rank + 1;
  ShapeHandle before;
  ShapeHandle after;
  MF_RETURN_IF_ERROR(c->Subshape(input, 0, dim, &before));
  MF_RETURN_IF_ERROR(c->Subshape(input, dim, &after));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->Concatenate(before, c->Vector(1), &out));
  MF_RETURN_IF_ERROR(c->Concatenate(out, after, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status SqueezeShape(InferenceContext* c) {
  const ShapeHandle input = c->input(0);
  if (!c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return OkStatus();
  }
  const int32_t rank = c->Rank(input);
  std::vector<int64_t> squeeze_dims;
  MF_RETURN_IF_ERROR(c->GetAttr("squeeze_dims", &squeeze_dims));
  std::vector<bool> listed(rank, false);
  for (size_t i = 0; i < squeeze_dims.size(); ++i) {
    const int64_t d = squeeze_dims[i];
    if (d < -rank || d >= rank) {
      return errors::InvalidArgument("squeeze_dims[", i, "] not in [", -rank,
                                     ",", rank, ").");
    }
    listed[d < 0 ? d + rank : d] = true;
  }
  std::vector<DimensionHandle> dims;
  for (int i = 0; i < rank; ++i) {
    const DimensionHandle dim = c->Dim(input, i);
    if (!c->ValueKnown(dim)) {
      // A listed unknown dim is assumed to be 1; squeezing every 1 with an
      // unknown dim leaves the rank unknown.
      if (listed[i]) continue;
      if (squeeze_dims.empty()) {
        c->set_output(0, c->UnknownShape());
        return OkStatus();
      }
    } else if (c->Value(dim) == 1) {
      if (listed[i] || squeeze_dims.empty()) continue;
    } else if (listed[i]) {
      return errors::InvalidArgument("Can not squeeze dim[", i,
                                     "], expected a dimension of 1, got ",
                                     c->Value(dim));
    }
    dims.push_back(dim);
  }
  c->set_output(0, c->MakeShape(dims));
  return OkStatus();
}

Status TransposeShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle perm_shape = c->input(1);
  const Tensor* perm = c->input_tensor(1);
  DimensionHandle perm_elems = c->NumElements(perm_shape);
  if (!c->RankKnown(input) && !c->ValueKnown(perm_elems) && perm == nullptr) {
    c->set_output(0, c->UnknownShape());
    return OkStatus();
  }
  int64_t rank;
  if (c->RankKnown(input)) {
    rank = c->Rank(input);
  } else if (c->ValueKnown(perm_elems)) {
    rank = c->Value(perm_elems);
  } else {
    rank = perm->NumElements();
  }
  if (!c->RankKnown(input) && rank < 2) {
    // One perm entry fits a scalar and a vector alike: both pass unchanged.
    c->set_output(0, input);
    return OkStatus();
  }
  MF_RETURN_IF_ERROR(c->WithRank(input, rank, &input));
  MF_RETURN_IF_ERROR(c->WithRank(perm_shape, 1, &perm_shape));
  MF_RETURN_IF_ERROR(c->WithValue(perm_elems, rank, &perm_elems));
  std::vector<DimensionHandle> dims(rank);
  if (perm == nullptr) {
    for (auto& d : dims) d = c->UnknownDim();
    c->set_output(0, c->MakeShape(dims));
    return OkStatus();
  }
  std::vector<int64_t> values;
  MF_RETURN_IF_ERROR(GetIntValues(*perm, "perm", &values));
  if (static_cast<int64_t>(values.size()) != rank) {
    return errors::InvalidArgument("transpose expects a vector of size ", rank,
                                   ". But input(1) is a vector of size ",
                                   values.size());
  }
  std::vector<bool> seen(rank, false);
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t in_idx = values[i];
    if (in_idx < 0 || in_idx >= rank) {
      return errors::InvalidArgument("perm dim ", in_idx,
                                     " is out of range of input rank ", rank);
    }
    if (seen[in_idx]) {
      return errors::InvalidArgument(in_idx, " is duplicated in perm");
    }
    seen[in_idx] = true;
    dims[i] = c->Dim(input, in_idx);
  }
  c->set_output(0, c->MakeShape(dims));
  return OkStatus();
}

// ---- Pack, Unpack
// ---------------------------------------------------------------------

Status GetPackAxis(InferenceContext* c, int32_t rank, int64_t* axis) {
  MF_RETURN_IF_ERROR(c->GetAttr("axis", axis));
  if (*axis < -int64_t{rank} || *axis >= rank) {
    return errors::InvalidArgument("Invalid axis: ", *axis, "; must be in [",
                                   -rank, ",", rank, ")");
  }
  if (*axis < 0) *axis += rank;
  return OkStatus();
}

Status PackShape(InferenceContext* c) {
  ShapeHandle cur = c->input(c->num_inputs() - 1);
  for (int i = c->num_inputs() - 2; i >= 0; --i) {
    MF_RETURN_IF_ERROR(shape_inference::AppendErrorContext(
        c->Merge(c->input(i), cur, &cur),
        absl::StrCat("From merging shape ", i, " with other shapes.")));
  }
  if (!c->RankKnown(cur)) {
    c->set_output(0, c->UnknownShape());
    return OkStatus();
  }
  const int32_t rank = c->Rank(cur);
  int64_t axis;
  MF_RETURN_IF_ERROR(GetPackAxis(c, rank + 1, &axis));
  std::vector<DimensionHandle> dims;
  for (int i = 0; i < rank; ++i) {
    if (i == axis) dims.push_back(c->MakeDim(c->num_inputs()));
    dims.push_back(c->Dim(cur, i));
  }
  if (axis == rank) dims.push_back(c->MakeDim(c->num_inputs()));
  c->set_output(0, c->MakeShape(dims));
  return OkStatus();
}

Status UnpackShape(InferenceContext* c) {
  const ShapeHandle s = c->input(0);
  ShapeHandle out;
  if (c->RankKnown(s)) {
    const int32_t rank = c->Rank(s);
    int64_t axis;
    MF_RETURN_IF_ERROR(GetPackAxis(c, rank, &axis));
    DimensionHandle unused;
    MF_RETURN_IF_ERROR(
        c->WithValue(c->Dim(s, axis), c->num_outputs(), &unused));
    std::vector<DimensionHandle> dims;
    for (int i = 0; i < rank; ++i) {
      if (i != axis) dims.push_back(c->Dim(s, i));
    }
    out = c->MakeShape(dims);
  } else {
    out = c->UnknownShape();
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
  return OkStatus();
}

// ---- Split, SplitV
// --------------------------------------------------------------------

Status SplitShape(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, &unused));
  ShapeHandle input = c->input(1);
  DimensionHandle split_dim_handle;
  MF_RETURN_IF_ERROR(c->MakeDimForScalarInputWithNegativeIndexing(
      0, c->Rank(input), &split_dim_handle));
  const int num_split = c->num_outputs();
  ShapeHandle out;
  if (!c->ValueKnown(split_dim_handle)) {
    out = c->RankKnown(input) ? c->UnknownShapeOfRank(c->Rank(input))
                              : c->UnknownShape();
  } else {
    const int64_t split_dim = c->Value(split_dim_handle);
    MF_RETURN_IF_ERROR(c->WithRankAtLeast(input, split_dim + 1, &input));
    DimensionHandle size;
    MF_RETURN_IF_ERROR(shape_inference::AppendErrorContext(
        c->Divide(c->Dim(input, split_dim), num_split,
                  /*evenly_divisible=*/true, &size),
        "Number of ways to split should evenly divide the split dimension"));
    MF_RETURN_IF_ERROR(c->ReplaceDim(input, split_dim, size, &out));
  }
  for (int i = 0; i < num_split; ++i) c->set_output(i, out);
  return OkStatus();
}

Status SplitVShape(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &unused));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  const ShapeHandle input = c->input(0);
  DimensionHandle split_dim_handle;
  MF_RETURN_IF_ERROR(c->MakeDimForScalarInputWithNegativeIndexing(
      2, c->Rank(input), &split_dim_handle));
  const int num_outputs = c->num_outputs();
  const int32_t rank = c->Rank(input);
  const Tensor* size_splits = c->input_tensor(1);
  if (rank == InferenceContext::kUnknownRank) {
    // Outputs may differ from each other, so each gets its own shape.
    for (int i = 0; i < num_outputs; ++i) c->set_output(i, c->UnknownShape());
    return OkStatus();
  }
  if (rank == 0) return errors::InvalidArgument("Can't split scalars");
  if (!c->ValueKnown(split_dim_handle)) {
    for (int i = 0; i < num_outputs; ++i) {
      c->set_output(i, c->UnknownShapeOfRank(rank));
    }
    return OkStatus();
  }
  const int64_t split_dim = c->Value(split_dim_handle);
  if (size_splits == nullptr) {
    for (int i = 0; i < num_outputs; ++i) {
      ShapeHandle out;
      MF_RETURN_IF_ERROR(
          c->ReplaceDim(input, split_dim, c->UnknownDim(), &out));
      c->set_output(i, out);
    }
    return OkStatus();
  }
  std::vector<int64_t> sizes;
  MF_RETURN_IF_ERROR(GetIntValues(*size_splits, "size_splits", &sizes));
  if (static_cast<int>(sizes.size()) != num_outputs) {
    return errors::InvalidArgument(
        "Length of size_splits should be equal to num_outputs");
  }
  int64_t total = 0;
  bool has_neg_one = false;
  for (int64_t size : sizes) {
    if (size == -1) {
      if (has_neg_one) {
        return errors::InvalidArgument("size_splits can only have one -1");
      }
      has_neg_one = true;
    } else if (size < 0) {
      return errors::InvalidArgument("size_splits must be >= -1, but got ",
                                     size);
    } else if (__builtin_add_overflow(total, size, &total)) {
      return errors::InvalidArgument("size_splits sum overflows int64");
    }
  }
  const int64_t dim_size = c->Value(c->Dim(input, split_dim));
  if (dim_size != InferenceContext::kUnknownDim &&
      (has_neg_one ? total > dim_size : total != dim_size)) {
    return errors::InvalidArgument("can't split axis of size ", dim_size,
                                   " into pieces of size [",
                                   absl::StrJoin(sizes, ","), "]");
  }
  for (int i = 0; i < num_outputs; ++i) {
    int64_t size = sizes[i];
    if (size == -1 && dim_size != InferenceContext::kUnknownDim) {
      size = dim_size - total;
    }
    ShapeHandle out;
    MF_RETURN_IF_ERROR(c->ReplaceDim(input, split_dim, c->MakeDim(size), &out));
    c->set_output(i, out);
  }
  return OkStatus();
}

// ---- Fill, Tile
// -------------------------------------------------------------------------

Status FillShape(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &unused));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  const Tensor* dims_t = c->input_tensor(0);
  if (dims_t != nullptr) {
    std::vector<int64_t> dims;
    MF_RETURN_IF_ERROR(GetIntValues(*dims_t, "dims", &dims));
    for (int64_t d : dims) {
      if (d < 0) return errors::InvalidArgument("Fill dimensions must be >= 0");
    }
  }
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status TileShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  const Tensor* multiples_t = c->input_tensor(1);
  if (multiples_t != nullptr) {
    std::vector<int64_t> values;
    MF_RETURN_IF_ERROR(GetIntValues(*multiples_t, "multiples", &values));
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i] < 0) {
        return errors::InvalidArgument("Expected multiples[", i,
                                       "] >= 0, but got ", values[i]);
      }
    }
  }
  // The multiples read as a partial shape: unknown entries stay unknown.
  ShapeHandle multiples;
  MF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &multiples));
  if (c->RankKnown(input)) {
    MF_RETURN_IF_ERROR(c->WithRank(multiples, c->Rank(input), &multiples));
    ShapeHandle unused;
    MF_RETURN_IF_ERROR(
        c->Merge(c->input(1), c->Vector(c->Rank(input)), &unused));
  }
  if (!c->RankKnown(multiples)) return shape_inference::UnknownShape(c);
  const int32_t rank = c->Rank(multiples);
  MF_RETURN_IF_ERROR(c->WithRank(input, rank, &input));
  std::vector<DimensionHandle> dims(rank);
  for (int i = 0; i < rank; ++i) {
    MF_RETURN_IF_ERROR(
        c->Multiply(c->Dim(input, i), c->Dim(multiples, i), &dims[i]));
  }
  c->set_output(0, c->MakeShape(dims));
  return OkStatus();
}

// ---- Pad, PadV2, MirrorPad
// ----------------------------------------------------------------

// `mode` is "" for Pad/PadV2, else MirrorPad's REFLECT or SYMMETRIC.
Status PadShapeImpl(InferenceContext* c, const std::string& mode) {
  ShapeHandle paddings;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &paddings));
  DimensionHandle unused;
  MF_RETURN_IF_ERROR(c->WithValue(c->Dim(paddings, 1), 2, &unused));
  ShapeHandle input = c->input(0);
  DimensionHandle n_dim = c->Dim(paddings, 0);
  if (c->ValueKnown(n_dim)) {
    MF_RETURN_IF_ERROR(c->WithRank(input, c->Value(n_dim), &input));
  } else if (c->RankKnown(input)) {
    MF_RETURN_IF_ERROR(c->WithValue(n_dim, c->Rank(input), &n_dim));
  }
  const Tensor* paddings_t = c->input_tensor(1);
  if (paddings_t == nullptr) {
    c->set_output(0, c->ValueKnown(n_dim)
                         ? c->UnknownShapeOfRank(c->Value(n_dim))
                         : c->UnknownShape());
    return OkStatus();
  }
  if (paddings_t->dims() != 2 || paddings_t->dim_size(1) != 2) {
    return errors::InvalidArgument("paddings must be a matrix with 2 columns: ",
                                   paddings_t->shape().DebugString());
  }
  const int64_t num_dims = paddings_t->dim_size(0);
  MF_RETURN_IF_ERROR(c->WithRank(input, num_dims, &input));
  std::vector<int64_t> pads;
  MF_RETURN_IF_ERROR(GetIntValues(*paddings_t, "paddings", &pads));
  // For MirrorPad, REFLECT needs pads < dim and SYMMETRIC pads <= dim.
  const int64_t mirror_slack = mode == "REFLECT" ? 0 : 1;
  std::vector<DimensionHandle> dims(num_dims);
  for (int64_t i = 0; i < num_dims; ++i) {
    const int64_t before = pads[2 * i];
    const int64_t after = pads[2 * i + 1];
    int64_t total;
    if (before < 0 || after < 0) {
      return errors::InvalidArgument("Paddings must be non-negative");
    }
    if (__builtin_add_overflow(before, after, &total)) {
      return errors::InvalidArgument("Paddings of dimension ", i,
                                     " overflow int64");
    }
    const DimensionHandle dim = c->Dim(input, i);
    if (!mode.empty() && c->ValueKnown(dim) &&
        (before >= c->Value(dim) + mirror_slack ||
         after >= c->Value(dim) + mirror_slack)) {
      return errors::InvalidArgument(
          "paddings must be no greater than the dimension size",
          mode == "REFLECT" ? " minus 1" : "", ": ", before, ", ", after,
          " greater than ", c->Value(dim) - 1 + mirror_slack);
    }
    MF_RETURN_IF_ERROR(c->Add(dim, total, &dims[i]));
  }
  c->set_output(0, c->MakeShape(dims));
  return OkStatus();
}

Status PadShape(InferenceContext* c) { return PadShapeImpl(c, ""); }

Status MirrorPadShape(InferenceContext* c) {
  std::string mode;
  MF_RETURN_IF_ERROR(c->GetAttr("mode", &mode));
  if (mode != "REFLECT" && mode != "SYMMETRIC") {
    return errors::InvalidArgument("mode must be REFLECT or SYMMETRIC, got ",
                                   mode);
  }
  return PadShapeImpl(c, mode);
}

// ---- Broadcasting, Where, Reverse, shape helpers
// ----------------------------------------------------

// The output is `shape`, each of its dims merged with the matching input
// dim (right-aligned) where that is known and above 1.
Status BroadcastToShape(InferenceContext* c) {
  ShapeHandle shape_in;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &shape_in));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &out));
  ShapeHandle in = c->input(0);
  if (!c->RankKnown(out) || !c->RankKnown(in)) {
    c->set_output(0, out);
    return OkStatus();
  }
  const int out_rank = c->Rank(out);
  MF_RETURN_IF_ERROR(c->WithRankAtMost(in, out_rank, &in));
  const int in_rank = c->Rank(in);
  for (int i = 0; i < in_rank; ++i) {
    const DimensionHandle in_dim = c->Dim(in, in_rank - i - 1);
    if (c->Value(in_dim) > 1) {
      DimensionHandle out_dim = c->Dim(out, out_rank - i - 1);
      MF_RETURN_IF_ERROR(c->Merge(in_dim, out_dim, &out_dim));
      MF_RETURN_IF_ERROR(c->ReplaceDim(out, out_rank - i - 1, out_dim, &out));
    }
  }
  c->set_output(0, out);
  return OkStatus();
}

// A vector as long as the longer input.
Status BroadcastArgsShape(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &unused));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &unused));
  const DimensionHandle x = c->Dim(c->input(0), 0);
  const DimensionHandle y = c->Dim(c->input(1), 0);
  if (!c->ValueKnown(x) || !c->ValueKnown(y)) {
    c->set_output(0, c->Vector(c->UnknownDim()));
    return OkStatus();
  }
  c->set_output(0, c->Vector(std::max(c->Value(x), c->Value(y))));
  return OkStatus();
}

// Two vectors whose lengths depend on the values.
Status BroadcastGradientArgsShape(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &unused));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &unused));
  c->set_output(0, c->Vector(c->UnknownDim()));
  c->set_output(1, c->Vector(c->UnknownDim()));
  return OkStatus();
}

// [num_true, rank(input)].
Status WhereShape(InferenceContext* c) {
  const ShapeHandle input = c->input(0);
  c->set_output(0, c->Matrix(c->UnknownDim(), c->RankKnown(input)
                                                  ? c->MakeDim(c->Rank(input))
                                                  : c->UnknownDim()));
  return OkStatus();
}

Status ReverseV2Shape(InferenceContext* c) {
  const ShapeHandle input = c->input(0);
  ShapeHandle axis;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &axis));
  if (c->Rank(input) > 8) {
    return errors::InvalidArgument(
        "reverse does not work on tensors with more than 8 dimensions");
  }
  const Tensor* axis_t = c->input_tensor(1);
  if (axis_t != nullptr && c->RankKnown(input)) {
    const int64_t rank = c->Rank(input);
    std::vector<int64_t> axes;
    MF_RETURN_IF_ERROR(GetIntValues(*axis_t, "axis", &axes));
    std::vector<bool> seen(rank, false);
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t canonical = axes[i] < 0 ? rank + axes[i] : axes[i];
      if (canonical < 0 || canonical >= rank) {
        return errors::InvalidArgument("'axis'[", i, "] = ", axes[i],
                                       " is out of valid range [0, ", rank - 1);
      }
      if (seen[canonical]) {
        return errors::InvalidArgument("axis ", canonical,
                                       " specified more than once.");
      }
      seen[canonical] = true;
    }
  }
  c->set_output(0, input);
  return OkStatus();
}

Status InvertPermutationShape(InferenceContext* c) {
  ShapeHandle x;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &x));
  c->set_output(0, x);
  return OkStatus();
}

Status ShapeNShape(InferenceContext* c) {
  for (int i = 0; i < c->num_inputs(); ++i) {
    const ShapeHandle input = c->input(i);
    c->set_output(i, c->Vector(c->RankKnown(input) ? c->MakeDim(c->Rank(input))
                                                   : c->UnknownDim()));
  }
  return OkStatus();
}

// The input's shape merged with the `shape` attr.
Status EnsureShapeShape(InferenceContext* c) {
  PartialTensorShape desired;
  MF_RETURN_IF_ERROR(c->GetAttr("shape", &desired));
  ShapeHandle desired_handle;
  MF_RETURN_IF_ERROR(
      c->MakeShapeFromPartialTensorShape(desired, &desired_handle));
  ShapeHandle merged;
  MF_RETURN_IF_ERROR(c->Merge(desired_handle, c->input(0), &merged));
  c->set_output(0, merged);
  return OkStatus();
}

// y is a vector of unknown length, idx has x's shape; x must be a vector.
Status UniqueShape(InferenceContext* c) {
  c->set_output(0, c->Vector(c->UnknownDim()));
  c->set_output(1, c->input(0));
  ShapeHandle unused;
  return c->WithRank(c->input(0), 1, &unused);
}

// The input's shape with dim batch_dim merged with len(seq_lengths).
Status ReverseSequenceShape(InferenceContext* c) {
  const ShapeHandle input = c->input(0);
  ShapeHandle seq_lens;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &seq_lens));
  int64_t seq_dim;
  int64_t batch_dim;
  MF_RETURN_IF_ERROR(c->GetAttr("seq_dim", &seq_dim));
  MF_RETURN_IF_ERROR(c->GetAttr("batch_dim", &batch_dim));
  if (!c->RankKnown(input)) return shape_inference::UnknownShape(c);
  const int32_t rank = c->Rank(input);
  if (batch_dim >= rank) {
    return errors::InvalidArgument(
        "batch_dim must be < input rank: ", batch_dim, " vs. ", rank);
  }
  if (seq_dim >= rank) {
    return errors::InvalidArgument("seq_dim must be < input rank: ", seq_dim,
                                   " vs. ", rank);
  }
  if (batch_dim < 0) {
    return errors::InvalidArgument("batch_dim must be >=0, got ", batch_dim);
  }
  DimensionHandle batch = c->Dim(input, batch_dim);
  MF_RETURN_IF_ERROR(c->Merge(batch, c->Dim(seq_lens, 0), &batch));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->ReplaceDim(input, batch_dim, batch, &out));
  c->set_output(0, out);
  return OkStatus();
}

}  // namespace

// ---- Registrations
// -------------------------------------------------------------------------

REGISTER_OP("Const")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type")
    .SetShapeFn(ConstShape)
    .Doc(R"doc(
A tensor fixed in the graph: its value attr.

value: The tensor the op outputs.
dtype: The type of value.
)doc");

REGISTER_OP("Placeholder")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape = { unknown_rank: true }")
    .SetShapeFn(PlaceholderShape)
    .Doc(R"doc(
A tensor that each run must feed; running it unfed is an error.

shape: The shape a fed value must have. Unknown dimensions accept any size;
  the default, unknown rank, accepts any shape.
)doc");

REGISTER_OP("PlaceholderWithDefault")
    .Input("input: dtype")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape")
    .SetShapeFn(PlaceholderWithDefaultShape)
    .Doc(R"doc(
Passes input through unless the run feeds another value.

The output's static shape is the shape attr, not input's, so a feed may be
any shape that shape allows.

input: The value used when nothing is fed.
shape: The shape a fed value must have; it must also admit input's shape.
)doc");

REGISTER_OP("Identity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc("Outputs its input unchanged.");

REGISTER_OP("RefIdentity")
    .Input("input: Ref(T)")
    .Output("output: Ref(T)")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape)
    .SetAllowsUninitializedInput()
    .Doc("Forwards a reference (such as a VariableV2's) unchanged.");

REGISTER_OP("IdentityN")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type)")
    .SetShapeFn(IdentityNShape)
    .Doc("Outputs each of its inputs unchanged.");

REGISTER_OP("StopGradient")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Outputs its input unchanged; gradients do not flow through it.
)doc");

REGISTER_OP("ZerosLike")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
A tensor of zeros with the shape and type of x.

For strings, every element is the empty string.
)doc");

REGISTER_OP("OnesLike")
    .Input("x: T")
    .Output("y: T")
    .Attr(
        "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, "
        "uint32, int64, uint64, complex64, complex128, bool}")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc("A tensor of ones with the shape and type of x.");

REGISTER_OP("Shape")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(ShapeOpShape)
    .Doc(R"doc(
The shape of input as a vector.

out_type: int32 or int64; a dimension too large for int32 is an error.
)doc");

REGISTER_OP("Size")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_inference::ScalarShape)
    .Doc("The number of elements of input, as a scalar.");

REGISTER_OP("Rank")
    .Input("input: T")
    .Output("output: int32")
    .Attr("T: type")
    .SetShapeFn(shape_inference::ScalarShape)
    .Doc("The number of dimensions of input, as an int32 scalar.");

REGISTER_OP("Reshape")
    .Input("tensor: T")
    .Input("shape: Tshape")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(ReshapeShape)
    .Doc(R"doc(
Gives tensor a new shape with the same elements in the same order.

shape: A vector of the new dimensions. One of them may be -1: it is inferred
  so that the number of elements does not change.
)doc");

REGISTER_OP("ExpandDims")
    .Input("input: T")
    .Input("dim: Tdim")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tdim: {int32, int64} = DT_INT32")
    .SetShapeFn(ExpandDimsShape)
    .Doc(R"doc(
Inserts a dimension of size 1 into input's shape at index dim.

dim: A scalar in [-rank - 1, rank]; negative values count from the end, so
  -1 appends the new dimension.
)doc");

REGISTER_OP("Squeeze")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("squeeze_dims: list(int) >= 0 = []")
    .SetShapeFn(SqueezeShape)
    .Doc(R"doc(
Removes dimensions of size 1 from input's shape.

squeeze_dims: The dimensions to remove, negative counting from the end; each
  must be 1. Empty removes every dimension of size 1.
)doc");

REGISTER_OP("Transpose")
    .Input("x: T")
    .Input("perm: Tperm")
    .Output("y: T")
    .Attr("T: type")
    .Attr("Tperm: {int32, int64} = DT_INT32")
    .SetShapeFn(TransposeShape)
    .Doc(R"doc(
Permutes the dimensions of x: dimension i of y is dimension perm[i] of x.

perm: A permutation of 0 .. rank(x) - 1.
)doc");

REGISTER_OP("ConcatV2")
    .Input("values: N * T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("N: int >= 2")
    .Attr("T: type")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_inference::ConcatV2Shape)
    .Doc(R"doc(
Joins the N values along one axis.

The values agree in every dimension but axis.

axis: A scalar; negative counts from the end.
)doc");

REGISTER_OP("Pack")
    .Input("values: N * T")
    .Output("output: T")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .Attr("axis: int = 0")
    .SetShapeFn(PackShape)
    .Doc(R"doc(
Stacks N tensors of the same shape into one of rank one higher.

axis: Where the new dimension of size N goes; negative counts from the end.
)doc");

REGISTER_OP("Unpack")
    .Input("value: T")
    .Output("output: num * T")
    .Attr("num: int >= 0")
    .Attr("T: type")
    .Attr("axis: int = 0")
    .SetShapeFn(UnpackShape)
    .Doc(R"doc(
Splits value along an axis into num tensors, removing that axis.

num: The size of value along axis.
axis: The axis to unpack along; negative counts from the end.
)doc");

REGISTER_OP("Split")
    .Input("split_dim: int32")
    .Input("value: T")
    .Output("output: num_split * T")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .SetShapeFn(SplitShape)
    .Doc(R"doc(
Splits value into num_split equal parts along split_dim.

split_dim: A scalar axis; negative counts from the end. Its size must be a
  multiple of num_split.
)doc");

REGISTER_OP("SplitV")
    .Input("value: T")
    .Input("size_splits: Tlen")
    .Input("split_dim: int32")
    .Output("output: num_split * T")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .Attr("Tlen: {int8, int32, int64} = DT_INT64")
    .SetShapeFn(SplitVShape)
    .Doc(R"doc(
Splits value along split_dim into parts of the sizes in size_splits.

size_splits: A vector of num_split sizes that add up to the size of the
  split dimension; one of them may be -1, standing for what is left.
split_dim: A scalar axis; negative counts from the end.
)doc");

REGISTER_OP("Fill")
    .Input("dims: index_type")
    .Input("value: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index_type: {int32, int64} = DT_INT32")
    .SetShapeFn(FillShape)
    .Doc(R"doc(
A tensor of shape dims with every element equal to value.

dims: A vector, the output's shape.
value: A scalar.
)doc");

REGISTER_OP("Tile")
    .Input("input: T")
    .Input("multiples: Tmultiples")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tmultiples: {int32, int64} = DT_INT32")
    .SetShapeFn(TileShape)
    .Doc(R"doc(
Repeats input multiples[i] times along each dimension i.

multiples: A vector as long as input's rank.
)doc");

REGISTER_OP("Pad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn(PadShape)
    .Doc(R"doc(
Pads input with zeros.

paddings: An [rank, 2] matrix: for dimension i, how many elements to add
  before (paddings[i, 0]) and after (paddings[i, 1]) it.
)doc");

REGISTER_OP("PadV2")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Input("constant_values: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn(PadShape)
    .Doc(R"doc(
Pads input with a given value.

paddings: An [rank, 2] matrix: for dimension i, how many elements to add
  before (paddings[i, 0]) and after (paddings[i, 1]) it.
constant_values: A scalar, the value of the added elements.
)doc");

REGISTER_OP("MirrorPad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .Attr("mode: {'REFLECT', 'SYMMETRIC'}")
    .SetShapeFn(MirrorPadShape)
    .Doc(R"doc(
Pads input with mirror images of its edges.

paddings: An [rank, 2] matrix: for dimension i, how many elements to add
  before (paddings[i, 0]) and after (paddings[i, 1]) it.
mode: REFLECT mirrors without repeating the edge element (at most size - 1
  per side); SYMMETRIC repeats it (at most size per side).
)doc");

REGISTER_OP("BroadcastTo")
    .Input("input: T")
    .Input("shape: Tidx")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(BroadcastToShape)
    .Doc(R"doc(
Broadcasts input to the given shape, as numpy does.

shape: A vector; input's shape must broadcast to it.
)doc");

REGISTER_OP("BroadcastArgs")
    .Input("s0: T")
    .Input("s1: T")
    .Output("r0: T")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn(BroadcastArgsShape)
    .Doc(R"doc(
The shape that two shapes broadcast to, as numpy does.

s0: A shape vector.
s1: A shape vector.
)doc");

REGISTER_OP("BroadcastGradientArgs")
    .Input("s0: T")
    .Input("s1: T")
    .Output("r0: T")
    .Output("r1: T")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn(BroadcastGradientArgsShape)
    .Doc(R"doc(
The axes to sum a broadcast op's gradient over, for each of its two inputs.

For inputs of shapes s0 and s1 broadcast together (numpy's rule), r0 lists
the axes of the broadcast shape where s0 (padded with leading 1s) is 1, and
r1 likewise for s1, in increasing order: summing the output's gradient over
them (and reshaping) gives each input's gradient.

s0: A shape vector.
s1: A shape vector.
)doc");

REGISTER_OP("Where")
    .Input("input: T")
    .Attr("T: {numbertype, bool} = DT_BOOL")
    .Output("index: int64")
    .SetShapeFn(WhereShape)
    .Doc(R"doc(
The coordinates of the true (or nonzero) elements of input.

The output is an [n, rank] matrix, one row per such element, in row-major
order.
)doc");

REGISTER_OP("ReverseV2")
    .Input("tensor: T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr(
        "T: {uint8, int8, uint16, int16, int32, uint32, int64, uint64, bool, "
        "bfloat16, half, float, double, complex64, complex128, string}")
    .SetShapeFn(ReverseV2Shape)
    .Doc(R"doc(
Reverses tensor along the given axes.

axis: A vector of distinct axes; negative counts from the end.
)doc");

REGISTER_OP("InvertPermutation")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn(InvertPermutationShape)
    .Doc(R"doc(
The inverse of a permutation vector: y[x[i]] = i.

x: A permutation of 0 .. n - 1.
)doc");

REGISTER_OP("ShapeN")
    .Input("input: N * T")
    .Output("output: N * out_type")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(ShapeNShape)
    .Doc("The shape of each input, as N vectors.");

REGISTER_OP("EnsureShape")
    .Input("input: T")
    .Output("output: T")
    .Attr("shape: shape")
    .Attr("T: type")
    .SetShapeFn(EnsureShapeShape)
    .Doc(R"doc(
Passes input through, failing the run if its shape is not compatible with shape.

shape: The expected shape; unknown dimensions accept any size.
)doc");

REGISTER_OP("Snapshot")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
A copy of input that later in-place updates of input do not change.
)doc");

REGISTER_OP("Unique")
    .Input("x: T")
    .Output("y: T")
    .Output("idx: out_idx")
    .Attr("T: type")
    .Attr("out_idx: {int32, int64} = DT_INT32")
    .SetShapeFn(UniqueShape)
    .Doc(R"doc(
The distinct elements of a vector, in the order they first appear.

y: The distinct elements of x.
idx: For each element of x, its index in y, so that x[i] == y[idx[i]].
)doc");

REGISTER_OP("ReverseSequence")
    .Input("input: T")
    .Input("seq_lengths: Tlen")
    .Output("output: T")
    .Attr("seq_dim: int")
    .Attr("batch_dim: int = 0")
    .Attr("T: type")
    .Attr("Tlen: {int32, int64} = DT_INT64")
    .SetShapeFn(ReverseSequenceShape)
    .Doc(R"doc(
Reverses the first seq_lengths[b] elements along seq_dim of each batch entry b.

Elements past a sequence's length keep their place.

seq_lengths: A vector as long as input's batch dimension; each at most the
  size of seq_dim.
seq_dim: The axis that is reversed.
batch_dim: The axis that indexes the sequences.
)doc");

// ---- Gradient helpers: ConcatOffset, StridedSliceGrad, MirrorPadGrad ----
// The ops the array gradients (src/cc/gradients/array_grad.cc) build.

namespace {

// Offset i has the shape of shape i: each a vector of the same length.
Status ConcatOffsetShape(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, &unused));
  ShapeHandle first;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &first));
  for (int i = 1; i < c->num_inputs(); ++i) {
    ShapeHandle s;
    MF_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &s));
    MF_RETURN_IF_ERROR(c->Merge(first, s, &first));
  }
  for (int i = 1; i < c->num_inputs(); ++i) c->set_output(i - 1, first);
  return OkStatus();
}

// The output is the forward input's shape, read from input 0.
Status StridedSliceGradShape(InferenceContext* c) {
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
  return OkStatus();
}

// The padded input's rank; each dim is the padded one less both paddings
// when the paddings are known.
Status MirrorPadGradShape(InferenceContext* c) {
  ShapeHandle paddings;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &paddings));
  DimensionHandle unused;
  MF_RETURN_IF_ERROR(c->WithValue(c->Dim(paddings, 1), 2, &unused));
  ShapeHandle input = c->input(0);
  const DimensionHandle n_dim = c->Dim(paddings, 0);
  if (c->ValueKnown(n_dim)) {
    MF_RETURN_IF_ERROR(c->WithRank(input, c->Value(n_dim), &input));
  }
  const Tensor* paddings_t = c->input_tensor(1);
  if (paddings_t == nullptr || !c->RankKnown(input)) {
    c->set_output(0, c->RankKnown(input) ? c->UnknownShapeOfRank(c->Rank(input))
                                         : c->UnknownShape());
    return OkStatus();
  }
  std::vector<int64_t> pads;
  MF_RETURN_IF_ERROR(GetIntValues(*paddings_t, "paddings", &pads));
  std::vector<DimensionHandle> dims(c->Rank(input));
  for (int i = 0; i < c->Rank(input); ++i) {
    const int64_t before = pads[2 * i];
    const int64_t after = pads[2 * i + 1];
    if (before < 0 || after < 0) {
      return errors::InvalidArgument("Paddings must be non-negative, but got ",
                                     before, ", ", after);
    }
    MF_RETURN_IF_ERROR(c->Subtract(c->Dim(input, i), before, &dims[i]));
    MF_RETURN_IF_ERROR(c->Subtract(dims[i], after, &dims[i]));
  }
  c->set_output(0, c->MakeShape(dims));
  return OkStatus();
}

}  // namespace

REGISTER_OP("ConcatOffset")
    .Input("concat_dim: int32")
    .Input("shape: N * shape_type")
    .Output("offset: N * shape_type")
    .Attr("N: int >= 2")
    .Attr("shape_type: {int32, int64} = DT_INT32")
    .SetShapeFn(ConcatOffsetShape)
    .Doc(R"doc(
Where each of N concatenated tensors starts in their concatenation.

Offset i is zero except along concat_dim, where it is the sum of the sizes
of shapes 0 .. i-1 there. ConcatV2's gradient slices with these.

concat_dim: A scalar axis; negative counts from the end.
shape: The shapes of the concatenated tensors: vectors of one length that
  agree in every entry but concat_dim.
offset: One vector per shape, the index of its first element.
)doc");

REGISTER_OP("StridedSliceGrad")
    .Input("shape: Index")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Input("dy: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .Attr("begin_mask: int = 0")
    .Attr("end_mask: int = 0")
    .Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0")
    .Attr("shrink_axis_mask: int = 0")
    .SetShapeFn(StridedSliceGradShape)
    .Doc(R"doc(
The gradient of StridedSlice: dy placed where the slice came from.

The output has the forward input's shape, zero everywhere the slice did not
read. Begin, end, strides and the masks are the forward op's.

shape: The forward input's shape, a vector.
dy: The gradient of the slice, in the forward output's shape.
)doc");

REGISTER_OP("MirrorPadGrad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .Attr("mode: {'REFLECT', 'SYMMETRIC'}")
    .SetShapeFn(MirrorPadGradShape)
    .Doc(R"doc(
The gradient of MirrorPad: each padded element added back to its mirror.

Element i of the output sums every element of input that MirrorPad copied
from element i of its own input.

input: The gradient of the padded tensor.
paddings: The forward op's [rank, 2] paddings.
mode: The forward op's mode.
output: In the shape of the forward input.
)doc");

}  // namespace minflow
