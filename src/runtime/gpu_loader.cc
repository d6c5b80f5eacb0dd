// The GPU device factory libminflow registers in CUDA builds: it loads
// libminflow_gpu (the CUDA layer and the GPU kernels) the first time a
// session may use a GPU, so processes that never do (CPU-only machines,
// `--device cpu`, device_count {GPU: 0}) never load cudart or cuBLAS.
// Note [Loading the GPU layer].
#include "src/runtime/gpu_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "minflow/core/logging.h"
#include "minflow/core/types.h"
#include "minflow/framework/device.h"
#include "minflow/runtime/device_factory.h"
#include "minflow/runtime/session.h"

namespace minflow {
namespace internal {

// Note [Loading the GPU layer]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// libminflow does not link the CUDA libraries. The CUDA layer (GpuDevice,
// its allocator and streams) and every GPU kernel live in libminflow_gpu,
// beside libminflow. Its static initialisers register the GPU kernels and
// replace this factory with the real one, exactly like a custom-op library
// (load_library.h). This factory asks for it only when a session could use
// a GPU: the session does not hide GPUs, and an NVIDIA driver is installed
// (its device nodes exist). A machine without the driver never loads it;
// a library that fails to load (not installed, cudart missing) leaves the
// session on the CPU, with one warning, as TensorFlow does.

namespace {

bool NvidiaDriverPresent() {
  return access("/dev/nvidiactl", F_OK) == 0 ||
         access("/proc/driver/nvidia/version", F_OK) == 0;
}

// libminflow_gpu's path: beside this library (found through dladdr), else
// the loader's search path.
std::string GpuLibraryPath() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&GpuLibraryPath), &info) != 0 &&
      info.dli_fname != nullptr) {
    std::string self = info.dli_fname;
    const size_t slash = self.rfind('/');
    if (slash != std::string::npos) {
      return self.substr(0, slash + 1) + kGpuLibraryName;
    }
  }
  return kGpuLibraryName;
}

using CreateGpuDevicesFn = Status (*)(const SessionOptions&,
                                      std::vector<std::unique_ptr<Device>>*);

struct GpuLibrary {
  CreateGpuDevicesFn create = nullptr;
  std::string error;  // why it is not loaded
};

const GpuLibrary& LoadGpuLibrary() {
  static const GpuLibrary* library = [] {
    auto* lib = new GpuLibrary;
    if (!NvidiaDriverPresent()) {
      lib->error = "no NVIDIA driver on this machine";
      return lib;
    }
    const std::string path = GpuLibraryPath();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr) {
      // The build-tree or installed name failed: try the search path.
      handle = dlopen(kGpuLibraryName, RTLD_NOW | RTLD_GLOBAL);
    }
    if (handle == nullptr) {
      const char* why = dlerror();
      lib->error = why != nullptr ? why : "dlopen failed";
      MF_LOG(WARNING) << "Cannot load the GPU layer (" << path
                      << "): " << lib->error << "; running on the CPU";
      return lib;
    }
    lib->create = reinterpret_cast<CreateGpuDevicesFn>(
        dlsym(handle, kCreateGpuDevicesSymbol));
    if (lib->create == nullptr) {
      lib->error =
          std::string(kGpuLibraryName) + " has no " + kCreateGpuDevicesSymbol;
      MF_LOG(WARNING) << lib->error << "; running on the CPU";
    }
    return lib;
  }();
  return *library;
}

Status CreateGpuDevicesOnDemand(const SessionOptions& options,
                                std::vector<std::unique_ptr<Device>>* devices) {
  const GpuLibrary& library = LoadGpuLibrary();
  if (library.create == nullptr) return OkStatus();
  return library.create(options, devices);
}

}  // namespace

bool GpuLibraryLoaded() {
  return dlopen(kGpuLibraryName, RTLD_NOW | RTLD_NOLOAD) != nullptr;
}

void RegisterLazyGpuDeviceFactory() {
  RegisterDeviceFactory(DEVICE_GPU, kGpuDevicePriority,
                        CreateGpuDevicesOnDemand);
}

namespace {
// Before any session exists. libminflow_gpu, once in the process, replaces
// this factory with its own.
const bool kLazyGpuFactoryRegistered = (RegisterLazyGpuDeviceFactory(), true);
}  // namespace

}  // namespace internal
}  // namespace minflow
