// StridedSlice's spec analysis, shared by the kernel (every device) and, for
// now, usable by a shape function with partially known inputs: TF's
// ValidateStridedSliceOp with its semantics and messages.
#pragma once

#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"

namespace minflow {

// What a strided slice of one input does, in dense form (one entry per
// input dimension, the ellipsis expanded).
struct StridedSliceAnalysis {
  // One dim per input dim: the element count taken from it (-1 when
  // unknown). A shrunk dim counts 1 here.
  PartialTensorShape processing_shape;
  // The output: processing_shape without shrunk dims and with a 1 for each
  // new axis.
  PartialTensorShape final_shape;
  // Canonical indices (only when begin and end were given): for a dim of
  // size n, begin and end lie in [0, n] for positive strides and [-1, n-1]
  // for negative ones, so element begin + k*stride, 0 <= k < size, is in
  // range.
  absl::InlinedVector<int64_t, 8> begin;
  absl::InlinedVector<int64_t, 8> end;
  absl::InlinedVector<int64_t, 8> strides;
  // The slice takes everything (a reshape at most).
  bool is_identity = true;
  // Every stride is 1.
  bool is_simple_slice = true;
  // Only dim 0 is cut, with stride 1: the result is a contiguous run.
  bool slice_dim0 = true;
};

// Analyses begin/end/strides (int16, int32 or int64 vectors of one length
// < 32) and the five masks against `input_shape`. `begin_tensor` and
// `end_tensor` may be null when unknown (shape inference); the input's
// rank must be known. InvalidArgument, with TF's messages, for: mismatched
// or non-vector index tensors, more than one ellipsis, a zero stride, a
// shrunk index out of bounds or with a non-positive stride, slicing a
// scalar, and more indices than input dims.
Status ValidateStridedSliceOp(const Tensor* begin_tensor,
                              const Tensor* end_tensor,
                              const Tensor& strides_tensor,
                              const PartialTensorShape& input_shape,
                              int32_t begin_mask, int32_t end_mask,
                              int32_t ellipsis_mask, int32_t new_axis_mask,
                              int32_t shrink_axis_mask,
                              StridedSliceAnalysis* analysis);

// The attrs of a StridedSlice node, read by kernels' constructors.
struct StridedSliceMasks {
  int32_t begin_mask = 0;
  int32_t end_mask = 0;
  int32_t ellipsis_mask = 0;
  int32_t new_axis_mask = 0;
  int32_t shrink_axis_mask = 0;
};

}  // namespace minflow
