// DepthwiseConv2dNativeBackpropInput and DepthwiseConv2dNativeBackpropFilter
// (NHWC, CPU): direct loops over the window taps, vectorised over channels
// as the forward kernel (depthwise_conv_op.h) is. There is no reduction
// across channels, so no GEMM to hand the work to.
#define EIGEN_USE_THREADS

#include <algorithm>
#include <cstdint>

#include "Eigen/Core"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/conv_grad_common.h"
#include "src/kernels/conv_ops_common.h"

namespace minflow {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;
template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// in_grad of input pixels [p0, p1), gathered: each input pixel sums the
// out_backprop of every output pixel whose window holds it, so threads
// never write the same pixel.
template <typename T>
void DepthwiseBackpropInputPixels(const Conv2DDimensions& d, const T* filter,
                                  const T* out_backprop, T* in_grad, int64_t p0,
                                  int64_t p1) {
  const int64_t channels = d.in_depth;
  const int64_t multiplier = d.out_depth / channels;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t iw = p % d.input_cols;
    const int64_t rest = p / d.input_cols;
    const int64_t ih = rest % d.input_rows;
    const int64_t n = rest / d.input_rows;
    ArrayMap<T> out(in_grad + p * channels, channels);
    out.setZero();
    for (int64_t kr = 0; kr < d.filter_rows; ++kr) {
      const int64_t oh_num = ih + d.pad_rows_before - kr * d.dilation_rows;
      if (oh_num < 0 || oh_num % d.stride_rows != 0) continue;
      const int64_t oh = oh_num / d.stride_rows;
      if (oh >= d.out_rows) continue;
      for (int64_t kc = 0; kc < d.filter_cols; ++kc) {
        const int64_t ow_num = iw + d.pad_cols_before - kc * d.dilation_cols;
        if (ow_num < 0 || ow_num % d.stride_cols != 0) continue;
        const int64_t ow = ow_num / d.stride_cols;
        if (ow >= d.out_cols) continue;
        const T* dy = out_backprop +
                      ((n * d.out_rows + oh) * d.out_cols + ow) * d.out_depth;
        const T* f = filter + (kr * d.filter_cols + kc) * d.out_depth;
        if (multiplier == 1) {
          out += ConstArrayMap<T>(dy, channels) * ConstArrayMap<T>(f, channels);
        } else {
          for (int64_t c = 0; c < channels; ++c) {
            out[c] += (ConstArrayMap<T>(dy + c * multiplier, multiplier) *
                       ConstArrayMap<T>(f + c * multiplier, multiplier))
                          .sum();
          }
        }
      }
    }
  }
}

// Adds the filter gradient of output pixels [p0, p1) into `sum`
// ([R*S, C*M], zeroed by the caller).
template <typename T>
void DepthwiseBackpropFilterPixels(const Conv2DDimensions& d, const T* input,
                                   const T* out_backprop, T* sum, int64_t p0,
                                   int64_t p1) {
  const int64_t channels = d.in_depth;
  const int64_t multiplier = d.out_depth / channels;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t ow = p % d.out_cols;
    const int64_t rest = p / d.out_cols;
    const int64_t oh = rest % d.out_rows;
    const int64_t n = rest / d.out_rows;
    const int64_t ih0 = oh * d.stride_rows - d.pad_rows_before;
    const int64_t iw0 = ow * d.stride_cols - d.pad_cols_before;
    const T* dy = out_backprop + p * d.out_depth;
    for (int64_t kr = 0; kr < d.filter_rows; ++kr) {
      const int64_t ih = ih0 + kr * d.dilation_rows;
      if (ih < 0 || ih >= d.input_rows) continue;
      for (int64_t kc = 0; kc < d.filter_cols; ++kc) {
        const int64_t iw = iw0 + kc * d.dilation_cols;
        if (iw < 0 || iw >= d.input_cols) continue;
        const T* in =
            input + ((n * d.input_rows + ih) * d.input_cols + iw) * channels;
        T* f = sum + (kr * d.filter_cols + kc) * d.out_depth;
        if (multiplier == 1) {
          ArrayMap<T>(f, channels) +=
              ConstArrayMap<T>(in, channels) * ConstArrayMap<T>(dy, channels);
        } else {
          for (int64_t c = 0; c < channels; ++c) {
            ArrayMap<T>(f + c * multiplier, multiplier) +=
                in[c] * ConstArrayMap<T>(dy + c * multiplier, multiplier);
          }
        }
      }
    }
  }
}

// kInputGrad: DepthwiseConv2dNativeBackpropInput (inputs input_sizes,
// filter, out_backprop); otherwise ...BackpropFilter (input, filter_sizes,
// out_backprop).
template <typename Device, typename T, bool kInputGrad>
class DepthwiseConv2dNativeBackpropOp : public OpKernel {
 public:
  explicit DepthwiseConv2dNativeBackpropOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, InitConv2DParameters(ctx, &params_));
    OP_REQUIRES(ctx, params_.data_format == FORMAT_NHWC,
                errors::Unimplemented(
                    kLabel, " only supports NHWC on the CPU, but got ",
                    ToString(params_.data_format)));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& sizes = ctx->input(kInputGrad ? 0 : 1);
    const Tensor& out_backprop = ctx->input(2);
    TensorShape sized;
    OP_REQUIRES_OK(ctx, ShapeFromSizesTensor(
                            kLabel, kInputGrad ? "input_sizes" : "filter_sizes",
                            sizes, &sized));
    const TensorShape& input_shape = kInputGrad ? sized : ctx->input(0).shape();
    const TensorShape& filter_shape =
        kInputGrad ? ctx->input(1).shape() : sized;
    Conv2DDimensions d;
    OP_REQUIRES_OK(ctx, ComputeConvBackpropDimensions(
                            kLabel, ConvKind::kDepthwise, params_, input_shape,
                            filter_shape, out_backprop.shape(), &d));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, sized, &output));
    if (sized.num_elements() == 0) return;
    // As the forward op: a window with no taps is not a convolution.
    OP_REQUIRES(ctx, filter_shape.num_elements() > 0,
                errors::InvalidArgument(
                    "filter must not have zero elements (i.e. all dimensions "
                    "must be non-zero)"));
    T* out = output->base<T>();
    if (out_backprop.NumElements() == 0) {
      std::fill_n(out, output->NumElements(), T(0));
      return;
    }
    const T* dy = out_backprop.base<const T>();
    const int64_t taps = d.filter_rows * d.filter_cols;
    if constexpr (kInputGrad) {
      const T* filter = ctx->input(1).base<const T>();
      const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
      Shard(workers->num_threads, workers->workers,
            d.batch * d.input_rows * d.input_cols, taps * d.out_depth,
            [&](int64_t start, int64_t limit) {
              DepthwiseBackpropInputPixels<T>(d, filter, dy, out, start, limit);
            });
    } else {
      const T* input = ctx->input(0).base<const T>();
      const int64_t size = taps * d.out_depth;
      OP_REQUIRES_OK(
          ctx, ShardWithPartialSums<T>(
                   ctx, d.batch * d.out_rows * d.out_cols, size, size, out,
                   [&](int64_t start, int64_t limit, T* sum) -> Status {
                     std::fill_n(sum, size, T(0));
                     DepthwiseBackpropFilterPixels<T>(d, input, dy, sum, start,
                                                      limit);
                     return OkStatus();
                   }));
    }
  }

 private:
  static constexpr const char* kLabel =
      kInputGrad ? "DepthwiseConv2dNativeBackpropInput"
                 : "DepthwiseConv2dNativeBackpropFilter";
  Conv2DParameters params_;
};

#define REGISTER_CPU(T)                                     \
  REGISTER_KERNEL_BUILDER(                                  \
      Name("DepthwiseConv2dNativeBackpropInput")            \
          .Device(DEVICE_CPU)                               \
          .TypeConstraint<T>("T"),                          \
      DepthwiseConv2dNativeBackpropOp<CPUDevice, T, true>); \
  REGISTER_KERNEL_BUILDER(                                  \
      Name("DepthwiseConv2dNativeBackpropFilter")           \
          .Device(DEVICE_CPU)                               \
          .TypeConstraint<T>("T"),                          \
      DepthwiseConv2dNativeBackpropOp<CPUDevice, T, false>);
TF_CALL_float(REGISTER_CPU) TF_CALL_double(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
