// A round trip through a GPU kernel, to check a machine's CUDA set-up.
#pragma once

#include <vector>

#include "minflow/core/status.h"

namespace minflow {

// Adds 1 to every value on GPU 0 (copy in, kernel, copy out).
Status GpuAddOne(std::vector<float>* values);

}  // namespace minflow
