// What GPUs this process can see. Declared without CUDA types so host code
// (the CLI, tests, placement) can ask; defined only in CUDA builds.
#pragma once

#include <string>
#include <vector>

#include "minflow/core/status.h"

namespace minflow {

struct GpuProperties {
  int ordinal = 0;
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessor_count = 0;
  int64_t total_memory_bytes = 0;
  int memory_clock_khz = 0;
  int memory_bus_width_bits = 0;
  std::string DebugString() const;
};

// The number of usable GPUs: 0 (and OK) when the driver reports none or no
// driver is installed; an error only for unexpected driver failures.
Status GetGpuCount(int* count);

// Properties of GPU `ordinal`; InvalidArgument for an ordinal out of range.
Status GetGpuProperties(int ordinal, GpuProperties* properties);

}  // namespace minflow
