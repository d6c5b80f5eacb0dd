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

// Outputs of kStreamingStoreBytes or more go out through streaming stores
// (Note [Streaming stores for large outputs]): aligned outputs with a tail
// shorter than a packet, a misaligned output (ordinary stores), an output
// that is also an input, and doubles.
template <typename T>
void CheckLargeOutput(int threads, int64_t offset, bool in_place) {
  SCOPED_TRACE(::testing::Message() << sizeof(T) << "-byte type, " << threads
                                    << " threads, output offset " << offset
                                    << (in_place ? ", in place" : ""));
  thread::ThreadPool pool("test", threads);
  const int64_t n = kStreamingStoreBytes / static_cast<int64_t>(sizeof(T)) + 37;
  // 64-byte aligned storage, with room for the offset.
  std::vector<T, Eigen::aligned_allocator<T>> a(n), b(n), out(n + offset, -1);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = static_cast<T>(i % 1000) * T(0.5);
    b[i] = static_cast<T>(i % 7) - T(3);
  }
  const std::vector<T, Eigen::aligned_allocator<T>> a0 = a;
  T* dst = in_place ? a.data() : out.data() + offset;
  Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, int64_t>> dst_map(dst,
                                                                          n);
  AssignOnCpu(pool.eigen_device(), dst_map,
              ConstFlat<T>(a.data(), n) * ConstFlat<T>(b.data(), n) +
                  ConstFlat<T>(b.data(), n));
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(dst[i], a0[i] * b[i] + b[i]) << "element " << i << " of " << n;
  }
}

TEST(AssignOnCpuTest, LargeOutputsMatchAScalarLoop) {
  for (int threads : {1, 2}) {
    CheckLargeOutput<float>(threads, 0, false);
    CheckLargeOutput<float>(threads, 1, false);
    CheckLargeOutput<float>(threads, 0, true);
    CheckLargeOutput<double>(threads, 0, false);
  }
}

// Which outputs count as read by the expression: only an expression that
// provably does not read the output may stream into it.
TEST(AssignOnCpuTest, MayReadFindsTheOutputAmongTheLeaves) {
  std::vector<float> a(16), b(16), out(16);
  const ConstFlat<float> ma(a.data(), 16), mb(b.data(), 16);
  EXPECT_FALSE(MayRead(ma + mb, out.data()));
  EXPECT_TRUE(MayRead(ma + mb, b.data()));
  EXPECT_TRUE(MayRead((ma * mb).exp() + ma, a.data()));
  EXPECT_FALSE(MayRead((ma * mb).exp() + ma, out.data()));
  EXPECT_TRUE(MayRead(ma.cast<double>(), a.data()));
  EXPECT_TRUE(MayRead((ma > mb).select(ma, mb), b.data()));
  EXPECT_FALSE(MayRead((ma > mb).select(ma, mb), out.data()));
  EXPECT_FALSE(MayRead(ma.constant(1.0f), out.data()));
  // An expression it does not know counts as reading anything.
  EXPECT_TRUE(MayRead(ma.reverse(Eigen::array<bool, 1>{true}), out.data()));
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
