#include "minflow/cuda/gpu_info.h"

#include <cuda_runtime.h>

#include "src/cuda/cuda_status.h"

namespace minflow {

std::string GpuProperties::DebugString() const {
  return absl::StrCat("GPU ", ordinal, ": ", name, " (sm_",
                      compute_capability_major, compute_capability_minor, ", ",
                      multiprocessor_count, " SMs, ", total_memory_bytes >> 20,
                      " MiB, memory clock ", memory_clock_khz / 1000,
                      " MHz, bus ", memory_bus_width_bits, " bits)");
}

Status GetGpuCount(int* count) {
  *count = 0;
  const cudaError_t error = cudaGetDeviceCount(count);
  // No GPU or no driver is a normal state for a CPU-only machine.
  if (error == cudaErrorNoDevice || error == cudaErrorInsufficientDriver ||
      error == cudaErrorInitializationError) {
    cudaGetLastError();  // clear the sticky-free error state
    *count = 0;
    return OkStatus();
  }
  MF_CUDA_RETURN_IF_ERROR(error);
  return OkStatus();
}

Status GetGpuProperties(int ordinal, GpuProperties* properties) {
  int count = 0;
  MF_RETURN_IF_ERROR(GetGpuCount(&count));
  if (ordinal < 0 || ordinal >= count) {
    return errors::InvalidArgument("GPU ordinal must be in [0, ", count,
                                   "), but got ", ordinal);
  }
  cudaDeviceProp prop;
  MF_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&prop, ordinal));
  properties->ordinal = ordinal;
  properties->name = prop.name;
  properties->compute_capability_major = prop.major;
  properties->compute_capability_minor = prop.minor;
  properties->multiprocessor_count = prop.multiProcessorCount;
  properties->total_memory_bytes = static_cast<int64_t>(prop.totalGlobalMem);
  int clock_khz = 0;
  MF_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, ordinal));
  properties->memory_clock_khz = clock_khz;
  properties->memory_bus_width_bits = prop.memoryBusWidth;
  return OkStatus();
}

}  // namespace minflow
