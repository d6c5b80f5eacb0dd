#include "src/core/parallel_for_workers.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "minflow/core/threadpool.h"

namespace minflow {
namespace thread {
namespace {

using internal::ParallelForWorkers;

// What RunBlocks did: how often each unit was visited, and by which threads.
struct Visits {
  explicit Visits(int64_t total) : hits(total) {}
  std::vector<std::atomic<int>> hits;
  std::mutex mu;
  std::set<std::thread::id> threads;
  std::vector<std::pair<int64_t, int64_t>> blocks;

  std::function<void(int64_t, int64_t)> Recorder() {
    return [this](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i) hits[i]++;
      std::lock_guard<std::mutex> lock(mu);
      threads.insert(std::this_thread::get_id());
      blocks.emplace_back(first, last);
    };
  }
  void ExpectEachUnitOnce() {
    for (size_t i = 0; i < hits.size(); ++i) {
      ASSERT_EQ(hits[i].load(), 1) << "unit " << i;
    }
  }
};

TEST(ParallelForWorkersTest, VisitsEveryUnitOnceInBlocksOfTheGivenSize) {
  ParallelForWorkers workers("test", 3);
  EXPECT_EQ(workers.num_helpers(), 3);
  for (int64_t total : {1, 7, 64, 1000, 4097}) {
    for (int64_t block : {1, 3, 64, 5000}) {
      Visits v(total);
      workers.RunBlocks(total, block, 3, v.Recorder());
      v.ExpectEachUnitOnce();
      EXPECT_EQ(static_cast<int64_t>(v.blocks.size()),
                (total + block - 1) / block);
      for (const auto& [first, last] : v.blocks) {
        EXPECT_EQ(first % block, 0);
        EXPECT_LE(last - first, block);
      }
    }
  }
}

TEST(ParallelForWorkersTest, WithoutHelpersTheCallerRunsEveryBlock) {
  ParallelForWorkers none("test", 0);
  Visits v(100);
  none.RunBlocks(100, 10, 4, v.Recorder());
  v.ExpectEachUnitOnce();
  EXPECT_EQ(v.threads, std::set<std::thread::id>{std::this_thread::get_id()});

  ParallelForWorkers some("test", 2);
  Visits limited(100);
  some.RunBlocks(100, 10, /*max_helpers=*/0, limited.Recorder());
  limited.ExpectEachUnitOnce();
  EXPECT_EQ(limited.threads,
            std::set<std::thread::id>{std::this_thread::get_id()});
}

// Two blocks that each wait until both have started can only finish if the
// caller and a helper run them at the same time.
TEST(ParallelForWorkersTest, CallerAndHelperRunBlocksConcurrently) {
  ParallelForWorkers workers("test", 1);
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> started{0};
    std::atomic<bool> both_seen{true};
    std::mutex mu;
    std::set<std::thread::id> threads;
    workers.RunBlocks(2, 1, 1, [&](int64_t, int64_t) {
      started++;
      const auto give_up =
          std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (started.load() < 2) {
        if (std::chrono::steady_clock::now() > give_up) {
          both_seen = false;
          break;
        }
      }
      std::lock_guard<std::mutex> lock(mu);
      threads.insert(std::this_thread::get_id());
    });
    ASSERT_TRUE(both_seen.load()) << "round " << round;
    EXPECT_EQ(threads.size(), 2u);
    EXPECT_EQ(threads.count(std::this_thread::get_id()), 1u);
  }
}

// A helper that is busy elsewhere does not hold the caller up: the caller
// takes every block that nobody else claims.
TEST(ParallelForWorkersTest, CallerFinishesAloneWhenTheHelperIsBusy) {
  ParallelForWorkers workers("test", 1);
  absl::Notification release;
  absl::Notification helper_busy;
  std::thread other([&] {
    const std::thread::id other_id = std::this_thread::get_id();
    // Many slow blocks, so the helper joins in; the first block it takes
    // keeps it until released.
    workers.RunBlocks(10000, 1, 1, [&](int64_t, int64_t) {
      if (std::this_thread::get_id() == other_id) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      } else if (!helper_busy.HasBeenNotified()) {
        helper_busy.Notify();
        release.WaitForNotification();
      }
    });
  });
  if (!helper_busy.WaitForNotificationWithTimeout(absl::Seconds(30))) {
    release.Notify();
    other.join();
    FAIL() << "the helper never took a block of a 10000-block loop";
  }
  Visits v(50);
  workers.RunBlocks(50, 1, 1, v.Recorder());
  v.ExpectEachUnitOnce();
  EXPECT_EQ(v.threads, std::set<std::thread::id>{std::this_thread::get_id()});
  release.Notify();
  other.join();
}

TEST(ParallelForWorkersTest, ConcurrentCallersEachGetTheirOwnBlocks) {
  ParallelForWorkers workers("test", 2);
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&workers, &failures, c] {
      for (int round = 0; round < 50; ++round) {
        const int64_t total = 1000 + 37 * c + round;
        std::vector<std::atomic<int>> hits(total);
        workers.RunBlocks(total, 16, 2, [&hits](int64_t first, int64_t last) {
          for (int64_t i = first; i < last; ++i) hits[i]++;
        });
        for (auto& h : hits) {
          if (h.load() != 1) failures++;
        }
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(failures.load(), 0);
}

// A block may itself run a parallel loop on the same workers (a kernel
// sharding inside a sharded kernel): callers never wait for a block that
// nobody has claimed, so this cannot deadlock.
TEST(ParallelForWorkersTest, NestedLoopsFinish) {
  ParallelForWorkers workers("test", 1);
  std::vector<std::atomic<int>> hits(8 * 100);
  workers.RunBlocks(8, 1, 1, [&](int64_t outer, int64_t) {
    workers.RunBlocks(100, 7, 1, [&](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i) hits[outer * 100 + i]++;
    });
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
}

TEST(ParallelForWorkersTest, DestroysCleanlyWhetherIdleOrAfterWork) {
  for (int i = 0; i < 20; ++i) {
    ParallelForWorkers idle("test", 2);
  }
  for (int i = 0; i < 20; ++i) {
    ParallelForWorkers used("test", 2);
    Visits v(64);
    used.RunBlocks(64, 1, 2, v.Recorder());
    v.ExpectEachUnitOnce();
  }
}

TEST(ThreadPoolRunBlocksTest, UsesTheCallerAndAtMostNumThreadsThreads) {
  ThreadPool pool("test", 3);
  Visits v(3000);
  pool.RunBlocks(3000, 1, 8, v.Recorder());
  v.ExpectEachUnitOnce();
  EXPECT_LE(v.threads.size(), 3u);

  ThreadPool single("test", 1);
  Visits inline_only(300);
  single.RunBlocks(300, 1, 8, inline_only.Recorder());
  inline_only.ExpectEachUnitOnce();
  EXPECT_EQ(inline_only.threads,
            std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(ThreadPoolRunBlocksTest, FindsThePoolOfItsEigenDevice) {
  ThreadPool pool("test", 2);
  EXPECT_EQ(ThreadPool::FromEigenDevice(pool.eigen_device()), &pool);
}

}  // namespace
}  // namespace thread
}  // namespace minflow
