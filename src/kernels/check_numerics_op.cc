// CheckNumerics(tensor; message): the tensor itself, or InvalidArgument
// "<message> : Tensor had NaN values" (Inf, or Inf and NaN) when any
// element is not finite.
#include <cmath>
#include <cstdint>
#include <string>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"

namespace minflow {
namespace {

template <typename T>
class CheckNumericsOp : public OpKernel {
 public:
  explicit CheckNumericsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("message", &message_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    ctx->set_output(0, in);
    bool has_nan = false;
    bool has_inf = false;
    const T* data = in.base<const T>();
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      const double v = static_cast<double>(data[i]);
      has_nan |= std::isnan(v);
      has_inf |= std::isinf(v);
    }
    if (!has_nan && !has_inf) return;
    const char* what = has_nan && has_inf ? "Inf and NaN"
                       : has_inf          ? "Inf"
                                          : "NaN";
    ctx->SetStatus(
        errors::InvalidArgument(message_, " : Tensor had ", what, " values"));
  }

 private:
  std::string message_;
};

#define REGISTER_CPU(T)                                                \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("CheckNumerics").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      CheckNumericsOp<T>);
TF_CALL_FLOAT_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
