// MaxPoolGrad, MaxPoolGradV2 and AvgPoolGrad (NHWC, CPU): each output
// pixel's gradient is scattered back over its window, vectorised over
// channels. Windows overlap, so the work is split by image: two threads
// never add into the same input pixel.
#define EIGEN_USE_THREADS

#include <algorithm>
#include <cstdint>
#include <vector>

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

// The in-image taps of output pixel (n, oh, ow)'s window: rows [h0, h1),
// cols [w0, w1) (empty when the window lies wholly in EXPLICIT padding).
struct Window {
  int64_t h0, h1, w0, w1;
};
Window WindowOf(const Conv2DDimensions& d, int64_t oh, int64_t ow) {
  const int64_t h = oh * d.stride_rows - d.pad_rows_before;
  const int64_t w = ow * d.stride_cols - d.pad_cols_before;
  return {std::max<int64_t>(h, 0), std::min(h + d.filter_rows, d.input_rows),
          std::max<int64_t>(w, 0), std::min(w + d.filter_cols, d.input_cols)};
}

// Note [MaxPoolGrad picks the first maximum]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// As TensorFlow's CPU kernel, the maximum is recomputed from orig_input
// (orig_output is only checked for its shape): the window's first tap in
// row-major order is taken, and a later tap replaces it only when strictly
// greater. So of tied maxima the first gets the whole gradient, which is
// what MaxPoolWithArgmax reports too.
template <typename T>
void MaxPoolGradImages(const PoolDimensions& d, const T* input, const T* grad,
                       T* in_grad, int64_t n0, int64_t n1) {
  const int64_t depth = d.in_depth;
  const int64_t image = d.input_rows * d.input_cols * depth;
  std::fill(in_grad + n0 * image, in_grad + n1 * image, T(0));
  std::vector<T> best(depth);
  std::vector<int64_t> where(depth);
  for (int64_t n = n0; n < n1; ++n) {
    const T* in = input + n * image;
    for (int64_t oh = 0; oh < d.out_rows; ++oh) {
      for (int64_t ow = 0; ow < d.out_cols; ++ow) {
        const Window win = WindowOf(d, oh, ow);
        if (win.h1 <= win.h0 || win.w1 <= win.w0) continue;
        bool first = true;
        for (int64_t h = win.h0; h < win.h1; ++h) {
          for (int64_t w = win.w0; w < win.w1; ++w) {
            const int64_t at = (h * d.input_cols + w) * depth;
            for (int64_t c = 0; c < depth; ++c) {
              if (first || in[at + c] > best[c]) {
                best[c] = in[at + c];
                where[c] = at + c;
              }
            }
            first = false;
          }
        }
        const T* g = grad + ((n * d.out_rows + oh) * d.out_cols + ow) * depth;
        T* dst = in_grad + n * image;
        for (int64_t c = 0; c < depth; ++c) dst[where[c]] += g[c];
      }
    }
  }
}

// Each window's gradient divided by its in-image taps (AvgPool's divisor)
// and added to every one of them.
template <typename T>
void AvgPoolGradImages(const PoolDimensions& d, const T* grad, T* in_grad,
                       int64_t n0, int64_t n1) {
  const int64_t depth = d.in_depth;
  const int64_t image = d.input_rows * d.input_cols * depth;
  std::fill(in_grad + n0 * image, in_grad + n1 * image, T(0));
  std::vector<T> share(depth);
  for (int64_t n = n0; n < n1; ++n) {
    for (int64_t oh = 0; oh < d.out_rows; ++oh) {
      for (int64_t ow = 0; ow < d.out_cols; ++ow) {
        const Window win = WindowOf(d, oh, ow);
        if (win.h1 <= win.h0 || win.w1 <= win.w0) continue;
        const T count = static_cast<T>((win.h1 - win.h0) * (win.w1 - win.w0));
        ArrayMap<T> s(share.data(), depth);
        s = ConstArrayMap<T>(
                grad + ((n * d.out_rows + oh) * d.out_cols + ow) * depth,
                depth) /
            count;
        for (int64_t h = win.h0; h < win.h1; ++h) {
          for (int64_t w = win.w0; w < win.w1; ++w) {
            ArrayMap<T>(in_grad + n * image + (h * d.input_cols + w) * depth,
                        depth) += s;
          }
        }
      }
    }
  }
}

// The forward output shape of `d`.
TensorShape ForwardOutputShape(const PoolDimensions& d) {
  return TensorShape({d.batch, d.out_rows, d.out_cols, d.out_depth});
}

Status CheckGradShape(const char* what, const TensorShape& expected,
                      const TensorShape& got) {
  if (expected != got) {
    return errors::InvalidArgument("Expected ", what, " shape to be ",
                                   expected.DebugString(), ", but got ",
                                   got.DebugString());
  }
  return OkStatus();
}

// Runs fn(n0, n1) over the batch on the intra-op pool; `image_cost` is
// the cycles of one image.
template <typename Fn>
void ShardImages(OpKernelContext* ctx, int64_t batch, int64_t image_cost,
                 Fn fn) {
  const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
  Shard(workers->num_threads, workers->workers, batch, image_cost, fn);
}

std::vector<int64_t> WindowValues(const Tensor& t) {
  const int32_t* v = t.base<const int32_t>();
  return std::vector<int64_t>(v, v + t.NumElements());
}

// kWindowFromInputs: MaxPoolGradV2, whose ksize and strides are inputs 3
// and 4 rather than attrs.
template <typename Device, typename T, bool kWindowFromInputs>
class MaxPoolGradOp : public OpKernel {
 public:
  explicit MaxPoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if constexpr (kWindowFromInputs) {
      OP_REQUIRES_OK(ctx, InitPoolFormatAndPadding(ctx, &params_));
    } else {
      OP_REQUIRES_OK(ctx, InitPoolParameters(ctx, &params_));
    }
    OP_REQUIRES(ctx, params_.data_format == FORMAT_NHWC,
                errors::InvalidArgument(
                    "Default MaxPoolingGradOp only supports NHWC on device "
                    "type CPU"));
    // Index 3 is depth only in NHWC, checked above.
    if constexpr (!kWindowFromInputs) {
      OP_REQUIRES_OK(ctx, CheckSpatial(params_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& tensor_in = ctx->input(0);
    const Tensor& tensor_out = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    const PoolParameters* params = &params_;
    PoolParameters from_inputs;
    if constexpr (kWindowFromInputs) {
      from_inputs = params_;
      from_inputs.ksize = WindowValues(ctx->input(3));
      from_inputs.strides = WindowValues(ctx->input(4));
      OP_REQUIRES_OK(ctx, CheckPoolWindow(&from_inputs));
      OP_REQUIRES_OK(ctx, CheckSpatial(from_inputs));
      params = &from_inputs;
    }
    OP_REQUIRES(ctx, tensor_in.dims() == 4,
                errors::InvalidArgument("tensor_in must be 4-dimensional"));
    OP_REQUIRES(ctx, tensor_out.dims() == 4,
                errors::InvalidArgument("tensor_out must be 4-dimensional"));
    OP_REQUIRES(ctx, out_backprop.dims() == 4,
                errors::InvalidArgument("out_backprop must be 4-dimensional"));
    PoolDimensions d;
    OP_REQUIRES_OK(ctx, ComputePoolDimensions(*params, tensor_in.shape(), &d));
    const TensorShape out_shape = ForwardOutputShape(d);
    OP_REQUIRES_OK(
        ctx, CheckGradShape("orig_output", out_shape, tensor_out.shape()));
    OP_REQUIRES_OK(ctx,
                   CheckGradShape("grad", out_shape, out_backprop.shape()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, tensor_in.shape(), &output));
    if (tensor_in.NumElements() == 0) return;
    const T* in = tensor_in.base<const T>();
    const T* g = out_backprop.base<const T>();
    T* out = output->base<T>();
    ShardImages(
        ctx, d.batch,
        d.out_rows * d.out_cols * d.filter_rows * d.filter_cols * d.in_depth +
            d.input_rows * d.input_cols * d.in_depth,
        [&](int64_t n0, int64_t n1) {
          MaxPoolGradImages<T>(d, in, g, out, n0, n1);
        });
  }

 private:
  static Status CheckSpatial(const PoolParameters& p) {
    if (p.ksize[3] != 1 || p.strides[3] != 1) {
      return errors::Unimplemented(
          "MaxPoolingGrad is not yet supported on the depth dimension.");
    }
    return OkStatus();
  }

  PoolParameters params_;
};

template <typename Device, typename T>
class AvgPoolGradOp : public OpKernel {
 public:
  explicit AvgPoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, InitPoolParameters(ctx, &params_));
    OP_REQUIRES(ctx, params_.data_format == FORMAT_NHWC,
                errors::InvalidArgument(
                    "Default AvgPoolingGradOp only supports NHWC on device "
                    "type CPU"));
    OP_REQUIRES(ctx, params_.ksize[3] == 1 && params_.strides[3] == 1,
                errors::Unimplemented(
                    "Non-spatial pooling is not yet supported: AvgPoolGrad "
                    "needs ksize[3] == 1 and strides[3] == 1"));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& orig_input_shape = ctx->input(0);
    const Tensor& out_backprop = ctx->input(1);
    TensorShape input_shape;
    OP_REQUIRES_OK(ctx, ShapeFromSizesTensor("AvgPoolGrad", "orig_input_shape",
                                             orig_input_shape, &input_shape));
    OP_REQUIRES(ctx, out_backprop.dims() == 4,
                errors::InvalidArgument("out_backprop must be 4-dimensional"));
    PoolDimensions d;
    OP_REQUIRES_OK(ctx, ComputePoolDimensions(params_, input_shape, &d));
    OP_REQUIRES_OK(ctx, CheckGradShape("grad", ForwardOutputShape(d),
                                       out_backprop.shape()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input_shape, &output));
    if (input_shape.num_elements() == 0) return;
    const T* g = out_backprop.base<const T>();
    T* out = output->base<T>();
    ShardImages(
        ctx, d.batch,
        d.out_rows * d.out_cols * d.filter_rows * d.filter_cols * d.in_depth +
            d.input_rows * d.input_cols * d.in_depth,
        [&](int64_t n0, int64_t n1) {
          AvgPoolGradImages<T>(d, g, out, n0, n1);
        });
  }

 private:
  PoolParameters params_;
};

#define REGISTER_CPU(T)                                              \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("MaxPoolGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      MaxPoolGradOp<CPUDevice, T, false>);                           \
  REGISTER_KERNEL_BUILDER(Name("MaxPoolGradV2")                      \
                              .Device(DEVICE_CPU)                    \
                              .HostMemory("ksize")                   \
                              .HostMemory("strides")                 \
                              .TypeConstraint<T>("T"),               \
                          MaxPoolGradOp<CPUDevice, T, true>);        \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("AvgPoolGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      AvgPoolGradOp<CPUDevice, T>);
TF_CALL_float(REGISTER_CPU) TF_CALL_double(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
