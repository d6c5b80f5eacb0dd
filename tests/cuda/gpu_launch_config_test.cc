// GetGpuLaunchConfig (src/cuda/gpu_launch_config.h), on the host: a
// grid-stride loop over its launch handles every element exactly once,
// blocks and threads stay within the device's limits, small work gets small
// launches, no work gets none, and huge counts neither overflow nor exceed
// the resident blocks.
#include "src/cuda/gpu_launch_config.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace minflow {
namespace {

// An H100's limits: 132 SMs of 2048 resident threads, blocks of 1024.
constexpr int kSms = 132;
constexpr int kThreadsPerSm = 2048;

// Runs the grid-stride loop of every thread of `config` on the host and
// counts how often each element is visited.
std::vector<int> Visits(const GpuLaunchConfig& config) {
  std::vector<int> visits(config.virtual_thread_count, 0);
  const int64_t stride =
      static_cast<int64_t>(config.block_count) * config.thread_per_block;
  for (int64_t b = 0; b < config.block_count; ++b) {
    for (int64_t t = 0; t < config.thread_per_block; ++t) {
      for (int64_t i = b * config.thread_per_block + t;
           i < config.virtual_thread_count; i += stride) {
        ++visits[i];
      }
    }
  }
  return visits;
}

void ExpectWithinLimits(const GpuLaunchConfig& c, int64_t work, int sms,
                        int per_sm, int per_block) {
  SCOPED_TRACE(::testing::Message()
               << "work " << work << " sms " << sms << " per_sm " << per_sm
               << " per_block " << per_block);
  EXPECT_EQ(c.virtual_thread_count, work);
  EXPECT_GE(c.block_count, 1);
  EXPECT_GE(c.thread_per_block, 1);
  EXPECT_LE(c.thread_per_block, per_block);
  EXPECT_LE(c.thread_per_block, 1024);
  if (per_block >= 32) {
    EXPECT_EQ(c.thread_per_block % 32, 0);
  }
  // No more blocks than the device holds at once, nor than the work needs.
  const int64_t resident =
      static_cast<int64_t>(sms) *
      (std::max<int64_t>(per_sm, c.thread_per_block) / c.thread_per_block);
  EXPECT_LE(c.block_count, resident);
  EXPECT_LE(static_cast<int64_t>(c.block_count - 1) * c.thread_per_block,
            work - 1)
      << "a block with no element to handle";
}

TEST(GpuLaunchConfigTest, NoWorkLaunchesNothing) {
  for (int64_t work :
       {int64_t{0}, int64_t{-1}, std::numeric_limits<int64_t>::min()}) {
    const GpuLaunchConfig c = GetGpuLaunchConfig(work, kSms, kThreadsPerSm);
    EXPECT_EQ(c.block_count, 0);
    EXPECT_EQ(c.thread_per_block, 0);
    EXPECT_EQ(c.virtual_thread_count, 0);
  }
}

TEST(GpuLaunchConfigTest, SmallWorkGetsOneWarpRoundedBlock) {
  GpuLaunchConfig c = GetGpuLaunchConfig(1, kSms, kThreadsPerSm);
  EXPECT_EQ(c.block_count, 1);
  EXPECT_EQ(c.thread_per_block, 32);
  EXPECT_EQ(c.virtual_thread_count, 1);
  c = GetGpuLaunchConfig(100, kSms, kThreadsPerSm);
  EXPECT_EQ(c.block_count, 1);
  EXPECT_EQ(c.thread_per_block, 128);
  c = GetGpuLaunchConfig(1024, kSms, kThreadsPerSm);
  EXPECT_EQ(c.block_count, 1);
  EXPECT_EQ(c.thread_per_block, 1024);
  c = GetGpuLaunchConfig(1025, kSms, kThreadsPerSm);
  EXPECT_EQ(c.block_count, 2);
  EXPECT_EQ(c.thread_per_block, 1024);
}

TEST(GpuLaunchConfigTest, LargeWorkFillsTheDeviceOnce) {
  // 2 resident blocks of 1024 threads per SM: 264 blocks, then the loop.
  const GpuLaunchConfig c = GetGpuLaunchConfig(10'000'000, kSms, kThreadsPerSm);
  EXPECT_EQ(c.thread_per_block, 1024);
  EXPECT_EQ(c.block_count, kSms * 2);
  EXPECT_EQ(c.virtual_thread_count, 10'000'000);
}

TEST(GpuLaunchConfigTest, GridStrideCoversEveryElementExactlyOnce) {
  struct Device {
    int sms, per_sm, per_block;
  };
  const std::vector<Device> devices = {
      {kSms, kThreadsPerSm, 1024},
      {1, 1024, 1024},
      {2, 64, 64},
      {3, 96, 1000},  // a block limit that is no whole number of warps
      {5, 2048, 16},  // blocks under a warp
      {1, 1, 1},
  };
  const std::vector<int64_t> works = {
      1, 2, 31, 32, 33, 255, 1000, 1023, 1024, 1025, 4097, 9999, 65537, 300001};
  for (const Device& d : devices) {
    for (int64_t work : works) {
      const GpuLaunchConfig c =
          GetGpuLaunchConfig(work, d.sms, d.per_sm, d.per_block);
      ExpectWithinLimits(c, work, d.sms, d.per_sm, d.per_block);
      const std::vector<int> visits = Visits(c);
      ASSERT_EQ(static_cast<int64_t>(visits.size()), work);
      for (int64_t i = 0; i < work; ++i) {
        ASSERT_EQ(visits[i], 1) << "element " << i << " of " << work << " on "
                                << d.sms << " SMs, block limit " << d.per_block;
      }
    }
  }
}

TEST(GpuLaunchConfigTest, BlockLimitsAreRespected) {
  GpuLaunchConfig c = GetGpuLaunchConfig(5000, 4, 2048, 1000);
  EXPECT_EQ(c.thread_per_block, 992);  // whole warps under the limit
  EXPECT_EQ(c.block_count, 6);         // ceil(5000 / 992)
  c = GetGpuLaunchConfig(5000, 4, 2048, 16);
  EXPECT_EQ(c.thread_per_block, 16);
  EXPECT_EQ(c.block_count, 313);  // ceil(5000 / 16), under 4 * 128 resident
  c = GetGpuLaunchConfig(5000, 4, 2048, 4096);  // over CUDA's 1024
  EXPECT_EQ(c.thread_per_block, 1024);
  c = GetGpuLaunchConfig(5, 4, 2048, 16);
  EXPECT_EQ(c.thread_per_block, 5);
  EXPECT_EQ(c.block_count, 1);
}

TEST(GpuLaunchConfigTest, NonsensicalLimitsStillLaunchACoveringGrid) {
  for (int bad : {0, -1, std::numeric_limits<int>::min()}) {
    GpuLaunchConfig c = GetGpuLaunchConfig(1000, bad, bad, bad);
    EXPECT_EQ(c.block_count, 1);
    EXPECT_EQ(c.thread_per_block, 1);
    EXPECT_EQ(c.virtual_thread_count, 1000);
    c = GetGpuLaunchConfig(1000, bad, kThreadsPerSm);
    EXPECT_EQ(c.thread_per_block, 1000 / 32 * 32 + 32);
    EXPECT_EQ(c.block_count, 1);
  }
}

TEST(GpuLaunchConfigTest, HugeCountsNeitherOverflowNorExceedTheDevice) {
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  for (int64_t work : {int64_t{1} << 31, int64_t{1} << 40, kMax - 1, kMax}) {
    GpuLaunchConfig c = GetGpuLaunchConfig(work, kSms, kThreadsPerSm);
    ExpectWithinLimits(c, work, kSms, kThreadsPerSm, 1024);
    EXPECT_EQ(c.block_count, kSms * 2);
    EXPECT_EQ(c.thread_per_block, 1024);
    // Even a device with int-max SMs of int-max threads: blocks stay an
    // int.
    const int kIntMax = std::numeric_limits<int>::max();
    c = GetGpuLaunchConfig(work, kIntMax, kIntMax, 1024);
    EXPECT_EQ(c.thread_per_block, 1024);
    EXPECT_EQ(c.block_count, std::min<int64_t>(kIntMax, (work - 1) / 1024 + 1));
    EXPECT_EQ(c.virtual_thread_count, work);
  }
}

}  // namespace
}  // namespace minflow
