#include "minflow/framework/strided_slice_spec.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/common_shape_fns.h"

namespace minflow {
namespace {

// The user's spec is "sparse": one entry per index expression. Each entry is
// an ellipsis, a new axis, or consumes one input dim (a range, or a shrunk
// index). The "dense" spec has one entry per input dim: the ellipsis (one is
// implied after the last entry when there is none) becomes as many full
// ranges as leave exactly enough dims for the consuming entries after it.
// Each dense dim then gets a canonical [begin, end) in Python's sense
// (negative values count from the end, values past either end are clamped,
// a masked bound is the far end in the stride's direction) and a count;
// the output keeps the counts of the dims that are not shrunk, with a 1
// wherever a new axis was written. Precedence within one entry follows
// TensorFlow: ellipsis over new axis over everything else.

// Masks are 32-bit, so at most 31 entries plus the implied ellipsis.
constexpr int64_t kMaxSparseEntries = 31;

bool Bit(int32_t mask, int64_t i) {
  return ((static_cast<uint32_t>(mask) >> i) & 1u) != 0;
}

// One dim of the dense spec.
struct DenseDim {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t stride = 1;
  bool begin_masked = true;
  bool end_masked = true;
  bool shrink = false;
  // The sparse entry this dim comes from; -1 for dims of the ellipsis.
  int64_t sparse_index = -1;
};

// Output dims: the dense dim each comes from, or kNewAxis.
constexpr int64_t kNewAxis = -1;

std::string LengthString(std::optional<absl::Span<const int64_t>> v) {
  return v.has_value() ? absl::StrCat("[", v->size(), "]") : "?";
}

Status BuildDenseSpec(int64_t rank,
                      std::optional<absl::Span<const int64_t>> begin,
                      std::optional<absl::Span<const int64_t>> end,
                      absl::Span<const int64_t> strides,
                      const StridedSliceMasks& masks,
                      std::vector<DenseDim>* dense,
                      std::vector<int64_t>* output_from) {
  const int64_t n = static_cast<int64_t>(strides.size());
  // Entries after the ellipsis that consume an input dim.
  int64_t ellipsis_index = n;  // the implied one
  for (int64_t i = 0; i < n; ++i) {
    if (Bit(masks.ellipsis_mask, i)) {
      ellipsis_index = i;
      break;
    }
  }
  int64_t consumed_after_ellipsis = 0;
  for (int64_t i = ellipsis_index + 1; i < n; ++i) {
    if (!Bit(masks.new_axis_mask, i)) ++consumed_after_ellipsis;
  }

  dense->assign(rank, DenseDim());
  output_from->clear();
  int64_t next_dim = 0;
  for (int64_t i = 0; i <= n; ++i) {
    if (i == ellipsis_index) {
      for (; next_dim < rank - consumed_after_ellipsis; ++next_dim) {
        output_from->push_back(next_dim);
      }
      continue;
    }
    if (i == n) break;
    if (Bit(masks.new_axis_mask, i)) {
      output_from->push_back(kNewAxis);
      continue;
    }
    if (next_dim == rank) {
      if (rank == 0) {
        return errors::InvalidArgument("Attempting to slice scalar input.");
      }
      return errors::InvalidArgument("Index out of range using input dim ",
                                     next_dim, "; input has only ", rank,
                                     " dims");
    }
    DenseDim& d = (*dense)[next_dim];
    d.begin = begin.has_value() ? (*begin)[i] : 0;
    d.end = end.has_value() ? (*end)[i] : 0;
    d.stride = strides[i];
    d.begin_masked = Bit(masks.begin_mask, i);
    d.end_masked = Bit(masks.end_mask, i);
    d.shrink = Bit(masks.shrink_axis_mask, i);
    d.sparse_index = i;
    if (!d.shrink) output_from->push_back(next_dim);
    ++next_dim;
  }
  return OkStatus();
}

// The number of elements begin, begin + stride, ... before end. The
// arithmetic stays in range for any stride: begin and end are canonical.
int64_t CountSteps(int64_t begin, int64_t end, int64_t stride) {
  const int64_t interval = end - begin;
  if (interval == 0 || (interval < 0) != (stride < 0)) return 0;
  return interval / stride + (interval % stride != 0 ? 1 : 0);
}

}  // namespace

Status ValidateStridedSliceSpec(const PartialTensorShape& input_shape,
                                std::optional<absl::Span<const int64_t>> begin,
                                std::optional<absl::Span<const int64_t>> end,
                                absl::Span<const int64_t> strides,
                                const StridedSliceMasks& masks,
                                StridedSliceAnalysis* analysis) {
  if (input_shape.unknown_rank()) {
    return errors::InvalidArgument("Unexpected input_shape with unknown rank");
  }
  const int64_t n = static_cast<int64_t>(strides.size());
  if ((begin.has_value() && static_cast<int64_t>(begin->size()) != n) ||
      (end.has_value() && static_cast<int64_t>(end->size()) != n)) {
    return errors::InvalidArgument(
        "Expected begin, end, and strides to be 1D equal size tensors, but "
        "got shapes ",
        LengthString(begin), ", ", LengthString(end), ", and [", n,
        "] instead.");
  }
  if (n > kMaxSparseEntries) {
    return errors::InvalidArgument(
        "Expected begin, end, and strides to be 1D equal size tensors of at "
        "most ",
        kMaxSparseEntries, " elements (one bit of each mask per element), ",
        "but got ", n, " elements.");
  }
  const uint32_t ellipsis_bits = static_cast<uint32_t>(masks.ellipsis_mask);
  if ((ellipsis_bits & (ellipsis_bits - 1)) != 0) {
    return errors::InvalidArgument(
        "Multiple ellipses in slice spec not allowed");
  }

  const int64_t rank = input_shape.dims();
  std::vector<DenseDim> dense;
  std::vector<int64_t> output_from;
  MF_RETURN_IF_ERROR(
      BuildDenseSpec(rank, begin, end, strides, masks, &dense, &output_from));

  const bool bounds_known = begin.has_value() && end.has_value();
  analysis->begin.assign(rank, 0);
  analysis->end.assign(rank, 0);
  analysis->strides.assign(rank, 1);
  analysis->is_identity = true;
  analysis->is_simple_slice = true;
  analysis->slice_dim0 = true;
  absl::InlinedVector<int64_t, 8> processing(rank, -1);
  for (int64_t i = 0; i < rank; ++i) {
    const DenseDim& d = dense[i];
    int64_t& begin_i = analysis->begin[i];
    int64_t& end_i = analysis->end[i];
    const int64_t stride = d.stride;
    begin_i = d.begin;
    end_i = d.end;
    analysis->strides[i] = stride;
    if (stride == 0) {
      return errors::InvalidArgument("strides[", d.sparse_index,
                                     "] must be non-zero");
    }
    if (d.shrink && stride < 0) {
      return errors::InvalidArgument(
          "only stride 1 allowed on non-range indexing.");
    }
    analysis->is_simple_slice &= stride == 1;
    const int64_t size = input_shape.dim_size(static_cast<int>(i));
    if (size < 0) {
      // An unknown dim: only a shrink knows its count.
      processing[i] = d.shrink ? 1 : -1;
      analysis->is_identity = false;
      analysis->slice_dim0 &= i == 0 && stride == 1;
      continue;
    }
    const bool whole = d.begin_masked && d.end_masked;
    if (bounds_known) {
      if (d.shrink) {
        // x[-1] arrives as begin -1, end 0: only begin counts.
        const int64_t index = d.begin < 0 ? d.begin + size : d.begin;
        if (index < 0 || index >= size) {
          return errors::InvalidArgument(
              "slice index ", d.begin, " of dimension ", i, " out of bounds.");
        }
        begin_i = index;
        end_i = index + 1;
      } else {
        // Valid positions: [0, size] forward, [-1, size - 1] backward.
        const int64_t lo = stride > 0 ? 0 : -1;
        const int64_t hi = stride > 0 ? size : size - 1;
        auto canonical = [&](int64_t x, bool masked, bool is_begin) {
          if (masked) return (is_begin == (stride > 0)) ? lo : hi;
          const int64_t forward = x < 0 ? x + size : x;
          return std::clamp(forward, lo, hi);
        };
        begin_i = canonical(d.begin, d.begin_masked, /*is_begin=*/true);
        end_i = canonical(d.end, d.end_masked, /*is_begin=*/false);
      }
      processing[i] = CountSteps(begin_i, end_i, stride);
      const bool takes_all = stride == 1 && begin_i == 0 && end_i == size;
      analysis->is_identity &= takes_all;
      analysis->slice_dim0 &= (i == 0 && stride == 1) || takes_all;
    } else {
      if (d.shrink) {
        processing[i] = 1;
      } else if (whole) {
        processing[i] = CountSteps(0, stride > 0 ? size : -size, stride);
      }
      const bool takes_all = stride == 1 && whole && !d.shrink;
      analysis->is_identity &= takes_all;
      analysis->slice_dim0 &= (i == 0 && stride == 1) || takes_all;
    }
  }

  absl::InlinedVector<int64_t, 8> final_dims;
  for (int64_t from : output_from) {
    final_dims.push_back(from == kNewAxis ? 1 : processing[from]);
  }
  MF_RETURN_IF_ERROR(PartialTensorShape::BuildPartialTensorShape(
      processing, &analysis->processing_shape));
  return PartialTensorShape::BuildPartialTensorShape(final_dims,
                                                     &analysis->final_shape);
}

Status ValidateStridedSliceOp(const Tensor* begin_tensor,
                              const Tensor* end_tensor,
                              const Tensor& strides_tensor,
                              const PartialTensorShape& input_shape,
                              int32_t begin_mask, int32_t end_mask,
                              int32_t ellipsis_mask, int32_t new_axis_mask,
                              int32_t shrink_axis_mask,
                              StridedSliceAnalysis* analysis) {
  auto is_vector = [](const Tensor* t) {
    return t == nullptr || TensorShapeUtils::IsVector(t->shape());
  };
  if (!is_vector(begin_tensor) || !is_vector(end_tensor) ||
      !is_vector(&strides_tensor)) {
    if (begin_tensor == nullptr && end_tensor == nullptr) {
      return errors::InvalidArgument(
          "Expected begin, end, and strides to be 1D equal size tensors, but "
          "got shape ",
          strides_tensor.shape().DebugString(), " for strides.");
    }
    auto shape = [](const Tensor* t) {
      return t == nullptr ? std::string("?") : t->shape().DebugString();
    };
    return errors::InvalidArgument(
        "Expected begin, end, and strides to be 1D equal size tensors, but "
        "got shapes ",
        shape(begin_tensor), ", ", shape(end_tensor), ", and ",
        shape(&strides_tensor), " instead.");
  }
  std::vector<int64_t> begin;
  std::vector<int64_t> end;
  std::vector<int64_t> strides;
  MF_RETURN_IF_ERROR(
      shape_inference::GetIntValues(strides_tensor, "strides", &strides));
  std::optional<absl::Span<const int64_t>> begin_values;
  std::optional<absl::Span<const int64_t>> end_values;
  if (begin_tensor != nullptr) {
    MF_RETURN_IF_ERROR(
        shape_inference::GetIntValues(*begin_tensor, "begin", &begin));
    begin_values = begin;
  }
  if (end_tensor != nullptr) {
    MF_RETURN_IF_ERROR(shape_inference::GetIntValues(*end_tensor, "end", &end));
    end_values = end;
  }
  StridedSliceMasks masks;
  masks.begin_mask = begin_mask;
  masks.end_mask = end_mask;
  masks.ellipsis_mask = ellipsis_mask;
  masks.new_axis_mask = new_axis_mask;
  masks.shrink_axis_mask = shrink_axis_mask;
  return ValidateStridedSliceSpec(input_shape, begin_values, end_values,
                                  strides, masks, analysis);
}

}  // namespace minflow
