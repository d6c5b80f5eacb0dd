// Example on the GPU: the guide's ExampleFunctor<Eigen::GpuDevice, T> (a
// grid-stride kernel doubling each element with the ExampleTwice the CPU
// functor uses, enqueued on the device's one stream) and the DEVICE_GPU
// registrations of ExampleOp (example_op.h), in one nvcc unit.

// First: it sets EIGEN_USE_GPU up before other headers (with gpu_device.h
// ahead of it, Eigen's GPU tensor code fails to compile under nvcc).
// clang-format off
#include "src/cuda/op_kernel_gpu.h"
// clang-format on

#include <cstdint>

#include "src/cuda/gpu_kernel_helpers.h"
#include "src/kernels/example_op.h"

namespace minflow {
namespace functor {
namespace {

// `in` and `out` may alias (forwarded input), so no __restrict__.
template <typename T>
__global__ void ExampleGpuKernel(int64_t size, const T* in, T* out) {
  MF_GPU_1D_KERNEL_LOOP(i, size) { out[i] = ExampleTwice(in[i]); }
}

}  // namespace

template <typename T>
struct ExampleFunctor<GPUDevice, T> {
  Status operator()(const GPUDevice& d, int64_t size, const T* in, T* out) {
    return LaunchGpu1D(ExampleGpuKernel<T>, size, d,
                       /*max_threads_per_block=*/1024, in, out);
  }
};

template struct ExampleFunctor<GPUDevice, float>;
template struct ExampleFunctor<GPUDevice, double>;

}  // namespace functor

#define REGISTER_GPU(T)                                          \
  REGISTER_KERNEL_BUILDER(                                       \
      Name("Example").Device(DEVICE_GPU).TypeConstraint<T>("T"), \
      ExampleOp<GPUDevice, T>);
REGISTER_GPU(float)
REGISTER_GPU(double)
#undef REGISTER_GPU

}  // namespace minflow
