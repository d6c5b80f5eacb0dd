// StringJoin on the CPU: joins its inputs element by element with a
// separator; scalar inputs are repeated across the others' shape.
#include <string>

#include "minflow/framework/op_kernel.h"

namespace minflow {
namespace {

class StringJoinOp : public OpKernel {
 public:
  explicit StringJoinOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("separator", &separator_));
  }

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    bool all_scalars = true;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const TensorShape& input = ctx->input(i).shape();
      if (TensorShapeUtils::IsScalar(input)) continue;
      if (all_scalars) {
        shape = input;
        all_scalars = false;
        continue;
      }
      OP_REQUIRES(ctx, input == shape,
                  errors::InvalidArgument(
                      "Input shapes do not match: ", shape.DebugString(),
                      " vs. ", input.DebugString()));
    }
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &output));
    auto out = output->flat<tstring>();
    for (int64_t j = 0; j < out.size(); ++j) {
      std::string joined;
      for (int i = 0; i < ctx->num_inputs(); ++i) {
        const Tensor& input = ctx->input(i);
        const auto values = input.flat<tstring>();
        if (i > 0) joined += separator_;
        joined += values(TensorShapeUtils::IsScalar(input.shape()) ? 0 : j);
      }
      out(j) = joined;
    }
  }

 private:
  std::string separator_;
};

REGISTER_KERNEL_BUILDER(Name("StringJoin").Device(DEVICE_CPU), StringJoinOp);

}  // namespace
}  // namespace minflow
