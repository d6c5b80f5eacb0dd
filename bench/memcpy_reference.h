// What several benchmarks measure themselves against: a memcpy of the same
// bytes on the same threads, and the thread counts they all run at.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "minflow/core/threadpool.h"

namespace minflow {
namespace bench {

// memcpy of `bytes` between two pre-touched buffers; with more than one
// thread (state.range(0)), split into equal parts over a pool of that size.
inline void ReferenceMemcpy(benchmark::State& state, int64_t bytes) {
  const int threads = static_cast<int>(state.range(0));
  std::vector<char> src(bytes, 1);
  std::vector<char> dst(bytes, 0);
  std::unique_ptr<thread::ThreadPool> pool;
  if (threads > 1) {
    pool = std::make_unique<thread::ThreadPool>("bench", threads);
  }
  for (auto _ : state) {
    if (pool == nullptr) {
      std::memcpy(dst.data(), src.data(), bytes);
    } else {
      pool->ParallelFor(threads, bytes / threads, [&](int64_t b, int64_t e) {
        for (int64_t part = b; part < e; ++part) {
          const int64_t lo = bytes * part / threads;
          const int64_t hi = bytes * (part + 1) / threads;
          std::memcpy(dst.data() + lo, src.data() + lo, hi - lo);
        }
      });
    }
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["threads"] = threads;
}

// 1, 2 and all threads (as far as the machine has them), milliseconds of
// real time.
inline void ThreadArgs(benchmark::internal::Benchmark* b) {
  const int max = thread::DefaultNumThreads();
  b->Arg(1);
  if (max >= 2) b->Arg(2);
  if (max > 2) b->Arg(max);
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace bench
}  // namespace minflow
