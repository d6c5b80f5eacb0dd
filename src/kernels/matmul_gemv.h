// A product with one output row, sharded over output columns on the CPU
// intra-op pool; shared by MatMul (matmul_op.cc) and _FusedMatMul
// (fused_matmul_op.cc). See Note [GEMV over the intra-op pool].
#pragma once

#include <cstdint>

#include "Eigen/Core"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"

namespace minflow {
namespace internal {

// Note [GEMV over the intra-op pool]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A product with one output row (batch 1 through a dense layer) is a
// matrix-vector product, which Eigen's contraction runs on one thread. It
// is bound by reading the matrix, so the output columns are split over the
// pool instead: each thread reads its own columns' part of the matrix once,
// and a fused epilogue runs on each slice as soon as it is written. Only a
// matrix of kMinShardedGemvElements or more is split. That was 1M while
// the pool's threads slept between loops (784x512 at 2 threads: 36 us
// split against 30 us whole); with helpers that spin between loops (Note
// [Caller-joined parallel loops]) splitting pays from far smaller
// matrices: mlp_b1 (784x512, 512x512) at 2 threads took 46.3 us with the
// 1M limit and 34.6 us with 64K (peer harness, successive runs).
constexpr int64_t kMinGemvColumns = 64;
constexpr int64_t kMinGemvDepth = 32;
constexpr int64_t kMinShardedGemvElements = int64_t{1} << 16;

// Whether a product of output shape [rows, n] over depth k takes the GEMV
// path (split over the pool when the matrix is large enough).
inline bool UseShardedGemv(int64_t rows, int64_t n, int64_t k) {
  return rows == 1 && n >= kMinGemvColumns && k >= kMinGemvDepth;
}

struct NoOpGemvSliceKernel {
  template <typename T>
  void operator()(T* /*out*/, int64_t /*start*/, int64_t /*limit*/) const {}
};

// out[0, j] = sum_i a[i] * B[i, j] for j in [0, n), where B is b ([k, n])
// or, with `transpose_b`, the transpose of b ([n, k]). `a` holds k
// contiguous values. `slice_kernel(out, start, limit)` runs after columns
// [start, limit) are written.
template <typename T, typename SliceKernel = NoOpGemvSliceKernel>
void ShardedGemv(OpKernelContext* ctx, const T* a, int64_t k, const T* b,
                 bool transpose_b, int64_t n, T* out,
                 const SliceKernel& slice_kernel = SliceKernel()) {
  using RowVector = Eigen::Matrix<T, 1, Eigen::Dynamic>;
  using RowMatrix =
      Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const RowVector> lhs(a, k);
  auto work = [&](int64_t start, int64_t limit) {
    Eigen::Map<RowVector> dst(out + start, limit - start);
    if (transpose_b) {
      // b is [n, k]: columns start..limit of the product are its rows.
      const Eigen::Map<const RowMatrix> rows(b + start * k, limit - start, k);
      dst.noalias() = lhs * rows.transpose();
    } else {
      const Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>> cols(
          b + start, k, limit - start, Eigen::OuterStride<>(n));
      dst.noalias() = lhs * cols;
    }
    slice_kernel(out, start, limit);
  };
  if (k * n < kMinShardedGemvElements) {
    work(0, n);
    return;
  }
  const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
  Shard(workers->num_threads, workers->workers, n, /*cost_per_unit=*/2 * k,
        work);
}

}  // namespace internal
}  // namespace minflow
