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

// The loaded library's device factory, or null when it is not available
// (said once, as a warning, when it failed to load).
CreateGpuDevicesFn LoadGpuLibrary() {
  static const CreateGpuDevicesFn create = []() -> CreateGpuDevicesFn {
    if (!NvidiaDriverPresent()) return nullptr;
    const std::string path = GpuLibraryPath();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr) {
      // The build-tree or installed name failed: try the search path.
      handle = dlopen(kGpuLibraryName, RTLD_NOW | RTLD_GLOBAL);
    }
    if (handle == nullptr) {
      const char* why = dlerror();
      MF_LOG(WARNING) << "Cannot load the GPU layer (" << path
                      << "): " << (why != nullptr ? why : "dlopen failed")
                      << "; running on the CPU";
      return nullptr;
    }
    auto* fn = reinterpret_cast<CreateGpuDevicesFn>(
        dlsym(handle, kCreateGpuDevicesSymbol));
    if (fn == nullptr) {
      MF_LOG(WARNING) << kGpuLibraryName << " has no "
                      << kCreateGpuDevicesSymbol << "; running on the CPU";
    }
    return fn;
  }();
  return create;
}

Status CreateGpuDevicesOnDemand(const SessionOptions& options,
                                std::vector<std::unique_ptr<Device>>* devices) {
  const CreateGpuDevicesFn create = LoadGpuLibrary();
  if (create == nullptr) return OkStatus();
  return create(options, devices);
}

}  // namespace

bool GpuLibraryLoaded() {
  // RTLD_NOLOAD loads nothing; the handle it returns holds a reference.
  void* handle = dlopen(kGpuLibraryName, RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  dlclose(handle);
  return true;
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
