// FakeQuantWithMinMaxArgs / Vars / VarsPerChannel: clamp to [min, max]
// nudged so that 0.0 is exactly representable, then round to the nearest
// of 2^num_bits (less one when narrow_range) evenly spaced levels.
#define EIGEN_USE_THREADS

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "minflow/core/tensor.h"
#include "minflow/framework/op_kernel.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;

// TensorFlow's nudging: the zero point, min / scale below quant_min,
// is rounded (half away from zero) into [quant_min, quant_max] and min and
// max are moved to match.
struct Nudged {
  float min;
  float max;
  float scale;
};

Nudged Nudge(float min, float max, int quant_min, int quant_max) {
  const float quant_min_float = static_cast<float>(quant_min);
  const float quant_max_float = static_cast<float>(quant_max);
  const float scale = (max - min) / (quant_max_float - quant_min_float);
  const float zero_point_from_min = quant_min_float - min / scale;
  float zero_point;
  if (zero_point_from_min < quant_min_float) {
    zero_point = quant_min_float;
  } else if (zero_point_from_min > quant_max_float) {
    zero_point = quant_max_float;
  } else {
    zero_point = std::round(zero_point_from_min);
  }
  return {(quant_min_float - zero_point) * scale,
          (quant_max_float - zero_point) * scale, scale};
}

// out = floor((clamp(in) - min) / scale + 1/2) * scale + min over `n`
// floats; min = max = 0 gives zeros, as TensorFlow's Vars kernels do.
template <typename In, typename Out>
void FakeQuantize(const CPUDevice& d, In in, Out out, float min, float max,
                  int quant_min, int quant_max) {
  if (min == 0.0f && max == 0.0f) {
    out.device(d) = out.constant(0.0f);
    return;
  }
  const Nudged n = Nudge(min, max, quant_min, quant_max);
  const float inv_scale = 1.0f / n.scale;
  out.device(d) =
      (((in.cwiseMin(n.max).cwiseMax(n.min) - n.min) * inv_scale + 0.5f)
           .floor() *
       n.scale) +
      n.min;
}

Status ReadNumBits(OpKernelConstruction* ctx, int* quant_min, int* quant_max) {
  int num_bits;
  bool narrow_range;
  MF_RETURN_IF_ERROR(ctx->GetAttr("num_bits", &num_bits));
  MF_RETURN_IF_ERROR(ctx->GetAttr("narrow_range", &narrow_range));
  if (num_bits < 2 || num_bits > 16) {
    return errors::InvalidArgument(
        "num_bits must be between 2 and 16, inclusive");
  }
  *quant_min = narrow_range ? 1 : 0;
  *quant_max = (1 << num_bits) - 1;
  return OkStatus();
}

class FakeQuantWithMinMaxArgsOp : public OpKernel {
 public:
  explicit FakeQuantWithMinMaxArgsOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("min", &min_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("max", &max_));
    OP_REQUIRES(ctx, min_ < max_,
                errors::InvalidArgument("min has to be smaller than max, was: ",
                                        min_, " >= ", max_));
    OP_REQUIRES_OK(ctx, ReadNumBits(ctx, &quant_min_, &quant_max_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, in.shape(), &out));
    if (in.NumElements() == 0) return;
    FakeQuantize(ctx->eigen_device<CPUDevice>(), in.flat<float>(),
                 out->flat<float>(), min_, max_, quant_min_, quant_max_);
  }

 private:
  float min_ = 0;
  float max_ = 0;
  int quant_min_ = 0;
  int quant_max_ = 0;
};

class FakeQuantWithMinMaxVarsOp : public OpKernel {
 public:
  explicit FakeQuantWithMinMaxVarsOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadNumBits(ctx, &quant_min_, &quant_max_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& min = ctx->input(1);
    const Tensor& max = ctx->input(2);
    OP_REQUIRES(ctx, min.dims() == 0,
                errors::InvalidArgument("`min` must be rank 0 but is rank ",
                                        min.dims()));
    OP_REQUIRES(ctx, max.dims() == 0,
                errors::InvalidArgument("`max` must be rank 0 but is rank ",
                                        max.dims()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, in.shape(), &out));
    if (in.NumElements() == 0) return;
    FakeQuantize(ctx->eigen_device<CPUDevice>(), in.flat<float>(),
                 out->flat<float>(), min.scalar<float>()(),
                 max.scalar<float>()(), quant_min_, quant_max_);
  }

 private:
  int quant_min_ = 0;
  int quant_max_ = 0;
};

class FakeQuantWithMinMaxVarsPerChannelOp : public OpKernel {
 public:
  explicit FakeQuantWithMinMaxVarsPerChannelOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadNumBits(ctx, &quant_min_, &quant_max_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& min = ctx->input(1);
    const Tensor& max = ctx->input(2);
    OP_REQUIRES(ctx, in.dims() >= 1,
                errors::InvalidArgument("`inputs` must be at least rank 1, "
                                        "but got rank ",
                                        in.dims()));
    OP_REQUIRES(ctx, min.dims() == 1,
                errors::InvalidArgument("`min` must be rank 1 but is rank ",
                                        min.dims()));
    OP_REQUIRES(ctx, max.dims() == 1,
                errors::InvalidArgument("`max` must be rank 1 but is rank ",
                                        max.dims()));
    const int64_t depth = in.dim_size(in.dims() - 1);
    OP_REQUIRES(ctx, min.dim_size(0) == depth,
                errors::InvalidArgument("min has incorrect size, expected ",
                                        depth, " was ", min.dim_size(0)));
    OP_REQUIRES(ctx, max.dim_size(0) == depth,
                errors::InvalidArgument("max has incorrect size, expected ",
                                        depth, " was ", max.dim_size(0)));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, in.shape(), &out));
    if (in.NumElements() == 0) return;
    // One pass over [rows, depth] with each channel's nudged range; a
    // zero range ([0, 0]) gives zeros, as in FakeQuantize.
    const int64_t rows = in.NumElements() / depth;
    const float* mins = min.base<const float>();
    const float* maxs = max.base<const float>();
    std::vector<Nudged> nudged(depth);
    std::vector<float> inv_scale(depth);
    std::vector<char> zero(depth);
    for (int64_t c = 0; c < depth; ++c) {
      zero[c] = mins[c] == 0.0f && maxs[c] == 0.0f;
      if (zero[c]) continue;
      nudged[c] = Nudge(mins[c], maxs[c], quant_min_, quant_max_);
      inv_scale[c] = 1.0f / nudged[c].scale;
    }
    const float* src = in.base<const float>();
    float* dst = out->base<float>();
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < depth; ++c) {
        const Nudged& n = nudged[c];
        const int64_t i = r * depth + c;
        const float clamped = std::max(std::min(src[i], n.max), n.min);
        dst[i] = zero[c] ? 0.0f
                         : std::floor((clamped - n.min) * inv_scale[c] + 0.5f) *
                                   n.scale +
                               n.min;
      }
    }
  }

 private:
  int quant_min_ = 0;
  int quant_max_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("FakeQuantWithMinMaxArgs").Device(DEVICE_CPU),
                        FakeQuantWithMinMaxArgsOp);
REGISTER_KERNEL_BUILDER(Name("FakeQuantWithMinMaxVars").Device(DEVICE_CPU),
                        FakeQuantWithMinMaxVarsOp);
REGISTER_KERNEL_BUILDER(
    Name("FakeQuantWithMinMaxVarsPerChannel").Device(DEVICE_CPU),
    FakeQuantWithMinMaxVarsPerChannelOp);

}  // namespace
}  // namespace minflow
