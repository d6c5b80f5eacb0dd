// MatMul: product = op(a) * op(b), op a transpose per attr.
#define EIGEN_USE_THREADS

#include "src/kernels/matmul_op.h"

#include <cstdint>
#include <type_traits>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cpu_gemm.h"
#include "src/kernels/matmul_gemv.h"

namespace minflow {

using CPUDevice = Eigen::ThreadPoolDevice;

namespace functor {

// Eigen's tensor contraction on the intra-op pool: it packs and blocks like
// Eigen's GEMM and splits the output over the pool's threads. See
// bench/matmul_bench.cc for how it compares with a direct Eigen product.
template <typename T>
struct MatMulFunctor<CPUDevice, T> {
  void operator()(const CPUDevice& d, typename TTypes<T>::Matrix out,
                  typename TTypes<T>::ConstMatrix in0,
                  typename TTypes<T>::ConstMatrix in1,
                  const MatMulDimPair& dim_pair) {
    MatMul<CPUDevice>(d, out, in0, in1, dim_pair);
  }
};

}  // namespace functor

template <typename T>
struct LaunchMatMul<CPUDevice, T> {
  static void Launch(OpKernelContext* ctx, const Tensor& a, const Tensor& b,
                     bool transpose_a, bool transpose_b,
                     const internal::ConstantOperand& constant_b, Tensor* out) {
    if (a.NumElements() == 0 || b.NumElements() == 0) {
      // A zero-length inner dimension: every output is an empty sum.
      out->flat<T>().setZero();
      return;
    }
    if constexpr (std::is_floating_point_v<T>) {
      // One output row: a is one row (or, transposed, one column) of k
      // contiguous values either way.
      const int64_t k = transpose_a ? a.dim_size(0) : a.dim_size(1);
      const int64_t n = out->dim_size(1);
      if (internal::UseShardedGemv(out->dim_size(0), n, k)) {
        internal::ShardedGemv<T>(ctx, a.base<const T>(), k, b.base<const T>(),
                                 transpose_b, n, out->base<T>(), constant_b);
        return;
      }
      if constexpr (std::is_same_v<T, float>) {
        const int64_t m = out->dim_size(0);
        if (internal::UseLibraryGemm(m, n, k) &&
            internal::ShardedLibraryGemm(
                ctx, internal::GemmArgs{transpose_a, transpose_b, m, n, k,
                                        a.base<const float>(), a.dim_size(1),
                                        b.base<const float>(), b.dim_size(1),
                                        out->base<float>(), n})) {
          return;
        }
      }
    }
    functor::MatMulFunctor<CPUDevice, T>()(
        ctx->eigen_device<CPUDevice>(), out->matrix<T>(), a.matrix<T>(),
        b.matrix<T>(), functor::MakeMatMulDimPair(transpose_a, transpose_b));
  }
};

namespace {

#define REGISTER_CPU(T)                                         \
  REGISTER_KERNEL_BUILDER(                                      \
      Name("MatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      MatMulOp<CPUDevice, T>);
MF_CALL_CORE_REAL_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
