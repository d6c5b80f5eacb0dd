// BiasAdd: value + bias along the channel dim (last for NHWC, 1 for NCHW).
// Any rank from 2 (3 for NCHW) up: both layouts are flattened to two or
// three dims, so TensorFlow's limit of rank 5 does not apply.
#define EIGEN_USE_THREADS

#include "src/kernels/bias_op.h"

#include <string>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "minflow/framework/tensor_format.h"

namespace minflow {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;

#define REGISTER_CPU(T)                                          \
  REGISTER_KERNEL_BUILDER(                                       \
      Name("BiasAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BiasOp<CPUDevice, T>);
MF_CALL_CORE_REAL_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
