#include "parallel_for_workers.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>

namespace minflow {
namespace thread {
namespace internal {
namespace {

// Note [Waiting for shards]
// A thread that sleeps takes tens of microseconds to wake on these
// machines (a Shard of 4.6 us of work over two threads took 39 us when the
// caller slept in a BlockingCounter until the worker's block was done:
// core_bench's BM_Shard/65536/2). Kernels shard many small pieces (a
// convolution shards each tile's product), so the caller, whose own block
// ends about when the workers' do, spins on the count for a short while
// and sleeps only when the others take longer than that. At 2 intra-op
// threads this made cnn_small 1.3x and mlp_b64 1.2x faster (session 12,
// when the helpers did not spin either).

// How long a helper keeps looking for work after its last block
// (Note [Caller-joined parallel loops]), and how long the caller looks for
// the helpers' last blocks to finish before it sleeps (above).
constexpr std::chrono::microseconds kHelperSpin(200);
constexpr std::chrono::microseconds kCallerSpin(100);

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

struct ParallelForWorkers::Job {
  Job(const std::function<void(int64_t, int64_t)>* fn, int64_t total,
      int64_t block_size)
      : fn(fn),
        total(total),
        block_size(block_size),
        num_blocks((total + block_size - 1) / block_size) {}

  // Runs blocks until none is left to claim. `fn` is only called for a
  // claimed block, and the caller waits for every claimed block, so `fn`
  // outlives every call.
  void Help() {
    for (;;) {
      const int64_t block = next.fetch_add(1, std::memory_order_relaxed);
      if (block >= num_blocks) return;
      const int64_t first = block * block_size;
      (*fn)(first, std::min(total, first + block_size));
      if (done.fetch_add(1, std::memory_order_acq_rel) + 1 == num_blocks) {
        std::lock_guard<std::mutex> lock(mu);
        finished = true;
        all_done.notify_all();
      }
    }
  }

  const std::function<void(int64_t, int64_t)>* const fn;
  const int64_t total;
  const int64_t block_size;
  const int64_t num_blocks;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  // The caller sleeps on these when the last blocks take long.
  std::mutex mu;
  std::condition_variable all_done;
  bool finished = false;  // guarded by mu
};

ParallelForWorkers::ParallelForWorkers(const std::string& name,
                                       int num_helpers) {
  threads_.reserve(std::max(0, num_helpers));
  for (int i = 0; i < num_helpers; ++i) {
    threads_.emplace_back([this] { HelperLoop(); });
    // Linux limits thread names to 15 characters.
    pthread_setname_np(threads_.back().native_handle(),
                       name.substr(0, 15).c_str());
  }
}

ParallelForWorkers::~ParallelForWorkers() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_available_.notify_all();
  for (std::thread& t : threads_) t.join();
}

std::shared_ptr<ParallelForWorkers::Job> ParallelForWorkers::TryPop() {
  if (queued_.load(std::memory_order_acquire) == 0) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  if (queue_.empty()) return nullptr;
  std::shared_ptr<Job> job = std::move(queue_.front());
  queue_.pop_front();
  queued_.fetch_sub(1, std::memory_order_relaxed);
  return job;
}

void ParallelForWorkers::HelperLoop() {
  auto last_work = std::chrono::steady_clock::now();
  for (;;) {
    if (std::shared_ptr<Job> job = TryPop()) {
      job->Help();
      last_work = std::chrono::steady_clock::now();
      continue;
    }
    if (std::chrono::steady_clock::now() - last_work < kHelperSpin) {
      for (int i = 0; i < 64 && queued_.load(std::memory_order_relaxed) == 0;
           ++i) {
        CpuRelax();
      }
      continue;
    }
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      while (queue_.empty() && !stopping_) {
        ++sleeping_;
        work_available_.wait(lock);
        --sleeping_;
      }
      if (queue_.empty()) return;  // stopping, with nothing left to help
      job = std::move(queue_.front());
      queue_.pop_front();
      queued_.fetch_sub(1, std::memory_order_relaxed);
    }
    job->Help();
    last_work = std::chrono::steady_clock::now();
  }
}

void ParallelForWorkers::RunBlocks(
    int64_t total, int64_t block_size, int max_helpers,
    const std::function<void(int64_t, int64_t)>& fn) {
  if (total <= 0) return;
  block_size = std::max<int64_t>(1, block_size);
  const int64_t num_blocks = (total + block_size - 1) / block_size;
  const int helpers = static_cast<int>(
      std::min<int64_t>({static_cast<int64_t>(max_helpers), num_blocks - 1,
                         static_cast<int64_t>(threads_.size())}));
  if (helpers <= 0) {
    for (int64_t first = 0; first < total; first += block_size) {
      fn(first, std::min(total, first + block_size));
    }
    return;
  }
  auto job = std::make_shared<Job>(&fn, total, block_size);
  int to_wake = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int i = 0; i < helpers; ++i) queue_.push_back(job);
    queued_.fetch_add(helpers, std::memory_order_release);
    to_wake = std::min(helpers, sleeping_);
  }
  for (int i = 0; i < to_wake; ++i) work_available_.notify_one();
  job->Help();
  if (job->done.load(std::memory_order_acquire) == num_blocks) return;
  const auto give_up = std::chrono::steady_clock::now() + kCallerSpin;
  for (int i = 1; job->done.load(std::memory_order_acquire) < num_blocks; ++i) {
    CpuRelax();
    if (i % 64 == 0 && std::chrono::steady_clock::now() > give_up) {
      std::unique_lock<std::mutex> lock(job->mu);
      job->all_done.wait(lock, [&job] { return job->finished; });
      return;
    }
  }
}

}  // namespace internal
}  // namespace thread
}  // namespace minflow
