// Softmax and LogSoftmax over the last dimension. half and bfloat16 compute
// in float (more accurate sums than TensorFlow's, and no extra
// instantiations).
#define EIGEN_USE_THREADS

#include "src/kernels/softmax_op.h"

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "Eigen/Core"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cpu_parallel_eval.h"
#include "src/kernels/cwise_ops_common.h"

namespace minflow {
namespace internal {
namespace {

template <typename T>
void SoftmaxRows(const Eigen::ThreadPoolDevice& d, const T* in, T* out,
                 int64_t rows, int64_t cols, bool log) {
  using Row = Eigen::Array<T, 1, Eigen::Dynamic>;
  // Per element: a read, a write, an exponential and a few adds.
  const Eigen::TensorOpCost cost_per_row(cols * sizeof(T), cols * sizeof(T),
                                         cols * 20.0);
  CpuParallelFor(d, rows, cost_per_row, 1, [&](int64_t first, int64_t last) {
    for (int64_t r = first; r < last; ++r) {
      const Eigen::Map<const Row> x(in + r * cols, cols);
      Eigen::Map<Row> y(out + r * cols, cols);
      // Shifting by the row's maximum keeps exp from overflowing.
      const T max = x.maxCoeff();
      if (log) {
        y = x - max;
        y -= std::log(y.exp().sum());
      } else {
        y = (x - max).exp();
        y *= T(1) / y.sum();
      }
    }
  });
}

}  // namespace

void SoftmaxRowsOnCpu(const Eigen::ThreadPoolDevice& d, const float* in,
                      float* out, int64_t rows, int64_t cols, bool log) {
  SoftmaxRows(d, in, out, rows, cols, log);
}

void SoftmaxRowsOnCpu(const Eigen::ThreadPoolDevice& d, const double* in,
                      double* out, int64_t rows, int64_t cols, bool log) {
  SoftmaxRows(d, in, out, rows, cols, log);
}

}  // namespace internal

namespace {

#define REGISTER_CPU(T)                                             \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("Softmax").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      SoftmaxOp<CPUDevice, T>);                                     \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("LogSoftmax").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      SoftmaxOp<CPUDevice, T>);
MF_CALL_CORE_FLOAT_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
