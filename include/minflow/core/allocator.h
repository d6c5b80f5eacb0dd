// Allocator: the interface every device's memory comes through, with stats
// (bytes in use, peak, allocations) that benchmarks and tests observe.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace minflow {

// Alignment of every tensor buffer: a cache line, enough for AVX-512.
inline constexpr size_t kAllocatorAlignment = 64;

struct AllocatorStats {
  int64_t num_allocs = 0;
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

// The host allocator: aligned malloc plus atomic counters. `bytes_limit` (0 =
// none) makes allocations past it fail, which tests use to exercise OOM.
class CpuAllocator final : public Allocator {
 public:
  explicit CpuAllocator(int64_t bytes_limit = 0) : bytes_limit_(bytes_limit) {}
  CpuAllocator(const CpuAllocator&) = delete;
  CpuAllocator& operator=(const CpuAllocator&) = delete;

  std::string Name() const override { return "cpu"; }
  void* AllocateRaw(size_t alignment, size_t num_bytes) override;
  void DeallocateRaw(void* ptr, size_t num_bytes) override;
  AllocatorStats GetStats() const override;
  void ResetPeak() override;

 private:
  const int64_t bytes_limit_;
  std::atomic<int64_t> num_allocs_{0};
  std::atomic<int64_t> bytes_in_use_{0};
  std::atomic<int64_t> peak_bytes_in_use_{0};
  std::atomic<int64_t> largest_alloc_size_{0};
};

// The process-wide host allocator (never destroyed). The environment
// variable MINFLOW_CPU_MEMORY_LIMIT (bytes, read at first use) caps what it
// hands out; allocations past it fail as ResourceExhausted in kernels.
Allocator* cpu_allocator();

}  // namespace minflow
