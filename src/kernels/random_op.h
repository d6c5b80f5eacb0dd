// Shared pieces of the Philox-based random kernels: a mutex-guarded
// generator for the seeded (stateful) ops, and the CPU fill that shards a
// tensor over the intra-op threads without changing its values.
#pragma once

#include <algorithm>
#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "minflow/core/status.h"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/device.h"
#include "src/kernels/random/philox.h"
#include "src/kernels/random/random_distributions.h"

namespace minflow {

class OpKernelConstruction;

// Note [Random op determinism]
// A seeded kernel owns one Philox stream. Each Compute reserves a window of
// it under a lock (output_count * 256 blocks, as TensorFlow's
// ReserveRandomOutputs), then fills the output outside the lock. The fill
// splits the output into groups of Distribution::kResultElementCount values;
// group g starts at a counter fixed by g alone (g blocks for one block per
// group; g * kReservedSamplesPerOutput * group / 4 blocks for rejection
// samplers), so the values do not depend on how Shard() splits the groups
// or on the intra-op thread count. Seeds (0, 0) draw a fresh random seed
// pair per kernel, as TensorFlow does.

// A Philox stream shared by the calls of one kernel. Thread-safe.
class GuardedPhiloxRandom {
 public:
  GuardedPhiloxRandom() = default;
  GuardedPhiloxRandom(const GuardedPhiloxRandom&) = delete;
  GuardedPhiloxRandom& operator=(const GuardedPhiloxRandom&) = delete;

  // Seeds from the "seed" and "seed2" attrs.
  Status Init(OpKernelConstruction* ctx);
  // Both zero: nondeterministic seeds.
  void Init(int64_t seed, int64_t seed2);

  // A generator for the next `blocks` 128-bit blocks; the stream moves past
  // them.
  random::PhiloxRandom ReserveSamples128(int64_t blocks);
  random::PhiloxRandom ReserveRandomOutputs(int64_t output_count,
                                            int multiplier) {
    return ReserveSamples128(output_count * multiplier);
  }

 private:
  absl::Mutex mu_;
  random::PhiloxRandom generator_ ABSL_GUARDED_BY(mu_);
};

namespace functor {

// Counter blocks each rejection-sampled group owns (TensorFlow's 256 per
// output: enough that running past it is astronomically unlikely).
constexpr int64_t kReservedSamplesPerOutput = 256;

// Fills data[0, size) from `gen` with `dist`, sharded over `workers`. See
// Note [Random op determinism].
template <typename Distribution, typename T>
void FillPhiloxRandom(const DeviceBase::CpuWorkerThreads& workers,
                      const random::PhiloxRandom& gen, T* data, int64_t size,
                      const Distribution& dist) {
  static constexpr int64_t kGroupSize = Distribution::kResultElementCount;
  const int64_t groups = (size + kGroupSize - 1) / kGroupSize;
  const int64_t cost = kGroupSize * (random::PhiloxRandom::kElementCost +
                                     Distribution::kElementCost);
  auto work = [&gen, data, size, &dist](int64_t begin, int64_t end) {
    T group[kGroupSize];
    random::PhiloxRandom local = gen;
    if constexpr (Distribution::kVariableSamplesPerOutput) {
      constexpr int64_t kSkipPerGroup =
          kGroupSize * kReservedSamplesPerOutput /
          random::PhiloxRandom::kResultElementCount;
      local.Skip(static_cast<uint64_t>(begin) * kSkipPerGroup);
      for (int64_t g = begin; g < end; ++g) {
        random::PhiloxRandom window = local;
        random::SingleSampleAdapter single(&window);
        dist(&single, group);
        const int64_t offset = g * kGroupSize;
        std::copy_n(
            group,
            std::min<int64_t>(Distribution::kResultElementCount, size - offset),
            data + offset);
        local.Skip(kSkipPerGroup);
      }
    } else {
      local.Skip(static_cast<uint64_t>(begin));
      for (int64_t g = begin; g < end; ++g) {
        dist(&local, group);
        const int64_t offset = g * kGroupSize;
        std::copy_n(
            group,
            std::min<int64_t>(Distribution::kResultElementCount, size - offset),
            data + offset);
      }
    }
  };
  Shard(workers.num_threads, workers.workers, groups, cost, work);
}

}  // namespace functor
}  // namespace minflow
