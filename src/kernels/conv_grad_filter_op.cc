// Conv2DBackpropFilter (NHWC, CPU): the gradient of Conv2D with respect to
// its filter. See Note [Conv2DBackpropFilter as im2col^T x out_backprop].
#define EIGEN_USE_THREADS

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "Eigen/Core"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/conv_2d_op.h"
#include "src/kernels/conv_grad_common.h"
#include "src/kernels/conv_ops_common.h"
#include "src/kernels/cpu_gemm.h"

namespace minflow {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;
using internal::ConstStridedMap;
using internal::Stride;
using internal::StridedMap;

// Note [Conv2DBackpropFilter as im2col^T x out_backprop]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The forward pass multiplies the patch matrix [pixels, R*S*C] by the
// filter [R*S*C, K]; so the filter's gradient is the patch matrix
// transposed times out_backprop [pixels, K], a sum over output pixels,
// split over threads as Note [Filter gradients as per-thread partial sums]
// says. Each range builds the patches of a cache-sized tile at a time with
// Conv2D's own Im2Col and accumulates tile^T x out_backprop rows through
// the same GEMM as the forward pass, so the patches are never materialised
// whole and every thread runs the GEMM.
constexpr int64_t kTileBytes = 512 * 1024;
constexpr int64_t kMinTilePixels = 32;

// sum[patch, K_g] (+)= cols[pixels, patch]^T x dy[pixels, K_g].
template <typename T>
void AccumulateTile(int64_t pixels, int64_t patch_size, int64_t out_depth_g,
                    int64_t out_depth, const T* cols, const T* dy, T* sum,
                    bool first) {
  if constexpr (std::is_same_v<T, float>) {
    // See Note [CPU GEMM library]. The library checks its arguments before
    // it writes, so a refusal leaves `sum` as it was and Eigen takes over.
    if (internal::UseLibraryGemm(patch_size, out_depth_g, pixels) &&
        internal::LibraryGemmOnThisThread(internal::GemmArgs{
            true, false, patch_size, out_depth_g, pixels, cols, patch_size, dy,
            out_depth, sum, out_depth, /*accumulate=*/!first})) {
      return;
    }
  }
  ConstStridedMap<T> lhs(cols, pixels, patch_size, Stride(patch_size));
  ConstStridedMap<T> rhs(dy, pixels, out_depth_g, Stride(out_depth));
  StridedMap<T> out(sum, patch_size, out_depth_g, Stride(out_depth));
  if (first) {
    out.noalias() = lhs.transpose() * rhs;
  } else {
    out.noalias() += lhs.transpose() * rhs;
  }
}

// The input, out_backprop and filter gradient are not empty.
template <typename T>
Status LaunchConv2DBackpropFilter(OpKernelContext* ctx,
                                  const Conv2DDimensions& d, const T* input,
                                  const T* out_backprop, T* filter_grad) {
  const int64_t groups =
      d.in_depth == d.patch_depth ? 1 : d.in_depth / d.patch_depth;
  const int64_t out_depth_g = d.out_depth / groups;
  const int64_t patch_size = d.filter_rows * d.filter_cols * d.patch_depth;
  const int64_t filter_size = patch_size * d.out_depth;
  const int64_t pixels = d.batch * d.out_rows * d.out_cols;
  const int64_t tile_pixels = std::max<int64_t>(
      kMinTilePixels,
      kTileBytes / (patch_size * static_cast<int64_t>(sizeof(T))));
  auto sum_range = [&](int64_t start, int64_t limit, T* sum) -> Status {
    Tensor scratch;
    MF_RETURN_IF_ERROR(ctx->allocate_temp(
        DataTypeToEnum<T>::v(),
        TensorShape({std::min(tile_pixels, limit - start) * patch_size}),
        &scratch));
    T* cols = scratch.base<T>();
    for (int64_t p0 = start; p0 < limit; p0 += tile_pixels) {
      const int64_t p1 = std::min(limit, p0 + tile_pixels);
      for (int64_t g = 0; g < groups; ++g) {
        internal::Im2Col<T>(d, groups, g, input, p0, p1, cols);
        AccumulateTile<T>(p1 - p0, patch_size, out_depth_g, d.out_depth, cols,
                          out_backprop + p0 * d.out_depth + g * out_depth_g,
                          sum + g * out_depth_g, /*first=*/p0 == start);
      }
    }
    return OkStatus();
  };
  // Cycles per output pixel: roughly the GEMM's multiply-adds.
  return ShardWithPartialSums<T>(ctx, pixels,
                                 patch_size * d.out_depth + patch_size,
                                 filter_size, filter_grad, sum_range);
}

template <typename Device, typename T>
class Conv2DBackpropFilterOp : public OpKernel {
 public:
  explicit Conv2DBackpropFilterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, InitConv2DParameters(ctx, &params_));
    bool use_cudnn = true;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_cudnn_on_gpu", &use_cudnn));
    OP_REQUIRES(ctx, params_.data_format == FORMAT_NHWC,
                errors::InvalidArgument(
                    "Conv2DCustomBackpropFilterOp only supports NHWC."));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter_sizes = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    TensorShape filter_shape;
    OP_REQUIRES_OK(ctx,
                   ShapeFromSizesTensor("Conv2DBackpropFilter", "filter_sizes",
                                        filter_sizes, &filter_shape));
    Conv2DDimensions d;
    OP_REQUIRES_OK(ctx,
                   ComputeConvBackpropDimensions(
                       "Conv2DCustomBackpropFilter", ConvKind::kConv2D, params_,
                       input.shape(), filter_shape, out_backprop.shape(), &d));
    Tensor* filter_grad = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, filter_shape, &filter_grad));
    if (filter_shape.num_elements() == 0) return;
    if (out_backprop.NumElements() == 0) {
      // No output pixel (or an empty batch): nothing flows back.
      std::fill_n(filter_grad->base<T>(), filter_grad->NumElements(), T(0));
      return;
    }
    OP_REQUIRES_OK(ctx,
                   LaunchConv2DBackpropFilter<T>(ctx, d, input.base<const T>(),
                                                 out_backprop.base<const T>(),
                                                 filter_grad->base<T>()));
  }

 private:
  Conv2DParameters params_;
};

#define REGISTER_CPU(T)                                                       \
  REGISTER_KERNEL_BUILDER(                                                    \
      Name("Conv2DBackpropFilter").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      Conv2DBackpropFilterOp<CPUDevice, T>);
TF_CALL_float(REGISTER_CPU) TF_CALL_double(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
