// How libminflow finds its GPU layer (Note [Loading the GPU layer] in
// gpu_loader.cc). Shared by the loader and by libminflow_gpu, which exports
// the entry point named here.
#pragma once

namespace minflow {
namespace internal {

inline constexpr char kGpuLibraryName[] = "libminflow_gpu.so.0";
// extern "C" Status MinflowCreateGpuDevices(const SessionOptions&,
//                                           std::vector<std::unique_ptr<Device>>*)
inline constexpr char kCreateGpuDevicesSymbol[] = "MinflowCreateGpuDevices";
// Placement prefers devices of higher priority: GPU 200, CPU 100.
inline constexpr int kGpuDevicePriority = 200;

// Registers the factory that loads libminflow_gpu on first use; libminflow
// calls it at start-up in CUDA builds.
void RegisterLazyGpuDeviceFactory();

// Whether libminflow_gpu is in this process (loaded or linked).
bool GpuLibraryLoaded();

}  // namespace internal
}  // namespace minflow
