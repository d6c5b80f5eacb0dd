// The guide's polymorphic ZeroOut: templated on T, with a preserve_index
// attr checked in the constructor, a shape function that checks the rank
// with TF_RETURN_IF_ERROR, and kernels stamped by a REGISTER_KERNEL(type)
// macro. In the guide's shape, only the includes changed (and the op's
// name: see zero_out.cc).
#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/shape_inference.h"
#include "minflow/framework/tf_compat.h"

using namespace tensorflow;

REGISTER_OP("Guide>ZeroOutPolymorphic")
    .Attr("T: {float, double, int32, int64}")
    .Attr("preserve_index: int = 0")
    .Input("to_zero: T")
    .Output("zeroed: T")
    .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {
      ::tensorflow::shape_inference::ShapeHandle input;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &input));
      int preserve_index;
      TF_RETURN_IF_ERROR(c->GetAttr("preserve_index", &preserve_index));
      if (preserve_index < 0) {
        return errors::InvalidArgument("Need preserve_index >= 0, got ",
                                       preserve_index);
      }
      c->set_output(0, input);
      return Status::OK();
    });

template <typename T>
class ZeroOutOp : public OpKernel {
 public:
  explicit ZeroOutOp(OpKernelConstruction* context) : OpKernel(context) {
    // The index of the value to keep, checked once.
    OP_REQUIRES_OK(context,
                   context->GetAttr("preserve_index", &preserve_index_));
    OP_REQUIRES(context, preserve_index_ >= 0,
                errors::InvalidArgument("Need preserve_index >= 0, got ",
                                        preserve_index_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input_tensor = context->input(0);
    OP_REQUIRES(context, TensorShapeUtils::IsVector(input_tensor.shape()),
                errors::InvalidArgument("ZeroOut expects a 1-D vector."));
    auto input = input_tensor.flat<T>();

    // The attr is checked against the input, which may differ per run.
    OP_REQUIRES(context, preserve_index_ < input.dimension(0),
                errors::InvalidArgument("preserve_index out of range"));

    Tensor* output_tensor = NULL;
    OP_REQUIRES_OK(context, context->allocate_output(0, input_tensor.shape(),
                                                     &output_tensor));
    auto output_flat = output_tensor->template flat<T>();

    const int N = input.size();
    for (int i = 0; i < N; i++) {
      output_flat(i) = 0;
    }
    output_flat(preserve_index_) = input(preserve_index_);
  }

 private:
  int preserve_index_;
};

#define REGISTER_KERNEL(type)                              \
  REGISTER_KERNEL_BUILDER(Name("Guide>ZeroOutPolymorphic") \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<type>("T"),  \
                          ZeroOutOp<type>)

REGISTER_KERNEL(int32);
REGISTER_KERNEL(int64);
REGISTER_KERNEL(float);
REGISTER_KERNEL(double);

#undef REGISTER_KERNEL
