#include "minflow/core/allocator.h"

#include "absl/strings/str_cat.h"
#include "minflow/core/logging.h"
#include "minflow/core/memory_limit.h"

namespace minflow {
namespace {

void UpdateMax(std::atomic<int64_t>* target, int64_t value) {
  int64_t current = target->load(std::memory_order_relaxed);
  while (value > current && !target->compare_exchange_weak(
                                current, value, std::memory_order_relaxed)) {
  }
}

}  // namespace

std::string AllocatorStats::DebugString() const {
  return absl::StrCat("num_allocs=", num_allocs, " bytes_in_use=", bytes_in_use,
                      " peak_bytes_in_use=", peak_bytes_in_use,
                      " largest_alloc_size=", largest_alloc_size,
                      " bytes_limit=", bytes_limit);
}

void* CpuAllocator::AllocateRaw(size_t alignment, size_t num_bytes) {
  if (alignment < kAllocatorAlignment) alignment = kAllocatorAlignment;
  // aligned_alloc wants a size that is a multiple of the alignment; guard the
  // rounding against overflow for absurd sizes.
  if (num_bytes > SIZE_MAX - alignment) return nullptr;
  const size_t rounded = (num_bytes + alignment - 1) / alignment * alignment;
  const int64_t size = static_cast<int64_t>(num_bytes);
  if (size < 0) return nullptr;
  if (bytes_limit_ > 0) {
    const int64_t after =
        bytes_in_use_.fetch_add(size, std::memory_order_relaxed) + size;
    if (after > bytes_limit_) {
      bytes_in_use_.fetch_sub(size, std::memory_order_relaxed);
      return nullptr;
    }
  } else {
    bytes_in_use_.fetch_add(size, std::memory_order_relaxed);
  }
  void* ptr = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
  if (ptr == nullptr) {
    bytes_in_use_.fetch_sub(size, std::memory_order_relaxed);
    return nullptr;
  }
  num_allocs_.fetch_add(1, std::memory_order_relaxed);
  UpdateMax(&peak_bytes_in_use_, bytes_in_use_.load(std::memory_order_relaxed));
  UpdateMax(&largest_alloc_size_, size);
  return ptr;
}

void CpuAllocator::DeallocateRaw(void* ptr, size_t num_bytes) {
  if (ptr == nullptr) return;
  bytes_in_use_.fetch_sub(static_cast<int64_t>(num_bytes),
                          std::memory_order_relaxed);
  std::free(ptr);
}

AllocatorStats CpuAllocator::GetStats() const {
  AllocatorStats stats;
  stats.num_allocs = num_allocs_.load(std::memory_order_relaxed);
  stats.bytes_in_use = bytes_in_use_.load(std::memory_order_relaxed);
  stats.peak_bytes_in_use = peak_bytes_in_use_.load(std::memory_order_relaxed);
  stats.largest_alloc_size =
      largest_alloc_size_.load(std::memory_order_relaxed);
  stats.bytes_limit = bytes_limit_;
  return stats;
}

void CpuAllocator::ResetPeak() {
  peak_bytes_in_use_.store(bytes_in_use_.load(std::memory_order_relaxed),
                           std::memory_order_relaxed);
}

namespace {

// The allocator cannot fail its callers over the environment, so a value
// that does not parse is logged, not ignored in silence; the minflow command
// refuses to start with it (minflow_main.cc).
int64_t CpuMemoryLimitOrNone() {
  StatusOr<int64_t> limit = CpuMemoryLimitFromEnv();
  if (!limit.ok()) {
    MF_LOG(ERROR) << limit.status().message()
                  << "; the host allocator has no limit";
    return 0;
  }
  return *limit;
}

}  // namespace

Allocator* cpu_allocator() {
  static Allocator* const allocator = new CpuAllocator(CpuMemoryLimitOrNone());
  return allocator;
}

}  // namespace minflow
