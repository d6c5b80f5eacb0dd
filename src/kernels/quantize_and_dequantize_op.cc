// QuantizeAndDequantizeV2/V3/V4: simulates a round trip through a signed or
// unsigned num_bits integer. The range [min, max] (given, or the input's
// own, per slice of `axis` or whole) is widened on one side so that
// zero is exact and the other end decides the scale; values are
// round(x * scale) / scale, clamped first when the range is given.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "minflow/core/tensor.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"

namespace minflow {
namespace {

enum class RoundMode { kHalfToEven, kHalfUp };

struct QuantizeParams {
  bool signed_input = true;
  int num_bits = 8;
  bool range_given = false;
  bool narrow_range = false;
  RoundMode round_mode = RoundMode::kHalfToEven;
  int axis = -1;
};

Status CheckNumBits(int num_bits, bool signed_input) {
  if (num_bits > 0 && num_bits < (signed_input ? 62 : 63)) return OkStatus();
  return errors::InvalidArgument("num_bits is out of range: ", num_bits,
                                 " with signed_input_ ",
                                 signed_input ? "true" : "false");
}

template <typename T>
T Round(T x, RoundMode mode) {
  return mode == RoundMode::kHalfUp ? std::floor(x + T(0.5))
                                    : std::nearbyint(x);
}

// One slice: `outer` runs of `count` values, `stride_outer` apart, from
// `in` to `out`, quantised over [min_range, max_range].
template <typename T>
void QuantizeSlice(const T* in, T* out, int64_t count, int64_t stride_outer,
                   int64_t outer, T min_range, T max_range,
                   const QuantizeParams& p) {
  const int64_t half = int64_t{1} << (p.num_bits - 1);
  const int64_t min_q =
      p.signed_input ? (p.narrow_range ? -half + 1 : -half) : 0;
  const int64_t max_q =
      p.signed_input ? half - 1 : (int64_t{1} << p.num_bits) - 1;
  const T min_qf = static_cast<T>(min_q);
  const T max_qf = static_cast<T>(max_q);
  const T scale_from_min = min_qf * min_range > T(0)
                               ? min_qf / min_range
                               : std::numeric_limits<T>::max();
  const T scale_from_max = max_qf * max_range > T(0)
                               ? max_qf / max_range
                               : std::numeric_limits<T>::max();
  // The side that gives the smaller scale keeps its end; the other moves.
  T scale, inverse_scale;
  if (scale_from_min < scale_from_max) {
    scale = scale_from_min;
    inverse_scale = min_range / min_qf;
    max_range = max_qf * inverse_scale;
  } else {
    scale = scale_from_max;
    inverse_scale = max_range / max_qf;
    min_range = min_qf * inverse_scale;
  }
  for (int64_t o = 0; o < outer; ++o) {
    const T* src = in + o * stride_outer;
    T* dst = out + o * stride_outer;
    for (int64_t i = 0; i < count; ++i) {
      T x = src[i];
      if (p.range_given) x = std::min(std::max(x, min_range), max_range);
      dst[i] = Round(x * scale, p.round_mode) * inverse_scale;
    }
  }
}

template <typename T>
void QuantizeAndDequantize(OpKernelContext* ctx, const QuantizeParams& p) {
  const Tensor& input = ctx->input(0);
  OP_REQUIRES(
      ctx, p.axis >= -1,
      errors::InvalidArgument("Axis must be at least -1. Found ", p.axis));
  OP_REQUIRES(
      ctx, p.axis == -1 || p.axis < input.dims(),
      errors::InvalidArgument("Shape must be at least rank ", p.axis + 1,
                              " but is rank ", input.dims()));
  const int64_t depth = p.axis == -1 ? 1 : input.dim_size(p.axis);
  const Tensor& min_t = ctx->input(1);
  const Tensor& max_t = ctx->input(2);
  if (p.range_given) {
    const int rank = p.axis == -1 ? 0 : 1;
    for (const Tensor* t : {&min_t, &max_t}) {
      const char* name = t == &min_t ? "input_min" : "input_max";
      OP_REQUIRES(ctx, t->dims() == rank,
                  errors::InvalidArgument(
                      "`", name, "` must be rank ", rank, " when axis is ",
                      p.axis, ", but got shape ", t->shape().DebugString()));
      OP_REQUIRES(ctx, rank == 0 || t->dim_size(0) == depth,
                  errors::InvalidArgument(
                      name, "_tensor has incorrect size, was ", t->dim_size(0),
                      " expected ", depth, " to match dim ", p.axis,
                      " of the input ", input.shape().DebugString()));
    }
    const T* mins = min_t.base<const T>();
    const T* maxs = max_t.base<const T>();
    for (int64_t c = 0; c < depth; ++c) {
      OP_REQUIRES(ctx, !(mins[c] > maxs[c]),
                  errors::InvalidArgument(
                      "Invalid range: input_min ", static_cast<double>(mins[c]),
                      " > input_max ", static_cast<double>(maxs[c])));
    }
  }
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
  if (input.NumElements() == 0) return;
  // The input as [outer, depth, inner]; a slice is [:, c, :].
  int64_t inner = 1;
  if (p.axis != -1) {
    for (int d = p.axis + 1; d < input.dims(); ++d) inner *= input.dim_size(d);
  } else {
    inner = input.NumElements();
  }
  const int64_t outer = input.NumElements() / (depth * inner);
  const T* in = input.base<const T>();
  T* dst = out->base<T>();
  for (int64_t c = 0; c < depth; ++c) {
    T lo, hi;
    if (p.range_given) {
      lo = min_t.base<const T>()[c];
      hi = max_t.base<const T>()[c];
    } else {
      lo = hi = in[c * inner];
      for (int64_t o = 0; o < outer; ++o) {
        const T* s = in + (o * depth + c) * inner;
        for (int64_t i = 0; i < inner; ++i) {
          lo = std::min(lo, s[i]);
          hi = std::max(hi, s[i]);
        }
      }
    }
    QuantizeSlice<T>(in + c * inner, dst + c * inner, inner, depth * inner,
                     outer, lo, hi, p);
  }
}

Status ReadCommonAttrs(OpKernelConstruction* ctx, QuantizeParams* p) {
  MF_RETURN_IF_ERROR(ctx->GetAttr("signed_input", &p->signed_input));
  MF_RETURN_IF_ERROR(ctx->GetAttr("range_given", &p->range_given));
  MF_RETURN_IF_ERROR(ctx->GetAttr("narrow_range", &p->narrow_range));
  return ctx->GetAttr("axis", &p->axis);
}

// V2 and V4 (which differ only in their gradients).
template <typename T>
class QuantizeAndDequantizeV2Op : public OpKernel {
 public:
  explicit QuantizeAndDequantizeV2Op(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadCommonAttrs(ctx, &params_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_bits", &params_.num_bits));
    OP_REQUIRES_OK(ctx, CheckNumBits(params_.num_bits, params_.signed_input));
    std::string round_mode;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("round_mode", &round_mode));
    OP_REQUIRES(ctx, round_mode == "HALF_UP" || round_mode == "HALF_TO_EVEN",
                errors::InvalidArgument(
                    "Round mode string must be 'HALF_UP' or 'HALF_TO_EVEN', "
                    "is '",
                    round_mode, "'"));
    params_.round_mode =
        round_mode == "HALF_UP" ? RoundMode::kHalfUp : RoundMode::kHalfToEven;
  }

  void Compute(OpKernelContext* ctx) override {
    QuantizeAndDequantize<T>(ctx, params_);
  }

 private:
  QuantizeParams params_;
};

// V3: num_bits is a scalar input; rounding is half to even.
template <typename T>
class QuantizeAndDequantizeV3Op : public OpKernel {
 public:
  explicit QuantizeAndDequantizeV3Op(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadCommonAttrs(ctx, &params_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& num_bits = ctx->input(3);
    OP_REQUIRES(ctx, num_bits.dims() == 0,
                errors::InvalidArgument(
                    "Invalid shape. The `num_bits` tensor should be a scalar. "
                    "Got dimensions: ",
                    num_bits.dims()));
    QuantizeParams p = params_;
    p.num_bits = num_bits.scalar<int32_t>()();
    OP_REQUIRES_OK(ctx, CheckNumBits(p.num_bits, p.signed_input));
    QuantizeAndDequantize<T>(ctx, p);
  }

 private:
  QuantizeParams params_;
};

// TensorFlow's CPU list.
#define REGISTER_CPU(T)                                   \
  REGISTER_KERNEL_BUILDER(Name("QuantizeAndDequantizeV2") \
                              .Device(DEVICE_CPU)         \
                              .TypeConstraint<T>("T"),    \
                          QuantizeAndDequantizeV2Op<T>);  \
  REGISTER_KERNEL_BUILDER(Name("QuantizeAndDequantizeV4") \
                              .Device(DEVICE_CPU)         \
                              .TypeConstraint<T>("T"),    \
                          QuantizeAndDequantizeV2Op<T>);  \
  REGISTER_KERNEL_BUILDER(Name("QuantizeAndDequantizeV3") \
                              .Device(DEVICE_CPU)         \
                              .TypeConstraint<T>("T")     \
                              .HostMemory("num_bits"),    \
                          QuantizeAndDequantizeV3Op<T>);
TF_CALL_float(REGISTER_CPU) TF_CALL_double(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
