// A minimal device kernel that proves the CUDA toolchain and the GPU work
// end to end; used by the GPU smoke test and `minflow` device checks.
#include <cuda_runtime.h>

#include "minflow/cuda/gpu_smoke.h"
#include "src/cuda/cuda_status.h"

namespace minflow {
namespace {

__global__ void AddOneKernel(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1.0f;
}

}  // namespace

Status GpuAddOne(std::vector<float>* values) {
  const int n = static_cast<int>(values->size());
  if (n == 0) return OkStatus();
  float* device = nullptr;
  const size_t bytes = n * sizeof(float);
  MF_CUDA_RETURN_IF_ERROR(cudaMalloc(&device, bytes));
  Status status = [&]() -> Status {
    MF_CUDA_RETURN_IF_ERROR(
        cudaMemcpy(device, values->data(), bytes, cudaMemcpyHostToDevice));
    AddOneKernel<<<(n + 255) / 256, 256>>>(device, n);
    MF_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    MF_CUDA_RETURN_IF_ERROR(
        cudaMemcpy(values->data(), device, bytes, cudaMemcpyDeviceToHost));
    return OkStatus();
  }();
  cudaFree(device);
  return status;
}

}  // namespace minflow
