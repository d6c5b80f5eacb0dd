// AddN on the GPU (float): the kernel of aggregate_ops.h over
// Eigen::GpuDevice (see cwise_ops_gpu.cu for why kernel class and device
// code share an nvcc unit).
// clang-format off
#include "src/cuda/op_kernel_gpu.h"
// clang-format on

#include "src/kernels/aggregate_ops.h"

namespace minflow {

REGISTER_KERNEL_BUILDER(
    Name("AddN").Device(DEVICE_GPU).TypeConstraint<float>("T"),
    AddNOp<GPUDevice, float>);

}  // namespace minflow
