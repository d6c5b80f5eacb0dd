// MedianPool2D on the GPU: one thread per output value (grid-stride), each
// selecting the lower median of its window's in-image values with
// MedianPoolOutput (median_pool_functor.h: a per-thread partial insertion
// sort for windows of up to kMedianPoolLocalWindow values, a radix
// selection over the input for larger ones), in the order the CPU kernel
// uses, so both agree bit for bit. Attrs and input are checked by the CPU
// kernel's functions (median_pool_op.h). Threads of a warp take adjacent
// channels (NHWC), so their loads coalesce.

// First: it sets EIGEN_USE_GPU up before other headers (with gpu_device.h
// ahead of it, Eigen's GPU tensor code fails to compile under nvcc).
// clang-format off
#include "src/cuda/op_kernel_gpu.h"
// clang-format on

#include <cuda_runtime.h>

#include <cstdint>

#include "src/cuda/cuda_status.h"
#include "src/cuda/gpu_device.h"
#include "src/cuda/gpu_kernel_helpers.h"
#include "src/kernels/median_pool_functor.h"
#include "src/kernels/median_pool_op.h"

namespace minflow {
namespace {

template <typename T>
__global__ void MedianPoolGpuKernel(internal::MedianPoolShape shape,
                                    int64_t total, const T* __restrict__ in,
                                    T* __restrict__ out) {
  MF_GPU_1D_KERNEL_LOOP(i, total) {
    out[i] = internal::MedianPoolOutput(shape, in, i);
  }
}

template <typename T>
class MedianPool2DGpuOp : public OpKernel {
 public:
  explicit MedianPool2DGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, InitMedianPoolParameters(ctx, &params_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    PoolDimensions d;
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, ComputeMedianPoolDimensions(params_, input.shape(), &d,
                                                    &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    const int64_t total = out_shape.num_elements();
    if (total == 0) return;
    GpuDevice* device = nullptr;
    OP_REQUIRES_OK(ctx, GetGpuDevice(ctx, &device));
    // 256-thread blocks: the kernel takes about 48 registers per thread
    // (sm_90), so 1024-thread blocks would leave room for one per SM.
    const GpuLaunchConfig config = GetGpuLaunchConfig(
        total, ctx->eigen_device<GPUDevice>(), /*max_threads_per_block=*/256);
    MedianPoolGpuKernel<T><<<config.block_count, config.thread_per_block, 0,
                             device->cuda_stream()>>>(
        internal::ToMedianPoolShape(d), config.virtual_thread_count,
        input.base<const T>(), output->base<T>());
    OP_REQUIRES_OK(ctx, []() -> Status {
      MF_CUDA_RETURN_IF_ERROR(cudaGetLastError());
      return OkStatus();
    }());
  }

 private:
  PoolParameters params_;
};

#define REGISTER_GPU(T)                                               \
  REGISTER_KERNEL_BUILDER(                                            \
      Name("MedianPool2D").Device(DEVICE_GPU).TypeConstraint<T>("T"), \
      MedianPool2DGpuOp<T>);
REGISTER_GPU(float)
REGISTER_GPU(double)
#undef REGISTER_GPU

}  // namespace
}  // namespace minflow
