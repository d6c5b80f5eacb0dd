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

#include <cstdint>

#include "src/cuda/gpu_kernel_helpers.h"
#include "src/kernels/median_pool_functor.h"
#include "src/kernels/median_pool_op.h"

namespace minflow {
namespace {

template <typename T>
__global__ void MedianPoolGpuKernel(int64_t total,
                                    internal::MedianPoolShape shape,
                                    const T* __restrict__ in,
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
    // 256-thread blocks: the kernel takes about 48 registers per thread
    // (sm_90), so 1024-thread blocks would leave room for one per SM.
    OP_REQUIRES_OK(ctx, LaunchGpu1D(MedianPoolGpuKernel<T>, total,
                                    ctx->eigen_device<GPUDevice>(),
                                    /*max_threads_per_block=*/256,
                                    internal::ToMedianPoolShape(d),
                                    input.base<const T>(), output->base<T>()));
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
