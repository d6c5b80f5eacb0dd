// MedianPool2D's order and one output value's median, shared by the CPU
// kernel (median_pool_op.cc, which uses the order), the GPU kernel
// (median_pool_op_gpu.cu, one thread per output value) and the host tests.
// nvcc- and g++-safe: no CUDA or Eigen includes; the __host__ __device__
// functions use only integer and bit operations.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "src/kernels/gpu_host_device.h"

namespace minflow {
namespace internal {

// The bits of `from` as a To of the same size.
template <typename To, typename From>
MF_HOST_DEVICE inline To MedianBitCast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "same size");
  To to;
  // Through void*: Eigen's half types are trivially copyable but not
  // trivial, which GCC's -Wclass-memaccess flags.
  memcpy(static_cast<void*>(&to), &from, sizeof(To));
  return to;
}

// See Note [Median order] in median_pool_op.cc: values map to integer keys
// whose order is the median's (a total order), and back. Integers are
// their own keys.
template <typename T>
struct OrderKey {
  using Key = T;
  MF_HOST_DEVICE static Key To(T v) { return v; }
  MF_HOST_DEVICE static T From(Key k) { return k; }
};

// Floats: flip the magnitude bits of negatives (so -0 lands just below +0)
// and map every NaN to the canonical quiet NaN, above +inf.
template <typename T, typename Bits, Bits kInfBits, Bits kQuietNanBits>
struct FloatOrderKey {
  using Key = std::make_signed_t<Bits>;
  static constexpr Bits kSign = Bits{1} << (8 * sizeof(Bits) - 1);

  MF_HOST_DEVICE static Key To(T v) {
    const Bits b = MedianBitCast<Bits>(v);
    // All ones for a negative value, whose magnitude bits then flip.
    const Bits flip =
        static_cast<Bits>(static_cast<Key>(b) >> (8 * sizeof(Bits) - 1)) &
        static_cast<Bits>(~kSign);
    const Bits key = static_cast<Bits>(b & ~kSign) > kInfBits
                         ? kQuietNanBits
                         : static_cast<Bits>(b ^ flip);
    return static_cast<Key>(key);
  }
  MF_HOST_DEVICE static T From(Key k) {
    const Bits flip = k < 0 ? static_cast<Bits>(~kSign) : Bits{0};
    return MedianBitCast<T>(static_cast<Bits>(static_cast<Bits>(k) ^ flip));
  }
};

template <>
struct OrderKey<float>
    : FloatOrderKey<float, uint32_t, 0x7F800000u, 0x7FC00000u> {};
template <>
struct OrderKey<double> : FloatOrderKey<double, uint64_t, 0x7FF0000000000000ull,
                                        0x7FF8000000000000ull> {};
// median_pool_op.cc adds half and bfloat16.

// The geometry of one MedianPool2D (NHWC), as a GPU kernel takes it by
// value: the input and output sizes, the window and the padding before.
struct MedianPoolShape {
  int64_t input_rows = 0;
  int64_t input_cols = 0;
  int64_t depth = 0;
  int64_t out_rows = 0;
  int64_t out_cols = 0;
  int64_t filter_rows = 0;
  int64_t filter_cols = 0;
  int64_t stride_rows = 1;
  int64_t stride_cols = 1;
  int64_t pad_rows_before = 0;
  int64_t pad_cols_before = 0;
};

// Windows of up to this many in-image values select their median in a
// per-thread array; larger ones by radix selection over the input.
inline constexpr int kMedianPoolLocalWindow = 64;

// The in-image rectangle [h0, h1) x [w0, w1) of one output value's window.
struct MedianPoolWindow {
  int64_t h0, h1, w0, w1;
};

MF_HOST_DEVICE inline MedianPoolWindow MedianPoolWindowAt(
    const MedianPoolShape& s, int64_t oh, int64_t ow) {
  const int64_t h_start = oh * s.stride_rows - s.pad_rows_before;
  const int64_t w_start = ow * s.stride_cols - s.pad_cols_before;
  const int64_t h_end = h_start + s.filter_rows;
  const int64_t w_end = w_start + s.filter_cols;
  return {
      h_start > 0 ? h_start : 0, h_end < s.input_rows ? h_end : s.input_rows,
      w_start > 0 ? w_start : 0, w_end < s.input_cols ? w_end : s.input_cols};
}

// The key of rank r (0-based, ascending) among the window's n <=
// kMedianPoolLocalWindow values: keeps the r + 1 smallest keys seen so far,
// sorted, in a per-thread array (an insertion sort that stops at r + 1).
// `pixel` points at the window's top-left value; values are `depth` apart
// along a row and `row_pitch` apart down a column.
template <typename T>
MF_HOST_DEVICE inline typename OrderKey<T>::Key MedianPoolSelectLocal(
    const T* pixel, int64_t rows, int64_t cols, int64_t row_pitch,
    int64_t depth, int r) {
  using Key = typename OrderKey<T>::Key;
  Key best[kMedianPoolLocalWindow / 2];  // r < n / 2 + 1 <= 32 entries
  const int keep = r + 1;
  int m = 0;
  for (int64_t y = 0; y < rows; ++y) {
    const T* row = pixel + y * row_pitch;
    for (int64_t x = 0; x < cols; ++x) {
      const Key k = OrderKey<T>::To(row[x * depth]);
      int j;
      if (m < keep) {
        j = m++;
      } else if (k < best[keep - 1]) {
        j = keep - 1;
      } else {
        continue;
      }
      while (j > 0 && k < best[j - 1]) {
        best[j] = best[j - 1];
        --j;
      }
      best[j] = k;
    }
  }
  return best[keep - 1];
}

// The key of rank r among the window's values, for any window size: a
// radix selection from the most significant bit of the keys (taken as
// unsigned, order-preserving), each pass counting the values that share
// the bits found so far and have a 0 next. One pass over the window per
// key bit; no memory beyond a few registers.
template <typename T>
MF_HOST_DEVICE inline typename OrderKey<T>::Key MedianPoolSelectRadix(
    const T* pixel, int64_t rows, int64_t cols, int64_t row_pitch,
    int64_t depth, int64_t r) {
  using Key = typename OrderKey<T>::Key;
  using U = std::make_unsigned_t<Key>;
  constexpr int kBits = 8 * static_cast<int>(sizeof(Key));
  // Signed keys become unsigned in the same order by flipping the sign.
  constexpr U kFlip =
      std::is_signed<Key>::value ? static_cast<U>(U{1} << (kBits - 1)) : U{0};
  U prefix = 0;  // the bits of the answer found so far
  U mask = 0;    // which bits those are
  for (int bit = kBits - 1; bit >= 0; --bit) {
    const U bit_mask = static_cast<U>(U{1} << bit);
    int64_t zeros = 0;  // values matching prefix with a 0 at `bit`
    for (int64_t y = 0; y < rows; ++y) {
      const T* row = pixel + y * row_pitch;
      for (int64_t x = 0; x < cols; ++x) {
        const U u = static_cast<U>(
            static_cast<U>(OrderKey<T>::To(row[x * depth])) ^ kFlip);
        zeros += (static_cast<U>(u & mask) == prefix &&
                  static_cast<U>(u & bit_mask) == 0);
      }
    }
    if (r >= zeros) {
      r -= zeros;
      prefix = static_cast<U>(prefix | bit_mask);
    }
    mask = static_cast<U>(mask | bit_mask);
  }
  return static_cast<Key>(static_cast<U>(prefix ^ kFlip));
}

// Output value `index` of the flattened [batch, out_rows, out_cols, depth]
// output: the lower median (Note [Median order]) of the in-image values of
// its window, exactly as the CPU kernel computes it.
template <typename T>
MF_HOST_DEVICE inline T MedianPoolOutput(const MedianPoolShape& s,
                                         const T* input, int64_t index) {
  const int64_t c = index % s.depth;
  int64_t rest = index / s.depth;
  const int64_t ow = rest % s.out_cols;
  rest /= s.out_cols;
  const int64_t oh = rest % s.out_rows;
  const int64_t b = rest / s.out_rows;
  const MedianPoolWindow w = MedianPoolWindowAt(s, oh, ow);
  const int64_t rows = w.h1 - w.h0;
  const int64_t cols = w.w1 - w.w0;
  const int64_t row_pitch = s.input_cols * s.depth;
  const T* pixel =
      input + ((b * s.input_rows + w.h0) * s.input_cols + w.w0) * s.depth + c;
  // Every window holds at least one in-image value (VALID windows lie
  // inside; a SAME window's padding before is under half the window).
  const int64_t n = rows * cols;
  const int64_t r = (n - 1) / 2;
  if (n <= kMedianPoolLocalWindow) {
    return OrderKey<T>::From(MedianPoolSelectLocal(
        pixel, rows, cols, row_pitch, s.depth, static_cast<int>(r)));
  }
  return OrderKey<T>::From(
      MedianPoolSelectRadix(pixel, rows, cols, row_pitch, s.depth, r));
}

}  // namespace internal
}  // namespace minflow
