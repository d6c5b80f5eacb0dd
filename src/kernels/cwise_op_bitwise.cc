// CPU kernels of the bitwise ops: Invert, and BitwiseAnd, BitwiseOr,
// BitwiseXor, LeftShift and RightShift with numpy broadcasting, on every
// integer type TensorFlow registers.
#define EIGEN_USE_THREADS

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cpu_parallel_eval.h"
#include "src/kernels/cwise_op_bitwise_functor.h"
#include "src/kernels/cwise_ops_common.h"

namespace minflow {
namespace {

#define REGISTER_CPU(T)                                             \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("Invert").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
      UnaryOp<CPUDevice, functor::invert<T>>);                      \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("BitwiseAnd").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BinaryOp<CPUDevice, functor::bitwise_and<T>>);                \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("BitwiseOr").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \
      BinaryOp<CPUDevice, functor::bitwise_or<T>>);                 \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("BitwiseXor").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BinaryOp<CPUDevice, functor::bitwise_xor<T>>);                \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("LeftShift").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \
      BinaryOp<CPUDevice, functor::left_shift<T>>);                 \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("RightShift").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BinaryOp<CPUDevice, functor::right_shift<T>>);
TF_CALL_INTEGRAL_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
