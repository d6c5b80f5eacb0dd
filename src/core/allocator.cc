#include "minflow/core/allocator.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/numeric/bits.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
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

// Note [Huge pages for large buffers]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Debian's kernels back memory with 2 MiB pages only where a process asks
// (transparent_hugepage=madvise). A kernel streaming through a large
// tensor on 4 KiB pages misses the TLB every 4 KiB: an AddV2 of two
// 16M-float tensors on one thread took 11.0-13.5 ms (median) with huge
// pages off and 9.0-10.1 ms with this advice, alternating three times
// (minflow bench on the peer graph add_big). So buffers of
// kMinHugePageBytes or more ask for huge pages over the whole 2 MiB pages
// inside them. It is advice: where the kernel has none to give, or huge
// pages are off, nothing changes.
constexpr size_t kHugePageBytes = size_t{2} << 20;
constexpr size_t kMinHugePageBytes = size_t{8} << 20;

void AdviseHugePages(void* ptr, size_t size) {
  if (size < kMinHugePageBytes) return;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(ptr);
  const uintptr_t first = (begin + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const uintptr_t last = (begin + size) & ~(kHugePageBytes - 1);
  if (last <= first) return;
  // Failure (an old kernel, huge pages compiled out) leaves 4 KiB pages.
  (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

}  // namespace

std::string AllocatorStats::DebugString() const {
  return absl::StrCat(
      "num_allocs=", num_allocs, " num_system_allocs=", num_system_allocs,
      " bytes_cached=", bytes_cached, " bytes_in_use=", bytes_in_use,
      " peak_bytes_in_use=", peak_bytes_in_use,
      " largest_alloc_size=", largest_alloc_size, " bytes_limit=", bytes_limit);
}

// Note [Host allocator cache]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A static graph allocates the same sizes on every run. Handed back to
// malloc, a large buffer (glibc maps anything above its mmap threshold,
// at most 32 MiB, straight from the kernel) is unmapped, and the next run
// maps it again and page-faults every page in: an AddV2 of two 16M-float
// tensors spent more time faulting its 64 MiB output in than adding. So
// freed buffers are kept by size class and handed out again, up to
// max_cached_bytes; after the first run a static graph's allocations are
// all reuses (AllocatorStats::num_system_allocs stops growing), as with
// TensorFlow's BFC allocator or ONNX Runtime's arena. The classes round a
// request up by at most 12.5%; bytes_in_use counts what was asked.

struct CpuAllocator::Cache {
  mutable absl::Mutex mu;
  absl::flat_hash_map<size_t, std::vector<void*>> buffers ABSL_GUARDED_BY(mu);
  int64_t bytes ABSL_GUARDED_BY(mu) = 0;
};

CpuAllocator::CpuAllocator(int64_t bytes_limit, int64_t max_cached_bytes)
    : bytes_limit_(bytes_limit),
      max_cached_bytes_(max_cached_bytes),
      cache_(std::make_unique<Cache>()) {}

size_t CpuAllocator::SizeClass(size_t num_bytes) {
  constexpr size_t kA = kAllocatorAlignment;
  const size_t rounded = num_bytes == 0 ? kA : (num_bytes + kA - 1) / kA * kA;
  if (rounded <= 1024) return rounded;
  const size_t step = absl::bit_floor(rounded) / 8;
  return (rounded + step - 1) / step * step;
}

void* CpuAllocator::SystemAllocate(size_t alignment, size_t size) {
  void* ptr = std::aligned_alloc(alignment, size);
  if (ptr == nullptr && max_cached_bytes_ > 0) {
    ReleaseCachedMemory();  // the cache may hold what the system lacks
    ptr = std::aligned_alloc(alignment, size);
  }
  if (ptr != nullptr) {
    num_system_allocs_.fetch_add(1, std::memory_order_relaxed);
    AdviseHugePages(ptr, size);
  }
  return ptr;
}

void* CpuAllocator::AllocateRaw(size_t alignment, size_t num_bytes) {
  if (alignment < kAllocatorAlignment) alignment = kAllocatorAlignment;
  // aligned_alloc wants a size that is a multiple of the alignment; guard the
  // rounding against overflow for absurd sizes.
  if (num_bytes > SIZE_MAX / 2 - alignment) return nullptr;
  const int64_t size = static_cast<int64_t>(num_bytes);
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
  void* ptr = nullptr;
  if (max_cached_bytes_ > 0) {
    const size_t cls = SizeClass(num_bytes);
    {
      absl::MutexLock lock(&cache_->mu);
      auto it = cache_->buffers.find(cls);
      if (it != cache_->buffers.end() && !it->second.empty() &&
          reinterpret_cast<uintptr_t>(it->second.back()) % alignment == 0) {
        ptr = it->second.back();
        it->second.pop_back();
        cache_->bytes -= static_cast<int64_t>(cls);
      }
    }
    // aligned_alloc wants a multiple of the alignment; a buffer of a
    // stricter alignment than the classes' is larger than its class, which
    // a later reuse for that class does not mind.
    if (ptr == nullptr) {
      ptr = SystemAllocate(alignment,
                           (cls + alignment - 1) / alignment * alignment);
    }
  } else {
    const size_t rounded = (num_bytes + alignment - 1) / alignment * alignment;
    ptr = SystemAllocate(alignment, rounded == 0 ? alignment : rounded);
  }
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
  if (max_cached_bytes_ > 0) {
    const size_t cls = SizeClass(num_bytes);
    absl::MutexLock lock(&cache_->mu);
    if (cache_->bytes + static_cast<int64_t>(cls) <= max_cached_bytes_) {
      cache_->buffers[cls].push_back(ptr);
      cache_->bytes += static_cast<int64_t>(cls);
      return;
    }
  }
  std::free(ptr);
}

void CpuAllocator::ReleaseCachedMemory() {
  absl::flat_hash_map<size_t, std::vector<void*>> cache;
  {
    absl::MutexLock lock(&cache_->mu);
    cache.swap(cache_->buffers);
    cache_->bytes = 0;
  }
  for (auto& [cls, buffers] : cache) {
    for (void* ptr : buffers) std::free(ptr);
  }
}

CpuAllocator::~CpuAllocator() { ReleaseCachedMemory(); }

AllocatorStats CpuAllocator::GetStats() const {
  AllocatorStats stats;
  stats.num_allocs = num_allocs_.load(std::memory_order_relaxed);
  stats.num_system_allocs = num_system_allocs_.load(std::memory_order_relaxed);
  {
    absl::MutexLock lock(&cache_->mu);
    stats.bytes_cached = cache_->bytes;
  }
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

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// A cache would hide a use after free from AddressSanitizer, which only
// sees memory that is really freed.
constexpr int64_t kDefaultCacheBytes = kAddressSanitizer ? 0 : int64_t{1} << 30;

// The allocator cannot fail its callers over the environment, so a value
// that does not parse is logged, not ignored in silence; the minflow command
// refuses to start with it (minflow_main.cc).
int64_t BytesFromEnvOr(StatusOr<int64_t> bytes, int64_t fallback,
                       const char* meaning) {
  if (!bytes.ok()) {
    MF_LOG(ERROR) << bytes.status().message() << "; the host allocator "
                  << meaning;
    return fallback;
  }
  return *bytes;
}

}  // namespace

Allocator* cpu_allocator() {
  static Allocator* const allocator = new CpuAllocator(
      BytesFromEnvOr(CpuMemoryLimitFromEnv(), 0, "has no limit"),
      BytesFromEnvOr(CpuAllocatorCacheFromEnv(kDefaultCacheBytes),
                     kDefaultCacheBytes, "keeps its default cache"));
  return allocator;
}

}  // namespace minflow
