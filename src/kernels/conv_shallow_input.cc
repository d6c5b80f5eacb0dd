// Direct convolution of shallow inputs: see Note [Shallow-input
// convolutions] in conv_shallow_input.h.
#include "src/kernels/conv_shallow_input.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "Eigen/Core"
#include "absl/container/inlined_vector.h"
#include "absl/synchronization/mutex.h"
#include "minflow/core/work_sharder.h"

namespace minflow {
namespace internal {
namespace {

using Packet = Eigen::internal::packet_traits<float>::type;
constexpr int kPacketSize = Eigen::internal::packet_traits<float>::size;
// Sums held in registers per block: half the register file, leaving room
// for the filter vectors and the broadcast input.
constexpr int kBlockSums = kPacketSize >= 16 ? 16 : 8;

// The geometry one block of output pixels needs, in floats.
struct Taps {
  // Tap i (filter row, column and input channel, in the filter's HWIO
  // order) reads the padded input at offsets[i] from the pixel's first.
  const int64_t* offsets;
  int64_t count;
  int64_t pixel_stride;  // stride_cols * in_depth
  int64_t out_depth;
};

// kPixels output pixels of one output row from `in` (the padded input row
// its first filter row reads, at the block's first pixel), written to
// `out`; kOutPackets vectors per pixel. `lowest` and `highest` clamp the
// results: the activation. Every loop over the sums is unrolled, so that
// they live in registers from start to end (a loop left rolled kept them
// on the stack, which cost 15%).
template <int kOutPackets, int kPixels>
void ConvolveBlock(const Taps& t, const float* in, const float* filter,
                   const float* bias, Packet lowest, Packet highest,
                   float* out) {
  using Eigen::internal::pcmp_lt;
  using Eigen::internal::ploadu;
  using Eigen::internal::pmadd;
  using Eigen::internal::pselect;
  using Eigen::internal::pset1;
  using Eigen::internal::pstoreu;
  Packet sum[kPixels][kOutPackets];
#pragma GCC unroll 4
  for (int v = 0; v < kOutPackets; ++v) {
    const Packet start = bias != nullptr
                             ? ploadu<Packet>(bias + v * kPacketSize)
                             : pset1<Packet>(0.0f);
#pragma GCC unroll 16
    for (int p = 0; p < kPixels; ++p) sum[p][v] = start;
  }
  // Each pixel's first input value: a tap is then one offset from each.
  const float* pixel[kPixels];
#pragma GCC unroll 16
  for (int p = 0; p < kPixels; ++p) pixel[p] = in + p * t.pixel_stride;
  const int64_t out_depth = t.out_depth;
  // One loop over every tap (rows, columns and channels), so that no
  // inner loop ends before the sums are done.
  for (int64_t i = 0; i < t.count; ++i) {
    const float* weights_at = filter + i * out_depth;
    const int64_t offset = t.offsets[i];
    Packet weights[kOutPackets];
#pragma GCC unroll 4
    for (int v = 0; v < kOutPackets; ++v) {
      weights[v] = ploadu<Packet>(weights_at + v * kPacketSize);
    }
#pragma GCC unroll 16
    for (int p = 0; p < kPixels; ++p) {
      const Packet x = pset1<Packet>(pixel[p][offset]);
#pragma GCC unroll 4
      for (int v = 0; v < kOutPackets; ++v) {
        sum[p][v] = pmadd(x, weights[v], sum[p][v]);
      }
    }
  }
#pragma GCC unroll 16
  for (int p = 0; p < kPixels; ++p) {
#pragma GCC unroll 4
    for (int v = 0; v < kOutPackets; ++v) {
      // The clamp as selects, which keep a NaN sum as pmax and pmin would.
      Packet value = sum[p][v];
      value = pselect(pcmp_lt(value, lowest), lowest, value);
      value = pselect(pcmp_lt(highest, value), highest, value);
      pstoreu(out + p * out_depth + v * kPacketSize, value);
    }
  }
}

// One output row: blocks of the most pixels whose sums fit the registers,
// then single pixels.
template <int kOutPackets>
void ConvolveRow(const Taps& t, int64_t out_cols, const float* in,
                 const float* filter, const float* bias,
                 LibraryActivation activation, float* out) {
  constexpr int kPixels = std::max(1, kBlockSums / kOutPackets);
  // The activation as a clamp.
  constexpr float kInfinity = std::numeric_limits<float>::infinity();
  const Packet lowest = Eigen::internal::pset1<Packet>(
      activation == LibraryActivation::kNone ? -kInfinity : 0.0f);
  const Packet highest = Eigen::internal::pset1<Packet>(
      activation == LibraryActivation::kRelu6 ? 6.0f : kInfinity);
  int64_t col = 0;
  for (; col + kPixels <= out_cols; col += kPixels) {
    ConvolveBlock<kOutPackets, kPixels>(t, in + col * t.pixel_stride, filter,
                                        bias, lowest, highest,
                                        out + col * t.out_depth);
  }
  for (; col < out_cols; ++col) {
    ConvolveBlock<kOutPackets, 1>(t, in + col * t.pixel_stride, filter, bias,
                                  lowest, highest, out + col * t.out_depth);
  }
}

using RowFunction = void (*)(const Taps&, int64_t, const float*, const float*,
                             const float*, LibraryActivation, float*);

RowFunction RowFor(int out_packets) {
  static_assert(kMaxShallowOutPackets == 2, "one case per vector count");
  return out_packets == 1 ? ConvolveRow<1> : ConvolveRow<2>;
}

}  // namespace

bool UseShallowInputConv2D(const Conv2DDimensions& d) {
  return d.patch_depth == d.in_depth && d.in_depth <= kMaxShallowInDepth &&
         d.dilation_rows == 1 && d.dilation_cols == 1 &&
         d.out_depth % kPacketSize == 0 &&
         d.out_depth <= kMaxShallowOutPackets * kPacketSize &&
         d.filter_rows * d.filter_cols * d.in_depth * d.out_depth *
                 static_cast<int64_t>(sizeof(float)) <=
             kMaxShallowFilterBytes;
}

Status ShallowInputConv2D(
    OpKernelContext* ctx, const Conv2DDimensions& d, const float* input,
    const float* filter, const LibraryConvEpilogue& fused, float* output,
    const std::function<void(float*, int64_t)>& after_pixels) {
  // The padded input: every column any output pixel reads, every row.
  const int64_t padded_cols = (d.out_cols - 1) * d.stride_cols + d.filter_cols;
  const int64_t padded_row = padded_cols * d.in_depth;
  const int64_t row_taps = d.filter_cols * d.in_depth;
  // A few hundred taps at most (kMaxShallowFilterBytes); an RGB 3x3 has 27.
  absl::InlinedVector<int64_t, 64> offsets(d.filter_rows * row_taps);
  for (int64_t r = 0; r < d.filter_rows; ++r) {
    for (int64_t i = 0; i < row_taps; ++i) {
      offsets[r * row_taps + i] = r * padded_row + i;
    }
  }
  const Taps taps{offsets.data(), static_cast<int64_t>(offsets.size()),
                  d.stride_cols * d.in_depth, d.out_depth};
  const RowFunction convolve_row =
      RowFor(static_cast<int>(d.out_depth / kPacketSize));
  const LibraryActivation activation =
      fused.bias != nullptr ? fused.activation : LibraryActivation::kNone;
  const int64_t in_row = d.input_cols * d.in_depth;
  // Copies input row `input_row` of image `b` into `dst` (padded_row
  // floats), zeros where it falls outside the image.
  auto pad_row = [&](int64_t b, int64_t input_row, float* dst) {
    std::fill(dst, dst + padded_row, 0.0f);
    if (input_row < 0 || input_row >= d.input_rows) return;
    // Padded column c is input column c - pad_cols_before.
    const int64_t first = std::max<int64_t>(0, d.pad_cols_before);
    const int64_t last =
        std::min<int64_t>(padded_cols, d.input_cols + d.pad_cols_before);
    if (first >= last) return;
    const float* src = input + (b * d.input_rows + input_row) * in_row +
                       (first - d.pad_cols_before) * d.in_depth;
    std::memcpy(dst + first * d.in_depth, src,
                (last - first) * d.in_depth * sizeof(float));
  };
  absl::Mutex mu;
  Status status;
  // Units are output rows, image after image.
  auto work = [&](int64_t start, int64_t limit) {
    int64_t unit = start;
    while (unit < limit) {
      const int64_t b = unit / d.out_rows;
      const int64_t first_row = unit % d.out_rows;
      const int64_t rows =
          std::min(limit - unit, d.out_rows - first_row);  // in this image
      const int64_t input_rows = (rows - 1) * d.stride_rows + d.filter_rows;
      Tensor scratch;
      Status s = ctx->allocate_temp(
          DT_FLOAT, TensorShape({input_rows * padded_row}), &scratch);
      if (!s.ok()) {
        absl::MutexLock lock(&mu);
        status.Update(s);
        return;
      }
      float* padded = scratch.base<float>();
      const int64_t top = first_row * d.stride_rows - d.pad_rows_before;
      for (int64_t r = 0; r < input_rows; ++r) {
        pad_row(b, top + r, padded + r * padded_row);
      }
      for (int64_t r = 0; r < rows; ++r) {
        float* out = output + ((b * d.out_rows) + first_row + r) * d.out_cols *
                                  d.out_depth;
        convolve_row(taps, d.out_cols, padded + r * d.stride_rows * padded_row,
                     filter, fused.bias, activation, out);
        if (after_pixels) after_pixels(out, d.out_cols);
      }
      unit += rows;
    }
  };
  const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
  const int64_t cost_per_row = d.out_cols * d.out_depth * taps.count;
  Shard(workers->num_threads, workers->workers, d.batch * d.out_rows,
        cost_per_row, work);
  return status;
}

}  // namespace internal
}  // namespace minflow
