// What the hand-written GPU kernels (*_gpu.cu) share: the launch config for
// an Eigen::GpuDevice and the grid-stride loop that goes with it
// (gpu_launch_config.h). nvcc only: include after src/cuda/op_kernel_gpu.h.
#pragma once

#include <cstdint>

#include "src/cuda/gpu_launch_config.h"
#include "src/cuda/op_kernel_gpu.h"

namespace minflow {

// GetGpuLaunchConfig with the limits of `d`'s GPU; a kernel that needs
// many registers per thread passes a smaller `max_threads_per_block`, so
// more than one of its blocks fits an SM.
inline GpuLaunchConfig GetGpuLaunchConfig(int64_t work_element_count,
                                          const Eigen::GpuDevice& d,
                                          int max_threads_per_block = 1024) {
  const int device_max = d.maxGpuThreadsPerBlock();
  return GetGpuLaunchConfig(
      work_element_count, d.getNumGpuMultiProcessors(),
      d.maxGpuThreadsPerMultiProcessor(),
      max_threads_per_block < device_max ? max_threads_per_block : device_max);
}

}  // namespace minflow

// Inside a __global__ kernel launched with a GpuLaunchConfig: `i` runs over
// this thread's share of [0, n), in 64-bit arithmetic.
#define MF_GPU_1D_KERNEL_LOOP(i, n)                                     \
  for (int64_t i =                                                      \
           static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; \
       i < (n); i += static_cast<int64_t>(blockDim.x) * gridDim.x)
