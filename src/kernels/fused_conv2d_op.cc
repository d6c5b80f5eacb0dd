// _FusedConv2D on CPU: Conv2D's tiled im2col + GEMM (conv_2d_op.h) with
// BiasAdd or inference FusedBatchNorm, and an optional activation, applied
// to each tile as it is finished. See Note [Fused epilogues].
#define EIGEN_USE_THREADS

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/conv_2d_op.h"
#include "src/kernels/conv_ops_common.h"
#include "src/kernels/fused_eigen_output_kernels.h"

namespace minflow {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;

// Applies the epilogue to a finished tile of whole output pixels.
template <typename T>
struct FusedConv2DOutputKernel {
  const FusedEpilogue<T>* epilogue;
  int64_t out_depth;
  void operator()(T* rows, int64_t n) const {
    epilogue->Apply(rows, n, out_depth, 0, out_depth);
  }
};

template <typename Device, typename T>
class FusedConv2DOp : public OpKernel {
 public:
  explicit FusedConv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, InitConv2DParameters(ctx, &params_));
    filter_is_const_ = internal::OperandIsMarkedConst(ctx);
    OP_REQUIRES(ctx, params_.data_format == FORMAT_NHWC,
                errors::Unimplemented(
                    "The _FusedConv2D op currently only supports the NHWC "
                    "tensor format on the CPU. The op was given the format: ",
                    ToString(params_.data_format)));
    std::string filter_format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("filter_format", &filter_format));
    OP_REQUIRES(ctx, filter_format == "HWIO",
                errors::Unimplemented(
                    "The _FusedConv2D op currently only supports the HWIO "
                    "filter format on the CPU. The op was given the format: ",
                    filter_format));
    int64_t num_host_args = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_host_args", &num_host_args));
    OP_REQUIRES(ctx, num_host_args == 0,
                errors::Unimplemented(
                    "The _FusedConv2D op takes no host_args on the CPU, but "
                    "got num_host_args = ",
                    num_host_args));
    std::vector<DataType> targs;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("TArgs", &targs));
    int64_t num_args = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_args", &num_args));
    OP_REQUIRES(
        ctx, static_cast<int64_t>(targs.size()) == num_args,
        errors::InvalidArgument("num_args must equal the length of TArgs (",
                                targs.size(), "), but got ", num_args));
    OP_REQUIRES_OK(ctx, InitFusedComputation(ctx, "Conv2D",
                                             ConvolutionFusions(), &fusion_));
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
    // The args are checked even for an empty output, so a bad graph fails
    // whatever the batch.
    FusedEpilogue<T> epilogue;
    OP_REQUIRES_OK(ctx, epilogue.Init(ctx, fusion_, 2, d.out_depth));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (out_shape.num_elements() == 0) return;
    OP_REQUIRES(ctx, filter.NumElements() > 0,
                errors::InvalidArgument(
                    "filter must not have zero elements (i.e. all dimensions "
                    "must be non-zero)"));
    internal::LibraryConvEpilogue library_epilogue;
    if constexpr (std::is_same_v<T, float>) {
      // The fusions oneDNN's convolution applies itself (Note [CPU
      // convolution library]); the bias was validated by epilogue.Init.
      using FCT = FusedComputationType;
      using Act = internal::LibraryActivation;
      const float* bias = ctx->input(2).base<const float>();
      switch (fusion_.type) {
        case FCT::kBiasAdd:
          library_epilogue = {bias, Act::kNone};
          break;
        case FCT::kBiasAddWithRelu:
          library_epilogue = {bias, Act::kRelu};
          break;
        case FCT::kBiasAddWithRelu6:
          library_epilogue = {bias, Act::kRelu6};
          break;
        default:
          break;
      }
    }
    internal::ConstantOperand constant;
    if (filter_is_const_) constant = {&filter, &filter_cache_};
    OP_REQUIRES_OK(ctx, internal::LaunchConv2D<T>(
                            ctx, d, input.base<const T>(),
                            filter.base<const T>(), output->base<T>(),
                            FusedConv2DOutputKernel<T>{&epilogue, d.out_depth},
                            library_epilogue, constant));
  }

 private:
  Conv2DParameters params_;
  FusedComputation fusion_;
  bool filter_is_const_ = false;
  internal::ConstantLayoutCache filter_cache_;
};

#define REGISTER_CPU(T)                                               \
  REGISTER_KERNEL_BUILDER(                                            \
      Name("_FusedConv2D").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      FusedConv2DOp<CPUDevice, T>);
TF_CALL_float(REGISTER_CPU) TF_CALL_double(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
