// ZeroOut's per-element work, shared by the CPU kernel, the GPU kernel
// (zero_out_op_gpu.cu) and the host tests. nvcc- and g++-safe.
#pragma once

#include <cstdint>

#include "src/kernels/gpu_host_device.h"

namespace minflow {
namespace functor {

// Element i of ZeroOut's output: the input's element at preserve_index,
// zero everywhere else.
template <typename T>
MF_HOST_DEVICE inline T ZeroOutElement(int64_t i, int64_t preserve_index,
                                       const T* in) {
  return i == preserve_index ? in[i] : T(0);
}

}  // namespace functor
}  // namespace minflow
