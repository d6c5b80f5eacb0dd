// Conv2D (NHWC, CPU): im2col + GEMM, tiled and sharded over output pixels.
// See Note [Conv2D as tiled im2col + GEMM].
#define EIGEN_USE_THREADS

#include "src/kernels/conv_2d_op.h"

#include <cstdint>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/conv_ops_common.h"

namespace minflow {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;

template <typename Device, typename T>
class Conv2DOp : public OpKernel {
 public:
  explicit Conv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, InitConv2DParameters(ctx, &params_));
    filter_is_const_ = internal::OperandIsMarkedConst(ctx);
    bool use_cudnn = true;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_cudnn_on_gpu", &use_cudnn));
    OP_REQUIRES(ctx, params_.data_format == FORMAT_NHWC,
                errors::Unimplemented(
                    "The Conv2D op currently only supports the NHWC tensor "
                    "format on the CPU. The op was given the format: ",
                    ToString(params_.data_format)));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    Conv2DDimensions d;
    OP_REQUIRES_OK(ctx, ComputeConv2DDimension(params_, input.shape(),
                                               filter.shape(), &d));
    TensorShape out_shape;
    OP_REQUIRES_OK(
        ctx, TensorShape::BuildTensorShape(
                 {d.batch, d.out_rows, d.out_cols, d.out_depth}, &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (out_shape.num_elements() == 0) return;
    // TensorFlow's check, after the early return as there: an empty window
    // has no taps to sum over.
    OP_REQUIRES(ctx, filter.NumElements() > 0,
                errors::InvalidArgument(
                    "filter must not have zero elements (i.e. all dimensions "
                    "must be non-zero)"));
    internal::ConstantOperand constant;
    if (filter_is_const_) constant = {&filter, &filter_cache_};
    OP_REQUIRES_OK(
        ctx, internal::LaunchConv2D<T>(
                 ctx, d, input.base<const T>(), filter.base<const T>(),
                 output->base<T>(), internal::NoOpConv2DOutputKernel<T>(), {},
                 constant));
  }

 private:
  Conv2DParameters params_;
  bool filter_is_const_ = false;
  internal::ConstantLayoutCache filter_cache_;
};

#define REGISTER_CPU(T)                                         \
  REGISTER_KERNEL_BUILDER(                                      \
      Name("Conv2D").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      Conv2DOp<CPUDevice, T>);
TF_CALL_float(REGISTER_CPU) TF_CALL_double(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
