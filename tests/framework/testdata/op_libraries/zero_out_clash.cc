// Registers the plain name ZeroOut, which minflow already has, next to an
// innocent op: the library must be refused, and neither op nor the kernel
// may be left behind.
#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"

namespace minflow {
namespace {

REGISTER_OP("LoadTest>Innocent").Output("y: float");

REGISTER_OP("ZeroOut").Input("to_zero: int32").Output("zeroed: int32");

class ClashingZeroOut : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {}
};
REGISTER_KERNEL_BUILDER(
    Name("ZeroOut").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    ClashingZeroOut);

}  // namespace
}  // namespace minflow
