// Thread pools over Eigen's non-blocking pool, shared by the executor, Eigen
// expressions (through ThreadPoolDevice) and Shard().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace Eigen {
class ThreadPoolDevice;
class ThreadPoolInterface;
}  // namespace Eigen

namespace minflow {
namespace thread {

// A fixed set of worker threads. Schedule and ParallelFor are thread-safe;
// the destructor waits for scheduled work to finish.
class ThreadPool {
 public:
  // `num_threads` >= 1; `name` appears in traces and debuggers.
  ThreadPool(const std::string& name, int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Schedule(std::function<void()> fn);
  int NumThreads() const;
  // Index of the calling thread in this pool, or -1 outside it.
  int CurrentThreadId() const;
  // Runs fn(first, last) over [0, total) split into blocks sized from
  // `cost_per_unit` (roughly, cycles per element), on the pool and the
  // calling thread; returns when all are done.
  void ParallelFor(int64_t total, int64_t cost_per_unit,
                   const std::function<void(int64_t, int64_t)>& fn);

  Eigen::ThreadPoolInterface* AsEigenThreadPool() const;
  // An Eigen device that evaluates tensor expressions on this pool.
  const Eigen::ThreadPoolDevice& eigen_device() const;
  const std::string& name() const { return name_; }

 private:
  struct Impl;
  const std::string name_;
  std::unique_ptr<Impl> impl_;
};

// Threads to use when the user asked for 0 ("all"): the cores this process
// may run on.
int DefaultNumThreads();

}  // namespace thread
}  // namespace minflow
