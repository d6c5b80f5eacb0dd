#include "minflow/core/allocator.h"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"

namespace minflow {
namespace {

TEST(AllocatorTest, StatsTrackBytesInUseAndPeak) {
  CpuAllocator a;
  void* p = a.AllocateRaw(64, 1000);
  void* q = a.AllocateRaw(64, 500);
  AllocatorStats s = a.GetStats();
  EXPECT_EQ(s.num_allocs, 2);
  EXPECT_EQ(s.bytes_in_use, 1500);
  EXPECT_EQ(s.peak_bytes_in_use, 1500);
  EXPECT_EQ(s.largest_alloc_size, 1000);
  a.DeallocateRaw(p, 1000);
  s = a.GetStats();
  EXPECT_EQ(s.bytes_in_use, 500);
  EXPECT_EQ(s.peak_bytes_in_use, 1500);
  a.ResetPeak();
  EXPECT_EQ(a.GetStats().peak_bytes_in_use, 500);
  a.DeallocateRaw(q, 500);
  EXPECT_EQ(a.GetStats().bytes_in_use, 0);
}

TEST(AllocatorTest, LimitMakesAllocationFailInsteadOfAborting) {
  CpuAllocator a(/*bytes_limit=*/4096);
  void* p = a.AllocateRaw(64, 4000);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(a.AllocateRaw(64, 200), nullptr);
  EXPECT_EQ(a.GetStats().bytes_in_use, 4000);
  a.DeallocateRaw(p, 4000);
  EXPECT_EQ(a.AllocateRaw(64, SIZE_MAX - 8), nullptr);
}

TEST(AllocatorTest, TensorsReturnTheirMemory) {
  CpuAllocator a;
  {
    Tensor t(&a, DT_DOUBLE, TensorShape({128}));
    Tensor copy = t;
    EXPECT_EQ(a.GetStats().bytes_in_use, 1024);
  }
  EXPECT_EQ(a.GetStats().bytes_in_use, 0);
  EXPECT_EQ(a.GetStats().num_allocs, 1);
}

TEST(AllocatorTest, CountersAreThreadSafe) {
  CpuAllocator a;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&a] {
      for (int i = 0; i < 1000; ++i)
        a.DeallocateRaw(a.AllocateRaw(64, 128), 128);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(a.GetStats().num_allocs, 4000);
  EXPECT_EQ(a.GetStats().bytes_in_use, 0);
  EXPECT_GE(a.GetStats().peak_bytes_in_use, 128);
}

TEST(AllocatorTest, WithoutACacheEveryAllocationIsASystemOne) {
  CpuAllocator a;
  for (int i = 0; i < 3; ++i) a.DeallocateRaw(a.AllocateRaw(64, 4096), 4096);
  EXPECT_EQ(a.GetStats().num_allocs, 3);
  EXPECT_EQ(a.GetStats().num_system_allocs, 3);
  EXPECT_EQ(a.GetStats().bytes_cached, 0);
}

TEST(AllocatorTest, SizeClassesRoundUpByAtMostAnEighth) {
  EXPECT_EQ(CpuAllocator::SizeClass(0), 64u);
  EXPECT_EQ(CpuAllocator::SizeClass(1), 64u);
  EXPECT_EQ(CpuAllocator::SizeClass(65), 128u);
  EXPECT_EQ(CpuAllocator::SizeClass(1024), 1024u);
  EXPECT_EQ(CpuAllocator::SizeClass(1025), 1152u);  // 1024 + 1024/8
  EXPECT_EQ(CpuAllocator::SizeClass(size_t{64} << 20), size_t{64} << 20);
  for (size_t n = 1; n < (size_t{1} << 26); n = n * 3 + 7) {
    const size_t c = CpuAllocator::SizeClass(n);
    EXPECT_EQ(c % kAllocatorAlignment, 0u) << n;
    EXPECT_GE(c, n) << n;
    if (n > 1024) {
      EXPECT_LE(c, n + n / 8 + kAllocatorAlignment) << n;
    }
    EXPECT_EQ(CpuAllocator::SizeClass(c), c) << n;  // a class is its own
  }
}

TEST(AllocatorTest, FreedBuffersAreReusedForTheirSizeClass) {
  CpuAllocator a(/*bytes_limit=*/0, /*max_cached_bytes=*/1 << 20);
  void* p = a.AllocateRaw(64, 5000);
  ASSERT_NE(p, nullptr);
  a.DeallocateRaw(p, 5000);
  EXPECT_EQ(a.GetStats().bytes_cached,
            static_cast<int64_t>(CpuAllocator::SizeClass(5000)));
  // 4990 bytes share 5000's class: the same buffer comes back.
  void* q = a.AllocateRaw(64, 4990);
  EXPECT_EQ(q, p);
  AllocatorStats s = a.GetStats();
  EXPECT_EQ(s.num_allocs, 2);
  EXPECT_EQ(s.num_system_allocs, 1);
  EXPECT_EQ(s.bytes_cached, 0);
  EXPECT_EQ(s.bytes_in_use, 4990);
  // Another class does not take it.
  void* r = a.AllocateRaw(64, 100);
  EXPECT_NE(r, q);
  EXPECT_EQ(a.GetStats().num_system_allocs, 2);
  a.DeallocateRaw(q, 4990);
  a.DeallocateRaw(r, 100);
  EXPECT_EQ(a.GetStats().bytes_in_use, 0);
  a.ReleaseCachedMemory();
  EXPECT_EQ(a.GetStats().bytes_cached, 0);
  a.DeallocateRaw(a.AllocateRaw(64, 5000), 5000);
  EXPECT_EQ(a.GetStats().num_system_allocs, 3);
}

TEST(AllocatorTest, CacheKeepsNoMoreThanItsBound) {
  CpuAllocator a(/*bytes_limit=*/0, /*max_cached_bytes=*/8192);
  void* big = a.AllocateRaw(64, 16384);
  void* small = a.AllocateRaw(64, 4096);
  a.DeallocateRaw(big, 16384);  // over the bound: freed
  a.DeallocateRaw(small, 4096);
  EXPECT_EQ(a.GetStats().bytes_cached, 4096);
  a.DeallocateRaw(a.AllocateRaw(64, 16384), 16384);
  EXPECT_EQ(a.GetStats().num_system_allocs, 3);
}

TEST(AllocatorTest, StricterAlignmentIsHonouredFromTheCache) {
  CpuAllocator a(/*bytes_limit=*/0, /*max_cached_bytes=*/1 << 20);
  for (int i = 0; i < 8; ++i) {
    void* p = a.AllocateRaw(4096, 3000);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 4096, 0u);
    a.DeallocateRaw(p, 3000);
    void* q = a.AllocateRaw(64, 3000);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(q) % 64, 0u);
    a.DeallocateRaw(q, 3000);
  }
}

// The smaps entry of the mapping holding `address`, or "" if none does.
std::string SmapsEntryOf(uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line, entry;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long long begin = 0, end = 0;
    char dash = 0;
    std::istringstream header(line);
    if (line.find(':') > line.find(' ') &&
        (header >> std::hex >> begin >> dash >> end) && dash == '-') {
      if (inside) return entry;
      inside = begin <= address && address < end;
      entry.clear();
    }
    if (inside) entry += line + "\n";
  }
  return inside ? entry : "";
}

bool HasVmFlag(const std::string& entry, const std::string& flag) {
  const size_t flags = entry.find("VmFlags:");
  if (flags == std::string::npos) return false;
  const size_t end = entry.find('\n', flags);
  std::istringstream words(entry.substr(
      flags + 8, end == std::string::npos ? end : end - (flags + 8)));
  std::string word;
  while (words >> word) {
    if (word == flag) return true;
  }
  return false;
}

// Note [Huge pages for large buffers].
TEST(AllocatorTest, LargeBuffersAskForHugePages) {
  std::ifstream setting("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(setting, mode);
  if (mode.empty()) {
    GTEST_SKIP() << "no transparent huge pages in this kernel";
  }
  CpuAllocator allocator(/*bytes_limit=*/0, /*max_cached_bytes=*/0);
  constexpr size_t kLarge = size_t{16} << 20, kSmall = size_t{1} << 20;
  void* large = allocator.AllocateRaw(64, kLarge);
  void* small = allocator.AllocateRaw(64, kSmall);
  ASSERT_NE(large, nullptr);
  ASSERT_NE(small, nullptr);
  // Inside the large buffer, past its first 2 MiB page boundary.
  const std::string large_entry =
      SmapsEntryOf(reinterpret_cast<uintptr_t>(large) + (kLarge / 2));
  ASSERT_NE(large_entry, "");
  // "hg": the mapping was advised MADV_HUGEPAGE.
  EXPECT_TRUE(HasVmFlag(large_entry, "hg")) << large_entry;
  const std::string small_entry =
      SmapsEntryOf(reinterpret_cast<uintptr_t>(small) + (kSmall / 2));
  ASSERT_NE(small_entry, "");
  EXPECT_FALSE(HasVmFlag(small_entry, "hg")) << small_entry;
  allocator.DeallocateRaw(large, kLarge);
  allocator.DeallocateRaw(small, kSmall);
}

TEST(AllocatorTest, CachedCountersAreThreadSafe) {
  CpuAllocator a(/*bytes_limit=*/0, /*max_cached_bytes=*/1 << 20);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&a, t] {
      for (int i = 0; i < 1000; ++i) {
        const size_t n = 64 * (1 + (i + t) % 7);
        a.DeallocateRaw(a.AllocateRaw(64, n), n);
      }
    });
  }
  for (auto& t : threads) t.join();
  const AllocatorStats s = a.GetStats();
  EXPECT_EQ(s.num_allocs, 4000);
  EXPECT_EQ(s.bytes_in_use, 0);
  // At most one buffer per class per thread ever came from the system.
  EXPECT_LE(s.num_system_allocs, 4 * 7);
}

}  // namespace
}  // namespace minflow
