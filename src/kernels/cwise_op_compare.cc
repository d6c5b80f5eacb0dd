// CPU kernels of the comparison and logical ops, with numpy broadcasting:
// Equal, NotEqual (with incompatible_shape_error), Less, LessEqual, Greater,
// GreaterEqual, LogicalAnd, LogicalOr. Outputs are bool.
#define EIGEN_USE_THREADS

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cpu_parallel_eval.h"
#include "src/kernels/cwise_op_functor.h"
#include "src/kernels/cwise_ops_common.h"

namespace minflow {
namespace {

#define MF_REGISTER_BINARY(NAME, FUNCTOR, T)                \
  REGISTER_KERNEL_BUILDER(                                  \
      Name(NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BinaryOp<CPUDevice, functor::FUNCTOR<T>>);

#define REGISTER_ORDERED(T)                      \
  MF_REGISTER_BINARY("Less", less, T)            \
  MF_REGISTER_BINARY("LessEqual", less_equal, T) \
  MF_REGISTER_BINARY("Greater", greater, T)      \
  MF_REGISTER_BINARY("GreaterEqual", greater_equal, T)
MF_CALL_CORE_REAL_TYPES(REGISTER_ORDERED)
#undef REGISTER_ORDERED

#define REGISTER_EQUALITY(T)               \
  MF_REGISTER_BINARY("Equal", equal_to, T) \
  MF_REGISTER_BINARY("NotEqual", not_equal_to, T)
MF_CALL_CORE_REAL_TYPES(REGISTER_EQUALITY)
TF_CALL_bool(REGISTER_EQUALITY)
#undef REGISTER_EQUALITY

#undef MF_REGISTER_BINARY

    REGISTER_KERNEL_BUILDER(Name("LogicalAnd").Device(DEVICE_CPU),
                            BinaryOp<CPUDevice, functor::logical_and>);
REGISTER_KERNEL_BUILDER(Name("LogicalOr").Device(DEVICE_CPU),
                        BinaryOp<CPUDevice, functor::logical_or>);

}  // namespace
}  // namespace minflow
