// FusedBatchNorm, FusedBatchNormV2 and FusedBatchNormV3 on CPU (and their
// gradients, FusedBatchNormGrad/V2/V3: see Note [FusedBatchNormGrad]):
//   y = (x - mean) * rsqrt(variance + epsilon) * scale + offset
// per channel, with the batch's own statistics when training (and the
// running averages TensorFlow returns in batch_mean / batch_variance) or
// the given ones in inference. NHWC and NCHW (and their 5-D forms) are
// read in place: NHWC as [rest, C], NCHW as [N, C, spatial], so no
// transpose is needed.
//
// Outputs, as TensorFlow's CPU kernel has them:
//   training: batch_mean/variance are the new running mean and the
//     Bessel-corrected running variance (blended with the inputs by
//     exponential_avg_factor when it is not 1); reserve_space_1/2 are the
//     batch mean and the biased batch variance.
//   inference: batch_mean/variance are the given mean and variance.
//     TensorFlow leaves reserve_space_1/2 unset; minflow copies mean and
//     variance there too, so nothing uninitialised escapes.
//   empty x: batch_mean/variance (and reserve_space_1/2) are NaN.
//   V3's reserve_space_3 is an unused scalar 0.
// _FusedBatchNormEx is V3 plus an optional side input added to y and an
// optional Relu, both applied in Normalize's pass over y (see Note [Fused
// epilogues]). TensorFlow implements those on the GPU only; minflow has
// them on the CPU too.
// Statistics accumulate in double (TensorFlow's sum in float); y is
// computed in U (float), x and y converted from and to T.
#define EIGEN_USE_THREADS

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "minflow/framework/tensor_format.h"

namespace minflow {
namespace {

// x viewed as [outer, C, inner]: NHWC has outer = N * spatial, inner = 1;
// NCHW has outer = N, inner = spatial.
struct Layout {
  int64_t outer = 0;
  int64_t channels = 0;
  int64_t inner = 0;
};

Layout MakeLayout(const TensorShape& x, TensorFormat format) {
  const int c = GetTensorFeatureDimIndex(x.dims(), format);
  Layout l;
  l.channels = x.dim_size(c);
  l.outer = 1;
  l.inner = 1;
  for (int d = 0; d < x.dims(); ++d) {
    if (d < c) l.outer *= x.dim_size(d);
    if (d > c) l.inner *= x.dim_size(d);
  }
  return l;
}

// Per-channel mean and biased variance of x, two passes in double.
template <typename T>
void BatchStatistics(const Layout& l, const T* x, std::vector<double>* mean,
                     std::vector<double>* variance) {
  const int64_t c_count = l.channels;
  mean->assign(c_count, 0.0);
  variance->assign(c_count, 0.0);
  const double n = static_cast<double>(l.outer * l.inner);
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t c = 0; c < c_count; ++c) {
      const T* p = x + (o * c_count + c) * l.inner;
      double s = 0;
      for (int64_t i = 0; i < l.inner; ++i) s += static_cast<double>(p[i]);
      (*mean)[c] += s;
    }
  }
  for (double& m : *mean) m /= n;
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t c = 0; c < c_count; ++c) {
      const T* p = x + (o * c_count + c) * l.inner;
      const double m = (*mean)[c];
      double s = 0;
      for (int64_t i = 0; i < l.inner; ++i) {
        const double d = static_cast<double>(p[i]) - m;
        s += d * d;
      }
      (*variance)[c] += s;
    }
  }
  for (double& v : *variance) v /= n;
}

// y = x * a[c] + b[c], sharded over the outer dim. _FusedBatchNormEx's
// epilogue follows in the same pass over each row, while it is in cache:
// `side` (x's shape, or null) is added, then Relu if `relu`.
template <typename T, typename U>
void Normalize(OpKernelContext* ctx, const Layout& l, const T* x,
               const std::vector<U>& a, const std::vector<U>& b, T* y,
               const T* side = nullptr, bool relu = false) {
  using Array = Eigen::Array<U, Eigen::Dynamic, 1>;
  using ConstTMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
  using TMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
  const int64_t c_count = l.channels;
  const Eigen::Map<const Array> av(a.data(), c_count);
  const Eigen::Map<const Array> bv(b.data(), c_count);
  const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
  Shard(workers->num_threads, workers->workers, l.outer,
        /*cost_per_unit=*/c_count * l.inner * 4 + 1,
        [&](int64_t o0, int64_t o1) {
          // Relu keeps NaN, as the Relu kernel.
          const auto epilogue = [&](TMap& out, int64_t at) {
            if (side != nullptr) out += ConstTMap(side + at, out.size());
            if (relu) out = (out < T(0)).select(T(0), out);
          };
          for (int64_t o = o0; o < o1; ++o) {
            if (l.inner == 1) {
              const ConstTMap in(x + o * c_count, c_count);
              TMap out(y + o * c_count, c_count);
              out = (in.template cast<U>() * av + bv).template cast<T>();
              epilogue(out, o * c_count);
              continue;
            }
            for (int64_t c = 0; c < c_count; ++c) {
              const int64_t at = (o * c_count + c) * l.inner;
              const ConstTMap in(x + at, l.inner);
              TMap out(y + at, l.inner);
              out = (in.template cast<U>() * a[c] + b[c]).template cast<T>();
              epilogue(out, at);
            }
          }
        });
}

template <typename T, typename U>
class FusedBatchNormOp : public OpKernel {
 public:
  explicit FusedBatchNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    float epsilon;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("epsilon", &epsilon));
    epsilon_ = epsilon;
    float factor;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("exponential_avg_factor", &factor));
    exponential_avg_factor_ = factor;
    std::string format_str;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format_str));
    int spatial_dims;
    OP_REQUIRES_OK(ctx, GetTensorFormatAndSpatialDimsFromString(
                            format_str, &format_, &spatial_dims));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("is_training", &is_training_));
    if (ctx->HasAttr("activation_mode")) {
      // _FusedBatchNormEx.
      int64_t num_side_inputs = 0;
      OP_REQUIRES_OK(ctx, ctx->GetAttr("num_side_inputs", &num_side_inputs));
      OP_REQUIRES(ctx, num_side_inputs <= 1,
                  errors::InvalidArgument(
                      "_FusedBatchNormEx supports at most one side input, but "
                      "got num_side_inputs = ",
                      num_side_inputs));
      has_side_input_ = num_side_inputs == 1;
      std::string activation_mode;
      OP_REQUIRES_OK(ctx, ctx->GetAttr("activation_mode", &activation_mode));
      OP_REQUIRES(ctx,
                  activation_mode == "Identity" || activation_mode == "Relu",
                  errors::InvalidArgument(
                      "_FusedBatchNormEx supports only Identity and Relu "
                      "activations, but got ",
                      activation_mode));
      relu_ = activation_mode == "Relu";
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& scale = ctx->input(1);
    const Tensor& offset = ctx->input(2);
    const Tensor& mean = ctx->input(3);
    const Tensor& variance = ctx->input(4);
    OP_REQUIRES(ctx, x.dims() == 4 || x.dims() == 5,
                errors::InvalidArgument("input must be 4 or 5-dimensional",
                                        x.shape().DebugString()));
    OP_REQUIRES(ctx, scale.dims() == 1,
                errors::InvalidArgument("scale must be 1-dimensional",
                                        scale.shape().DebugString()));
    OP_REQUIRES(ctx, offset.dims() == 1,
                errors::InvalidArgument("offset must be 1-dimensional",
                                        offset.shape().DebugString()));
    OP_REQUIRES(ctx, mean.dims() == 1,
                errors::InvalidArgument("estimated_mean must be 1-dimensional",
                                        mean.shape().DebugString()));
    OP_REQUIRES(
        ctx, variance.dims() == 1,
        errors::InvalidArgument("estimated_variance must be 1-dimensional",
                                variance.shape().DebugString()));
    const Layout l = MakeLayout(x.shape(), format_);
    const int64_t channels = l.channels;
    OP_REQUIRES(ctx, scale.NumElements() == channels,
                errors::InvalidArgument(
                    "scale must have the same number of elements as the "
                    "channels of x, got ",
                    scale.NumElements(), " and ", channels));
    OP_REQUIRES(ctx, offset.NumElements() == channels,
                errors::InvalidArgument(
                    "offset must have the same number of elements as the "
                    "channels of x, got ",
                    offset.NumElements(), " and ", channels));
    const bool reads_stats = !is_training_ || exponential_avg_factor_ != 1.0f;
    if (reads_stats) {
      const char* prefix = is_training_ ? "When exponential_avg_factor != 1"
                                        : "When is_training=false";
      OP_REQUIRES(ctx, mean.NumElements() == channels,
                  errors::InvalidArgument(
                      prefix,
                      ", mean must have the same number of elements as the "
                      "channels of x, got ",
                      mean.NumElements(), " and ", channels));
      OP_REQUIRES(ctx, variance.NumElements() == channels,
                  errors::InvalidArgument(
                      prefix,
                      ", variance must have the same number of elements as "
                      "the channels of x, got ",
                      variance.NumElements(), " and ", channels));
    }

    const T* side = nullptr;
    if (has_side_input_) {
      const Tensor& side_input = ctx->input(5);
      OP_REQUIRES(ctx, side_input.shape() == x.shape(),
                  errors::InvalidArgument(
                      "side_input shape must be equal to input shape: ",
                      side_input.shape().DebugString(),
                      " != ", x.shape().DebugString()));
      side = side_input.base<const T>();
    }

    Tensor* y = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    const TensorShape vec({channels});
    Tensor* stats[4] = {};
    for (int i = 0; i < 4; ++i) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i + 1, vec, &stats[i]));
    }
    if (ctx->num_outputs() == 6) {
      Tensor* reserve_3 = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(5, TensorShape({}), &reserve_3));
      reserve_3->base<U>()[0] = U();
    }
    U* out_mean = stats[0]->base<U>();
    U* out_var = stats[1]->base<U>();
    U* saved_mean = stats[2]->base<U>();
    U* saved_var = stats[3]->base<U>();
    if (x.NumElements() == 0) {
      const U nan(std::numeric_limits<float>::quiet_NaN());
      for (int64_t c = 0; c < channels; ++c) {
        out_mean[c] = out_var[c] = saved_mean[c] = saved_var[c] = nan;
      }
      return;
    }

    const U* s = scale.base<const U>();
    const U* b = offset.base<const U>();
    std::vector<U> a_coef(channels);
    std::vector<U> b_coef(channels);
    const auto set_coefficients = [&](int64_t c, double m, double v) {
      const U inv = static_cast<U>(1.0 / std::sqrt(v + epsilon_));
      a_coef[c] =
          static_cast<U>(static_cast<double>(s[c]) * static_cast<double>(inv));
      b_coef[c] = static_cast<U>(static_cast<double>(b[c]) -
                                 m * static_cast<double>(a_coef[c]));
    };
    if (is_training_) {
      std::vector<double> batch_mean;
      std::vector<double> batch_var;
      BatchStatistics(l, x.base<const T>(), &batch_mean, &batch_var);
      const int64_t n = l.outer * l.inner;
      const double bessel =
          static_cast<double>(n) / static_cast<double>(n > 1 ? n - 1 : 1);
      const double f = exponential_avg_factor_;
      const U* old_mean = mean.base<const U>();
      const U* old_var = variance.base<const U>();
      for (int64_t c = 0; c < channels; ++c) {
        set_coefficients(c, batch_mean[c], batch_var[c]);
        saved_mean[c] = static_cast<U>(batch_mean[c]);
        saved_var[c] = static_cast<U>(batch_var[c]);
        if (f == 1.0) {
          out_mean[c] = static_cast<U>(batch_mean[c]);
          out_var[c] = static_cast<U>(batch_var[c] * bessel);
        } else {
          out_mean[c] = static_cast<U>(
              (1 - f) * static_cast<double>(old_mean[c]) + f * batch_mean[c]);
          out_var[c] =
              static_cast<U>((1 - f) * static_cast<double>(old_var[c]) +
                             f * bessel * batch_var[c]);
        }
      }
    } else {
      const U* m = mean.base<const U>();
      const U* v = variance.base<const U>();
      for (int64_t c = 0; c < channels; ++c) {
        set_coefficients(c, static_cast<double>(m[c]),
                         static_cast<double>(v[c]));
        out_mean[c] = saved_mean[c] = m[c];
        out_var[c] = saved_var[c] = v[c];
      }
    }
    Normalize<T, U>(ctx, l, x.base<const T>(), a_coef, b_coef, y->base<T>(),
                    side, relu_);
  }

 private:
  double epsilon_ = 0;
  double exponential_avg_factor_ = 1;
  TensorFormat format_ = FORMAT_NHWC;
  bool is_training_ = true;
  bool has_side_input_ = false;  // _FusedBatchNormEx only
  bool relu_ = false;            // _FusedBatchNormEx only
};

// Note [FusedBatchNormGrad]
// With xhat = (x - mean) * rsqrt(variance + epsilon) per channel, over the
// n elements of each channel:
//   offset_backprop = sum(dy)
//   scale_backprop  = sum(dy * xhat)
//   training:  x_backprop = scale * rsqrt(variance + epsilon) *
//                (dy - offset_backprop / n - xhat * scale_backprop / n),
//              where mean and variance are the batch's own statistics
//              (the forward op's reserve_space_1/2), which depend on x;
//   inference: x_backprop = dy * scale * rsqrt(variance + epsilon), with
//              the given population mean and variance as constants.
// The sums accumulate in double. reserve_space_3/4 (V3: 4/5) are empty
// vectors, as TensorFlow's CPU kernel leaves them.
template <typename T, typename U>
class FusedBatchNormGradOp : public OpKernel {
 public:
  explicit FusedBatchNormGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    float epsilon;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("epsilon", &epsilon));
    epsilon_ = epsilon;
    std::string format_str;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format_str));
    int spatial_dims;
    OP_REQUIRES_OK(ctx, GetTensorFormatAndSpatialDimsFromString(
                            format_str, &format_, &spatial_dims));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("is_training", &is_training_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    const Tensor& scale = ctx->input(2);
    const Tensor& saved_mean = ctx->input(3);
    const Tensor& saved_var = ctx->input(4);
    OP_REQUIRES(
        ctx, dy.dims() == 4 || dy.dims() == 5,
        errors::InvalidArgument(
            type_string(), ": y_backprop must be 4 or 5-dimensional, but got ",
            dy.shape().DebugString()));
    OP_REQUIRES(ctx, x.shape() == dy.shape(),
                errors::InvalidArgument(
                    type_string(),
                    ": x and y_backprop must have the same shape, but x has "
                    "shape ",
                    x.shape().DebugString(), " and y_backprop has shape ",
                    dy.shape().DebugString()));
    const Layout l = MakeLayout(x.shape(), format_);
    const int64_t channels = l.channels;
    const char* names[] = {"scale", "reserve_space_1", "reserve_space_2"};
    const Tensor* vecs[] = {&scale, &saved_mean, &saved_var};
    for (int i = 0; i < 3; ++i) {
      OP_REQUIRES(ctx, vecs[i]->dims() == 1,
                  errors::InvalidArgument(type_string(), ": ", names[i],
                                          " must be 1-dimensional, but got ",
                                          vecs[i]->shape().DebugString()));
      OP_REQUIRES(ctx, vecs[i]->NumElements() == channels,
                  errors::InvalidArgument(
                      type_string(), ": ", names[i],
                      " must have as many elements as the channels of x (",
                      channels, "), but got ", vecs[i]->NumElements()));
    }

    Tensor* dx = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &dx));
    Tensor* dscale = nullptr;
    Tensor* doffset = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(1, TensorShape({channels}), &dscale));
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(2, TensorShape({channels}), &doffset));
    for (int i = 3; i < ctx->num_outputs(); ++i) {
      Tensor* unused = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape({0}), &unused));
    }
    U* scale_out = dscale->base<U>();
    U* offset_out = doffset->base<U>();
    const int64_t n = l.outer * l.inner;
    if (n == 0) {
      for (int64_t c = 0; c < channels; ++c)
        scale_out[c] = offset_out[c] = U(0);
      return;
    }

    const T* dyp = dy.base<const T>();
    const T* xp = x.base<const T>();
    const U* s = scale.base<const U>();
    const U* m = saved_mean.base<const U>();
    const U* v = saved_var.base<const U>();
    std::vector<double> inv(channels);
    for (int64_t c = 0; c < channels; ++c) {
      inv[c] = 1.0 / std::sqrt(static_cast<double>(v[c]) + epsilon_);
    }
    // sum(dy) and sum(dy * (x - mean)) per channel.
    std::vector<double> sum_dy(channels, 0.0);
    std::vector<double> sum_dy_xc(channels, 0.0);
    for (int64_t o = 0; o < l.outer; ++o) {
      for (int64_t c = 0; c < channels; ++c) {
        const int64_t at = (o * channels + c) * l.inner;
        const double mc = static_cast<double>(m[c]);
        double a = 0;
        double b = 0;
        for (int64_t i = 0; i < l.inner; ++i) {
          const double g = static_cast<double>(dyp[at + i]);
          a += g;
          b += g * (static_cast<double>(xp[at + i]) - mc);
        }
        sum_dy[c] += a;
        sum_dy_xc[c] += b;
      }
    }
    // x_backprop = k[c] * (dy - mean_dy[c]) - q[c] * (x - mean[c]) in
    // training, k[c] * dy in inference.
    std::vector<double> k(channels);
    std::vector<double> mean_dy(channels, 0.0);
    std::vector<double> q(channels, 0.0);
    for (int64_t c = 0; c < channels; ++c) {
      offset_out[c] = static_cast<U>(sum_dy[c]);
      scale_out[c] = static_cast<U>(sum_dy_xc[c] * inv[c]);
      k[c] = static_cast<double>(s[c]) * inv[c];
      if (is_training_) {
        mean_dy[c] = sum_dy[c] / static_cast<double>(n);
        q[c] = k[c] * inv[c] * inv[c] * sum_dy_xc[c] / static_cast<double>(n);
      }
    }
    T* dxp = dx->base<T>();
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    Shard(workers->num_threads, workers->workers, l.outer,
          /*cost_per_unit=*/channels * l.inner * 6 + 1,
          [&](int64_t o0, int64_t o1) {
            for (int64_t o = o0; o < o1; ++o) {
              for (int64_t c = 0; c < channels; ++c) {
                const int64_t at = (o * channels + c) * l.inner;
                const double mc = static_cast<double>(m[c]);
                for (int64_t i = 0; i < l.inner; ++i) {
                  // dy is read before dx, which may be its forwarded buffer.
                  const double g = static_cast<double>(dyp[at + i]);
                  const double xc = static_cast<double>(xp[at + i]) - mc;
                  dxp[at + i] =
                      static_cast<T>(k[c] * (g - mean_dy[c]) - q[c] * xc);
                }
              }
            }
          });
  }

 private:
  double epsilon_ = 0;
  TensorFormat format_ = FORMAT_NHWC;
  bool is_training_ = true;
};

REGISTER_KERNEL_BUILDER(
    Name("FusedBatchNorm").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    FusedBatchNormOp<float, float>);

REGISTER_KERNEL_BUILDER(
    Name("FusedBatchNormGrad").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    FusedBatchNormGradOp<float, float>);
#define REGISTER_GRAD_CPU(T)                               \
  REGISTER_KERNEL_BUILDER(Name("FusedBatchNormGradV2")     \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("T")      \
                              .TypeConstraint<float>("U"), \
                          FusedBatchNormGradOp<T, float>); \
  REGISTER_KERNEL_BUILDER(Name("FusedBatchNormGradV3")     \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("T")      \
                              .TypeConstraint<float>("U"), \
                          FusedBatchNormGradOp<T, float>);
REGISTER_GRAD_CPU(float)
REGISTER_GRAD_CPU(half)
REGISTER_GRAD_CPU(bfloat16)
#undef REGISTER_GRAD_CPU

#define REGISTER_CPU(T)                                    \
  REGISTER_KERNEL_BUILDER(Name("FusedBatchNormV2")         \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("T")      \
                              .TypeConstraint<float>("U"), \
                          FusedBatchNormOp<T, float>);     \
  REGISTER_KERNEL_BUILDER(Name("FusedBatchNormV3")         \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("T")      \
                              .TypeConstraint<float>("U"), \
                          FusedBatchNormOp<T, float>);
TF_CALL_float(REGISTER_CPU) TF_CALL_half(REGISTER_CPU)
    TF_CALL_bfloat16(REGISTER_CPU)
#undef REGISTER_CPU

        REGISTER_KERNEL_BUILDER(Name("_FusedBatchNormEx")
                                    .Device(DEVICE_CPU)
                                    .TypeConstraint<float>("T")
                                    .TypeConstraint<float>("U"),
                                FusedBatchNormOp<float, float>);

}  // namespace
}  // namespace minflow
