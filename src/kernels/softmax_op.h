// The Softmax and LogSoftmax kernel over any Eigen device: softmax_op.cc
// registers it for the CPU, nn_ops_gpu.cc for the GPU.
#pragma once

#include <type_traits>

#include "minflow/framework/op_kernel.h"
#include "src/kernels/softmax_op_functor.h"

namespace minflow {
namespace internal {
// Softmax, or with `log` LogSoftmax, of each row of a row-major [rows,
// cols] matrix on the CPU, as a loop over rows split over the intra-op
// pool (softmax_op.cc): Eigen's tensor expressions spent 1.5 us on mlp_b1's
// ten classes, mostly allocating their temporaries. `out` may be `in`.
void SoftmaxRowsOnCpu(const Eigen::ThreadPoolDevice& d, const float* in,
                      float* out, int64_t rows, int64_t cols, bool log);
void SoftmaxRowsOnCpu(const Eigen::ThreadPoolDevice& d, const double* in,
                      double* out, int64_t rows, int64_t cols, bool log);
}  // namespace internal

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
      Run<float>(d, const_cast<const Tensor&>(tmp).flat_inner_dims<float>(),
                 tmp.flat_inner_dims<float>());
      out->flat<T>().device(d) = tmp.flat<float>().template cast<T>();
    } else {
      Run<T>(d, logits.flat_inner_dims<T>(), out->flat_inner_dims<T>());
    }
  }

 private:
  template <typename U>
  void Run(const Device& d, typename TTypes<U>::ConstMatrix in,
           typename TTypes<U>::Matrix out) const {
    if constexpr (std::is_same<Device, Eigen::ThreadPoolDevice>::value) {
      internal::SoftmaxRowsOnCpu(d, in.data(), out.data(), in.dimension(0),
                                 in.dimension(1), log_);
    } else {
      functor::SoftmaxFunctor<Device, U>()(d, in, out, log_);
    }
  }

  bool log_ = false;
};

}  // namespace minflow
