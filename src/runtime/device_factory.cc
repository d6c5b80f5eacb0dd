#include "minflow/runtime/device_factory.h"

#include <algorithm>

#include "absl/synchronization/mutex.h"
#include "minflow/config.pb.h"
#include "minflow/core/threadpool.h"
#include "minflow/framework/device.h"
#include "minflow/runtime/session.h"

namespace minflow {
namespace {

struct Entry {
  std::string type;
  int priority;
  DeviceFactory factory;
};

absl::Mutex* RegistryMutex() {
  static auto* mu = new absl::Mutex();
  return mu;
}

std::vector<Entry>* Registry() {
  static auto* entries = new std::vector<Entry>();
  return entries;
}

Status CreateCpuDevices(const SessionOptions& options,
                        std::vector<std::unique_ptr<Device>>* devices) {
  CpuDeviceOptions cpu;
  const int requested = options.config.intra_op_parallelism_threads();
  if (requested < 0) {
    return errors::InvalidArgument(
        "intra_op_parallelism_threads must be >= 0, but got ", requested);
  }
  cpu.intra_op_threads =
      requested == 0 ? thread::DefaultNumThreads() : requested;
  devices->push_back(std::make_unique<CpuDevice>(cpu));
  return OkStatus();
}

}  // namespace

void RegisterDeviceFactory(const std::string& device_type, int priority,
                           DeviceFactory factory) {
  absl::MutexLock lock(RegistryMutex());
  std::vector<Entry>& entries = *Registry();
  for (Entry& e : entries) {
    if (e.type == device_type) {
      e.priority = priority;
      e.factory = std::move(factory);
      return;
    }
  }
  entries.push_back({device_type, priority, std::move(factory)});
}

Status CreateDevices(const SessionOptions& options,
                     std::vector<std::unique_ptr<Device>>* devices) {
  std::vector<Entry> entries;
  {
    absl::MutexLock lock(RegistryMutex());
    entries = *Registry();
  }
  entries.push_back({DEVICE_CPU, 100, CreateCpuDevices});
  std::stable_sort(
      entries.begin(), entries.end(),
      [](const Entry& a, const Entry& b) { return a.priority > b.priority; });
  const auto& counts = options.config.device_count();
  for (const Entry& e : entries) {
    auto it = counts.find(e.type);
    if (it != counts.end() && it->second == 0 && e.type != DEVICE_CPU) continue;
    std::vector<std::unique_ptr<Device>> made;
    MF_RETURN_IF_ERROR(e.factory(options, &made));
    if (it != counts.end() && static_cast<int>(made.size()) > it->second &&
        it->second > 0) {
      made.resize(it->second);
    }
    for (auto& d : made) devices->push_back(std::move(d));
  }
  return OkStatus();
}

}  // namespace minflow
