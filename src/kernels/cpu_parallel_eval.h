// Element-wise Eigen assignments and index loops on the CPU intra-op pool,
// with the calling thread taking blocks beside the pool's helpers (Note
// [Caller-joined parallel loops] in src/core/parallel_for_workers.h).
// Eigen's own ThreadPoolDevice::parallelFor hands the whole range to the
// pool when it cuts more blocks than the pool has threads, and the caller
// only waits: with N-1 helpers, that would leave a core idle.
#pragma once

#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "minflow/core/threadpool.h"
#include "minflow/core/work_sharder.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {
namespace internal {

// Cycles per element under Eigen's cost model, as Shard's cost_per_unit.
inline int64_t CyclesPerElement(const Eigen::TensorOpCost& cost) {
  const double cycles =
      Eigen::TensorCostModel<Eigen::ThreadPoolDevice>::totalCost(1, cost);
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(cycles)));
}

// Runs fn(first, last) over [0, total) in blocks whose sizes are multiples
// of `align`, on `d`'s pool and the calling thread; like
// d.parallelFor(total, cost, fn). Small work runs inline.
template <typename Fn>
void CpuParallelFor(const Eigen::ThreadPoolDevice& d, int64_t total,
                    const Eigen::TensorOpCost& cost, int64_t align, Fn&& fn) {
  if (total <= 0) return;
  if (d.numThreads() <= 1) {
    fn(0, total);
    return;
  }
  const int64_t cycles = CyclesPerElement(cost);
  // Up to four blocks a thread, taken as threads come free: a thread that
  // the machine slows (these VMs share their cores) then holds the others
  // up by at most a quarter of its share.
  int64_t block = ShardBlockSize(4 * d.numThreads(), total, cycles);
  thread::ThreadPool* pool =
      block < total ? thread::ThreadPool::FromEigenDevice(d) : nullptr;
  if (pool == nullptr) {
    if (block < total) {
      // Not a minflow pool: Eigen's loop is the next best.
      d.parallelFor(total, cost, std::forward<Fn>(fn));
    } else {
      fn(0, total);
    }
    return;
  }
  block = (block + align - 1) / align * align;
  pool->RunBlocks(total, block, d.numThreads(),
                  [&fn](int64_t first, int64_t last) { fn(first, last); });
}

// dst.device(d) = expr, with the blocks evaluated by CpuParallelFor.
// Expressions that Eigen evaluates tile by tile (broadcasts, shuffles) keep
// Eigen's executor.
template <typename Dst, typename Expr>
void AssignOnCpu(const Eigen::ThreadPoolDevice& d, Dst dst, const Expr& expr) {
  using Assign = const Eigen::TensorAssignOp<Dst, const Expr>;
  using Evaluator = Eigen::TensorEvaluator<Assign, Eigen::ThreadPoolDevice>;
  using Index = typename Assign::Index;
  constexpr bool kVectorizable =
      Eigen::internal::IsVectorizable<Eigen::ThreadPoolDevice, Assign>::value;
  if constexpr (Eigen::internal::IsTileable<Eigen::ThreadPoolDevice,
                                            Assign>::value) {
    dst.device(d) = expr;
  } else {
    using Range = Eigen::internal::EvalRange<Evaluator, Index, kVectorizable>;
    Assign assign(dst, expr);
    Evaluator evaluator(assign, d);
    if (evaluator.evalSubExprsIfNeeded(nullptr)) {
      const int64_t size = Eigen::internal::array_prod(evaluator.dimensions());
      // Range::run wants every block to start on a packet; 64 elements is
      // a multiple of every packet size.
      CpuParallelFor(d, size, evaluator.costPerCoeff(kVectorizable), 64,
                     [&evaluator](int64_t first, int64_t last) {
                       Range::run(&evaluator, static_cast<Index>(first),
                                  static_cast<Index>(last));
                     });
    }
    evaluator.cleanup();
  }
}

}  // namespace internal
}  // namespace minflow
