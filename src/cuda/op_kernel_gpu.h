// What GPU kernels add to OpKernelContext: eigen_device<Eigen::GpuDevice>(),
// the Eigen device on the kernel's stream. Include only from GPU kernel
// files (*_gpu.cc, *_gpu.cu); it needs EIGEN_USE_GPU.
#pragma once

#ifndef EIGEN_USE_GPU
#define EIGEN_USE_GPU
#endif

#include "minflow/framework/op_kernel.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {

using GPUDevice = Eigen::GpuDevice;

template <>
inline const Eigen::GpuDevice& OpKernelContext::eigen_device() const {
  return *device()->eigen_gpu_device();
}

}  // namespace minflow
