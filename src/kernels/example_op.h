// The "Create an op" guide's functor split for the Example op (doubles each
// element): the kernel in example_op.cc is written once over a Device, and
// each device supplies ExampleFunctor<Device, T>. Includes nothing heavy, so
// a future GPU twin (example_op_gpu.cu) can include it under nvcc and define
// ExampleFunctor<Eigen::GpuDevice, T> with explicit instantiations, plus an
// example_op_gpu.cc for the DEVICE_GPU registrations; the CPU files stay as
// they are.
#pragma once

#include <cstdint>

namespace minflow {
namespace functor {

// out[i] = 2 * in[i] for i in [0, size), on device `d`. `in` and `out` may
// be the same buffer. Integer overflow wraps (two's complement).
template <typename Device, typename T>
struct ExampleFunctor {
  void operator()(const Device& d, int64_t size, const T* in, T* out);
};

}  // namespace functor
}  // namespace minflow
