#include "src/kernels/device_copy_ops.h"

#include "minflow/core/tensor.h"
#include "minflow/framework/accelerator_device.h"
#include "minflow/framework/op_requires.h"

namespace minflow {
namespace {

// What both copies start with: the accelerator the kernel runs on (an
// error naming the device if it is not one) and an output shaped like the
// input. Host objects (strings, resources, variants) never leave the host;
// the placer keeps them there, so reaching a copy is a bug in placement.
Status PrepareCopy(OpKernelContext* ctx, AcceleratorDevice** accelerator,
                   Tensor** output) {
  const Tensor& input = ctx->input(0);
  if (!DataTypeCanUseMemcpy(input.dtype())) {
    return errors::Internal("Cannot copy a ", DataTypeString(input.dtype()),
                            " tensor between host and device memory");
  }
  *accelerator = dynamic_cast<AcceleratorDevice*>(ctx->device());
  if (*accelerator == nullptr) {
    return errors::Internal(ctx->op_kernel().type_string(),
                            " must run on an accelerator device, not '",
                            ctx->device()->name(), "'");
  }
  return ctx->allocate_output(0, input.shape(), output);
}

}  // namespace

void CopyFromHostOp::Compute(OpKernelContext* ctx) {
  AcceleratorDevice* device = nullptr;
  Tensor* output = nullptr;
  OP_REQUIRES_OK(ctx, PrepareCopy(ctx, &device, &output));
  const Tensor& input = ctx->input(0);
  if (input.TotalBytes() == 0) return;
  AcceleratorStream* stream = device->stream();
  char* dst = const_cast<char*>(output->tensor_data().data());
  if (stream->IsCapturing()) {
    // A feed of a captured step: its bytes wait in a device buffer at every
    // launch (Note [Captured steps]).
    const void* bound = stream->CaptureSourceFor(input.tensor_data().data());
    if (bound != nullptr) {
      OP_REQUIRES_OK(
          ctx, stream->CopyDeviceToDevice(bound, dst, input.TotalBytes()));
      return;
    }
  }
  OP_REQUIRES_OK(ctx, stream->CopyHostToDevice(input.tensor_data().data(), dst,
                                               input.TotalBytes()));
}

void CopyToHostOp::Compute(OpKernelContext* ctx) {
  AcceleratorDevice* device = nullptr;
  Tensor* output = nullptr;
  OP_REQUIRES_OK(ctx, PrepareCopy(ctx, &device, &output));
  const Tensor& input = ctx->input(0);
  if (input.TotalBytes() > 0) {
    OP_REQUIRES_OK(ctx, device->stream()->CopyDeviceToHost(
                            input.tensor_data().data(),
                            const_cast<char*>(output->tensor_data().data()),
                            input.TotalBytes()));
  }
  // While capturing, nothing runs until the recording is launched, and the
  // session waits after that (Note [Captured steps]).
  if (device->stream()->IsCapturing()) return;
  // Through Sync, not the stream: an error queued earlier by another node
  // surfaces here, and it must name the device it happened on, as the
  // step-end Sync's does; this copy node is only where it was noticed.
  OP_REQUIRES_OK(ctx, device->Sync());
}

// The kernels need no CUDA, so the GPU's registrations live here; a GPU
// device exists only in CUDA builds.
REGISTER_KERNEL_BUILDER(
    Name("_CopyFromHost").Device(DEVICE_GPU).HostMemory("input"),
    CopyFromHostOp);
REGISTER_KERNEL_BUILDER(
    Name("_CopyToHost").Device(DEVICE_GPU).HostMemory("output"), CopyToHostOp);

}  // namespace minflow
