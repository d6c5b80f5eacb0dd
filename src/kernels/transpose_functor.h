// Transpose over bytes: DoTranspose moves any tensor through one
// instantiation per element size (see data_movement.h), for Transpose and
// for kernels that change layouts (NCHW <-> NHWC).
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/device.h"

namespace minflow {

class OpKernelContext;

// out = in with dimensions permuted: out.dim(i) == in.dim(perm[i]).
// `perm` must be a permutation of [0, in.dims()) and `out` allocated with
// the permuted shape and in's dtype; InvalidArgument otherwise, and
// Unimplemented for dtypes without a fixed size other than strings. Sharded
// over `workers` (may be null).
Status DoTranspose(const DeviceBase::CpuWorkerThreads* workers,
                   const Tensor& in, absl::Span<const int32_t> perm,
                   Tensor* out);

namespace internal {

// The smallest equivalent transpose: drops unit dimensions and merges runs
// of input dimensions that stay adjacent and in order in the output. E.g.
// [64,64,64,64] with perm [0,3,1,2] becomes [64,4096,64] with [0,2,1].
// Requires a valid permutation.
void ReduceTransposeDimensions(absl::Span<const int64_t> in_dims,
                               absl::Span<const int32_t> perm,
                               absl::InlinedVector<int64_t, 8>* new_dims,
                               absl::InlinedVector<int32_t, 8>* new_perm);

// Transpose's start on any device: checks the `perm` input (int32 or int64)
// against input 0, with TensorFlow's messages. When the output can share
// the input's buffer (rank <= 1, the identity, or only size-1 dimensions
// moving) it sets output 0 and leaves *output null; otherwise *output is
// the allocated output and *permutation the permutation.
Status StartTranspose(OpKernelContext* ctx, std::vector<int32_t>* permutation,
                      Tensor** output);

// True when the transpose keeps every dimension of size > 1 in its order,
// so it is a reshape and the output may share the input's buffer.
bool NonSingletonDimensionsAlign(absl::Span<const int64_t> in_dims,
                                 absl::Span<const int32_t> perm);

}  // namespace internal
}  // namespace minflow
