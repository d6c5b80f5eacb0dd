// The GPU kernels' per-element work, run on the host: ExampleTwice,
// ZeroOutElement and MedianPoolOutput (with its two selection paths and
// its value order) against the CPU kernels, over the cases the GPU test
// also runs (custom_op_cases.h), bit for bit. No GPU needed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "src/kernels/example_op.h"
#include "src/kernels/median_pool_functor.h"
#include "src/kernels/median_pool_op.h"
#include "src/kernels/zero_out_functor.h"
#include "tests/cuda/custom_op_cases.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using internal::MedianPoolOutput;
using internal::MedianPoolSelectLocal;
using internal::MedianPoolSelectRadix;
using internal::MedianPoolShape;
using internal::OrderKey;

template <typename T>
bool SameBits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T>
std::string Bits(const T& v) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  std::string out = "0x";
  static const char kHex[] = "0123456789abcdef";
  for (int i = static_cast<int>(sizeof(T)) - 1; i >= 0; --i) {
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 15];
  }
  return out;
}

// The cases' float values as T: floats as they convert; integers map NaN,
// the infinities and the largest floats to small sentinels so every type
// sees ties and extremes within its range.
template <typename T>
T FromCaseValue(float v) {
  if constexpr (std::is_floating_point<T>::value) {
    return static_cast<T>(v);
  } else {
    long long i;
    if (std::isnan(v)) {
      i = 9;
    } else if (v > 1000) {
      i = 120;
    } else if (v < -1000) {
      i = -120;
    } else {
      i = std::llround(v);
    }
    if (std::is_unsigned<T>::value) i += 128;
    return static_cast<T>(i);
  }
}

template <typename T>
std::vector<T> FromCaseValues(const std::vector<float>& values) {
  std::vector<T> out;
  out.reserve(values.size());
  for (float v : values) out.push_back(FromCaseValue<T>(v));
  return out;
}

class CustomOpFunctorsTest : public test::OpsTestBase {
 protected:
  // Runs the CPU kernel of the node built so far on one input.
  template <typename T>
  const Tensor* RunCpu(const TensorShape& shape, const std::vector<T>& in) {
    const Status made = MakeOp();
    EXPECT_TRUE(made.ok()) << made;
    if (!made.ok()) return nullptr;
    AddInputFromArray<T>(shape, absl::Span<const T>(in));
    const Status ran = RunOpKernel();
    EXPECT_TRUE(ran.ok()) << ran;
    if (!ran.ok()) return nullptr;
    return GetOutput(0);
  }

  template <typename T>
  void CheckExample(const test::ExampleCase& c) {
    SCOPED_TRACE(c.name + " " + DataTypeString(DataTypeToEnum<T>::v()));
    const std::vector<T> in = FromCaseValues<T>(c.values);
    MakeNode("Example").Input(DataTypeToEnum<T>::v());
    const Tensor* out = RunCpu<T>(TensorShape(c.shape), in);
    ASSERT_NE(out, nullptr);
    ASSERT_EQ(out->NumElements(), static_cast<int64_t>(in.size()));
    const T* got = out->base<const T>();
    for (size_t i = 0; i < in.size(); ++i) {
      const T want = functor::ExampleTwice(in[i]);
      ASSERT_TRUE(SameBits(got[i], want))
          << "element " << i << " of " << Bits(in[i]) << ": CPU "
          << Bits(got[i]) << ", functor " << Bits(want);
    }
  }

  template <typename T>
  void CheckZeroOut(const test::ZeroOutCase& c) {
    SCOPED_TRACE(c.name + " " + DataTypeString(DataTypeToEnum<T>::v()));
    const std::vector<T> in = FromCaseValues<T>(c.values);
    MakeNode("ZeroOut")
        .Input(DataTypeToEnum<T>::v())
        .Attr("preserve_index", c.preserve_index);
    const int64_t n = static_cast<int64_t>(in.size());
    const Tensor* out = RunCpu<T>(TensorShape({n}), in);
    ASSERT_NE(out, nullptr);
    ASSERT_EQ(out->NumElements(), n);
    const T* got = out->base<const T>();
    for (int64_t i = 0; i < n; ++i) {
      const T want = functor::ZeroOutElement(i, c.preserve_index, in.data());
      ASSERT_TRUE(SameBits(got[i], want))
          << "element " << i << ": CPU " << Bits(got[i]) << ", functor "
          << Bits(want);
    }
  }

  template <typename T>
  void CheckMedianPool(const test::MedianPoolCase& c) {
    SCOPED_TRACE(c.name + " " + DataTypeString(DataTypeToEnum<T>::v()));
    const std::vector<T> in = FromCaseValues<T>(c.Values());
    MakeNode("MedianPool2D")
        .Input(DataTypeToEnum<T>::v())
        .Attr("ksize", c.ksize())
        .Attr("strides", c.strides())
        .Attr("padding", c.padding);
    const Tensor* out = RunCpu<T>(TensorShape(c.shape), in);
    ASSERT_NE(out, nullptr);
    ASSERT_EQ(out->dims(), 4);
    ASSERT_EQ(out->dim_size(0), c.shape[0]);
    ASSERT_EQ(out->dim_size(3), c.shape[3]);
    const MedianPoolShape s = ShapeFor(c, *out);
    // The geometry the GPU kernel gets, from the checks both kernels share.
    PoolParameters params;
    params.ksize = c.ksize();
    params.strides = c.strides();
    params.padding = c.padding == "SAME" ? SAME : VALID;
    PoolDimensions d;
    TensorShape out_shape;
    MF_ASSERT_OK(ComputeMedianPoolDimensions(params, TensorShape(c.shape), &d,
                                             &out_shape));
    EXPECT_EQ(out_shape, out->shape());
    const MedianPoolShape shared = internal::ToMedianPoolShape(d);
    EXPECT_TRUE(std::memcmp(&shared, &s, sizeof(s)) == 0)
        << "pads " << shared.pad_rows_before << "," << shared.pad_cols_before
        << " vs " << s.pad_rows_before << "," << s.pad_cols_before;
    const T* got = out->base<const T>();
    for (int64_t i = 0; i < out->NumElements(); ++i) {
      const T want = MedianPoolOutput(s, in.data(), i);
      ASSERT_TRUE(SameBits(got[i], want))
          << "output " << i << ": CPU " << Bits(got[i]) << ", functor "
          << Bits(want);
    }
  }

  // The geometry, computed here independently of the kernels
  // (TensorFlow's SAME: the odd padding element goes after).
  static MedianPoolShape ShapeFor(const test::MedianPoolCase& c,
                                  const Tensor& out) {
    MedianPoolShape s;
    s.input_rows = c.shape[1];
    s.input_cols = c.shape[2];
    s.depth = c.shape[3];
    s.out_rows = out.dim_size(1);
    s.out_cols = out.dim_size(2);
    s.filter_rows = c.ksize_rows;
    s.filter_cols = c.ksize_cols;
    s.stride_rows = c.stride_rows;
    s.stride_cols = c.stride_cols;
    if (c.padding == "SAME") {
      auto before = [](int64_t in, int64_t k, int64_t stride, int64_t out) {
        return std::max<int64_t>((out - 1) * stride + k - in, 0) / 2;
      };
      s.pad_rows_before =
          before(s.input_rows, s.filter_rows, s.stride_rows, s.out_rows);
      s.pad_cols_before =
          before(s.input_cols, s.filter_cols, s.stride_cols, s.out_cols);
    }
    return s;
  }
};

TEST_F(CustomOpFunctorsTest, ExampleTwiceMatchesTheCpuKernel) {
  for (const test::ExampleCase& c : test::ExampleCases()) {
    CheckExample<float>(c);
    CheckExample<double>(c);
    CheckExample<int32_t>(c);
    CheckExample<int64_t>(c);
  }
}

TEST_F(CustomOpFunctorsTest, ExampleTwiceWrapsSignedOverflow) {
  EXPECT_EQ(functor::ExampleTwice(std::numeric_limits<int32_t>::max()), -2);
  EXPECT_EQ(functor::ExampleTwice(std::numeric_limits<int32_t>::min()), 0);
  EXPECT_EQ(functor::ExampleTwice(int8_t{-100}), int8_t{56});
  EXPECT_EQ(functor::ExampleTwice(uint8_t{200}), uint8_t{144});
}

TEST_F(CustomOpFunctorsTest, ZeroOutElementMatchesTheCpuKernel) {
  for (const test::ZeroOutCase& c : test::ZeroOutCases()) {
    CheckZeroOut<float>(c);
    CheckZeroOut<double>(c);
    CheckZeroOut<int32_t>(c);
  }
}

TEST_F(CustomOpFunctorsTest, ZeroOutErrorCasesFailOnTheCpu) {
  for (const test::ZeroOutErrorCase& c : test::ZeroOutErrorCases()) {
    SCOPED_TRACE(c.name);
    MakeNode("ZeroOut").Input(DT_FLOAT).Attr("preserve_index",
                                             c.preserve_index);
    MF_ASSERT_OK(MakeOp());
    const TensorShape shape(c.shape);
    AddInputTensor(Tensor(DT_FLOAT, shape));
    const Status s = RunOpKernel();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_NE(std::string(s.message()).find(c.message), std::string::npos) << s;
  }
}

TEST_F(CustomOpFunctorsTest, MedianPoolOutputMatchesTheCpuKernel) {
  for (const test::MedianPoolCase& c : test::MedianPoolCases()) {
    CheckMedianPool<float>(c);
    CheckMedianPool<double>(c);
    if (!c.signed_zeros_only) {
      CheckMedianPool<int32_t>(c);
      CheckMedianPool<uint8_t>(c);
      CheckMedianPool<int64_t>(c);
    }
  }
}

// The order of Note [Median order]: -inf < negatives < -0 < +0 < positives
// < +inf < NaN (every NaN one key), and keys map back bit for bit except
// that a NaN comes back as the canonical quiet NaN.
TEST(MedianOrderKeyTest, FloatKeysAreATotalOrderWithNanOnTop) {
  auto f = [](uint32_t bits) {
    float v;
    std::memcpy(&v, &bits, sizeof(v));
    return v;
  };
  const std::vector<float> ascending = {
      -std::numeric_limits<float>::infinity(),
      -std::numeric_limits<float>::max(),
      -1.5f,
      -std::numeric_limits<float>::denorm_min(),
      -0.0f,
      0.0f,
      std::numeric_limits<float>::denorm_min(),
      1.5f,
      std::numeric_limits<float>::max(),
      std::numeric_limits<float>::infinity(),
      f(0x7FC00000u),
  };
  for (size_t i = 0; i + 1 < ascending.size(); ++i) {
    EXPECT_LT(OrderKey<float>::To(ascending[i]),
              OrderKey<float>::To(ascending[i + 1]))
        << i;
  }
  for (size_t i = 0; i + 1 < ascending.size(); ++i) {
    const float back = OrderKey<float>::From(OrderKey<float>::To(ascending[i]));
    EXPECT_TRUE(SameBits(back, ascending[i])) << i;
  }
  for (uint32_t nan :
       {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFFFFFFFu, 0x7FC01234u}) {
    EXPECT_EQ(OrderKey<float>::To(f(nan)), OrderKey<float>::To(f(0x7FC00000u)));
    EXPECT_TRUE(SameBits(OrderKey<float>::From(OrderKey<float>::To(f(nan))),
                         f(0x7FC00000u)));
  }
  const double nan = std::nan("");
  EXPECT_LT(OrderKey<double>::To(-0.0), OrderKey<double>::To(0.0));
  EXPECT_LT(OrderKey<double>::To(std::numeric_limits<double>::infinity()),
            OrderKey<double>::To(-nan));
}

// Both selection paths against std::nth_element, on windows of every size
// each serves, with ties, laid out as in an NHWC tensor (channel 1 of 3,
// rows 2 columns apart).
template <typename T>
void CheckSelection(uint32_t seed, int64_t max_n, bool local) {
  using Key = typename OrderKey<T>::Key;
  std::mt19937 rng(seed);
  for (int64_t rows = 1; rows <= max_n; ++rows) {
    for (int64_t cols = 1; rows * cols <= max_n; ++cols) {
      if (!local && rows * cols < max_n / 2 && cols > 1) continue;
      constexpr int64_t kDepth = 3;
      constexpr int64_t kChannel = 1;
      const int64_t row_pitch = (cols + 2) * kDepth;
      std::vector<T> data(rows * row_pitch);
      std::vector<Key> keys;
      for (int64_t y = 0; y < rows; ++y) {
        for (int64_t x = 0; x < cols + 2; ++x) {
          for (int64_t c = 0; c < kDepth; ++c) {
            const float v =
                static_cast<float>(static_cast<int>(rng() % 23)) - 11.0f;
            const T t = FromCaseValue<T>(v);
            data[y * row_pitch + x * kDepth + c] = t;
            if (x < cols && c == kChannel) keys.push_back(OrderKey<T>::To(t));
          }
        }
      }
      const int64_t n = rows * cols;
      const int64_t r = (n - 1) / 2;
      std::nth_element(keys.begin(), keys.begin() + r, keys.end());
      const T* pixel = data.data() + kChannel;
      const Key got =
          local
              ? MedianPoolSelectLocal(pixel, rows, cols, row_pitch, kDepth,
                                      static_cast<int>(r))
              : MedianPoolSelectRadix(pixel, rows, cols, row_pitch, kDepth, r);
      ASSERT_EQ(got, keys[r])
          << rows << "x" << cols << (local ? " local" : " radix");
      // Every rank, for the radix path on small windows.
      if (!local && n <= 12) {
        std::sort(keys.begin(), keys.end());
        for (int64_t k = 0; k < n; ++k) {
          ASSERT_EQ(
              MedianPoolSelectRadix(pixel, rows, cols, row_pitch, kDepth, k),
              keys[k])
              << "rank " << k;
        }
      }
    }
  }
}

TEST(MedianSelectionTest, LocalPathSelectsTheLowerMedian) {
  CheckSelection<float>(1, internal::kMedianPoolLocalWindow, true);
  CheckSelection<double>(2, internal::kMedianPoolLocalWindow, true);
  CheckSelection<int32_t>(3, internal::kMedianPoolLocalWindow, true);
  CheckSelection<uint8_t>(4, internal::kMedianPoolLocalWindow, true);
}

TEST(MedianSelectionTest, RadixPathSelectsTheLowerMedian) {
  CheckSelection<float>(5, 200, false);
  CheckSelection<double>(6, 200, false);
  CheckSelection<int32_t>(7, 200, false);
  CheckSelection<uint8_t>(8, 200, false);
  CheckSelection<int64_t>(9, 200, false);
}

}  // namespace
}  // namespace minflow
