// Const: the `value` attr, decoded once when the kernel is made.
#include "minflow/framework/op_kernel.h"
#include "minflow/tensor.pb.h"

namespace minflow {
namespace {

class ConstantOp : public OpKernel {
 public:
  explicit ConstantOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const TensorProto* proto = nullptr;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value", &proto));
    // On an accelerator, int32 and host-object outputs live in host memory.
    AllocatorAttributes attr;
    attr.set_on_host(!ctx->output_memory_types().empty() &&
                     ctx->output_memory_types()[0] == HOST_MEMORY);
    OP_REQUIRES_OK(ctx,
                   ctx->device()->MakeTensorFromProto(*proto, attr, &tensor_));
    OP_REQUIRES(
        ctx, ctx->output_type(0) == tensor_.dtype(),
        errors::InvalidArgument(
            "Type mismatch between value (", DataTypeString(tensor_.dtype()),
            ") and dtype (", DataTypeString(ctx->output_type(0)), ")"));
  }

  // Every call hands out the same buffer; its extra reference keeps
  // consumers from forwarding into it (Note [Forwarding]).
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, tensor_); }
  bool IsExpensive() override { return false; }
  const Tensor* const_tensor() const override { return &tensor_; }

 private:
  Tensor tensor_;
};

REGISTER_KERNEL_BUILDER(Name("Const").Device(DEVICE_CPU), ConstantOp);
// The device decodes the value into its own memory (MakeTensorFromProto), so
// the same kernel serves the GPU.
REGISTER_KERNEL_BUILDER(Name("Const").Device(DEVICE_GPU), ConstantOp);

}  // namespace
}  // namespace minflow
