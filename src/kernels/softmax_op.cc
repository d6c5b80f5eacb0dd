// Softmax and LogSoftmax over the last dimension. half and bfloat16 compute
// in float (more accurate sums than TensorFlow's, and no extra
// instantiations).
#define EIGEN_USE_THREADS

#include <type_traits>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cwise_ops_common.h"
#include "src/kernels/softmax_op_functor.h"

namespace minflow {
namespace {

template <typename Device, typename T>
class SoftmaxOp : public OpKernel {
 public:
  explicit SoftmaxOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    log_ = type_string() == "LogSoftmax";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    OP_REQUIRES(ctx, TensorShapeUtils::IsVectorOrHigher(logits.shape()),
                errors::InvalidArgument("logits must have >= 1 dimension, got ",
                                        logits.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, logits.shape(), &out));
    if (logits.NumElements() == 0) return;
    const Device& d = ctx->eigen_device<Device>();
    if constexpr (std::is_same<T, half>::value ||
                  std::is_same<T, bfloat16>::value) {
      Tensor tmp;
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, logits.shape(), &tmp));
      tmp.flat<float>().device(d) = logits.flat<T>().template cast<float>();
      functor::SoftmaxFunctor<Device, float>()(
          d, const_cast<const Tensor&>(tmp).flat_inner_dims<float>(),
          tmp.flat_inner_dims<float>(), log_);
      out->flat<T>().device(d) = tmp.flat<float>().template cast<T>();
    } else {
      functor::SoftmaxFunctor<Device, T>()(d, logits.flat_inner_dims<T>(),
                                           out->flat_inner_dims<T>(), log_);
    }
  }

 private:
  bool log_ = false;
};

#define REGISTER_CPU(T)                                             \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("Softmax").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      SoftmaxOp<CPUDevice, T>);                                     \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("LogSoftmax").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      SoftmaxOp<CPUDevice, T>);
MF_CALL_CORE_FLOAT_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
