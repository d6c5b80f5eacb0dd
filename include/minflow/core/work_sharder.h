// Shard(): TensorFlow's work sharder for hand-written kernel loops.
#pragma once

#include <cstdint>
#include <functional>

namespace minflow {
namespace thread {
class ThreadPool;
}

// Runs work(start, limit) over [0, total) using at most `max_parallelism`
// threads of `workers` plus the caller, in blocks whose size follows from
// `cost_per_unit` (approximate cycles per unit): each block holds at least
// ~10000 cycles of work, so small jobs run inline on the caller. Runs inline
// when max_parallelism <= 1 or `workers` is null. Returns when every block is
// done. `work` must be safe to call concurrently on disjoint ranges.
void Shard(int max_parallelism, thread::ThreadPool* workers, int64_t total,
           int64_t cost_per_unit,
           const std::function<void(int64_t, int64_t)>& work);

// The block size Shard uses for these arguments: `total` when the work
// should run whole on the caller.
int64_t ShardBlockSize(int max_parallelism, int64_t total,
                       int64_t cost_per_unit);

}  // namespace minflow
