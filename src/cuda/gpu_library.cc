// libminflow_gpu's entry point for libminflow's loader (Note [Loading the GPU
// layer] in src/runtime/gpu_loader.cc).
#include <memory>
#include <vector>

#include "minflow/framework/device.h"
#include "src/cuda/gpu_device.h"
#include "src/runtime/gpu_loader.h"

extern "C" __attribute__((visibility("default"))) minflow::Status
MinflowCreateGpuDevices(
    const minflow::SessionOptions& options,
    std::vector<std::unique_ptr<minflow::Device>>* devices) {
  return minflow::CreateGpuDevices(options, devices);
}
