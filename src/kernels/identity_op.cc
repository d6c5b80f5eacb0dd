// Identity and its relatives: outputs share their inputs' buffers.
#include "minflow/framework/op_kernel.h"

namespace minflow {
namespace {

// Identity, StopGradient, PlaceholderWithDefault: output 0
// is input 0.
class IdentityOp : public OpKernel {
 public:
  explicit IdentityOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
  bool IsExpensive() override { return false; }
};

// RefIdentity: the output is the input reference (Note [Ref edges] in
// core/tensor.h).
class RefIdentityOp : public OpKernel {
 public:
  explicit RefIdentityOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    ctx->forward_ref_input_to_ref_output(0, 0);
  }
  bool IsExpensive() override { return false; }
};

// IdentityN: output i is input i.
class IdentityNOp : public OpKernel {
 public:
  explicit IdentityNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    OpInputList inputs;
    OP_REQUIRES_OK(ctx, ctx->input_list("input", &inputs));
    OpOutputList outputs;
    OP_REQUIRES_OK(ctx, ctx->output_list("output", &outputs));
    OP_REQUIRES(ctx, inputs.size() == outputs.size(),
                errors::InvalidArgument(
                    "IdentityN expects the same number of inputs and "
                    "outputs, but got ",
                    inputs.size(), " inputs and ", outputs.size(), " outputs"));
    for (int i = 0; i < inputs.size(); ++i) outputs.set(i, inputs[i]);
  }
  bool IsExpensive() override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Identity").Device(DEVICE_CPU), IdentityOp);
REGISTER_KERNEL_BUILDER(Name("StopGradient").Device(DEVICE_CPU), IdentityOp);
REGISTER_KERNEL_BUILDER(Name("PlaceholderWithDefault").Device(DEVICE_CPU),
                        IdentityOp);
REGISTER_KERNEL_BUILDER(Name("RefIdentity").Device(DEVICE_CPU), RefIdentityOp);
REGISTER_KERNEL_BUILDER(Name("IdentityN").Device(DEVICE_CPU), IdentityNOp);

// Passing a tensor through needs no CUDA: the same kernels serve the GPU.
REGISTER_KERNEL_BUILDER(Name("Identity").Device(DEVICE_GPU), IdentityOp);
REGISTER_KERNEL_BUILDER(Name("StopGradient").Device(DEVICE_GPU), IdentityOp);
REGISTER_KERNEL_BUILDER(Name("IdentityN").Device(DEVICE_GPU), IdentityNOp);

}  // namespace
}  // namespace minflow
