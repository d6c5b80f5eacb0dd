// Softmax and LogSoftmax over the last dimension. half and bfloat16 compute
// in float (more accurate sums than TensorFlow's, and no extra
// instantiations).
#define EIGEN_USE_THREADS

#include "src/kernels/softmax_op.h"

#include <type_traits>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cwise_ops_common.h"

namespace minflow {
namespace {

#define REGISTER_CPU(T)                                             \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("Softmax").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      SoftmaxOp<CPUDevice, T>);                                     \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("LogSoftmax").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      SoftmaxOp<CPUDevice, T>);
MF_CALL_CORE_FLOAT_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
