// Loading oneDNN's sgemm and splitting products over the intra-op pool.
// See Note [CPU GEMM library] in cpu_gemm.h.
#include "src/kernels/cpu_gemm.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "minflow/core/logging.h"
#include "minflow/core/work_sharder.h"

namespace minflow {
namespace internal {
namespace {

// oneDNN's C entry point (oneapi/dnnl/dnnl.h): row-major, returns
// dnnl_success (0) or an error code. Declared here so that building minflow
// needs no oneDNN headers.
using SgemmFn = int (*)(char transa, char transb, int64_t m, int64_t n,
                        int64_t k, float alpha, const float* a, int64_t lda,
                        const float* b, int64_t ldb, float beta, float* c,
                        int64_t ldc);
using SetNumThreadsFn = void (*)(int);

struct GemmLibrary {
  void* handle = nullptr;
  SgemmFn sgemm = nullptr;
  SetNumThreadsFn omp_set_num_threads = nullptr;
};

const GemmLibrary& Library() {
  static const GemmLibrary* const library =
      [] {
        auto* lib = new GemmLibrary;
#ifndef MINFLOW_NO_LIBRARY_GEMM
        const char* choice = std::getenv("MINFLOW_GEMM");
        if (choice != nullptr && std::strcmp(choice, "eigen") == 0) return lib;
        void* handle = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
          if (choice != nullptr && std::strcmp(choice, "onednn") == 0) {
            const char* why = dlerror();
            MF_LOG(WARNING)
                << "MINFLOW_GEMM=onednn, but libdnnl.so.2 did not load ("
                << (why != nullptr ? why : "dlopen failed") << "): using Eigen";
          }
          return lib;
        }
        lib->sgemm = reinterpret_cast<SgemmFn>(dlsym(handle, "dnnl_sgemm"));
        // Found among oneDNN's dependencies (its OpenMP runtime).
        lib->omp_set_num_threads = reinterpret_cast<SetNumThreadsFn>(
            dlsym(handle, "omp_set_num_threads"));
        if (lib->sgemm == nullptr || lib->omp_set_num_threads == nullptr) {
          MF_LOG(WARNING) << "libdnnl.so.2 lacks dnnl_sgemm or OpenMP's "
                             "omp_set_num_threads: using Eigen";
          lib->sgemm = nullptr;
        } else {
          lib->handle = handle;
        }
#endif
        return lib;
      }();
  return *library;
}

}  // namespace

bool UseLibraryGemm(int64_t m, int64_t n, int64_t k) {
  return m >= 2 && m * n * k >= kMinLibraryGemmWork &&
         Library().sgemm != nullptr;
}

void* GemmLibraryHandle() { return Library().handle; }

void KeepLibraryOnThisThread() {
  const GemmLibrary& lib = Library();
  if (lib.handle == nullptr) return;
  // The calling thread's OpenMP team size: one, so the call stays on this
  // thread (Note [CPU GEMM library]). OpenMP keeps it per thread.
  thread_local bool single_threaded = false;
  if (!single_threaded) {
    lib.omp_set_num_threads(1);
    single_threaded = true;
  }
}

bool LibraryGemmOnThisThread(const GemmArgs& args) {
  const GemmLibrary& lib = Library();
  if (lib.sgemm == nullptr) return false;
  KeepLibraryOnThisThread();
  return lib.sgemm(args.transpose_a ? 'T' : 'N', args.transpose_b ? 'T' : 'N',
                   args.m, args.n, args.k, 1.0f, args.a, args.lda, args.b,
                   args.ldb, args.accumulate ? 1.0f : 0.0f, args.c,
                   args.ldc) == 0;
}

bool ShardedLibraryGemm(
    OpKernelContext* ctx, const GemmArgs& args,
    const std::function<void(int64_t, int64_t)>& after_rows) {
  std::atomic<bool> ok{true};
  auto rows = [&](int64_t first, int64_t limit) {
    GemmArgs part = args;
    part.m = limit - first;
    // Row r of op(A) is row r of A, or column r of A when transposed.
    part.a = args.transpose_a ? args.a + first : args.a + first * args.lda;
    part.c = args.c + first * args.ldc;
    if (!LibraryGemmOnThisThread(part)) {
      ok.store(false, std::memory_order_relaxed);
      return;
    }
    if (after_rows) after_rows(first, limit);
  };
  const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
  // Shard's cost model takes a multiply-add for a cycle, 30x what the
  // library spends on one, and would hand a few microseconds of work to a
  // sleeping thread that takes longer than that to wake; see
  // kMinShardedGemmWork.
  const int parallelism =
      args.m * args.n * args.k < kMinShardedGemmWork ? 1 : workers->num_threads;
  // Cycles per row of C: its multiply-adds.
  Shard(parallelism, workers->workers, args.m,
        /*cost_per_unit=*/args.n * args.k, rows);
  return ok.load(std::memory_order_relaxed);
}

}  // namespace internal
}  // namespace minflow
