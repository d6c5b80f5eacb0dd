// Shared setup of the reduction kernels (Sum, Mean, Prod, Max, Min): axis
// validation and TensorFlow's ReductionHelper, which merges the input's
// dimensions into alternating runs of reduced and kept ones so kernels need
// only a few reduction patterns.
#pragma once

#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"

namespace minflow {

// Not thread-safe; one per Compute call.
class ReductionHelper {
 public:
  // Reads the reduction axes (an int32 or int64 tensor of any shape; each
  // in [-rank, rank), none repeated) and plans the reduction of `data`.
  // InvalidArgument, with TensorFlow's messages, for a bad axis.
  Status Simplify(const Tensor& data, const Tensor& axis, bool keep_dims);

  // The input viewed as data_reshape(): runs of dims alternate between
  // reduced and kept, starting with a reduced run iff reduce_first_axis().
  // ndims() == 0 means there is nothing to reduce (a scalar, or only size-1
  // dims reduced).
  int ndims() const { return static_cast<int>(data_reshape_.size()); }
  bool reduce_first_axis() const { return reduce_first_axis_; }
  absl::Span<const int64_t> data_reshape() const { return data_reshape_; }

  // The op's output shape (reduced dims dropped, or 1 with keep_dims).
  TensorShape out_shape() const;
  // The output as the kept runs of data_reshape().
  TensorShape out_reshape() const;

  // For ndims() > 3: data_reshape() permuted by permutation() puts every
  // kept run first and every reduced run last, with shape shuffled_shape().
  TensorShape shuffled_shape() const;
  absl::InlinedVector<int32_t, 8> permutation() const;

 private:
  bool reduce_first_axis_ = false;
  absl::InlinedVector<int64_t, 4> data_reshape_;
  absl::InlinedVector<int64_t, 4> out_shape_;
  absl::InlinedVector<int64_t, 4> out_reshape_;
};

}  // namespace minflow
