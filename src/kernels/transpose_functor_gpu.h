// Permuting a tensor's dimensions on the GPU: Eigen's shuffle on
// Eigen::GpuDevice, for Transpose and for the reductions that first move
// their reduced dimensions last. nvcc only: include after
// src/cuda/op_kernel_gpu.h.
#pragma once

#include <cstdint>

#include "absl/types/span.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor_types.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {
namespace functor {

inline constexpr int kMaxGpuShuffleDims = 8;

template <typename T, int N>
void ShuffleOnGpuOfRank(const Eigen::GpuDevice& d, const T* in,
                        absl::Span<const int64_t> dims,
                        absl::Span<const int32_t> perm, T* out) {
  Eigen::DSizes<Eigen::DenseIndex, N> in_dims;
  Eigen::DSizes<Eigen::DenseIndex, N> out_dims;
  Eigen::array<int, N> order;
  for (int i = 0; i < N; ++i) in_dims[i] = dims[i];
  for (int i = 0; i < N; ++i) {
    order[i] = perm[i];
    out_dims[i] = dims[perm[i]];
  }
  typename TTypes<T, N>::ConstTensor x(in, in_dims);
  typename TTypes<T, N>::Tensor y(out, out_dims);
  y.device(d) = x.shuffle(order);
}

// out = in (shape `dims`) with its dimensions permuted: out dim i is in dim
// perm[i]. Ranks 2 to kMaxGpuShuffleDims; Unimplemented beyond.
template <typename T>
Status ShuffleOnGpu(const Eigen::GpuDevice& d, const T* in,
                    absl::Span<const int64_t> dims,
                    absl::Span<const int32_t> perm, T* out) {
  switch (dims.size()) {
    case 2:
      ShuffleOnGpuOfRank<T, 2>(d, in, dims, perm, out);
      return OkStatus();
    case 3:
      ShuffleOnGpuOfRank<T, 3>(d, in, dims, perm, out);
      return OkStatus();
    case 4:
      ShuffleOnGpuOfRank<T, 4>(d, in, dims, perm, out);
      return OkStatus();
    case 5:
      ShuffleOnGpuOfRank<T, 5>(d, in, dims, perm, out);
      return OkStatus();
    case 6:
      ShuffleOnGpuOfRank<T, 6>(d, in, dims, perm, out);
      return OkStatus();
    case 7:
      ShuffleOnGpuOfRank<T, 7>(d, in, dims, perm, out);
      return OkStatus();
    case 8:
      ShuffleOnGpuOfRank<T, 8>(d, in, dims, perm, out);
      return OkStatus();
  }
  return errors::Unimplemented("Permuting ", dims.size(),
                               " dimensions on the GPU: at most ",
                               kMaxGpuShuffleDims, " are supported");
}

}  // namespace functor
}  // namespace minflow
