#include "minflow/core/work_sharder.h"

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/threadpool.h"

namespace minflow {
namespace {

struct Ranges {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  std::set<std::thread::id> threads;
};

Ranges RunShard(int max_parallelism, thread::ThreadPool* pool, int64_t total,
                int64_t cost) {
  Ranges r;
  std::mutex mu;
  Shard(max_parallelism, pool, total, cost,
        [&r, &mu](int64_t start, int64_t limit) {
          std::lock_guard<std::mutex> lock(mu);
          r.ranges.emplace_back(start, limit);
          r.threads.insert(std::this_thread::get_id());
        });
  std::sort(r.ranges.begin(), r.ranges.end());
  return r;
}

void ExpectExactCover(const Ranges& r, int64_t total) {
  int64_t next = 0;
  for (const auto& [start, limit] : r.ranges) {
    EXPECT_EQ(start, next);
    EXPECT_LT(start, limit);
    next = limit;
  }
  EXPECT_EQ(next, total);
}

TEST(WorkSharderTest, SmallWorkRunsInlineInOneBlock) {
  thread::ThreadPool pool("test", 4);
  Ranges r = RunShard(4, &pool, 100, 1);
  ASSERT_EQ(r.ranges.size(), 1u);
  EXPECT_EQ(r.threads.count(std::this_thread::get_id()), 1u);
  ExpectExactCover(r, 100);
}

TEST(WorkSharderTest, ParallelismOneRunsInline) {
  thread::ThreadPool pool("test", 4);
  Ranges r = RunShard(1, &pool, 1 << 20, 1000);
  ASSERT_EQ(r.ranges.size(), 1u);
  EXPECT_EQ(*r.threads.begin(), std::this_thread::get_id());
  Ranges no_pool = RunShard(8, nullptr, 1 << 20, 1000);
  ASSERT_EQ(no_pool.ranges.size(), 1u);
}

TEST(WorkSharderTest, ExpensiveWorkSplitsIntoAtMostMaxParallelismBlocks) {
  thread::ThreadPool pool("test", 4);
  Ranges r = RunShard(3, &pool, 1000, 100000);
  EXPECT_EQ(r.ranges.size(), 3u);
  ExpectExactCover(r, 1000);
}

TEST(WorkSharderTest, BlockCountFollowsCost) {
  thread::ThreadPool pool("test", 8);
  // 100 units at 250 cycles = 25000 cycles: two shards of >= 10000 cycles.
  Ranges r = RunShard(8, &pool, 100, 250);
  EXPECT_EQ(r.ranges.size(), 2u);
  ExpectExactCover(r, 100);
}

TEST(WorkSharderTest, ZeroOrNegativeTotalDoesNothing) {
  thread::ThreadPool pool("test", 2);
  EXPECT_TRUE(RunShard(2, &pool, 0, 100).ranges.empty());
  EXPECT_TRUE(RunShard(2, &pool, -5, 100).ranges.empty());
}

TEST(WorkSharderTest, OverflowingCostStillCoversEverything) {
  thread::ThreadPool pool("test", 2);
  Ranges r = RunShard(2, &pool, int64_t{1} << 40, int64_t{1} << 40);
  ExpectExactCover(r, int64_t{1} << 40);
  EXPECT_EQ(r.ranges.size(), 2u);
}

TEST(ThreadPoolTest, ParallelForCoversRangeOnce) {
  thread::ThreadPool pool("test", 3);
  std::vector<std::atomic<int>> hits(10000);
  pool.ParallelFor(10000, 50, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b; ++i) hits[i]++;
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  EXPECT_EQ(pool.NumThreads(), 3);
  EXPECT_EQ(pool.CurrentThreadId(), -1);
  EXPECT_GE(thread::DefaultNumThreads(), 1);
}

TEST(ThreadPoolTest, ScheduledWorkRunsBeforeDestruction) {
  std::atomic<int> done{0};
  {
    thread::ThreadPool pool("test", 2);
    for (int i = 0; i < 100; ++i) pool.Schedule([&done] { done++; });
  }
  EXPECT_EQ(done.load(), 100);
}

}  // namespace
}  // namespace minflow
