// A product with one output row, sharded over output columns on the CPU
// intra-op pool; shared by MatMul (matmul_op.cc) and _FusedMatMul
// (fused_matmul_op.cc). See Note [GEMV over the intra-op pool].
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "Eigen/Core"
#include "minflow/core/threadpool.h"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "src/kernels/constant_layout_cache.h"

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
//
// Narrower products (a classifier's last layer: cnn_small's 16384x10) are
// split over the depth instead, each thread summing its rows of B into
// partial outputs that are added at the end; see NarrowGemvRows.
constexpr int64_t kMinGemvColumns = 64;
constexpr int64_t kMinGemvDepth = 32;
constexpr int64_t kMinNarrowGemvDepth = 256;
constexpr int64_t kMinShardedGemvElements = int64_t{1} << 16;

// Whether a product of output shape [rows, n] over depth k takes the GEMV
// path (split over the pool when the matrix is large enough).
inline bool UseShardedGemv(int64_t rows, int64_t n, int64_t k) {
  return rows == 1 && n >= 1 &&
         (n >= kMinGemvColumns ? k >= kMinGemvDepth : k >= kMinNarrowGemvDepth);
}

// y[0, n) += sum over r in [first, last) of a[r] * b[r, 0, n), b being
// [k, n] row-major with n < kMinGemvColumns. Eigen's GEMV spends several
// cycles a row on so few columns; here each row is read as kChunks
// 16-float vectors (one FMA each, two rows in flight). A vector may run
// past its row into the next one: those lanes are never added to y, and
// the last rows, whose vectors would run past b, go one column at a time.
template <int kChunks>
void NarrowGemvRows(const float* a, const float* b, int64_t n, int64_t k,
                    int64_t first, int64_t last, float* y) {
  constexpr int kLanes = 16;
  constexpr int64_t kWidth = kChunks * kLanes;
  // Row r's vectors stay inside b while r * n + kWidth <= k * n.
  const int64_t vector_rows =
      k * n >= kWidth ? std::min(last, (k * n - kWidth) / n + 1) : first;
  float acc[2][kWidth] = {};
  int64_t r = first;
  for (; r + 1 < vector_rows; r += 2) {
    const float a0 = a[r], a1 = a[r + 1];
    const float* b0 = b + r * n;
    const float* b1 = b0 + n;
    for (int l = 0; l < kWidth; ++l) {
      acc[0][l] += a0 * b0[l];
      acc[1][l] += a1 * b1[l];
    }
  }
  for (int64_t j = 0; j < n; ++j) y[j] += acc[0][j] + acc[1][j];
  for (; r < last; ++r) {
    const float* row = b + r * n;
    for (int64_t j = 0; j < n; ++j) y[j] += a[r] * row[j];
  }
}

// y = a * b for a narrow b (see NarrowGemvRows), the depth split over the
// pool when there is enough of it.
inline void NarrowGemv(OpKernelContext* ctx, const float* a, int64_t k,
                       const float* b, int64_t n, float* y) {
  auto rows = [a, b, n, k](int64_t first, int64_t last, float* partial) {
    switch ((n + 15) / 16) {
      case 1:
        return NarrowGemvRows<1>(a, b, n, k, first, last, partial);
      case 2:
        return NarrowGemvRows<2>(a, b, n, k, first, last, partial);
      case 3:
        return NarrowGemvRows<3>(a, b, n, k, first, last, partial);
      default:
        return NarrowGemvRows<4>(a, b, n, k, first, last, partial);
    }
  };
  std::fill(y, y + n, 0.0f);
  const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
  const int64_t block =
      k * n < kMinShardedGemvElements
          ? k
          : ShardBlockSize(workers->num_threads, k, /*cost_per_unit=*/2 * n);
  if (block >= k) {
    rows(0, k, y);
    return;
  }
  const int64_t num_blocks = (k + block - 1) / block;
  std::vector<float> partials(num_blocks * n, 0.0f);
  workers->workers->RunBlocks(
      k, block, workers->num_threads, [&](int64_t first, int64_t last) {
        rows(first, last, partials.data() + first / block * n);
      });
  for (int64_t i = 0; i < num_blocks; ++i) {
    for (int64_t j = 0; j < n; ++j) y[j] += partials[i * n + j];
  }
}

// Note [Packed GEMV panels]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// A matrix larger than L2 comes from L3 on every one-row product, and
// Eigen's GEMV reads a row-major [k, n] matrix a block of columns at a
// time, jumping a row's length between reads: 784x512 and 512x512 one
// after the other (mlp_b1) took 36-39 us against 29 us to sum the same
// 2.5 MiB, while the same products over the matrix laid out in panels of
// kGemvPanelPackets vectors of columns, each panel's rows one after the
// other, read it as one stream in 31 us (a scratch benchmark, one
// thread). Laying a matrix out so costs a pass over it, so only a Const
// matrix, packed once and kept (Note [Kept constant layouts]), is read
// from panels; the panels are also the unit that is split over the pool.
// Each column's sum runs over the rows in order, one multiply-add each.
constexpr int kGemvPanelPackets = 8;

// Columns in one panel: kGemvPanelPackets of the widest float vector.
int64_t GemvPanelWidth();
// Floats in the panels of a [k, n] matrix (the last panel padded with
// zero columns).
int64_t GemvPanelsSize(int64_t k, int64_t n);
// Writes B (b, [k, n] row-major, or with `transpose_b` the transpose of b,
// [n, k]) into `panels` (GemvPanelsSize(k, n) floats, aligned like a
// Tensor's buffer).
void PackGemvPanels(const float* b, bool transpose_b, int64_t k, int64_t n,
                    float* panels);
// out[0, j] = sum_i a[i] * B[i, j] for the columns of panels [first, last).
void GemvOverPanels(const float* a, int64_t k, const float* panels, int64_t n,
                    int64_t first, int64_t last, float* out);
// The panels of `constant` (b, as in PackGemvPanels), packed on the first
// call and kept in `cache`; null when they cannot be kept (the cache is
// full, checked before packing, or out of memory), and the caller reads b
// itself.
const float* FindOrPackGemvPanels(OpKernelContext* ctx,
                                  const ConstantOperand& constant,
                                  bool transpose_b, int64_t k, int64_t n);

struct NoOpGemvSliceKernel {
  template <typename T>
  void operator()(T* /*out*/, int64_t /*start*/, int64_t /*limit*/) const {}
};

// out[0, j] = sum_i a[i] * B[i, j] for j in [0, n), where B is b ([k, n])
// or, with `transpose_b`, the transpose of b ([n, k]). `a` holds k
// contiguous values. `slice_kernel(out, start, limit)` runs after columns
// [start, limit) are written. `constant`, when set, is b's tensor, a
// Const's value, and the cache that keeps its panels.
template <typename T, typename SliceKernel = NoOpGemvSliceKernel>
void ShardedGemv(OpKernelContext* ctx, const T* a, int64_t k, const T* b,
                 bool transpose_b, int64_t n, T* out,
                 const ConstantOperand& constant = {},
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
  if (n < kMinGemvColumns) {
    if constexpr (std::is_same_v<T, float>) {
      if (!transpose_b) {
        NarrowGemv(ctx, a, k, b, n, out);
        slice_kernel(out, 0, n);
        return;
      }
    }
    work(0, n);
    return;
  }
  const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
  if constexpr (std::is_same_v<T, float>) {
    const float* panels =
        constant.cache != nullptr
            ? FindOrPackGemvPanels(ctx, constant, transpose_b, k, n)
            : nullptr;
    if (panels != nullptr) {
      const int64_t width = GemvPanelWidth();
      auto panel_work = [&](int64_t first, int64_t last) {
        GemvOverPanels(a, k, panels, n, first, last, out);
        slice_kernel(out, first * width, std::min(n, last * width));
      };
      const int64_t num_panels = (n + width - 1) / width;
      if (k * n < kMinShardedGemvElements) {
        panel_work(0, num_panels);
      } else {
        Shard(workers->num_threads, workers->workers, num_panels,
              /*cost_per_unit=*/2 * k * width, panel_work);
      }
      return;
    }
  }
  if (k * n < kMinShardedGemvElements) {
    work(0, n);
    return;
  }
  Shard(workers->num_threads, workers->workers, n, /*cost_per_unit=*/2 * k,
        work);
}

}  // namespace internal
}  // namespace minflow
