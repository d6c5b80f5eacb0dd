// GPU kernels of BiasAdd, Softmax and LogSoftmax: the CPU kernels'
// templates over Eigen::GpuDevice, compiled here by nvcc (see
// cwise_ops_gpu.cu for why kernel classes and device code share a file).
#include "src/cuda/op_kernel_gpu.h"
#include "src/kernels/bias_op.h"
#include "src/kernels/softmax_op.h"

namespace minflow {
REGISTER_KERNEL_BUILDER(
    Name("BiasAdd").Device(DEVICE_GPU).TypeConstraint<float>("T"),
    BiasOp<GPUDevice, float>);
REGISTER_KERNEL_BUILDER(
    Name("Softmax").Device(DEVICE_GPU).TypeConstraint<float>("T"),
    SoftmaxOp<GPUDevice, float>);
REGISTER_KERNEL_BUILDER(
    Name("LogSoftmax").Device(DEVICE_GPU).TypeConstraint<float>("T"),
    SoftmaxOp<GPUDevice, float>);

}  // namespace minflow
