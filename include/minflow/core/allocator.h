// Allocator: the interface every device's memory comes through, with stats
// (bytes in use, peak, allocations) that benchmarks and tests observe.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace minflow {

// Alignment of every tensor buffer: a cache line, enough for AVX-512.
inline constexpr size_t kAllocatorAlignment = 64;

struct AllocatorStats {
  int64_t num_allocs = 0;
  // Allocations the allocator had to get from the system (malloc) because
  // no freed buffer of their size class was cached; num_allocs minus this
  // were reuses. Equal to num_allocs for allocators that do not cache.
  int64_t num_system_allocs = 0;
  // Freed memory kept for reuse, not counted in bytes_in_use.
  int64_t bytes_cached = 0;
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t largest_alloc_size = 0;
  // 0 means no limit.
  int64_t bytes_limit = 0;
  std::string DebugString() const;
};

// Hands out raw, aligned memory. Implementations are thread-safe.
class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual std::string Name() const = 0;
  // Returns nullptr when the memory cannot be had (limit, OOM); never aborts.
  virtual void* AllocateRaw(size_t alignment, size_t num_bytes) = 0;
  // `ptr` must come from this allocator's AllocateRaw with `num_bytes`.
  virtual void DeallocateRaw(void* ptr, size_t num_bytes) = 0;
  virtual AllocatorStats GetStats() const = 0;
  // Starts a new peak measurement from the current bytes in use.
  virtual void ResetPeak() = 0;
};

// The host allocator: aligned malloc behind a cache of freed buffers, plus
// atomic counters. See Note [Host allocator cache]. `bytes_limit` (0 = none)
// makes allocations past it fail, which tests use to exercise OOM;
// `max_cached_bytes` (0 = no cache) bounds the freed memory kept.
class CpuAllocator final : public Allocator {
 public:
  explicit CpuAllocator(int64_t bytes_limit = 0, int64_t max_cached_bytes = 0);
  ~CpuAllocator() override;
  CpuAllocator(const CpuAllocator&) = delete;
  CpuAllocator& operator=(const CpuAllocator&) = delete;

  std::string Name() const override { return "cpu"; }
  void* AllocateRaw(size_t alignment, size_t num_bytes) override;
  void DeallocateRaw(void* ptr, size_t num_bytes) override;
  AllocatorStats GetStats() const override;
  void ResetPeak() override;
  // Returns every cached buffer to the system.
  void ReleaseCachedMemory();

  // The size, a multiple of kAllocatorAlignment, that a cached buffer for
  // `num_bytes` has: exact up to 1 KiB, then eight classes per power of two
  // (at most 12.5% more than asked).
  static size_t SizeClass(size_t num_bytes);

 private:
  void* SystemAllocate(size_t alignment, size_t size);

  const int64_t bytes_limit_;
  const int64_t max_cached_bytes_;
  std::atomic<int64_t> num_allocs_{0};
  std::atomic<int64_t> num_system_allocs_{0};
  std::atomic<int64_t> bytes_in_use_{0};
  std::atomic<int64_t> peak_bytes_in_use_{0};
  std::atomic<int64_t> largest_alloc_size_{0};
  // Freed buffers by size class (allocator.cc).
  struct Cache;
  const std::unique_ptr<Cache> cache_;
};

// The process-wide host allocator (never destroyed). The environment
// variable MINFLOW_CPU_MEMORY_LIMIT (bytes, read at first use) caps what it
// hands out; allocations past it fail as ResourceExhausted in kernels.
// MINFLOW_CPU_ALLOCATOR_CACHE (bytes; default 1GiB, 0 under AddressSanitizer
// so that it sees every free) bounds the freed memory it keeps for reuse.
Allocator* cpu_allocator();

}  // namespace minflow
