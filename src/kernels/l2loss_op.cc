// L2Loss(t) = sum(t ** 2) / 2, a scalar. half and bfloat16 accumulate in
// float (more accurate than TensorFlow's sum in the type itself).
#define EIGEN_USE_THREADS

#include <type_traits>

#include "minflow/core/tensor_types.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cwise_op_functor.h"
#include "src/kernels/cwise_ops_common.h"

namespace minflow {
namespace {

template <typename T>
class L2LossOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &output));
    using C = functor::internal::CalcType<T>;
    const CPUDevice& d = ctx->eigen_device<CPUDevice>();
    C sum = C(0);
    if (input.NumElements() > 0) {
      Eigen::Tensor<C, 0, Eigen::RowMajor> s;
      if constexpr (std::is_same<T, C>::value) {
        s.device(d) = input.flat<T>().square().sum();
      } else {
        s.device(d) = input.flat<T>().template cast<C>().square().sum();
      }
      sum = s();
    }
    output->scalar<T>()() = static_cast<T>(sum / C(2));
  }
};

#define REGISTER_CPU(T)    \
  REGISTER_KERNEL_BUILDER( \
      Name("L2Loss").Device(DEVICE_CPU).TypeConstraint<T>("T"), L2LossOp<T>);
MF_CALL_CORE_FLOAT_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
