// The guide's Example functor, declared for any device; the CPU
// specialisation is in example.cc. In the guide's shape (a plain include
// guard, no namespace), with only the includes changed.
#ifndef KERNEL_EXAMPLE_H_
#define KERNEL_EXAMPLE_H_

#include <unsupported/Eigen/CXX11/Tensor>

template <typename Device, typename T>
struct ExampleFunctor {
  void operator()(const Device& d, int size, const T* in, T* out);
};

#if GOOGLE_CUDA
// The GPU specialisation, defined in a .cu file.
template <typename T>
struct ExampleFunctor<Eigen::GpuDevice, T> {
  void operator()(const Eigen::GpuDevice& d, int size, const T* in, T* out);
};
#endif

#endif  // KERNEL_EXAMPLE_H_
