// AddN on the CPU: the kernel of aggregate_ops.h over the intra-op threads.
#define EIGEN_USE_THREADS

#include "src/kernels/aggregate_ops.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cwise_ops_common.h"

namespace minflow {
namespace {

#define REGISTER_CPU(T)                                       \
  REGISTER_KERNEL_BUILDER(                                    \
      Name("AddN").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      AddNOp<CPUDevice, T>);
MF_CALL_CORE_REAL_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
