// NoOp: does nothing; a target for control dependencies.
#include "minflow/framework/op_kernel.h"

namespace minflow {
namespace {

class NoOp : public OpKernel {
 public:
  explicit NoOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {}
  bool IsExpensive() override { return false; }
};

// DEVICE_DEFAULT: any device can run it, as in TensorFlow.
REGISTER_KERNEL_BUILDER(Name("NoOp").Device(DEVICE_CPU), NoOp);
REGISTER_KERNEL_BUILDER(Name("NoOp").Device(DEVICE_DEFAULT), NoOp);

}  // namespace
}  // namespace minflow
