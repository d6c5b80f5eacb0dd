// Which CPU library should minflow's GEMM use? The float products of the
// peer workloads, each through every candidate that is installed, on the
// same thread counts in the same run:
//
//   Eigen     Eigen's tensor contraction on an Eigen::ThreadPoolDevice
//             (what the MatMul kernel calls today); always built.
//   OpenBLAS  cblas_sgemm (libopenblas-dev, pthreads build).
//   oneDNN    dnnl_sgemm (libdnnl-dev; its OpenMP runtime).
//   XNNPACK   a fully-connected operator (libxnnpack-dev), the way TFLite
//             runs MatMul; weights packed once at creation, as TFLite does.
//
// The optional libraries are not part of minflow's dependencies (set-up does
// not install them); each is compiled in when CMake finds it
// (bench/CMakeLists.txt). Run one library per process, so that one
// library's idle workers cannot take cores from the next:
//
//   gemm_libraries_bench --benchmark_filter='Eigen|OpenBlas'
//
// Args: {m, k, n, threads}; C[m,n] = A[m,k] * B[k,n], row-major.
#define EIGEN_USE_THREADS

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "Eigen/Core"
#include "benchmark/benchmark.h"
#include "unsupported/Eigen/CXX11/Tensor"

#ifdef MINFLOW_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef MINFLOW_HAVE_DNNL
#include <omp.h>

#include "oneapi/dnnl/dnnl.h"
#endif
#ifdef MINFLOW_HAVE_XNNPACK
#include <pthreadpool.h>
#include <xnnpack.h>
#endif

namespace {

struct Problem {
  int64_t m, k, n;
  int threads;
  std::vector<float> a, b, c;

  explicit Problem(const benchmark::State& state)
      : m(state.range(0)),
        k(state.range(1)),
        n(state.range(2)),
        threads(static_cast<int>(state.range(3))),
        a(m * k),
        b(k * n),
        c(m * n) {
    std::mt19937 gen(42);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& x : a) x = dist(gen);
    for (float& x : b) x = dist(gen);
  }
};

// A library that is fast because it computed something else must not win:
// each result is checked against Eigen's plain matrix product.
bool SameProduct(const Problem& p) {
  using Matrix =
      Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Matrix expected = Eigen::Map<const Matrix>(p.a.data(), p.m, p.k) *
                          Eigen::Map<const Matrix>(p.b.data(), p.k, p.n);
  const float tolerance = 1e-4f * static_cast<float>(p.k);
  for (int64_t i = 0; i < p.m * p.n; ++i) {
    if (!(std::fabs(p.c[i] - expected.data()[i]) <= tolerance)) return false;
  }
  return true;
}

void SetFlops(benchmark::State& state, const Problem& p) {
  if (!SameProduct(p)) state.SkipWithError("wrong product");
  state.counters["FLOP/s"] = benchmark::Counter(
      2.0 * p.m * p.k * p.n * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

// Small cubes (where call overhead shows), the peer workloads' products:
// mlp_b1 and mlp_b64's first layer, a 3x3x32->64 convolution on 64x64 as
// im2col sees it, a BERT-base projection of 128 tokens, wide_64's 256^3,
// matmul_1024.
void Shapes(benchmark::internal::Benchmark* b) {
  const int64_t shapes[][3] = {
      {16, 16, 16},   {64, 64, 64},    {256, 256, 256}, {1, 784, 512},
      {64, 784, 512}, {4096, 288, 64}, {128, 768, 768}, {1024, 1024, 1024}};
  for (int threads : {1, 2}) {
    for (const auto& s : shapes) b->Args({s[0], s[1], s[2], threads});
  }
  b->ArgNames({"m", "k", "n", "threads"});
  b->UseRealTime();
}

void BM_Eigen(benchmark::State& state) {
  Problem p(state);
  Eigen::ThreadPool pool(p.threads);
  Eigen::ThreadPoolDevice device(&pool, p.threads);
  using Map = Eigen::TensorMap<Eigen::Tensor<float, 2, Eigen::RowMajor>>;
  using ConstMap =
      Eigen::TensorMap<Eigen::Tensor<const float, 2, Eigen::RowMajor>>;
  ConstMap a(p.a.data(), p.m, p.k);
  ConstMap b(p.b.data(), p.k, p.n);
  Map c(p.c.data(), p.m, p.n);
  const Eigen::array<Eigen::IndexPair<int64_t>, 1> dims = {
      Eigen::IndexPair<int64_t>(1, 0)};
  for (auto _ : state) {
    c.device(device) = a.contract(b, dims);
    benchmark::DoNotOptimize(p.c.data());
  }
  SetFlops(state, p);
}
BENCHMARK(BM_Eigen)->Apply(Shapes);

// Eigen's plain matrix product on the calling thread: what Conv2D's tiles
// and BatchMatMul's small products use.
void BM_EigenMatrix(benchmark::State& state) {
  Problem p(state);
  if (p.threads != 1) return state.SkipWithError("single-threaded only");
  using Matrix =
      Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const Matrix> a(p.a.data(), p.m, p.k);
  Eigen::Map<const Matrix> b(p.b.data(), p.k, p.n);
  Eigen::Map<Matrix> c(p.c.data(), p.m, p.n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(p.c.data());
  }
  SetFlops(state, p);
}
BENCHMARK(BM_EigenMatrix)->Apply(Shapes);

#ifdef MINFLOW_HAVE_OPENBLAS
void BM_OpenBlas(benchmark::State& state) {
  Problem p(state);
  openblas_set_num_threads(p.threads);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, p.m, p.n, p.k, 1.0f,
                p.a.data(), p.k, p.b.data(), p.n, 0.0f, p.c.data(), p.n);
    benchmark::DoNotOptimize(p.c.data());
  }
  SetFlops(state, p);
}
BENCHMARK(BM_OpenBlas)->Apply(Shapes);
#endif

#ifdef MINFLOW_HAVE_DNNL
void BM_OneDnn(benchmark::State& state) {
  Problem p(state);
  omp_set_num_threads(p.threads);
  for (auto _ : state) {
    // dnnl_sgemm is row-major, as minflow's tensors are.
    if (dnnl_sgemm('N', 'N', p.m, p.n, p.k, 1.0f, p.a.data(), p.k, p.b.data(),
                   p.n, 0.0f, p.c.data(), p.n) != dnnl_success) {
      return state.SkipWithError("dnnl_sgemm failed");
    }
    benchmark::DoNotOptimize(p.c.data());
  }
  SetFlops(state, p);
}
BENCHMARK(BM_OneDnn)->Apply(Shapes);
#endif

#ifdef MINFLOW_HAVE_XNNPACK
void BM_Xnnpack(benchmark::State& state) {
  Problem p(state);
  if (xnn_initialize(nullptr) != xnn_status_success) {
    return state.SkipWithError("xnn_initialize failed");
  }
  // One thread means no pool, as TFLite does it.
  pthreadpool_t pool = p.threads > 1 ? pthreadpool_create(p.threads) : nullptr;
  xnn_operator_t op = nullptr;
  // XNNPACK's weights are [n, k] unless transposed: B is [k, n].
  if (xnn_create_fully_connected_nc_f32(p.k, p.n, p.k, p.n, p.b.data(), nullptr,
                                        -std::numeric_limits<float>::infinity(),
                                        std::numeric_limits<float>::infinity(),
                                        XNN_FLAG_TRANSPOSE_WEIGHTS,
                                        &op) != xnn_status_success ||
      xnn_setup_fully_connected_nc_f32(op, p.m, p.a.data(), p.c.data(), pool) !=
          xnn_status_success) {
    if (pool != nullptr) pthreadpool_destroy(pool);
    return state.SkipWithError("XNNPACK fully-connected setup failed");
  }
  for (auto _ : state) {
    if (xnn_run_operator(op, pool) != xnn_status_success) {
      state.SkipWithError("xnn_run_operator failed");
      break;
    }
    benchmark::DoNotOptimize(p.c.data());
  }
  xnn_delete_operator(op);
  if (pool != nullptr) pthreadpool_destroy(pool);
  SetFlops(state, p);
}
BENCHMARK(BM_Xnnpack)->Apply(Shapes);
#endif

}  // namespace

BENCHMARK_MAIN();
