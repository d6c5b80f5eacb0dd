#include "src/kernels/strided_slice_op_common.h"

#include <algorithm>
#include <vector>

namespace minflow {
namespace {

// TF's sparse spec: what the user wrote, one entry per index, plus an
// implicit trailing ellipsis. Masks are 64-bit so the implicit ellipsis
// bit (index 32 at most) shifts safely.
struct SparseSpec {
  int64_t dims = 0;
  int64_t num_add_axis_after_ellipsis = 0;
  uint64_t begin_mask = 0;
  uint64_t end_mask = 0;
  uint64_t ellipsis_mask = 0;
  uint64_t new_axis_mask = 0;
  uint64_t shrink_axis_mask = 0;
  const Tensor* begin_tensor = nullptr;
  const Tensor* end_tensor = nullptr;
  const Tensor* strides_tensor = nullptr;
};

// One entry per input dimension. Dense masks are per-dim flags: inputs may
// have up to kMaxTensorRank dims, past any integer mask.
constexpr int64_t kShrinkAxis = -1;
constexpr int64_t kNewAxis = -2;

struct DenseSpec {
  int dims = 0;
  std::vector<bool> begin_mask;
  std::vector<bool> end_mask;
  std::vector<bool> shrink_axis_mask;
  bool begin_valid = false;
  bool end_valid = false;
  absl::InlinedVector<int64_t, 8>* begin = nullptr;
  absl::InlinedVector<int64_t, 8>* end = nullptr;
  absl::InlinedVector<int64_t, 8>* strides = nullptr;
  // For each output dim: the dense dim it comes from, or kNewAxis /
  // kShrinkAxis.
  std::vector<int64_t> final_shape_gather_indices;
};

bool Bit(uint64_t mask, int64_t i) { return i < 64 && ((mask >> i) & 1) != 0; }

int64_t ReadIndex(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_INT16:
      return t.base<const int16_t>()[i];
    case DT_INT32:
      return t.base<const int32_t>()[i];
    default:
      return t.base<const int64_t>()[i];
  }
}

Status BuildDenseSpec(const SparseSpec& sparse, DenseSpec* dense) {
  dense->begin->assign(dense->dims, 0);
  dense->end->assign(dense->dims, 0);
  dense->strides->assign(dense->dims, 0);
  dense->begin_mask.assign(dense->dims, false);
  dense->end_mask.assign(dense->dims, false);
  dense->shrink_axis_mask.assign(dense->dims, false);
  dense->begin_valid = sparse.begin_tensor != nullptr;
  dense->end_valid = sparse.end_tensor != nullptr;
  int full_index = 0;
  for (int64_t i = 0; i < sparse.dims; ++i) {
    if (Bit(sparse.ellipsis_mask, i)) {
      // Expand the ellipsis into every dim not named after it (new axes
      // after it name no input dim). There is at most one ellipsis.
      const int64_t next_index =
          std::min<int64_t>(dense->dims - (sparse.dims - i) + 1 +
                                sparse.num_add_axis_after_ellipsis,
                            dense->dims);
      for (; full_index < next_index; ++full_index) {
        (*dense->begin)[full_index] = (*dense->end)[full_index] = 0;
        (*dense->strides)[full_index] = 1;
        dense->begin_mask[full_index] = true;
        dense->end_mask[full_index] = true;
        dense->final_shape_gather_indices.push_back(full_index);
      }
    } else if (Bit(sparse.new_axis_mask, i)) {
      dense->final_shape_gather_indices.push_back(kNewAxis);
    } else {
      if (full_index == dense->dims) {
        if (dense->dims == 0) {
          return errors::InvalidArgument("Attempting to slice scalar input.");
        }
        return errors::InvalidArgument("Index out of range using input dim ",
                                       full_index, "; input has only ",
                                       dense->dims, " dims");
      }
      if (sparse.begin_tensor != nullptr) {
        (*dense->begin)[full_index] = ReadIndex(*sparse.begin_tensor, i);
      }
      if (sparse.end_tensor != nullptr) {
        (*dense->end)[full_index] = ReadIndex(*sparse.end_tensor, i);
      }
      (*dense->strides)[full_index] = ReadIndex(*sparse.strides_tensor, i);
      dense->begin_mask[full_index] = Bit(sparse.begin_mask, i);
      dense->end_mask[full_index] = Bit(sparse.end_mask, i);
      if (Bit(sparse.shrink_axis_mask, i)) {
        dense->final_shape_gather_indices.push_back(kShrinkAxis);
        dense->shrink_axis_mask[full_index] = true;
      } else {
        dense->final_shape_gather_indices.push_back(full_index);
      }
      ++full_index;
    }
  }
  return OkStatus();
}

}  // namespace

Status ValidateStridedSliceOp(const Tensor* begin_tensor,
                              const Tensor* end_tensor,
                              const Tensor& strides_tensor,
                              const PartialTensorShape& input_shape,
                              int32_t begin_mask, int32_t end_mask,
                              int32_t ellipsis_mask, int32_t new_axis_mask,
                              int32_t shrink_axis_mask,
                              StridedSliceAnalysis* analysis) {
  if (input_shape.unknown_rank()) {
    return errors::InvalidArgument("Unexpected input_shape with unknown rank");
  }
  // Masks are 32-bit, so at most 31 indices can be addressed (TF's limit).
  const int64_t n = strides_tensor.NumElements();
  const bool strides_ok =
      TensorShapeUtils::IsVector(strides_tensor.shape()) && n < 32;
  const bool begin_is_wrong =
      begin_tensor != nullptr &&
      !(TensorShapeUtils::IsVector(begin_tensor->shape()) &&
        begin_tensor->NumElements() == n);
  const bool end_is_wrong = end_tensor != nullptr &&
                            !(TensorShapeUtils::IsVector(end_tensor->shape()) &&
                              end_tensor->NumElements() == n);
  if (begin_is_wrong || end_is_wrong || !strides_ok) {
    if (begin_tensor != nullptr && end_tensor != nullptr) {
      return errors::InvalidArgument(
          "Expected begin, end, and strides to be 1D equal size tensors, ",
          "but got shapes ", begin_tensor->shape().DebugString(), ", ",
          end_tensor->shape().DebugString(), ", and ",
          strides_tensor.shape().DebugString(), " instead.");
    }
    return errors::InvalidArgument(
        "Expected begin, end, and strides to be 1D equal size tensors, ",
        "but got shape ", strides_tensor.shape().DebugString(),
        " for strides.");
  }
  // At most one bit: one ellipsis.
  if (ellipsis_mask != 0 && (ellipsis_mask & (ellipsis_mask - 1)) != 0) {
    return errors::InvalidArgument(
        "Multiple ellipses in slice spec not allowed");
  }

  // Step 1: count new axes after the ellipsis; add an implicit ellipsis at
  // the end when there is none.
  SparseSpec sparse;
  sparse.dims = n;
  sparse.begin_mask = static_cast<uint32_t>(begin_mask);
  sparse.end_mask = static_cast<uint32_t>(end_mask);
  sparse.ellipsis_mask = static_cast<uint32_t>(ellipsis_mask);
  sparse.new_axis_mask = static_cast<uint32_t>(new_axis_mask);
  sparse.shrink_axis_mask = static_cast<uint32_t>(shrink_axis_mask);
  sparse.begin_tensor = begin_tensor;
  sparse.end_tensor = end_tensor;
  sparse.strides_tensor = &strides_tensor;
  bool ellipsis_seen = false;
  for (int64_t i = 0; i < sparse.dims; ++i) {
    if (ellipsis_seen && Bit(sparse.new_axis_mask, i)) {
      ++sparse.num_add_axis_after_ellipsis;
    }
    if (Bit(sparse.ellipsis_mask, i)) ellipsis_seen = true;
  }
  if (!ellipsis_seen) {
    sparse.ellipsis_mask |= uint64_t{1} << sparse.dims;
    ++sparse.dims;
  }

  // Step 2: the dense spec, one entry per input dim.
  DenseSpec dense;
  dense.dims = input_shape.dims();
  dense.begin = &analysis->begin;
  dense.end = &analysis->end;
  dense.strides = &analysis->strides;
  MF_RETURN_IF_ERROR(BuildDenseSpec(sparse, &dense));

  // Step 3: make the ranges explicit and bounds-check them.
  analysis->is_identity = true;
  analysis->slice_dim0 = true;
  analysis->is_simple_slice = true;
  absl::InlinedVector<int64_t, 8> processing;
  for (int i = 0; i < dense.dims; ++i) {
    int64_t& begin_i = analysis->begin[i];
    int64_t& end_i = analysis->end[i];
    const int64_t stride_i = analysis->strides[i];
    const int64_t dim_i = input_shape.dim_size(i);
    if (stride_i == 0) {
      return errors::InvalidArgument("strides[", i, "] must be non-zero");
    }
    const bool shrink_i = dense.shrink_axis_mask[i];
    if (dim_i == -1) {
      processing.push_back(shrink_i ? 1 : -1);
      continue;
    }
    const bool masks[2] = {dense.begin_mask[i], dense.end_mask[i]};
    const int64_t valid_range[2] = {stride_i > 0 ? 0 : -1,
                                    stride_i > 0 ? dim_i : dim_i - 1};
    auto canonical = [&](int64_t x, int c) {
      if (masks[c]) {
        return stride_i > 0 ? valid_range[c] : valid_range[(c + 1) & 1];
      }
      const int64_t x_fwd = x < 0 ? dim_i + x : x;  // negative from the end
      return x_fwd < valid_range[0]   ? valid_range[0]
             : x_fwd > valid_range[1] ? valid_range[1]
                                      : x_fwd;
    };
    if (shrink_i && stride_i <= 0) {
      return errors::InvalidArgument(
          "only stride 1 allowed on non-range indexing.");
    }
    analysis->is_simple_slice &= stride_i == 1;
    const bool begin_and_end_masked = dense.begin_mask[i] && dense.end_mask[i];
    if (dense.begin_valid && dense.end_valid) {
      if (shrink_i) {
        // foo[-1] gives begin -1, end 0: take begin alone and make the
        // range [begin, begin + 1).
        const int64_t x_fwd = begin_i < 0 ? dim_i + begin_i : begin_i;
        if (x_fwd < 0 || x_fwd >= dim_i) {
          return errors::InvalidArgument(
              "slice index ", x_fwd, " of dimension ", i, " out of bounds.");
        }
        begin_i = x_fwd;
        end_i = begin_i + 1;
      } else {
        begin_i = canonical(begin_i, 0);
        end_i = canonical(end_i, 1);
      }
      const bool take_all = stride_i == 1 && begin_i == 0 && end_i == dim_i;
      analysis->is_identity &= take_all;
      analysis->slice_dim0 &= (i == 0 && stride_i == 1) || take_all;
    } else {
      analysis->is_identity &= stride_i == 1 && begin_and_end_masked;
      analysis->slice_dim0 &= (i == 0 && stride_i == 1) || begin_and_end_masked;
    }
    // The count this dim contributes.
    int64_t interval_length = 0;
    bool known_interval = false;
    if (dense.begin_valid && dense.end_valid) {
      interval_length = end_i - begin_i;
      known_interval = true;
    } else if (shrink_i) {
      interval_length = 1;
      known_interval = true;
    } else if (begin_and_end_masked) {
      interval_length = stride_i < 0 ? -dim_i : dim_i;
      known_interval = true;
    }
    if (known_interval) {
      int64_t size_i;
      if (interval_length == 0 || ((interval_length < 0) != (stride_i < 0))) {
        size_i = 0;
      } else {
        size_i = interval_length / stride_i +
                 (interval_length % stride_i != 0 ? 1 : 0);
      }
      processing.push_back(size_i);
    } else {
      processing.push_back(-1);
    }
  }

  // Step 4: the final shape, with new axes added and shrunk dims removed.
  absl::InlinedVector<int64_t, 8> final_dims;
  for (int64_t gather_index : dense.final_shape_gather_indices) {
    if (gather_index >= 0) {
      final_dims.push_back(processing[gather_index]);
    } else if (gather_index == kNewAxis) {
      final_dims.push_back(1);
    }
  }
  MF_RETURN_IF_ERROR(PartialTensorShape::BuildPartialTensorShape(
      processing, &analysis->processing_shape));
  return PartialTensorShape::BuildPartialTensorShape(final_dims,
                                                     &analysis->final_shape);
}

}  // namespace minflow
