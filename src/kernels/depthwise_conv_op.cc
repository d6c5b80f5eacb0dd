// DepthwiseConv2dNative (NHWC, CPU): each input channel c convolved with its
// own depth_multiplier filters; output channel c * multiplier + m.
#define EIGEN_USE_THREADS

#include "src/kernels/depthwise_conv_op.h"

#include <cstdint>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/conv_ops_common.h"

namespace minflow {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;

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
    internal::LaunchDepthwiseConv2D<T>(ctx, d, input.base<const T>(),
                                       filter.base<const T>(),
                                       output->base<T>());
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
