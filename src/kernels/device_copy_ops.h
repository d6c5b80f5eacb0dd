// The kernels of the copies the placer inserts between host memory and an
// accelerator's memory (graph/placer.h). They work on any AcceleratorDevice
// (Note [Accelerator streams]); the GPU's registrations are in
// device_copy_ops.cc, and a test's fake accelerator registers them for its
// own device type.
#pragma once

#include "minflow/framework/op_kernel.h"

namespace minflow {

// `_CopyFromHost`: input in host memory, output in the device's memory.
// Enqueues the copy and returns.
class CopyFromHostOp : public OpKernel {
 public:
  explicit CopyFromHostOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() override { return false; }
};

// `_CopyToHost`: input in device memory, output in host memory. Waits for
// the stream, since the host reads the result next; a failure queued on the
// stream earlier surfaces here.
class CopyToHostOp : public OpKernel {
 public:
  explicit CopyToHostOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override;
};

}  // namespace minflow
