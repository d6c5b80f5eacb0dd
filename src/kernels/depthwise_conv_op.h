// DepthwiseConv2dNative's CPU compute (NHWC), with a hook called on each
// finished chunk of output pixels for fused epilogues. Shared by
// DepthwiseConv2dNative (depthwise_conv_op.cc) and
// _FusedDepthwiseConv2dNative (fused_depthwise_conv_op.cc).
#pragma once

#include <algorithm>
#include <cstdint>

#include "Eigen/Core"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "src/kernels/conv_ops_common.h"

namespace minflow {
namespace internal {

template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// Output pixels [p0, p1): a direct loop over the window taps inside the
// image, vectorised over channels. There is no reduction across channels,
// so unlike Conv2D there is no GEMM to hand the work to.
template <typename T>
void DepthwiseConvPixels(const Conv2DDimensions& d, const T* input,
                         const T* filter, T* output, int64_t p0, int64_t p1) {
  const int64_t channels = d.in_depth;
  const int64_t multiplier = d.out_depth / std::max<int64_t>(1, channels);
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t ow = p % d.out_cols;
    const int64_t rest = p / d.out_cols;
    const int64_t oh = rest % d.out_rows;
    const int64_t n = rest / d.out_rows;
    const int64_t ih0 = oh * d.stride_rows - d.pad_rows_before;
    const int64_t iw0 = ow * d.stride_cols - d.pad_cols_before;
    ArrayMap<T> out(output + p * d.out_depth, d.out_depth);
    out.setZero();
    for (int64_t kr = 0; kr < d.filter_rows; ++kr) {
      const int64_t ih = ih0 + kr * d.dilation_rows;
      if (ih < 0 || ih >= d.input_rows) continue;
      for (int64_t kc = 0; kc < d.filter_cols; ++kc) {
        const int64_t iw = iw0 + kc * d.dilation_cols;
        if (iw < 0 || iw >= d.input_cols) continue;
        const T* in =
            input + ((n * d.input_rows + ih) * d.input_cols + iw) * channels;
        const T* f = filter + (kr * d.filter_cols + kc) * d.out_depth;
        if (multiplier == 1) {
          out += ConstArrayMap<T>(in, channels) * ConstArrayMap<T>(f, channels);
        } else {
          T* o = output + p * d.out_depth;
          for (int64_t c = 0; c < channels; ++c) {
            const T v = in[c];
            for (int64_t m = 0; m < multiplier; ++m) {
              o[c * multiplier + m] += v * f[c * multiplier + m];
            }
          }
        }
      }
    }
  }
}

// The hook of a plain DepthwiseConv2dNative: nothing to do.
template <typename T>
struct NoOpDepthwiseOutputKernel {
  void operator()(T* /*rows*/, int64_t /*n*/) const {}
};

// Pixels per hook call: a chunk's output stays in cache for the epilogue.
constexpr int64_t kDepthwiseChunkPixels = 64;

// Computes every output pixel (the filter and output are not empty),
// sharded over the intra-op pool; `output_kernel(rows, n)` is called on
// each finished chunk of `n` pixels of `d.out_depth` values.
template <typename T, typename OutputKernel = NoOpDepthwiseOutputKernel<T>>
void LaunchDepthwiseConv2D(OpKernelContext* ctx, const Conv2DDimensions& d,
                           const T* input, const T* filter, T* output,
                           const OutputKernel& output_kernel = OutputKernel()) {
  const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
  const int64_t cost_per_pixel =
      d.filter_rows * d.filter_cols * d.out_depth + d.out_depth;
  Shard(workers->num_threads, workers->workers,
        d.batch * d.out_rows * d.out_cols, cost_per_pixel,
        [&](int64_t start, int64_t limit) {
          for (int64_t p0 = start; p0 < limit; p0 += kDepthwiseChunkPixels) {
            const int64_t p1 = std::min(limit, p0 + kDepthwiseChunkPixels);
            DepthwiseConvPixels<T>(d, input, filter, output, p0, p1);
            output_kernel(output + p0 * d.out_depth, p1 - p0);
          }
        });
}

}  // namespace internal
}  // namespace minflow
