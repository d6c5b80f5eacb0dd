// The column panels of Note [Packed GEMV panels]: their layout, and that a
// range of panels writes exactly its own columns, as the split over the
// pool relies on. The kernels that read them are covered by matmul_op_test
// and fused_matmul_op_test.
#include "src/kernels/matmul_gemv.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace minflow {
namespace internal {
namespace {

std::vector<float> Numbers(int64_t count) {
  std::vector<float> v(count);
  for (int64_t i = 0; i < count; ++i) v[i] = static_cast<float>(i % 13) - 6;
  return v;
}

// Aligned like a Tensor's buffer, as GemvOverPanels expects.
struct Panels {
  explicit Panels(int64_t size)
      : buffer(static_cast<float*>(
            Eigen::internal::aligned_malloc(size * sizeof(float)))) {}
  ~Panels() { Eigen::internal::aligned_free(buffer); }
  float* buffer;
};

TEST(GemvPanelsTest, PanelsHoldEachColumnsRowsInOrderPaddedWithZeros) {
  const int64_t width = GemvPanelWidth();
  const int64_t k = 3, n = width + 5;
  ASSERT_EQ(GemvPanelsSize(k, n), 2 * k * width);
  const std::vector<float> b = Numbers(k * n);
  std::vector<float> b_t(n * k);
  for (int64_t r = 0; r < k; ++r) {
    for (int64_t j = 0; j < n; ++j) b_t[j * k + r] = b[r * n + j];
  }
  for (bool transpose_b : {false, true}) {
    SCOPED_TRACE(transpose_b);
    Panels panels(GemvPanelsSize(k, n));
    PackGemvPanels(transpose_b ? b_t.data() : b.data(), transpose_b, k, n,
                   panels.buffer);
    for (int64_t r = 0; r < k; ++r) {
      for (int64_t j = 0; j < 2 * width; ++j) {
        const float want = j < n ? b[r * n + j] : 0.0f;
        EXPECT_EQ(panels.buffer[(j / width * k + r) * width + j % width], want)
            << "row " << r << " column " << j;
      }
    }
  }
}

TEST(GemvPanelsTest, ARangeOfPanelsWritesOnlyItsColumns) {
  const int64_t width = GemvPanelWidth();
  const int64_t k = 37, n = 3 * width - 7;
  const std::vector<float> a = Numbers(k);
  const std::vector<float> b = Numbers(k * n);
  Panels panels(GemvPanelsSize(k, n));
  PackGemvPanels(b.data(), false, k, n, panels.buffer);
  for (int64_t first = 0; first < 3; ++first) {
    for (int64_t last = first + 1; last <= 3; ++last) {
      SCOPED_TRACE(::testing::Message() << first << ".." << last);
      std::vector<float> out(n, -100.0f);
      GemvOverPanels(a.data(), k, panels.buffer, n, first, last, out.data());
      for (int64_t j = 0; j < n; ++j) {
        float want = -100.0f;
        if (j >= first * width && j < last * width) {
          want = 0;  // small integers: the sum is exact in any order
          for (int64_t r = 0; r < k; ++r) want += a[r] * b[r * n + j];
        }
        EXPECT_EQ(out[j], want) << "column " << j;
      }
    }
  }
}

}  // namespace
}  // namespace internal
}  // namespace minflow
