// The helper threads behind ThreadPool::RunBlocks: the calling thread works
// through a job's blocks together with up to N-1 helpers that spin briefly
// between jobs. See Note [Caller-joined parallel loops].
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace minflow {
namespace thread {
namespace internal {

// Note [Caller-joined parallel loops]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// An intra-op pool of N threads runs a parallel loop on the thread that
// calls it plus N-1 helpers, as ONNX Runtime's intra-op pool does; the
// helpers spin for kHelperSpin after their last block before they sleep.
// Waking a sleeping thread costs tens of microseconds on these VMs, more
// than a batch-1 dense layer takes, so without spinning a second thread
// only pays on large work. A pool of N sleeping threads beside the caller
// could not spin: N spinners plus the caller are one thread more than the
// cores (Note [Pool spinning]). With N-1 they fit.
//
// Blocks are claimed from a shared counter, so a helper that arrives late
// (or not at all, when every core is busy) costs nothing: the caller takes
// what is left. The caller returns when every block is done; a helper
// entry still queued then finds the job finished and drops it.
class ParallelForWorkers {
 public:
  // `num_helpers` >= 0 threads, named `name` in debuggers.
  ParallelForWorkers(const std::string& name, int num_helpers);
  ~ParallelForWorkers();
  ParallelForWorkers(const ParallelForWorkers&) = delete;
  ParallelForWorkers& operator=(const ParallelForWorkers&) = delete;

  int num_helpers() const { return static_cast<int>(threads_.size()); }

  // Runs fn(first, limit) for every block [first, limit) of [0, total) cut
  // every `block_size`, on the calling thread and up to max_helpers
  // helpers; returns when all blocks are done.
  void RunBlocks(int64_t total, int64_t block_size, int max_helpers,
                 const std::function<void(int64_t, int64_t)>& fn);

 private:
  struct Job;
  void HelperLoop();
  // Pops a queued job, or null when there is none.
  std::shared_ptr<Job> TryPop();

  // A standard mutex and condition variable, which ThreadSanitizer sees
  // into (it cannot see into Debian's Abseil).
  std::mutex mu_;
  std::condition_variable work_available_;
  std::deque<std::shared_ptr<Job>> queue_;  // guarded by mu_
  int sleeping_ = 0;                        // guarded by mu_
  bool stopping_ = false;                   // guarded by mu_
  // queue_.size(), read without the lock by spinning helpers.
  std::atomic<int> queued_{0};
  std::vector<std::thread> threads_;
};

}  // namespace internal
}  // namespace thread
}  // namespace minflow
