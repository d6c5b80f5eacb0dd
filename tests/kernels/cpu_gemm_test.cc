// The GEMM library path on its own (Note [CPU GEMM library]); MatMul,
// _FusedMatMul, BatchMatMul and Conv2D tests run it through the kernels.
#include "src/kernels/cpu_gemm.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace minflow {
namespace internal {
namespace {

bool EigenRequested() {
  const char* choice = std::getenv("MINFLOW_GEMM");
  return choice != nullptr && std::strcmp(choice, "eigen") == 0;
}

std::vector<float> RandomValues(int64_t count, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = dist(gen);
  return v;
}

TEST(CpuGemmTest, TinyProductsAndGemvsStayWithEigen) {
  EXPECT_FALSE(UseLibraryGemm(16, 16, 16));
  EXPECT_FALSE(UseLibraryGemm(1, 4096, 4096));
  EXPECT_FALSE(UseLibraryGemm(0, 4096, 4096));
}

TEST(CpuGemmTest, EigenWhenAsked) {
  if (!EigenRequested()) {
    GTEST_SKIP()
        << "runs as ctest cpu_gemm_test_eigen, with MINFLOW_GEMM=eigen";
  }
  EXPECT_FALSE(UseLibraryGemm(1024, 1024, 1024));
  EXPECT_FALSE(LibraryGemmOnThisThread(GemmArgs{}));
}

// Every transpose, ragged sizes, and leading dimensions wider than the
// rows (as Conv2D's tiles and BatchMatMul's batches pass them), against a
// double-precision triple loop; the padding around C must stay untouched.
TEST(CpuGemmTest, MatchesReferenceForAllTransposesAndStrides) {
  if (!UseLibraryGemm(64, 64, 64)) {
    GTEST_SKIP() << "oneDNN's libdnnl.so.2 is not installed (Debian package "
                    "libdnnl2, which scripts/setup.sh installs) or "
                    "MINFLOW_GEMM=eigen: products run on Eigen";
  }
  const int64_t shapes[][3] = {{37, 61, 53}, {64, 64, 64}, {2, 300, 517}};
  for (const auto& s : shapes) {
    const int64_t m = s[0], k = s[1], n = s[2];
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "m=" << m << " k=" << k << " n="
                                          << n << " ta=" << ta << " tb=" << tb);
        const int64_t a_rows = ta ? k : m, a_cols = ta ? m : k;
        const int64_t b_rows = tb ? n : k, b_cols = tb ? k : n;
        const int64_t lda = a_cols + 3, ldb = b_cols + 5, ldc = n + 7;
        const std::vector<float> a = RandomValues(a_rows * lda, 1);
        const std::vector<float> b = RandomValues(b_rows * ldb, 2);
        constexpr float kUntouched = 12345.0f;
        std::vector<float> c(m * ldc, kUntouched);
        ASSERT_TRUE(LibraryGemmOnThisThread(GemmArgs{
            ta, tb, m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc}));
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < ldc; ++j) {
            if (j >= n) {
              ASSERT_EQ(c[i * ldc + j], kUntouched) << i << "," << j;
              continue;
            }
            double sum = 0;
            for (int64_t p = 0; p < k; ++p) {
              const double av = ta ? a[p * lda + i] : a[i * lda + p];
              const double bv = tb ? b[j * ldb + p] : b[p * ldb + j];
              sum += av * bv;
            }
            ASSERT_NEAR(c[i * ldc + j], sum, 1e-5 * k) << i << "," << j;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace internal
}  // namespace minflow
