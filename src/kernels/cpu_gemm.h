// Float GEMM through the fastest CPU library this machine has (oneDNN's
// sgemm when Debian's libdnnl2 is installed), with Eigen as the fallback;
// used by MatMul, _FusedMatMul, BatchMatMul and Conv2D's tiles. See
// Note [CPU GEMM library].
#pragma once

#include <cstdint>
#include <functional>

#include "minflow/framework/op_kernel.h"

namespace minflow {
namespace internal {

// Note [CPU GEMM library]
// ~~~~~~~~~~~~~~~~~~~~~~~
// Measured on this project's machines (bench/gemm_libraries_bench.cc,
// figures in ARCHITECTURE.md "GEMM library"), oneDNN's sgemm multiplies
// 1.2-1.8x faster than Eigen's contraction on one thread from 64^3 up,
// while Eigen is faster on tiny products; OpenBLAS and XNNPACK were slower
// than oneDNN on every product measured. So float products of
// kMinLibraryGemmWork multiply-adds or more go to oneDNN when it loads.
//
// It is loaded with dlopen on the first such product, not linked: a process
// that never multiplies pays nothing at start-up, minflow builds and runs
// where it is absent, and MINFLOW_GEMM=eigen turns it off. oneDNN threads
// with OpenMP; minflow keeps each call on one thread and splits a product's
// rows over the intra-op pool itself, so one pool does all the work and no
// OpenMP team spins next to it. Convolutions use oneDNN's convolution
// primitive from the same library (Note [CPU convolution library]).
//
// Tried for mlp_b64 (64x784x512, 64x512x512) and not kept, same-run
// figures in bench/README.md: splitting short and wide products by columns,
// so that each thread packs only its part of B (fc1 at 2 threads 283-307
// us against 264-318 us split by rows); oneDNN's matmul primitive with the
// weights reordered once into its blocked layout (485 against 493 us for
// dnnl_sgemm on one thread, 239 against 232 us on half the columns), which
// would not pay for a cache of constant weights.
constexpr int64_t kMinLibraryGemmWork = int64_t{32} * 32 * 32;
// ShardedLibraryGemm runs products of fewer multiply-adds whole on the
// calling thread: about 20 us of work, where waking a second thread costs
// tens of microseconds on these VMs (mlp_b64's last layer, 64x512x10: 31-38
// us split over two threads, 17-18 us on one, same run).
constexpr int64_t kMinShardedGemmWork = int64_t{1} << 21;

// C[m, n] = op(A) * op(B), all row-major with leading dimensions lda, ldb
// and ldc; op(A) is A ([m, k]) or, with transpose_a, A's transpose (A is
// [k, m]); likewise B with [k, n] or [n, k].
struct GemmArgs {
  bool transpose_a = false;
  bool transpose_b = false;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  const float* a = nullptr;
  int64_t lda = 0;
  const float* b = nullptr;
  int64_t ldb = 0;
  float* c = nullptr;
  int64_t ldc = 0;
  // C += op(A) * op(B) instead of C = (the backprop kernels' partial sums).
  bool accumulate = false;
};

// Whether the library is loaded and worth calling for this product (m >= 2:
// one-row products are GEMVs, see matmul_gemv.h).
bool UseLibraryGemm(int64_t m, int64_t n, int64_t k);

// The loaded library's dlopen handle, for the other oneDNN entry points
// (cpu_conv_library.cc); null when it is absent or MINFLOW_GEMM=eigen.
void* GemmLibraryHandle();

// Sets the calling thread's OpenMP team to one thread, once per thread, so
// that the library's calls made on it stay on it.
void KeepLibraryOnThisThread();

// The whole product on the calling thread. False when the library refused
// it; C is then unspecified and the caller computes it with Eigen.
bool LibraryGemmOnThisThread(const GemmArgs& args);

// The product split by rows of C over ctx's intra-op pool (when it has
// kMinShardedGemmWork multiply-adds or more), one library call per range;
// `after_rows(first, limit)`, when given, runs on the same thread once rows
// [first, limit) are written (a fused epilogue). False when a call was refused,
// as above.
bool ShardedLibraryGemm(
    OpKernelContext* ctx, const GemmArgs& args,
    const std::function<void(int64_t, int64_t)>& after_rows = nullptr);

}  // namespace internal
}  // namespace minflow
