#include "minflow/core/work_sharder.h"

#include <algorithm>

#include "minflow/core/threadpool.h"

namespace minflow {
namespace {

// Below this many cycles a block is not worth handing to another thread.
constexpr int64_t kMinCostPerShard = 10000;

}  // namespace

int64_t ShardBlockSize(int max_parallelism, int64_t total,
                       int64_t cost_per_unit) {
  if (max_parallelism <= 1 || total <= 1) return std::max<int64_t>(total, 1);
  cost_per_unit = std::max<int64_t>(1, cost_per_unit);
  // total * cost_per_unit may overflow for huge jobs; such jobs certainly
  // want every shard they can get.
  const int64_t work_cycles =
      total > INT64_MAX / cost_per_unit ? INT64_MAX : total * cost_per_unit;
  const int64_t num_shards = std::max<int64_t>(
      1, std::min<int64_t>(max_parallelism, work_cycles / kMinCostPerShard));
  return (total + num_shards - 1) / num_shards;
}

void Shard(int max_parallelism, thread::ThreadPool* workers, int64_t total,
           int64_t cost_per_unit,
           const std::function<void(int64_t, int64_t)>& work) {
  if (total <= 0) return;
  const int64_t block_size =
      workers == nullptr
          ? total
          : ShardBlockSize(max_parallelism, total, cost_per_unit);
  if (block_size >= total) {
    work(0, total);
    return;
  }
  // The caller takes blocks too and waits for the helpers' last ones
  // (Note [Waiting for shards] in parallel_for_workers.cc).
  workers->RunBlocks(total, block_size, max_parallelism, work);
}

}  // namespace minflow
