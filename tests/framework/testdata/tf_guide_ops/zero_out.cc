// The "Create an op" guide's first ZeroOut (int32 only), in the guide's
// shape: TensorFlow's spellings throughout, only the includes changed. The
// op is named "Guide>ZeroOut" because minflow has a built-in ZeroOut and a
// library may not register a name twice.
#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/shape_inference.h"
#include "minflow/framework/tf_compat.h"

using namespace tensorflow;

REGISTER_OP("Guide>ZeroOut")
    .Input("to_zero: int32")
    .Output("zeroed: int32")
    .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {
      c->set_output(0, c->input(0));
      return Status::OK();
    });

class ZeroOutOp : public OpKernel {
 public:
  explicit ZeroOutOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    // The input, viewed as a flat vector of int32.
    const Tensor& input_tensor = context->input(0);
    auto input = input_tensor.flat<int32>();

    // An output of the input's shape.
    Tensor* output_tensor = NULL;
    OP_REQUIRES_OK(context, context->allocate_output(0, input_tensor.shape(),
                                                     &output_tensor));
    auto output_flat = output_tensor->flat<int32>();

    // Zero everything but the first element, which is kept.
    const int N = input.size();
    for (int i = 1; i < N; i++) {
      output_flat(i) = 0;
    }
    if (N > 0) output_flat(0) = input(0);
  }
};

REGISTER_KERNEL_BUILDER(Name("Guide>ZeroOut").Device(DEVICE_CPU), ZeroOutOp);
