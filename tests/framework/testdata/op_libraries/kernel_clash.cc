// A new op, and a CPU kernel for the built-in ZeroOut<float> that would tie
// with minflow's own: refused, so that ZeroOut keeps working.
#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"

namespace minflow {
namespace {

REGISTER_OP("LoadTest>Bystander").Output("y: float");

class SecondZeroOut : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {}
};
REGISTER_KERNEL_BUILDER(
    Name("ZeroOut").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    SecondZeroOut);

}  // namespace
}  // namespace minflow
