// Index tuples shared by GatherNd, ScatterNd and the TensorScatter ops: the
// bad_indices_policy attr, the updates-shape checks of the scatter ops, and
// the translation of index tuples into element offsets of the slices they
// address.
#pragma once

#include <cstdint>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor_shape.h"

namespace minflow {

// TensorFlow's bad_indices_policy: "" and "DEFAULT" mean ERROR on CPU;
// IGNORE skips (scatter) or zero-fills (gather) out-of-range tuples.
enum class BadIndicesPolicy { kError, kIgnore };

inline Status ParseBadIndicesPolicy(const std::string& s,
                                    BadIndicesPolicy* policy) {
  if (s.empty() || s == "DEFAULT" || s == "ERROR") {
    *policy = BadIndicesPolicy::kError;
  } else if (s == "IGNORE") {
    *policy = BadIndicesPolicy::kIgnore;
  } else {
    return errors::InvalidArgument("Unknown bad indices handling attribute: ",
                                   s);
  }
  return OkStatus();
}

// Elements in one slice of `shape` addressed by a tuple of `depth` indices:
// the product of shape[depth:].
inline int64_t SliceSize(const TensorShape& shape, int depth) {
  int64_t n = 1;
  for (int d = depth; d < shape.dims(); ++d) n *= shape.dim_size(d);
  return n;
}

// Locates the slices of `shape` that index tuples of `depth` coordinates
// (depth <= shape.dims()) address. Value type; cheap to copy.
class SliceIndexer {
 public:
  SliceIndexer(const TensorShape& shape, int depth)
      : depth_(depth), slice_size_(SliceSize(shape, depth)) {
    for (int d = 0; d < depth; ++d) dims_.push_back(shape.dim_size(d));
    strides_.resize(depth);
    int64_t stride = slice_size_;
    for (int d = depth - 1; d >= 0; --d) {
      strides_[d] = stride;
      stride *= dims_[d];
    }
  }

  int depth() const { return depth_; }
  int64_t slice_size() const { return slice_size_; }

  // The row-major element offset of the slice `tuple` (depth coordinates)
  // addresses, or -1 when a coordinate is outside its dimension.
  template <typename Index>
  int64_t Offset(const Index* tuple) const {
    const int64_t* dims = dims_.data();
    const int64_t* strides = strides_.data();
    int64_t offset = 0;
    for (int d = 0; d < depth_; ++d) {
      const int64_t v = static_cast<int64_t>(tuple[d]);
      // One unsigned compare rejects negatives too.
      if (static_cast<uint64_t>(v) >= static_cast<uint64_t>(dims[d])) {
        return -1;
      }
      offset += v * strides[d];
    }
    return offset;
  }

  // The first of `num` tuples (packed, depth apart) outside the shape, or
  // -1 when all are inside.
  template <typename Index>
  int64_t FindBadTuple(const Index* indices, int64_t num) const {
    for (int64_t i = 0; i < num; ++i) {
      if (Offset(indices + i * depth_) < 0) return i;
    }
    return -1;
  }

 private:
  int depth_;
  int64_t slice_size_;
  absl::InlinedVector<int64_t, 8> dims_;
  absl::InlinedVector<int64_t, 8> strides_;
};

// "5, 1": tuple `i`, for messages.
template <typename Index>
std::string IndexTupleString(const Index* indices, int64_t i, int depth) {
  std::string s;
  for (int d = 0; d < depth; ++d) {
    absl::StrAppend(&s, d > 0 ? ", " : "",
                    static_cast<int64_t>(indices[i * depth + d]));
  }
  return s;
}

// The shape checks of TensorFlow's ScatterNd kernel, for output `shape`:
// updates.shape must be indices.shape[:-1] + shape[indices.shape[-1]:],
// where a rank-1 `indices` holds scalar indices into dim 0 (TF's kernel
// rule). Sets the tuple depth, the number of tuples and the slice size.
inline Status ValidateScatterNdShapes(const TensorShape& shape,
                                      const TensorShape& indices,
                                      const TensorShape& updates, int* depth,
                                      int64_t* num_updates,
                                      int64_t* slice_size) {
  if (shape.dims() < 1) {
    return errors::InvalidArgument("Output must be at least 1-D, got shape: ",
                                   shape.DebugString());
  }
  if (shape.num_elements() == 0 &&
      (indices.num_elements() > 0 || updates.num_elements() > 0)) {
    return errors::InvalidArgument(
        "Indices and updates specified for empty output.  indices shape: ",
        indices.DebugString());
  }
  const int64_t slice_dim =
      indices.dims() > 1 ? indices.dim_size(indices.dims() - 1) : 1;
  const int batch_dim = indices.dims() > 1 ? indices.dims() - 1 : 1;
  const auto prefix_error = [&] {
    return errors::InvalidArgument("Dimensions [0,", batch_dim,
                                   ") of indices[shape=", indices.DebugString(),
                                   "] must match dimensions [0,", batch_dim,
                                   ") of updates[shape=", updates.DebugString(),
                                   "]");
  };
  const auto suffix_error = [&] {
    return errors::InvalidArgument(
        "Dimensions [", slice_dim, ",", shape.dims(),
        ") of input[shape=", shape.DebugString(), "] must match dimensions [",
        batch_dim, ",", updates.dims(),
        ") of updates[shape=", updates.DebugString(), "]");
  };
  if (updates.dims() < batch_dim) return prefix_error();
  if (slice_dim > shape.dims() ||
      updates.dims() - batch_dim != shape.dims() - slice_dim) {
    return suffix_error();
  }
  for (int d = 0; d < batch_dim; ++d) {
    if (updates.dim_size(d) != indices.dim_size(d)) return prefix_error();
  }
  for (int d = 0; d + batch_dim < updates.dims(); ++d) {
    if (updates.dim_size(d + batch_dim) !=
        shape.dim_size(d + static_cast<int>(slice_dim))) {
      return suffix_error();
    }
  }
  *depth = static_cast<int>(slice_dim);
  // TF divides by max(depth, 1): tuples of depth 0 have no elements, so
  // they update nothing.
  *num_updates = indices.num_elements() / (slice_dim < 1 ? 1 : slice_dim);
  *slice_size = SliceSize(shape, *depth);
  return OkStatus();
}

}  // namespace minflow
