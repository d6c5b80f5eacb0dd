// ZeroOut on the GPU: ZeroOutFunctor<Eigen::GpuDevice, T>, a grid-stride
// kernel writing ZeroOutElement (zero_out_functor.h) to every output
// element on the device's one stream, and the DEVICE_GPU registrations of
// ZeroOutOp (zero_out_op.h, whose checks the CPU kernel shares).

// First: it sets EIGEN_USE_GPU up before other headers (with gpu_device.h
// ahead of it, Eigen's GPU tensor code fails to compile under nvcc).
// clang-format off
#include "src/cuda/op_kernel_gpu.h"
// clang-format on

#include <cstdint>

#include "src/cuda/gpu_kernel_helpers.h"
#include "src/kernels/zero_out_op.h"

namespace minflow {
namespace functor {
namespace {

template <typename T>
__global__ void ZeroOutGpuKernel(int64_t size, int64_t preserve_index,
                                 const T* __restrict__ in,
                                 T* __restrict__ out) {
  MF_GPU_1D_KERNEL_LOOP(i, size) {
    out[i] = ZeroOutElement(i, preserve_index, in);
  }
}

}  // namespace

template <typename T>
struct ZeroOutFunctor<GPUDevice, T> {
  Status operator()(const GPUDevice& d, int64_t size, int64_t preserve_index,
                    const T* in, T* out) {
    return LaunchGpu1D(ZeroOutGpuKernel<T>, size, d,
                       /*max_threads_per_block=*/1024, preserve_index, in, out);
  }
};

template struct ZeroOutFunctor<GPUDevice, float>;
template struct ZeroOutFunctor<GPUDevice, double>;

}  // namespace functor

#define REGISTER_GPU(T)                                          \
  REGISTER_KERNEL_BUILDER(                                       \
      Name("ZeroOut").Device(DEVICE_GPU).TypeConstraint<T>("T"), \
      ZeroOutOp<GPUDevice, T>);
REGISTER_GPU(float)
REGISTER_GPU(double)
#undef REGISTER_GPU

}  // namespace minflow
