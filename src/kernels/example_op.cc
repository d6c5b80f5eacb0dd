// Example (the "Create an op" guide's device-templated kernel): the OpKernel
// over <Device, T> and the CPU functor. See example_op.h for the split.
#define EIGEN_USE_THREADS

#include "src/kernels/example_op.h"

#include <cstdint>
#include <type_traits>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {

using CPUDevice = Eigen::ThreadPoolDevice;

namespace functor {
namespace {

// 2 * v without signed-overflow UB: signed integers double in unsigned
// arithmetic, which wraps as TensorFlow's kernel does in practice.
template <typename T>
T Twice(T v) {
  if constexpr (std::is_integral<T>::value && std::is_signed<T>::value) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(v) << 1));
  } else {
    return v + v;
  }
}

}  // namespace

template <typename T>
struct ExampleFunctor<CPUDevice, T> {
  void operator()(const CPUDevice& d, int64_t size, const T* in, T* out) {
    // Large inputs are split over the device's threads; Eigen runs small
    // ones inline.
    d.parallelFor(size, Eigen::TensorOpCost(sizeof(T), sizeof(T), 1),
                  [in, out](Eigen::Index begin, Eigen::Index end) {
                    for (Eigen::Index i = begin; i < end; ++i) {
                      out[i] = Twice(in[i]);
                    }
                  });
  }
};

}  // namespace functor

namespace {

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
    functor::ExampleFunctor<Device, T>()(
        ctx->eigen_device<Device>(), input.NumElements(), input.base<const T>(),
        output->base<T>());
  }
};

#define REGISTER_CPU(T)                                          \
  REGISTER_KERNEL_BUILDER(                                       \
      Name("Example").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ExampleOp<CPUDevice, T>);
TF_CALL_NUMBER_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
