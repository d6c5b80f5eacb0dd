// ZeroOut (the "Create an op" guide's first kernel): a copy of a vector
// with every element but `preserve_index` set to zero. The kernel and its
// checks are ZeroOutOp (zero_out_op.h); here the CPU functor and
// registrations (the GPU twin is zero_out_op_gpu.cu).
#define EIGEN_USE_THREADS

#include "src/kernels/zero_out_op.h"

#include <algorithm>
#include <cstdint>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {

using CPUDevice = Eigen::ThreadPoolDevice;

namespace functor {

template <typename T>
struct ZeroOutFunctor<CPUDevice, T> {
  Status operator()(const CPUDevice& d, int64_t size, int64_t preserve_index,
                    const T* in, T* out) {
    std::fill_n(out, size, T(0));
    out[preserve_index] = in[preserve_index];
    return OkStatus();
  }
};

}  // namespace functor

namespace {

#define REGISTER_CPU(T)                                          \
  REGISTER_KERNEL_BUILDER(                                       \
      Name("ZeroOut").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ZeroOutOp<CPUDevice, T>);
TF_CALL_REAL_NUMBER_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
