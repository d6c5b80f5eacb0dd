// Thread pools: Eigen's non-blocking pool for Schedule (the executor) and
// for Eigen expressions through ThreadPoolDevice, and NumThreads() - 1
// helper threads, made on first use, for the parallel loops of Shard(),
// ParallelFor and RunBlocks, in which the calling thread takes blocks too
// (Note [Caller-joined parallel loops] in src/core/parallel_for_workers.h).
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
  // `cost_per_unit` (roughly, cycles per element), on the calling thread
  // and up to NumThreads() - 1 helpers; returns when all are done.
  void ParallelFor(int64_t total, int64_t cost_per_unit,
                   const std::function<void(int64_t, int64_t)>& fn);
  // Runs fn(first, last) for each block of `block_size` units of
  // [0, total), on the calling thread and up to max_parallelism - 1 of
  // NumThreads() - 1 helper threads, which take blocks as they come free
  // and spin briefly between loops (Note [Caller-joined parallel loops] in
  // src/core/parallel_for_workers.h); returns when all are done. `fn` must
  // be safe to call concurrently on disjoint ranges.
  void RunBlocks(int64_t total, int64_t block_size, int max_parallelism,
                 const std::function<void(int64_t, int64_t)>& fn);

  // The pool whose eigen_device() `device` is, or null for another device.
  static ThreadPool* FromEigenDevice(const Eigen::ThreadPoolDevice& device);

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
