// The Softmax and LogSoftmax kernel over any Eigen device: softmax_op.cc
// registers it for the CPU, nn_ops_gpu.cc for the GPU.
#pragma once

#include <type_traits>

#include "minflow/framework/op_kernel.h"
#include "src/kernels/softmax_op_functor.h"

namespace minflow {

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

}  // namespace minflow
