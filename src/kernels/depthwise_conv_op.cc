// DepthwiseConv2dNative (NHWC, CPU): each input channel c convolved with its
// own depth_multiplier filters; output channel c * multiplier + m.
#define EIGEN_USE_THREADS

#include <algorithm>
#include <cstdint>

#include "Eigen/Core"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/conv_ops_common.h"

namespace minflow {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;

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

template <typename Device, typename T>
class DepthwiseConv2dNativeOp : public OpKernel {
 public:
  explicit DepthwiseConv2dNativeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, InitConv2DParameters(ctx, &params_));
    OP_REQUIRES(ctx, params_.data_format == FORMAT_NHWC,
                errors::Unimplemented(
                    "Depthwise convolution on CPU is only supported for NHWC "
                    "format, but got ",
                    ToString(params_.data_format)));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    Conv2DDimensions d;
    OP_REQUIRES_OK(ctx, ComputeDepthwiseConv2DDimension(params_, input.shape(),
                                                        filter.shape(), &d));
    TensorShape out_shape;
    OP_REQUIRES_OK(
        ctx, TensorShape::BuildTensorShape(
                 {d.batch, d.out_rows, d.out_cols, d.out_depth}, &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (out_shape.num_elements() == 0) return;
    // As Conv2D: an empty window has no taps to sum over.
    OP_REQUIRES(ctx, filter.NumElements() > 0,
                errors::InvalidArgument(
                    "filter must not have zero elements (i.e. all dimensions "
                    "must be non-zero)"));
    const T* in = input.base<const T>();
    const T* f = filter.base<const T>();
    T* out = output->base<T>();
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    const int64_t cost_per_pixel =
        d.filter_rows * d.filter_cols * d.out_depth + d.out_depth;
    Shard(workers->num_threads, workers->workers,
          d.batch * d.out_rows * d.out_cols, cost_per_pixel,
          [&](int64_t start, int64_t limit) {
            DepthwiseConvPixels<T>(d, in, f, out, start, limit);
          });
  }

 private:
  Conv2DParameters params_;
};

#define REGISTER_CPU(T)                                                        \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("DepthwiseConv2dNative").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      DepthwiseConv2dNativeOp<CPUDevice, T>);
TF_CALL_float(REGISTER_CPU) TF_CALL_double(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
