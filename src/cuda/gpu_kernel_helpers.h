// What the hand-written GPU kernels (*_gpu.cu) share: the launch config for
// an Eigen::GpuDevice and the grid-stride loop that goes with it
// (gpu_launch_config.h). nvcc only: include after src/cuda/op_kernel_gpu.h.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "src/cuda/cuda_status.h"
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

// Launches the grid-stride `kernel` over `work_element_count` elements on
// `d`'s stream (the device's one stream, Note [Accelerator streams]),
// passing the element count first and then `args`; no launch for no work.
// Returns the launch's own error (a bad configuration), if any.
template <typename... Params, typename... Args>
Status LaunchGpu1D(void (*kernel)(int64_t, Params...),
                   int64_t work_element_count, const Eigen::GpuDevice& d,
                   int max_threads_per_block, Args&&... args) {
  const GpuLaunchConfig config =
      GetGpuLaunchConfig(work_element_count, d, max_threads_per_block);
  if (config.block_count == 0) return OkStatus();
  kernel<<<config.block_count, config.thread_per_block, 0, d.stream()>>>(
      config.virtual_thread_count, std::forward<Args>(args)...);
  MF_CUDA_RETURN_IF_ERROR(cudaGetLastError());
  return OkStatus();
}

}  // namespace minflow

// Inside a __global__ kernel launched with a GpuLaunchConfig: `i` runs over
// this thread's share of [0, n), in 64-bit arithmetic.
#define MF_GPU_1D_KERNEL_LOOP(i, n)                                     \
  for (int64_t i =                                                      \
           static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; \
       i < (n); i += static_cast<int64_t>(blockDim.x) * gridDim.x)
