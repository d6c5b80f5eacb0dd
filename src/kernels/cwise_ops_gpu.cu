// The element-wise GPU kernels: the kernel classes of cwise_ops_common.h
// over Eigen::GpuDevice, evaluating the same Eigen expressions as on the
// CPU (cwise_op_functor.h). One nvcc translation unit holds both the kernel
// classes and the device code: the functors' members are inline, so a host
// compiler would instantiate them without their GPU executors.
#include "src/cuda/op_kernel_gpu.h"
#include "src/kernels/cwise_ops_common.h"
#include "src/kernels/cwise_ops_gpu_list.h"
#include "src/kernels/relu_op_functor.h"

namespace minflow {

#define MF_REGISTER_GPU_BINARY(NAME, F)                         \
  REGISTER_KERNEL_BUILDER(                                      \
      Name(NAME).Device(DEVICE_GPU).TypeConstraint<float>("T"), \
      BinaryOp<GPUDevice, functor::F<float>>);
#define MF_REGISTER_GPU_UNARY(NAME, F)                          \
  REGISTER_KERNEL_BUILDER(                                      \
      Name(NAME).Device(DEVICE_GPU).TypeConstraint<float>("T"), \
      UnaryOp<GPUDevice, functor::F<float>>);
MF_GPU_BINARY_OPS(MF_REGISTER_GPU_BINARY)
MF_GPU_UNARY_OPS(MF_REGISTER_GPU_UNARY)
#undef MF_REGISTER_GPU_BINARY
#undef MF_REGISTER_GPU_UNARY

}  // namespace minflow
