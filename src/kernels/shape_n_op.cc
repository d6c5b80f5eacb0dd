// ShapeN(input...; out_type): Shape of each input. EnsureShape(input;
// shape): the input itself, once its shape is checked against the `shape`
// attr. Both look at shapes only, so any dtype is accepted.
#include <cstdint>
#include <limits>

#include "minflow/framework/op_kernel.h"
#include "minflow/node_def.pb.h"

namespace minflow {
namespace {

template <typename OutType>
class ShapeNOp : public OpKernel {
 public:
  explicit ShapeNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const TensorShape& shape = ctx->input(i).shape();
      Tensor* out = nullptr;
      OP_REQUIRES_OK(
          ctx, ctx->allocate_output(i, TensorShape({shape.dims()}), &out));
      for (int d = 0; d < shape.dims(); ++d) {
        const int64_t size = shape.dim_size(d);
        OP_REQUIRES(
            ctx, size <= std::numeric_limits<OutType>::max(),
            errors::InvalidArgument("ShapeN output type is 32-bit but shape ",
                                    i, " dim ", d, " is ", size));
        out->base<OutType>()[d] = static_cast<OutType>(size);
      }
    }
  }

  bool IsExpensive() override { return false; }
};

class EnsureShapeOp : public OpKernel {
 public:
  explicit EnsureShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &expected_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(
        ctx, expected_.IsCompatibleWith(input.shape()),
        errors::InvalidArgument("Shape of tensor ", def().input(0), " ",
                                input.shape().DebugString(),
                                " is not compatible with expected shape ",
                                expected_.DebugString(), "."));
    ctx->set_output(0, input);
  }

  bool IsExpensive() override { return false; }

 private:
  PartialTensorShape expected_;
};

REGISTER_KERNEL_BUILDER(Name("ShapeN")
                            .Device(DEVICE_CPU)
                            .HostMemory("output")
                            .TypeConstraint<int32_t>("out_type"),
                        ShapeNOp<int32_t>);
REGISTER_KERNEL_BUILDER(Name("ShapeN")
                            .Device(DEVICE_CPU)
                            .HostMemory("output")
                            .TypeConstraint<int64_t>("out_type"),
                        ShapeNOp<int64_t>);
REGISTER_KERNEL_BUILDER(Name("EnsureShape").Device(DEVICE_CPU), EnsureShapeOp);

}  // namespace
}  // namespace minflow
