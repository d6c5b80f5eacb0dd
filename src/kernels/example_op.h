// The "Create an op" guide's functor split for the Example op (doubles each
// element): ExampleOp is written once over a Device, and each device
// supplies ExampleFunctor<Device, T>: the CPU one in example_op.cc, the GPU
// one (with the kernel's DEVICE_GPU registrations) in example_op_gpu.cu,
// compiled by nvcc. The per-element work, ExampleTwice, is MF_HOST_DEVICE so
// both functors and the host tests (tests/cuda/custom_op_functors_test.cc)
// share it. nvcc-safe: no CUDA or Eigen includes of its own.
#pragma once

#include <cstdint>
#include <type_traits>

#include "minflow/core/status.h"
#include "minflow/framework/op_kernel.h"
#include "src/kernels/gpu_host_device.h"

namespace minflow {
namespace functor {

// 2 * v without signed-overflow UB: signed integers double in unsigned
// arithmetic, which wraps (two's complement) as TensorFlow's kernel does in
// practice.
template <typename T>
MF_HOST_DEVICE inline T ExampleTwice(T v) {
  if constexpr (std::is_integral<T>::value && std::is_signed<T>::value) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(v) << 1));
  } else {
    return v + v;
  }
}

// out[i] = ExampleTwice(in[i]) for i in [0, size), on device `d`; size > 0.
// `in` and `out` may be the same buffer. A device that only enqueues the
// work (GPU) returns the error of the enqueueing, if any.
template <typename Device, typename T>
struct ExampleFunctor {
  Status operator()(const Device& d, int64_t size, const T* in, T* out);
};

}  // namespace functor

template <typename Device, typename T>
class ExampleOp : public OpKernel {
 public:
  explicit ExampleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, input.shape(), &output));
    if (input.NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, functor::ExampleFunctor<Device, T>()(
                            ctx->eigen_device<Device>(), input.NumElements(),
                            input.base<const T>(), output->base<T>()));
  }
};

}  // namespace minflow
