// ConcatV2 and Pack on the GPU (float): the kernels of concat_op.h, joining
// rows with one strided device-to-device copy per input on the device's
// stream. Host code only: no device code of its own. `axis` is read from
// host memory.
#include <cuda_runtime.h>

#include <cstdint>

#include "src/cuda/cuda_status.h"
#include "src/cuda/gpu_device.h"
#include "src/kernels/concat_op.h"

namespace minflow {
namespace {

// Input i ([outer, width_i] elements) becomes the columns
// [offset_i, offset_i + width_i) of every row of `output` ([outer, total]).
struct GpuJoiner {
  static void Join(OpKernelContext* ctx, const OpInputList& values,
                   int64_t outer, Tensor* output) {
    if (output->NumElements() == 0) return;
    GpuDevice* device = nullptr;
    OP_REQUIRES_OK(ctx, GetGpuDevice(ctx, &device));
    const size_t element = DataTypeSize(output->dtype());
    const size_t row_bytes = output->NumElements() / outer * element;
    char* dst = const_cast<char*>(output->tensor_data().data());
    for (const Tensor& in : values) {
      const int64_t n = in.NumElements();
      if (n == 0) continue;
      const size_t width_bytes = n / outer * element;
      OP_REQUIRES_OK(ctx, [&]() -> Status {
        MF_CUDA_RETURN_IF_ERROR(cudaMemcpy2DAsync(
            dst, row_bytes, in.tensor_data().data(), width_bytes, width_bytes,
            outer, cudaMemcpyDeviceToDevice, device->cuda_stream()));
        return OkStatus();
      }());
      dst += width_bytes;
    }
  }
};

REGISTER_KERNEL_BUILDER(Name("ConcatV2")
                            .Device(DEVICE_GPU)
                            .TypeConstraint<float>("T")
                            .HostMemory("axis"),
                        ConcatV2Op<GpuJoiner>);
REGISTER_KERNEL_BUILDER(
    Name("Pack").Device(DEVICE_GPU).TypeConstraint<float>("T"),
    PackOp<GpuJoiner>);

}  // namespace
}  // namespace minflow
