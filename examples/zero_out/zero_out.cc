// Examples>ZeroOut: a copy of a vector with every element but one set to
// zero, as a custom-op library. The name carries the project's prefix
// ("Examples>") because minflow already has a built-in ZeroOut, and a
// library may not take a name that is already registered.
#include <algorithm>
#include <cstdint>

#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/shape_inference.h"

namespace zero_out {
namespace {

using minflow::OkStatus;
using minflow::Status;
using minflow::shape_inference::DimensionHandle;
using minflow::shape_inference::InferenceContext;
using minflow::shape_inference::ShapeHandle;
namespace errors = minflow::errors;

// The output has the input's shape: a vector long enough to hold the
// preserved element.
Status ZeroOutShape(InferenceContext* c) {
  int64_t preserve_index = 0;
  MF_RETURN_IF_ERROR(c->GetAttr("preserve_index", &preserve_index));
  ShapeHandle input;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &input));
  const DimensionHandle n = c->Dim(input, 0);
  if (c->ValueKnown(n) && preserve_index >= c->Value(n)) {
    return errors::InvalidArgument(
        "preserve_index must be less than the "
        "input's length ",
        c->Value(n), ", but got ", preserve_index);
  }
  c->set_output(0, input);
  return OkStatus();
}

REGISTER_OP("Examples>ZeroOut")
    .Attr("T: {float, double, int32, int64}")
    .Attr("preserve_index: int >= 0 = 0")
    .Input("to_zero: T")
    .Output("zeroed: T")
    .SetShapeFn(ZeroOutShape)
    .Doc(R"doc(
Zeroes every element of a vector but the one at `preserve_index`.

to_zero: the vector.
zeroed: `to_zero` with every other element set to zero.
preserve_index: The index of the element kept; less than the vector's
  length.
)doc");

template <typename T>
class ZeroOutOp : public minflow::OpKernel {
 public:
  explicit ZeroOutOp(minflow::OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("preserve_index", &preserve_index_));
  }

  void Compute(minflow::OpKernelContext* ctx) override {
    const minflow::Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, minflow::TensorShapeUtils::IsVector(input.shape()),
                errors::InvalidArgument("to_zero must be a vector, but got "
                                        "shape ",
                                        input.shape().DebugString()));
    const int64_t n = input.NumElements();
    OP_REQUIRES(ctx, preserve_index_ < n,
                errors::InvalidArgument("preserve_index must be less than the "
                                        "input's length ",
                                        n, ", but got ", preserve_index_));
    minflow::Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    auto in = input.flat<T>();
    auto out = output->flat<T>();
    std::fill_n(out.data(), n, T(0));
    out(preserve_index_) = in(preserve_index_);
  }

 private:
  int64_t preserve_index_ = 0;
};

#define REGISTER_ZERO_OUT(T)                               \
  REGISTER_KERNEL_BUILDER(Name("Examples>ZeroOut")         \
                              .Device(minflow::DEVICE_CPU) \
                              .TypeConstraint<T>("T"),     \
                          ZeroOutOp<T>)
REGISTER_ZERO_OUT(float);
REGISTER_ZERO_OUT(double);
REGISTER_ZERO_OUT(int32_t);
REGISTER_ZERO_OUT(int64_t);
#undef REGISTER_ZERO_OUT

}  // namespace
}  // namespace zero_out
