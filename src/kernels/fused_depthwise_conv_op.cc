// _FusedDepthwiseConv2dNative on CPU: DepthwiseConv2dNative's per-pixel loop
// (depthwise_conv_op.h) with BiasAdd or inference FusedBatchNorm, and an
// optional activation, applied to each chunk of pixels as it is finished.
// See Note [Fused epilogues].
#define EIGEN_USE_THREADS

#include <cstdint>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/conv_ops_common.h"
#include "src/kernels/depthwise_conv_op.h"
#include "src/kernels/fused_eigen_output_kernels.h"

namespace minflow {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;

template <typename T>
struct FusedDepthwiseOutputKernel {
  const FusedEpilogue<T>* epilogue;
  int64_t out_depth;
  void operator()(T* rows, int64_t n) const {
    epilogue->Apply(rows, n, out_depth, 0, out_depth);
  }
};

template <typename Device, typename T>
class FusedDepthwiseConv2dNativeOp : public OpKernel {
 public:
  explicit FusedDepthwiseConv2dNativeOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, InitConv2DParameters(ctx, &params_));
    OP_REQUIRES(ctx, params_.data_format == FORMAT_NHWC,
                errors::Unimplemented(
                    "Depthwise convolution on CPU is only supported for NHWC "
                    "format, but got ",
                    ToString(params_.data_format)));
    OP_REQUIRES_OK(ctx, InitFusedComputation(ctx, "DepthwiseConv2dNative",
                                             ConvolutionFusions(), &fusion_));
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
    FusedEpilogue<T> epilogue;
    OP_REQUIRES_OK(ctx, epilogue.Init(ctx, fusion_, 2, d.out_depth));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (out_shape.num_elements() == 0) return;
    OP_REQUIRES(ctx, filter.NumElements() > 0,
                errors::InvalidArgument(
                    "filter must not have zero elements (i.e. all dimensions "
                    "must be non-zero)"));
    internal::LaunchDepthwiseConv2D<T>(
        ctx, d, input.base<const T>(), filter.base<const T>(),
        output->base<T>(),
        FusedDepthwiseOutputKernel<T>{&epilogue, d.out_depth});
  }

 private:
  Conv2DParameters params_;
  FusedComputation fusion_;
};

#define REGISTER_CPU(T)                                       \
  REGISTER_KERNEL_BUILDER(Name("_FusedDepthwiseConv2dNative") \
                              .Device(DEVICE_CPU)             \
                              .TypeConstraint<T>("T"),        \
                          FusedDepthwiseConv2dNativeOp<CPUDevice, T>);
TF_CALL_float(REGISTER_CPU) TF_CALL_double(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
