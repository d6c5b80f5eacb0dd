// Conv2DBackpropInput (NHWC, CPU): the gradient of Conv2D with respect to
// its input, i.e. the transposed convolution of decoders.
// See Note [Conv2DBackpropInput as GEMM + col2im].
#define EIGEN_USE_THREADS

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "Eigen/Core"
#include "absl/synchronization/mutex.h"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/conv_2d_op.h"
#include "src/kernels/conv_grad_common.h"
#include "src/kernels/conv_ops_common.h"
#include "src/kernels/cpu_gemm.h"

namespace minflow {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;

// Note [Conv2DBackpropInput as GEMM + col2im]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Every output pixel of the forward convolution spreads its out_backprop
// row (out_depth values) back over its patch: the product of that row with
// the transposed filter [out_depth, R*S*C] is the patch's gradient, which
// is added into the input pixels the patch covers (col2im). Patches
// overlap, so two threads must not add into the same input rows: the work
// is split into blocks of input rows of one image, and each block
// recomputes the patches of every output row that reaches into it and adds
// only what falls inside the block. With blocks of several rows the
// recomputed share stays small. The patch gradients are built a tile of
// output rows at a time in a cache-sized scratch buffer.
//
// With stride 1 and one group there is a faster way (Note [Stride-1
// backprop as a forward convolution]); this path is for the rest.
constexpr int64_t kTileBytes = 512 * 1024;

template <typename T>
using RowMatrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Stride = Eigen::OuterStride<>;
template <typename T>
using ConstStridedMap = Eigen::Map<const RowMatrix<T>, 0, Stride>;
template <typename T>
using StridedMap = Eigen::Map<RowMatrix<T>, 0, Stride>;

// Adds the patch gradients `cols` of output rows [oh0, oh1) of image `n`,
// group `g`, into the input rows [ih0, ih1) of `in_grad`.
template <typename T>
void Col2Im(const Conv2DDimensions& d, int64_t g, int64_t n, int64_t oh0,
            int64_t oh1, int64_t ih0, int64_t ih1, const T* cols, T* in_grad) {
  const int64_t c_g = d.patch_depth;
  const int64_t patch_size = d.filter_rows * d.filter_cols * c_g;
  for (int64_t oh = oh0; oh < oh1; ++oh) {
    for (int64_t ow = 0; ow < d.out_cols; ++ow, cols += patch_size) {
      for (int64_t kr = 0; kr < d.filter_rows; ++kr) {
        const int64_t ih =
            oh * d.stride_rows - d.pad_rows_before + kr * d.dilation_rows;
        if (ih < ih0 || ih >= ih1) continue;
        for (int64_t kc = 0; kc < d.filter_cols; ++kc) {
          const int64_t iw =
              ow * d.stride_cols - d.pad_cols_before + kc * d.dilation_cols;
          if (iw < 0 || iw >= d.input_cols) continue;
          T* dst = in_grad +
                   ((n * d.input_rows + ih) * d.input_cols + iw) * d.in_depth +
                   g * c_g;
          const T* src = cols + (kr * d.filter_cols + kc) * c_g;
          for (int64_t q = 0; q < c_g; ++q) dst[q] += src[q];
        }
      }
    }
  }
}

// The rows a window spans, dilation included.
int64_t WindowRows(const Conv2DDimensions& d) {
  return (d.filter_rows - 1) * d.dilation_rows + 1;
}

// The first output row whose window reaches input row `ih` or below it.
int64_t FirstOutputRow(const Conv2DDimensions& d, int64_t ih) {
  const int64_t num = ih + d.pad_rows_before - (WindowRows(d) - 1);
  return num <= 0 ? 0 : (num + d.stride_rows - 1) / d.stride_rows;
}

// cols[pixels, patch] = out_backprop rows [pixels, K_g] x filter_g^T.
template <typename T>
void PatchGradients(int64_t pixels, int64_t patch_size, int64_t out_depth_g,
                    int64_t out_depth, const T* out_backprop, const T* filter,
                    T* cols) {
  if constexpr (std::is_same_v<T, float>) {
    // See Note [CPU GEMM library]; Eigen below when it is absent or refuses.
    if (internal::UseLibraryGemm(pixels, patch_size, out_depth_g) &&
        internal::LibraryGemmOnThisThread(internal::GemmArgs{
            false, true, pixels, patch_size, out_depth_g, out_backprop,
            out_depth, filter, out_depth, cols, patch_size})) {
      return;
    }
  }
  ConstStridedMap<T> lhs(out_backprop, pixels, out_depth_g, Stride(out_depth));
  ConstStridedMap<T> rhs(filter, patch_size, out_depth_g, Stride(out_depth));
  StridedMap<T> out(cols, pixels, patch_size, Stride(patch_size));
  out.noalias() = lhs * rhs.transpose();
}

// The filter, out_backprop and in_grad are not empty (Compute checks).
template <typename T>
Status LaunchConv2DBackpropInput(OpKernelContext* ctx,
                                 const Conv2DDimensions& d, const T* filter,
                                 const T* out_backprop, T* in_grad) {
  const int64_t groups =
      d.in_depth == d.patch_depth ? 1 : d.in_depth / d.patch_depth;
  const int64_t out_depth_g = d.out_depth / groups;
  const int64_t patch_size = d.filter_rows * d.filter_cols * d.patch_depth;
  const int64_t row_bytes =
      d.out_cols * patch_size * static_cast<int64_t>(sizeof(T));
  const int64_t tile_rows = std::max<int64_t>(1, kTileBytes / row_bytes);

  const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
  // Blocks of input rows: a few per thread over the whole batch, but not
  // thinner than a window so that little is recomputed.
  const int64_t wanted_blocks =
      std::max<int64_t>(1, (4 * workers->num_threads + d.batch - 1) / d.batch);
  const int64_t block_rows = std::max<int64_t>(
      WindowRows(d), (d.input_rows + wanted_blocks - 1) / wanted_blocks);
  const int64_t blocks = (d.input_rows + block_rows - 1) / block_rows;

  absl::Mutex mu;
  Status status;
  auto work = [&](int64_t start, int64_t limit) {
    Tensor scratch;
    Status s = ctx->allocate_temp(DataTypeToEnum<T>::v(),
                                  TensorShape({std::min(tile_rows, d.out_rows) *
                                               d.out_cols * patch_size}),
                                  &scratch);
    if (!s.ok()) {
      absl::MutexLock lock(&mu);
      status.Update(s);
      return;
    }
    T* cols = scratch.base<T>();
    for (int64_t unit = start; unit < limit; ++unit) {
      const int64_t n = unit / blocks;
      const int64_t ih0 = (unit % blocks) * block_rows;
      const int64_t ih1 = std::min(d.input_rows, ih0 + block_rows);
      std::fill_n(
          in_grad + (n * d.input_rows + ih0) * d.input_cols * d.in_depth,
          (ih1 - ih0) * d.input_cols * d.in_depth, T(0));
      const int64_t oh_begin = FirstOutputRow(d, ih0);
      const int64_t oh_end = std::min(
          d.out_rows, (ih1 - 1 + d.pad_rows_before) / d.stride_rows + 1);
      for (int64_t oh0 = oh_begin; oh0 < oh_end; oh0 += tile_rows) {
        const int64_t oh1 = std::min(oh_end, oh0 + tile_rows);
        const int64_t pixels = (oh1 - oh0) * d.out_cols;
        for (int64_t g = 0; g < groups; ++g) {
          PatchGradients<T>(
              pixels, patch_size, out_depth_g, d.out_depth,
              out_backprop + (n * d.out_rows + oh0) * d.out_cols * d.out_depth +
                  g * out_depth_g,
              filter + g * out_depth_g, cols);
          Col2Im<T>(d, g, n, oh0, oh1, ih0, ih1, cols, in_grad);
        }
      }
    }
  };
  // Multiply-adds per block, in double: the product of user sizes may not
  // fit in int64 (the Shard cost is only a hint).
  const double cost = static_cast<double>(block_rows) * d.input_cols *
                      d.in_depth * d.filter_rows * d.filter_cols * out_depth_g /
                      static_cast<double>(d.stride_rows);
  const int64_t cost_per_unit = static_cast<int64_t>(
      std::min(cost, static_cast<double>(int64_t{1} << 50)));
  Shard(workers->num_threads, workers->workers, d.batch * blocks, cost_per_unit,
        work);
  return status;
}

// Note [Stride-1 backprop as a forward convolution]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// With stride 1, in_grad[i] = sum_k out_backprop[i + pad_before - k * dil]
// * filter[k] along each spatial dim: a forward convolution (correlation)
// of out_backprop with the filter flipped in space and with its two depth
// dims swapped ([R,S,K,C]), padded by (window - 1) - pad on each side.
// That is Conv2D's own tiled im2col + GEMM (conv_2d_op.h), so the input
// gradient of a stride-1 layer costs about one forward pass, with no
// col2im scatter. Used for one group and when the padding is no wider than
// the window (so the new padding is not negative); the rest goes through
// Note [Conv2DBackpropInput as GEMM + col2im].
bool AsForwardConvolution(const Conv2DDimensions& d, Conv2DDimensions* f) {
  if (d.stride_rows != 1 || d.stride_cols != 1 || d.in_depth != d.patch_depth) {
    return false;
  }
  const int64_t span_rows = (d.filter_rows - 1) * d.dilation_rows;
  const int64_t span_cols = (d.filter_cols - 1) * d.dilation_cols;
  if (d.pad_rows_before > span_rows || d.pad_rows_after > span_rows ||
      d.pad_cols_before > span_cols || d.pad_cols_after > span_cols) {
    return false;
  }
  *f = d;
  f->input_rows = d.out_rows;
  f->input_cols = d.out_cols;
  f->in_depth = d.out_depth;
  f->patch_depth = d.out_depth;
  f->out_depth = d.in_depth;
  f->out_rows = d.input_rows;
  f->out_cols = d.input_cols;
  f->pad_rows_before = span_rows - d.pad_rows_before;
  f->pad_rows_after = span_rows - d.pad_rows_after;
  f->pad_cols_before = span_cols - d.pad_cols_before;
  f->pad_cols_after = span_cols - d.pad_cols_after;
  return true;
}

template <typename T>
Status LaunchAsForwardConvolution(OpKernelContext* ctx,
                                  const Conv2DDimensions& d,
                                  const Conv2DDimensions& flipped,
                                  const T* filter, const T* out_backprop,
                                  T* in_grad) {
  const int64_t r = d.filter_rows, s = d.filter_cols;
  const int64_t c = d.in_depth, k = d.out_depth;
  Tensor scratch;
  MF_RETURN_IF_ERROR(ctx->allocate_temp(
      DataTypeToEnum<T>::v(), TensorShape({r * s * c * k}), &scratch));
  T* f = scratch.base<T>();
  // f[r', s', k, c] = filter[R-1-r', S-1-s', c, k].
  for (int64_t i = 0; i < r; ++i) {
    for (int64_t j = 0; j < s; ++j) {
      const T* src = filter + ((r - 1 - i) * s + (s - 1 - j)) * c * k;
      T* dst = f + (i * s + j) * k * c;
      for (int64_t q = 0; q < c; ++q) {
        for (int64_t o = 0; o < k; ++o) dst[o * c + q] = src[q * k + o];
      }
    }
  }
  return internal::LaunchConv2D<T>(ctx, flipped, out_backprop, f, in_grad);
}

// TensorFlow's Conv2DBackpropComputeInputShape: `input_sizes` is the whole
// input shape, or its rows and cols.
Status InputShapeFromSizes(const Tensor& input_sizes, const TensorShape& filter,
                           const TensorShape& out_backprop,
                           TensorShape* input_shape) {
  if (!TensorShapeUtils::IsVector(input_sizes.shape())) {
    return errors::InvalidArgument(
        "Conv2DBackpropInput: input_sizes input must be 1-dim, not ",
        input_sizes.dims());
  }
  const int32_t* sizes = input_sizes.base<const int32_t>();
  if (input_sizes.dim_size(0) == 4) {
    return TensorShape::BuildTensorShape(
        {sizes[0], sizes[1], sizes[2], sizes[3]}, input_shape);
  }
  if (input_sizes.dim_size(0) == 2) {
    if (out_backprop.dims() != 4 || filter.dims() != 4) {
      return errors::InvalidArgument(
          "Conv2DCustomBackpropInput: filter and out_backprop must be "
          "4-dimensional, but got ",
          filter.DebugString(), " and ", out_backprop.DebugString());
    }
    return TensorShape::BuildTensorShape(
        {out_backprop.dim_size(0), sizes[0], sizes[1], filter.dim_size(2)},
        input_shape);
  }
  return errors::InvalidArgument(
      "Conv2DBackpropInput requires input_sizes to contain 4 values or 2 "
      "values, but got: ",
      input_sizes.dim_size(0));
}

template <typename Device, typename T>
class Conv2DBackpropInputOp : public OpKernel {
 public:
  explicit Conv2DBackpropInputOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, InitConv2DParameters(ctx, &params_));
    bool use_cudnn = true;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_cudnn_on_gpu", &use_cudnn));
    OP_REQUIRES(ctx, params_.data_format == FORMAT_NHWC,
                errors::InvalidArgument(
                    "Conv2DCustomBackpropInputOp only supports NHWC."));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input_sizes = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    TensorShape input_shape;
    OP_REQUIRES_OK(ctx,
                   InputShapeFromSizes(input_sizes, filter.shape(),
                                       out_backprop.shape(), &input_shape));
    Conv2DDimensions d;
    OP_REQUIRES_OK(ctx,
                   ComputeConvBackpropDimensions(
                       "Conv2DCustomBackpropInput", ConvKind::kConv2D, params_,
                       input_shape, filter.shape(), out_backprop.shape(), &d));
    Tensor* in_grad = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input_shape, &in_grad));
    if (input_shape.num_elements() == 0) return;
    // As Conv2D: a window with no taps is not a convolution.
    OP_REQUIRES(ctx, filter.NumElements() > 0,
                errors::InvalidArgument(
                    "filter must not have zero elements (i.e. all dimensions "
                    "must be non-zero)"));
    if (out_backprop.NumElements() == 0) {
      // No output pixel: nothing flows back.
      std::fill_n(in_grad->base<T>(), in_grad->NumElements(), T(0));
      return;
    }
    const T* f = filter.base<const T>();
    const T* dy = out_backprop.base<const T>();
    Conv2DDimensions flipped;
    if (AsForwardConvolution(d, &flipped)) {
      OP_REQUIRES_OK(ctx, LaunchAsForwardConvolution<T>(ctx, d, flipped, f, dy,
                                                        in_grad->base<T>()));
    } else {
      OP_REQUIRES_OK(
          ctx, LaunchConv2DBackpropInput<T>(ctx, d, f, dy, in_grad->base<T>()));
    }
  }

 private:
  Conv2DParameters params_;
};

#define REGISTER_CPU(T)                                                      \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("Conv2DBackpropInput").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      Conv2DBackpropInputOp<CPUDevice, T>);
TF_CALL_float(REGISTER_CPU) TF_CALL_double(REGISTER_CPU)
    TF_CALL_int32(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
