// Conv2D's CPU compute (NHWC): im2col + GEMM, tiled and sharded over output
// pixels, with a per-tile hook for fused epilogues. Shared by Conv2D
// (conv_2d_op.cc) and _FusedConv2D (fused_conv2d_op.cc).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <type_traits>

#include "Eigen/Core"
#include "absl/synchronization/mutex.h"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "src/kernels/conv_ops_common.h"
#include "src/kernels/conv_shallow_input.h"
#include "src/kernels/cpu_conv_library.h"
#include "src/kernels/cpu_gemm.h"

namespace minflow {
namespace internal {

// Note [Conv2D as tiled im2col + GEMM]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Each output pixel is one row of a GEMM: its patch (filter_rows x
// filter_cols x patch_depth input values, zeros where the window hangs over
// the padding) times the filter viewed as [patch, out_depth]. The output
// pixels are split into contiguous ranges with Shard(); each range builds
// the patches of up to kTileBytes worth of pixels in its own scratch buffer
// and multiplies them with a single-threaded Eigen GEMM straight into the
// output rows (output pixels are contiguous in NHWC). So both the patch
// copy and the GEMM run on every thread, the scratch stays cache-sized
// instead of materialising the whole patch matrix, and no thread waits for
// another. Grouped convolutions (filter depth dividing the input depth) run
// one GEMM per group over strided views of the filter and output. Two cases
// need no copy at all: 1x1 filters with stride 1 and no padding (the input
// pixel is the patch) and VALID filters covering the whole image (the image
// is the patch).
constexpr int64_t kTileBytes = 512 * 1024;
constexpr int64_t kMinTilePixels = 32;
// With a fused epilogue, the most output a tile may hold.
constexpr int64_t kEpilogueTileBytes = 256 * 1024;

template <typename T>
using RowMatrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Stride = Eigen::OuterStride<>;
template <typename T>
using ConstStridedMap = Eigen::Map<const RowMatrix<T>, 0, Stride>;
template <typename T>
using StridedMap = Eigen::Map<RowMatrix<T>, 0, Stride>;

// Writes the patches of output pixels [p0, p1) for group `g` into `dst`,
// one row of `patch_size` values per pixel.
template <typename T>
void Im2Col(const Conv2DDimensions& d, int64_t groups, int64_t g,
            const T* input, int64_t p0, int64_t p1, T* dst) {
  const int64_t c_in = d.in_depth;
  const int64_t c_g = d.patch_depth;
  const int64_t run = d.filter_cols * c_g;  // one filter row of a patch
  const bool contiguous_rows = groups == 1 && d.dilation_cols == 1;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t ow = p % d.out_cols;
    const int64_t rest = p / d.out_cols;
    const int64_t oh = rest % d.out_rows;
    const int64_t n = rest / d.out_rows;
    const int64_t ih0 = oh * d.stride_rows - d.pad_rows_before;
    const int64_t iw0 = ow * d.stride_cols - d.pad_cols_before;
    const bool cols_inside = iw0 >= 0 && iw0 + d.filter_cols <= d.input_cols;
    for (int64_t kr = 0; kr < d.filter_rows; ++kr) {
      const int64_t ih = ih0 + kr * d.dilation_rows;
      if (ih < 0 || ih >= d.input_rows) {
        std::fill_n(dst, run, T(0));
        dst += run;
        continue;
      }
      const T* row =
          input + (n * d.input_rows + ih) * d.input_cols * c_in + g * c_g;
      if (contiguous_rows && cols_inside) {
        std::copy_n(row + iw0 * c_in, run, dst);
        dst += run;
        continue;
      }
      for (int64_t kc = 0; kc < d.filter_cols; ++kc) {
        const int64_t iw = iw0 + kc * d.dilation_cols;
        if (iw < 0 || iw >= d.input_cols) {
          std::fill_n(dst, c_g, T(0));
        } else {
          std::copy_n(row + iw * c_in, c_g, dst);
        }
        dst += c_g;
      }
    }
  }
}

// The hook of a plain Conv2D: nothing to do after a tile.
template <typename T>
struct NoOpConv2DOutputKernel {
  void operator()(T* /*rows*/, int64_t /*n*/) const {}
};

// The filter and the output are not empty (Compute checks), so neither is a
// patch.
//
// `output_kernel(rows, n)` is called once per finished tile, with its `n`
// output pixels of `d.out_depth` values each (see Note [Fused epilogues]).
//
// `library_epilogue`, when it has a bias, is what `output_kernel` computes,
// for oneDNN to apply in its place (Note [CPU convolution library]).
// `constant_filter`, for a filter that is a Const's value, lets oneDNN's
// reordered copy of it be kept (Note [Reordered constant filters]).
template <typename T, typename OutputKernel = NoOpConv2DOutputKernel<T>>
Status LaunchConv2D(OpKernelContext* ctx, const Conv2DDimensions& d,
                    const T* input, const T* filter, T* output,
                    const OutputKernel& output_kernel = OutputKernel(),
                    const LibraryConvEpilogue& library_epilogue = {},
                    const ConstantOperand& constant_filter = {}) {
  if constexpr (std::is_same_v<T, float>) {
    bool done = false;
    std::function<void(float*, int64_t)> after_pixels;
    if (library_epilogue.bias == nullptr &&
        !std::is_same_v<OutputKernel, NoOpConv2DOutputKernel<T>>) {
      after_pixels = [&](float* rows, int64_t pixels) {
        output_kernel(rows, pixels);
      };
    }
    if (UseShallowInputConv2D(d)) {
      return ShallowInputConv2D(ctx, d, input, filter, library_epilogue, output,
                                after_pixels);
    }
    MF_RETURN_IF_ERROR(LibraryConv2D(ctx, d, input, filter, library_epilogue,
                                     output, after_pixels, constant_filter,
                                     &done));
    if (done) return OkStatus();
  }
  const int64_t groups =
      d.in_depth == d.patch_depth ? 1 : d.in_depth / d.patch_depth;
  const int64_t out_depth_g = d.out_depth / groups;
  const int64_t patch_size = d.filter_rows * d.filter_cols * d.patch_depth;
  const int64_t pixels = d.batch * d.out_rows * d.out_cols;
  const bool no_padding = d.pad_rows_before == 0 && d.pad_rows_after == 0 &&
                          d.pad_cols_before == 0 && d.pad_cols_after == 0;
  const bool one_by_one = d.filter_rows == 1 && d.filter_cols == 1 &&
                          d.stride_rows == 1 && d.stride_cols == 1;
  const bool whole_image = d.filter_rows == d.input_rows &&
                           d.filter_cols == d.input_cols &&
                           d.dilation_rows == 1 && d.dilation_cols == 1 &&
                           d.out_rows == 1 && d.out_cols == 1;
  // Patches already laid out as GEMM rows `patch_size` apart in the input.
  const bool direct = groups == 1 && no_padding && (one_by_one || whole_image);

  int64_t tile_pixels =
      kTileBytes / (patch_size * static_cast<int64_t>(sizeof(T)));
  if constexpr (!std::is_same_v<OutputKernel, NoOpConv2DOutputKernel<T>>) {
    // The epilogue rereads the tile's output: keep that in L2 too (a 1x1
    // 64->256 tile was 2 MiB, and the fused op ran 1.2x the unfused chain).
    tile_pixels = std::min<int64_t>(
        tile_pixels,
        kEpilogueTileBytes / (d.out_depth * static_cast<int64_t>(sizeof(T))));
  }
  tile_pixels = std::max<int64_t>(kMinTilePixels, tile_pixels);
  absl::Mutex mu;
  Status status;
  auto work = [&](int64_t start, int64_t limit) {
    Tensor scratch;
    if (!direct) {
      const int64_t rows = std::min(tile_pixels, limit - start);
      Status s = ctx->allocate_temp(DataTypeToEnum<T>::v(),
                                    TensorShape({rows * patch_size}), &scratch);
      if (!s.ok()) {
        absl::MutexLock lock(&mu);
        status.Update(s);
        return;
      }
    }
    for (int64_t p0 = start; p0 < limit; p0 += tile_pixels) {
      const int64_t p1 = std::min(limit, p0 + tile_pixels);
      for (int64_t g = 0; g < groups; ++g) {
        const T* lhs_data = input + p0 * patch_size;
        if (!direct) {
          Im2Col<T>(d, groups, g, input, p0, p1, scratch.base<T>());
          lhs_data = scratch.base<const T>();
        }
        ConstStridedMap<T> lhs(lhs_data, p1 - p0, patch_size,
                               Stride(patch_size));
        ConstStridedMap<T> rhs(filter + g * out_depth_g, patch_size,
                               out_depth_g, Stride(d.out_depth));
        T* out_data = output + p0 * d.out_depth + g * out_depth_g;
        if constexpr (std::is_same_v<T, float>) {
          // This thread's tile through the GEMM library (Note [CPU GEMM
          // library]); Eigen below when it is absent or refuses.
          if (UseLibraryGemm(p1 - p0, out_depth_g, patch_size) &&
              LibraryGemmOnThisThread(
                  GemmArgs{false, false, p1 - p0, out_depth_g, patch_size,
                           lhs_data, patch_size, filter + g * out_depth_g,
                           d.out_depth, out_data, d.out_depth})) {
            continue;
          }
        }
        StridedMap<T> out(out_data, p1 - p0, out_depth_g, Stride(d.out_depth));
        out.noalias() = lhs * rhs;
      }
      output_kernel(output + p0 * d.out_depth, p1 - p0);
    }
  };
  const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
  // Cycles per output pixel: roughly the GEMM's multiply-adds.
  const int64_t cost_per_pixel = patch_size * d.out_depth + patch_size;
  Shard(workers->num_threads, workers->workers, pixels, cost_per_pixel, work);
  return status;
}

}  // namespace internal
}  // namespace minflow
