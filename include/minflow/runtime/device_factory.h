// Device factories: how a session finds its devices. The CPU is built in;
// the CUDA layer (and tests, with fake devices) register more.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "minflow/core/status.h"

namespace minflow {

class Device;
struct SessionOptions;

// Adds the devices of one type that `options` allows (ConfigProto
// device_count may cap or zero a type) to `devices`.
using DeviceFactory = std::function<Status(
    const SessionOptions& options, std::vector<std::unique_ptr<Device>>*)>;

// Registers a factory for `device_type` ("GPU", a test's "FAKE"), with a
// priority: devices of higher priority are preferred by placement (GPU 200,
// CPU 100, as TensorFlow). Thread-safe; usually called from a static
// initialiser. A second factory for the same type replaces the first.
void RegisterDeviceFactory(const std::string& device_type, int priority,
                           DeviceFactory factory);

// Every registered factory's devices, highest priority first; the CPU
// device is always among them.
Status CreateDevices(const SessionOptions& options,
                     std::vector<std::unique_ptr<Device>>* devices);

}  // namespace minflow
