// A custom-op library that registers its op's gradient next to the op and
// kernel, as the "create an op" guide does: GradLibTest>Triple, y = 3x,
// whose gradient is 3 dy. grad_op_registry_test loads it with
// LoadOpLibrary and differentiates through it.
#include <vector>

#include "minflow/cc/framework/grad_op_registry.h"
#include "minflow/cc/framework/op_builder.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/shape_inference.h"

namespace minflow {
namespace {

REGISTER_OP("GradLibTest>Triple")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      c->set_output(0, c->input(0));
      return OkStatus();
    })
    .Doc("A test op: y = 3x.");

class TripleOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    y->flat<float>() = x.flat<float>() * 3.0f;
  }
};
REGISTER_KERNEL_BUILDER(Name("GradLibTest>Triple").Device(DEVICE_CPU),
                        TripleOp);

// The op's own gradient: the op itself applied to dy.
Status TripleGrad(const Scope& scope, const Operation& op,
                  const std::vector<Output>& grad_inputs,
                  std::vector<Output>* grad_outputs) {
  OpBuilder b(scope, "GradLibTest>Triple");
  b.Input(grad_inputs[0]);
  b.Finish();
  grad_outputs->push_back(b.GetOutput("y"));
  return scope.status();
}
REGISTER_GRADIENT_OP("GradLibTest>Triple", TripleGrad);

}  // namespace
}  // namespace minflow
