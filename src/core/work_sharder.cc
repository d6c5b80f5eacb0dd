#include "minflow/core/work_sharder.h"

#include <algorithm>

#include "absl/synchronization/blocking_counter.h"
#include "minflow/core/threadpool.h"

namespace minflow {
namespace {

// Below this many cycles a block is not worth handing to another thread.
constexpr int64_t kMinCostPerShard = 10000;

}  // namespace

void Shard(int max_parallelism, thread::ThreadPool* workers, int64_t total,
           int64_t cost_per_unit,
           const std::function<void(int64_t, int64_t)>& work) {
  if (total <= 0) return;
  if (max_parallelism <= 1 || workers == nullptr) {
    work(0, total);
    return;
  }
  cost_per_unit = std::max<int64_t>(1, cost_per_unit);
  // total * cost_per_unit may overflow for huge jobs; such jobs certainly
  // want every shard they can get.
  const int64_t work_cycles =
      total > INT64_MAX / cost_per_unit ? INT64_MAX : total * cost_per_unit;
  const int64_t num_shards = std::max<int64_t>(
      1, std::min<int64_t>(max_parallelism, work_cycles / kMinCostPerShard));
  const int64_t block_size = (total + num_shards - 1) / num_shards;
  if (block_size >= total) {
    work(0, total);
    return;
  }
  const int64_t num_blocks = (total + block_size - 1) / block_size;
  absl::BlockingCounter pending(static_cast<int>(num_blocks - 1));
  for (int64_t start = block_size; start < total; start += block_size) {
    const int64_t limit = std::min(start + block_size, total);
    workers->Schedule([&work, &pending, start, limit] {
      work(start, limit);
      pending.DecrementCount();
    });
  }
  // The caller takes the first block instead of idling.
  work(0, std::min(block_size, total));
  pending.Wait();
}

}  // namespace minflow
