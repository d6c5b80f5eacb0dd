// StridedSlice's index semantics, once for its shape function and its
// kernels (TensorFlow's ValidateStridedSliceOp, util/strided_slice_op.h):
// numpy's basic indexing, x[b0:e0:s0, ..., tf.newaxis, 3], written as
// begin/end/strides vectors and five bit masks.
#pragma once

#include <cstdint>
#include <optional>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor_shape.h"

namespace minflow {

class Tensor;

// The five int attrs of a StridedSlice node. Bit i refers to entry i of
// begin/end/strides: begin_mask/end_mask ignore that begin/end and take the
// whole range in the stride's direction; ellipsis_mask (at most one bit)
// stands for every input dim no other entry names; new_axis_mask inserts a
// dim of size 1 (the entry's values are ignored); shrink_axis_mask takes
// the single element at begin and drops the dim.
struct StridedSliceMasks {
  int32_t begin_mask = 0;
  int32_t end_mask = 0;
  int32_t ellipsis_mask = 0;
  int32_t new_axis_mask = 0;
  int32_t shrink_axis_mask = 0;
};

// What a strided slice of one input does, in dense form: one entry per
// input dim, the ellipsis expanded.
struct StridedSliceAnalysis {
  // One dim per input dim: the element count taken from it (-1 when
  // unknown). A shrunk dim counts 1 here.
  PartialTensorShape processing_shape;
  // The output: processing_shape without shrunk dims and with a 1 for each
  // new axis.
  PartialTensorShape final_shape;
  // Per input dim. Canonical only for a known dim when begin and end were
  // both given: for a dim of size n, begin and end then lie in [0, n] for a
  // positive stride and in [-1, n-1] for a negative one, so element
  // begin + k*stride, 0 <= k < processing_shape.dim_size(i), is in range.
  absl::InlinedVector<int64_t, 8> begin;
  absl::InlinedVector<int64_t, 8> end;
  absl::InlinedVector<int64_t, 8> strides;
  // The slice takes everything (a reshape at most).
  bool is_identity = true;
  // Every stride is 1.
  bool is_simple_slice = true;
  // Only dim 0 is cut, with stride 1: the result is one contiguous run.
  bool slice_dim0 = true;
};

// Expands and checks a slice spec against `input_shape` (known rank; any
// dim may be unknown, -1). `strides` has one entry per index expression
// and at most 31 (the masks are 32-bit); `begin` and `end`, when known,
// have as many. Unknown begin or end (std::nullopt, as in shape inference)
// leave a dim's count unknown unless masks or a shrink fix it.
// InvalidArgument for: an unknown input rank, begin/end/strides of
// different lengths or 32 entries or more, more than one ellipsis, a zero
// stride, a shrunk index out of bounds or with a negative stride, more
// indices than input dims (or any on a scalar), and an output of more than
// kMaxTensorRank dims.
Status ValidateStridedSliceSpec(const PartialTensorShape& input_shape,
                                std::optional<absl::Span<const int64_t>> begin,
                                std::optional<absl::Span<const int64_t>> end,
                                absl::Span<const int64_t> strides,
                                const StridedSliceMasks& masks,
                                StridedSliceAnalysis* analysis);

// As ValidateStridedSliceSpec, reading begin/end/strides from tensors
// (int16, int32 or int64 vectors; begin and end may be null when unknown),
// with TensorFlow's signature and messages: InvalidArgument "Expected
// begin, end, and strides to be 1D equal size tensors, ..." when one is
// not a vector or the lengths differ, and for other index dtypes.
Status ValidateStridedSliceOp(const Tensor* begin_tensor,
                              const Tensor* end_tensor,
                              const Tensor& strides_tensor,
                              const PartialTensorShape& input_shape,
                              int32_t begin_mask, int32_t end_mask,
                              int32_t ellipsis_mask, int32_t new_axis_mask,
                              int32_t shrink_axis_mask,
                              StridedSliceAnalysis* analysis);

}  // namespace minflow
