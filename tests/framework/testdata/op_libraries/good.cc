// A well-formed custom-op library: one op with a CPU kernel, and a labelled
// kernel for the built-in ZeroOut (chosen by nodes with _kernel: "doubling").
#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/shape_inference.h"

namespace minflow {
namespace {

REGISTER_OP("LoadTest>Double")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      c->set_output(0, c->input(0));
      return OkStatus();
    });

class DoubleOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    y->flat<float>() = x.flat<float>() * 2.0f;
  }
};
REGISTER_KERNEL_BUILDER(Name("LoadTest>Double").Device(DEVICE_CPU), DoubleOp);
REGISTER_KERNEL_BUILDER(Name("ZeroOut")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T")
                            .Label("doubling"),
                        DoubleOp);

}  // namespace
}  // namespace minflow
