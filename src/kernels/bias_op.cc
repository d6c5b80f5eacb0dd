// BiasAdd: value + bias along the channel dim (last for NHWC, 1 for NCHW).
// Any rank from 2 (3 for NCHW) up: both layouts are flattened to two or
// three dims, so TensorFlow's limit of rank 5 does not apply.
// BiasAddGrad: the bias's gradient, out_backprop summed over all but the
// channel dim, flattened the same way.
#define EIGEN_USE_THREADS

#include "src/kernels/bias_op.h"

#include <string>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "minflow/framework/tensor_format.h"

namespace minflow {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;

template <typename T>
class BiasGradOp : public OpKernel {
 public:
  explicit BiasGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string data_format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &data_format));
    OP_REQUIRES_OK(ctx, GetTensorFormatFromString(data_format, &data_format_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const int min_rank = data_format_ == FORMAT_NCHW ? 3 : 2;
    OP_REQUIRES(ctx, grad.dims() >= min_rank,
                errors::InvalidArgument(
                    "out_backprop must be at least ", min_rank, "D for ",
                    ToString(data_format_), ", but got shape ",
                    grad.shape().DebugString()));
    const int channel_dim = GetTensorFeatureDimIndex(grad.dims(), data_format_);
    const int64_t channels = grad.dim_size(channel_dim);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({channels}), &output));
    auto out = output->vec<T>();
    if (grad.NumElements() == 0) {
      out.setZero();  // a sum over nothing
      return;
    }
    const CPUDevice& d = ctx->eigen_device<CPUDevice>();
    if (channel_dim == grad.dims() - 1) {
      const int64_t rows = grad.NumElements() / channels;
      out.device(d) = grad.shaped<T, 2>({rows, channels})
                          .sum(Eigen::array<Eigen::Index, 1>{0});
    } else {
      const int64_t outer = grad.dim_size(0);
      const int64_t inner = grad.NumElements() / (outer * channels);
      out.device(d) = grad.shaped<T, 3>({outer, channels, inner})
                          .sum(Eigen::array<Eigen::Index, 2>{0, 2});
    }
  }

 private:
  TensorFormat data_format_ = FORMAT_NHWC;
};

#define REGISTER_CPU(T)                                              \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("BiasAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
      BiasOp<CPUDevice, T>);                                         \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("BiasAddGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BiasGradOp<T>);
MF_CALL_CORE_REAL_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
