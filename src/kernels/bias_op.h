// The BiasAdd kernel over any Eigen device: bias_op.cc registers it for the
// CPU, nn_ops_gpu.cc for the GPU.
#pragma once

#include <string>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/tensor_format.h"
#include "src/kernels/bias_op_functor.h"

namespace minflow {

template <typename Device, typename T>
class BiasOp : public OpKernel {
 public:
  explicit BiasOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string data_format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &data_format));
    OP_REQUIRES_OK(ctx, GetTensorFormatFromString(data_format, &data_format_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsMatrixOrHigher(input.shape()),
                errors::InvalidArgument("Input tensor must be at least 2D: ",
                                        input.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsVector(bias.shape()),
                errors::InvalidArgument("Biases must be 1D: ",
                                        bias.shape().DebugString()));
    // As BiasAddShape: NCHW needs a spatial dim after the channels.
    OP_REQUIRES(ctx, data_format_ != FORMAT_NCHW || input.dims() >= 3,
                errors::InvalidArgument(
                    "Input tensor must be at least 3D for data format NCHW: ",
                    input.shape().DebugString()));
    const int channel_dim =
        GetTensorFeatureDimIndex(input.dims(), data_format_);
    const int64_t channels = input.dim_size(channel_dim);
    OP_REQUIRES(
        ctx, bias.dim_size(0) == channels,
        errors::InvalidArgument(
            "Must provide as many biases as the last dimension of the "
            "input tensor: ",
            bias.shape().DebugString(), " vs. ", input.shape().DebugString()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, input.shape(), &output));
    if (input.NumElements() == 0) return;

    const Device& d = ctx->eigen_device<Device>();
    const int64_t outer = input.dim_size(0);
    if (channel_dim == input.dims() - 1) {
      const int64_t rows = input.NumElements() / channels;
      functor::BiasNHWC<Device, T>()(d, input.shaped<T, 2>({rows, channels}),
                                     bias.vec<T>(),
                                     output->shaped<T, 2>({rows, channels}));
    } else {
      const int64_t inner = input.NumElements() / (outer * channels);
      functor::BiasNCHW<Device, T>()(
          d, input.shaped<T, 3>({outer, channels, inner}), bias.vec<T>(),
          output->shaped<T, 3>({outer, channels, inner}));
    }
  }

 private:
  TensorFormat data_format_ = FORMAT_NHWC;
};

}  // namespace minflow
