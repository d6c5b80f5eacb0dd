// Kernels of the TensorFlow 1 control-flow ops. They only move tensors: the
// executor decides which of them run, in which frame and iteration, and
// what is dead (Note [Control flow] in runtime/executor.cc). The Ref*
// twins forward the same way.
#include "minflow/framework/op_kernel.h"

namespace minflow {
namespace {

// Output `out` is input `in`: the reference itself for a Ref* twin (Note
// [Ref edges] in core/tensor.h), else the value.
void ForwardInput(OpKernelContext* ctx, int in, int out) {
  if (ctx->input_is_ref(in)) {
    ctx->forward_ref_input_to_ref_output(in, out);
  } else {
    ctx->set_output(out, ctx->input(in));
  }
}

// Reads a scalar bool predicate, or fails naming what it got.
bool ReadPredicate(OpKernelContext* ctx, int index, bool* value) {
  const Tensor& pred = ctx->input(index);
  if (!TensorShapeUtils::IsScalar(pred.shape())) {
    ctx->SetStatus(errors::InvalidArgument(
        "The predicate must be a scalar, but it has shape ",
        pred.shape().DebugString()));
    return false;
  }
  *value = pred.scalar<bool>()();
  return true;
}

// Forwards the data to output_true or output_false; the other output is
// not produced, which the executor turns into a dead tensor.
class SwitchOp : public OpKernel {
 public:
  explicit SwitchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    bool pred = false;
    if (!ReadPredicate(ctx, 1, &pred)) return;
    ForwardInput(ctx, 0, pred ? 1 : 0);
  }
  bool IsExpensive() override { return false; }
};

// Forwards its one live input (the executor runs a Merge once the first
// live input has arrived, and passes the dead ones as absent) and its index.
class MergeOp : public OpKernel {
 public:
  explicit MergeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      if (!ctx->has_input(i)) continue;
      ForwardInput(ctx, i, 0);
      Tensor* index = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape(), &index));
      index->scalar<int32_t>()() = i;
      return;
    }
    ctx->SetStatus(errors::InvalidArgument("Merge has no live input"));
  }
  bool IsExpensive() override { return false; }
};

// Enter, Exit and NextIteration: the tensor moves between frames or
// iterations; the executor does the moving.
class ForwardOp : public OpKernel {
 public:
  explicit ForwardOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override { ForwardInput(ctx, 0, 0); }
  bool IsExpensive() override { return false; }
};

// The loop's predicate, checked to be a scalar.
class LoopCondOp : public OpKernel {
 public:
  explicit LoopCondOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    bool pred = false;
    if (!ReadPredicate(ctx, 0, &pred)) return;
    ctx->set_output(0, ctx->input(0));
  }
  bool IsExpensive() override { return false; }
};

class ControlTriggerOp : public OpKernel {
 public:
  explicit ControlTriggerOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {}
  bool IsExpensive() override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("Switch").Device(DEVICE_CPU), SwitchOp);
REGISTER_KERNEL_BUILDER(Name("RefSwitch").Device(DEVICE_CPU), SwitchOp);
REGISTER_KERNEL_BUILDER(Name("Merge").Device(DEVICE_CPU), MergeOp);
REGISTER_KERNEL_BUILDER(Name("RefMerge").Device(DEVICE_CPU), MergeOp);
REGISTER_KERNEL_BUILDER(Name("Enter").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("RefEnter").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("Exit").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("RefExit").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("NextIteration").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("RefNextIteration").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("LoopCond").Device(DEVICE_CPU), LoopCondOp);
REGISTER_KERNEL_BUILDER(Name("ControlTrigger").Device(DEVICE_CPU),
                        ControlTriggerOp);

}  // namespace
}  // namespace minflow
