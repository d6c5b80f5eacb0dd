#define EIGEN_USE_THREADS
#include "minflow/core/threadpool.h"

#include <sched.h>

#include <thread>

#include "minflow/core/logging.h"
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
}  // namespace

struct ThreadPool::Impl {
  explicit Impl(int num_threads)
      : pool(num_threads, AllowSpinning(num_threads)),
        device(&pool, num_threads) {}
  Eigen::ThreadPool pool;
  Eigen::ThreadPoolDevice device;
};

ThreadPool::ThreadPool(const std::string& name, int num_threads) : name_(name) {
  MF_CHECK_GE(num_threads, 1);
  impl_ = std::make_unique<Impl>(num_threads);
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
  if (total <= 0) return;
  // Eigen sizes blocks from a cost model: bytes moved count for little here,
  // compute cycles are what the caller estimated.
  const Eigen::TensorOpCost cost(0, 0, static_cast<double>(cost_per_unit));
  impl_->device.parallelFor(
      total, cost,
      [&fn](Eigen::Index first, Eigen::Index last) { fn(first, last); });
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
