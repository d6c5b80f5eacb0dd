// Core costs: tensor allocation/free, and the overhead Shard() adds to tiny
// and large jobs, with memset and an inline loop as same-run references.
#include <cstring>
#include <vector>

#include "benchmark/benchmark.h"
#include "minflow/core/tensor.h"
#include "minflow/core/threadpool.h"
#include "minflow/core/work_sharder.h"

namespace minflow {
namespace {

void BM_Tensor_AllocateFree(benchmark::State& state) {
  const TensorShape shape({state.range(0)});
  for (auto _ : state) {
    Tensor t(DT_FLOAT, shape);
    benchmark::DoNotOptimize(t.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Tensor_AllocateFree)->Arg(1)->Arg(1024)->Arg(1 << 20);

// Reference: the same sizes through malloc/free directly.
void BM_Reference_AlignedAllocFree(benchmark::State& state) {
  const size_t bytes = state.range(0) * sizeof(float);
  for (auto _ : state) {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Reference_AlignedAllocFree)->Arg(1)->Arg(1024)->Arg(1 << 20);

void BM_Tensor_CopyShare(benchmark::State& state) {
  Tensor t(DT_FLOAT, TensorShape({16}));
  for (auto _ : state) {
    Tensor copy = t;
    benchmark::DoNotOptimize(copy.data());
  }
}
BENCHMARK(BM_Tensor_CopyShare);

// Shard over a float buffer that is scaled in place: cost ~1 cycle/element.
void ScaleWork(std::vector<float>* data, int64_t start, int64_t limit) {
  float* p = data->data();
  for (int64_t i = start; i < limit; ++i) p[i] *= 1.0001f;
}

void BM_Shard(benchmark::State& state) {
  const int64_t total = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  thread::ThreadPool pool("bench", std::max(1, threads));
  std::vector<float> data(total, 1.0f);
  for (auto _ : state) {
    Shard(threads, &pool, total, /*cost_per_unit=*/1,
          [&data](int64_t a, int64_t b) { ScaleWork(&data, a, b); });
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * total * 2 * sizeof(float));
}
BENCHMARK(BM_Shard)
    ->Args({16, 2})
    ->Args({1024, 2})
    ->Args({64 << 10, 2})
    ->Args({16 << 20, 1})
    ->Args({16 << 20, 2})
    ->UseRealTime();

// Reference: the same loop called directly, no sharder.
void BM_Reference_InlineLoop(benchmark::State& state) {
  const int64_t total = state.range(0);
  std::vector<float> data(total, 1.0f);
  for (auto _ : state) {
    ScaleWork(&data, 0, total);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * total * 2 * sizeof(float));
}
BENCHMARK(BM_Reference_InlineLoop)
    ->Arg(16)
    ->Arg(1024)
    ->Arg(64 << 10)
    ->Arg(16 << 20)
    ->UseRealTime();

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
