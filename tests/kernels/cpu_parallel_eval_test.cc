#include "src/kernels/cpu_parallel_eval.h"

#include <cstdint>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/threadpool.h"

namespace minflow {
namespace internal {
namespace {

template <typename T>
using Flat = Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, int64_t>,
                              Eigen::Aligned>;
template <typename T>
using ConstFlat =
    Eigen::TensorMap<Eigen::Tensor<const T, 1, Eigen::RowMajor, int64_t>,
                     Eigen::Aligned>;

// Sizes around the block and packet edges, and one large enough to split.
constexpr int64_t kSizes[] = {1, 15, 64, 65, 1000, 1 << 20, (1 << 20) + 3};

TEST(AssignOnCpuTest, BinaryExpressionMatchesAScalarLoop) {
  for (int threads : {1, 2, 3}) {
    thread::ThreadPool pool("test", threads);
    for (int64_t n : kSizes) {
      std::vector<float> a(n), b(n), out(n, -1.0f);
      for (int64_t i = 0; i < n; ++i) {
        a[i] = static_cast<float>(i % 1000) * 0.5f;
        b[i] = static_cast<float>(i % 7) - 3.0f;
      }
      AssignOnCpu(
          pool.eigen_device(), Flat<float>(out.data(), n),
          ConstFlat<float>(a.data(), n) * ConstFlat<float>(b.data(), n) +
              ConstFlat<float>(a.data(), n));
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(out[i], a[i] * b[i] + a[i])
            << "element " << i << " of " << n << ", " << threads << " threads";
      }
    }
  }
}

TEST(AssignOnCpuTest, NonVectorizedTypeMatchesAScalarLoop) {
  thread::ThreadPool pool("test", 2);
  for (int64_t n : kSizes) {
    std::vector<uint8_t> a(n), out(n);
    for (int64_t i = 0; i < n; ++i) a[i] = static_cast<uint8_t>(i * 31);
    std::unique_ptr<bool[]> flags(new bool[n]);
    AssignOnCpu(pool.eigen_device(), Flat<bool>(flags.get(), n),
                ConstFlat<uint8_t>(a.data(), n) >
                    ConstFlat<uint8_t>(a.data(), n).constant(uint8_t{100}));
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(flags[i], a[i] > 100) << "element " << i << " of " << n;
    }
  }
}

TEST(AssignOnCpuTest, BroadcastKeepsEigensTiledExecutor) {
  thread::ThreadPool pool("test", 2);
  constexpr int64_t kRows = 513, kCols = 257;
  std::vector<float> row(kCols), out(kRows * kCols);
  for (int64_t j = 0; j < kCols; ++j) row[j] = static_cast<float>(j);
  Eigen::TensorMap<Eigen::Tensor<float, 2, Eigen::RowMajor, int64_t>> out2(
      out.data(), kRows, kCols);
  Eigen::TensorMap<Eigen::Tensor<const float, 2, Eigen::RowMajor, int64_t>>
      row2(row.data(), 1, kCols);
  AssignOnCpu(pool.eigen_device(), out2,
              row2.broadcast(Eigen::array<int64_t, 2>{kRows, 1}));
  for (int64_t i = 0; i < kRows; ++i) {
    for (int64_t j = 0; j < kCols; ++j) {
      ASSERT_EQ(out[i * kCols + j], row[j]) << i << "," << j;
    }
  }
}

TEST(CpuParallelForTest, LargeWorkSplitsIntoAlignedBlocks) {
  thread::ThreadPool pool("test", 2);
  constexpr int64_t kTotal = (1 << 20) + 5;
  std::vector<std::atomic<int>> hits(kTotal);
  std::mutex mu;
  std::set<std::thread::id> threads;
  std::vector<int64_t> starts;
  CpuParallelFor(pool.eigen_device(), kTotal, Eigen::TensorOpCost(8, 4, 1), 64,
                 [&](int64_t first, int64_t last) {
                   for (int64_t i = first; i < last; ++i) hits[i]++;
                   std::lock_guard<std::mutex> lock(mu);
                   threads.insert(std::this_thread::get_id());
                   starts.push_back(first);
                 });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  // Up to four blocks a thread.
  EXPECT_GE(starts.size(), 2u);
  EXPECT_LE(starts.size(), 8u);
  for (int64_t s : starts) EXPECT_EQ(s % 64, 0) << s;
  EXPECT_LE(threads.size(), 2u);
}

TEST(CpuParallelForTest, SmallWorkRunsInlineInOneBlock) {
  thread::ThreadPool pool("test", 2);
  int calls = 0;
  CpuParallelFor(pool.eigen_device(), 100, Eigen::TensorOpCost(8, 4, 1), 64,
                 [&](int64_t first, int64_t last) {
                   ++calls;
                   EXPECT_EQ(first, 0);
                   EXPECT_EQ(last, 100);
                 });
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace internal
}  // namespace minflow
