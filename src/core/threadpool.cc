#define EIGEN_USE_THREADS
#include "minflow/core/threadpool.h"

#include <sched.h>

#include <algorithm>
#include <thread>

#include "absl/base/call_once.h"
#include "minflow/core/logging.h"
#include "minflow/core/work_sharder.h"
#include "parallel_for_workers.h"
#include "unsupported/Eigen/CXX11/Tensor"
#include "unsupported/Eigen/CXX11/ThreadPool"

namespace minflow {
namespace thread {

// Note [Pool spinning]: Eigen's pool lets an idle worker spin a while
// before it sleeps, which saves a wake-up when work comes soon, but only
// if the spinner has a core of its own. A pool as wide as the machine
// shares the cores with the thread that calls into it, so there a spinning
// worker takes a core from the two that compute: on 2 cores, 2 intra-op
// threads ran cnn_small 1.6x and mlp_b64 1.5x slower than with spinning
// off (bench/README.md).
namespace {
bool AllowSpinning(int num_threads) {
  return num_threads < DefaultNumThreads();
}

// Eigen's pool, knowing which ThreadPool it belongs to
// (ThreadPool::FromEigenDevice).
class OwnedEigenPool : public Eigen::ThreadPool {
 public:
  OwnedEigenPool(int num_threads, thread::ThreadPool* owner)
      : Eigen::ThreadPool(num_threads, AllowSpinning(num_threads)),
        owner_(owner) {}
  thread::ThreadPool* owner() const { return owner_; }

 private:
  thread::ThreadPool* const owner_;
};

}  // namespace

struct ThreadPool::Impl {
  Impl(int num_threads, ThreadPool* owner)
      : pool(num_threads, owner), device(&pool, num_threads) {}
  OwnedEigenPool pool;
  Eigen::ThreadPoolDevice device;
  // Made on the first RunBlocks: most pools (the inter-op pool, the
  // constant folder's) never run a parallel loop.
  absl::once_flag helpers_once;
  std::unique_ptr<internal::ParallelForWorkers> helpers;
};

ThreadPool::ThreadPool(const std::string& name, int num_threads) : name_(name) {
  MF_CHECK_GE(num_threads, 1);
  impl_ = std::make_unique<Impl>(num_threads, this);
}

ThreadPool::~ThreadPool() = default;

void ThreadPool::Schedule(std::function<void()> fn) {
  impl_->pool.Schedule(std::move(fn));
}

int ThreadPool::NumThreads() const { return impl_->pool.NumThreads(); }

int ThreadPool::CurrentThreadId() const {
  return impl_->pool.CurrentThreadId();
}

void ThreadPool::ParallelFor(int64_t total, int64_t cost_per_unit,
                             const std::function<void(int64_t, int64_t)>& fn) {
  Shard(NumThreads(), this, total, cost_per_unit, fn);
}

void ThreadPool::RunBlocks(int64_t total, int64_t block_size,
                           int max_parallelism,
                           const std::function<void(int64_t, int64_t)>& fn) {
  if (total <= 0) return;
  const int helpers = std::min(max_parallelism, NumThreads()) - 1;
  if (helpers <= 0 || block_size >= total) {
    fn(0, total);
    return;
  }
  absl::call_once(impl_->helpers_once, [this] {
    impl_->helpers =
        std::make_unique<internal::ParallelForWorkers>(name_, NumThreads() - 1);
  });
  impl_->helpers->RunBlocks(total, block_size, helpers, fn);
}

ThreadPool* ThreadPool::FromEigenDevice(const Eigen::ThreadPoolDevice& device) {
  const auto* pool = dynamic_cast<const OwnedEigenPool*>(device.getPool());
  return pool != nullptr ? pool->owner() : nullptr;
}

Eigen::ThreadPoolInterface* ThreadPool::AsEigenThreadPool() const {
  return &impl_->pool;
}

const Eigen::ThreadPoolDevice& ThreadPool::eigen_device() const {
  return impl_->device;
}

int DefaultNumThreads() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

}  // namespace thread
}  // namespace minflow
