// Example (the "Create an op" guide's device-templated kernel): the CPU
// functor and registrations of ExampleOp (example_op.h, which holds the
// split; the GPU twin is example_op_gpu.cu).
#define EIGEN_USE_THREADS

#include "src/kernels/example_op.h"

#include <cstdint>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {

using CPUDevice = Eigen::ThreadPoolDevice;

namespace functor {

template <typename T>
struct ExampleFunctor<CPUDevice, T> {
  Status operator()(const CPUDevice& d, int64_t size, const T* in, T* out) {
    // Large inputs are split over the device's threads; Eigen runs small
    // ones inline.
    d.parallelFor(size, Eigen::TensorOpCost(sizeof(T), sizeof(T), 1),
                  [in, out](Eigen::Index begin, Eigen::Index end) {
                    for (Eigen::Index i = begin; i < end; ++i) {
                      out[i] = ExampleTwice(in[i]);
                    }
                  });
    return OkStatus();
  }
};

}  // namespace functor

namespace {

#define REGISTER_CPU(T)                                          \
  REGISTER_KERNEL_BUILDER(                                       \
      Name("Example").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ExampleOp<CPUDevice, T>);
TF_CALL_NUMBER_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
