#include "minflow/core/allocator.h"

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

}  // namespace
}  // namespace minflow
