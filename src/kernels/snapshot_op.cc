// Snapshot(input): a copy of input that later in-place updates of input
// cannot change; the input's own buffer when nobody else holds it.
#include <cstdint>

#include "minflow/framework/op_kernel.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

class SnapshotOp : public OpKernel {
 public:
  explicit SnapshotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    int forwarded = -1;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, input.shape(), &out, &forwarded));
    if (forwarded >= 0 || input.NumElements() == 0) return;
    OP_REQUIRES(
        ctx,
        VisitElementSize(input.dtype(),
                         [&](auto tag) {
                           using E = typename decltype(tag)::type;
                           CopyElements(out->base<E>(), input.base<const E>(),
                                        input.NumElements());
                         }),
        errors::Unimplemented("Snapshot of ", DataTypeString(input.dtype()),
                              " is not supported"));
  }
};

REGISTER_KERNEL_BUILDER(Name("Snapshot").Device(DEVICE_CPU), SnapshotOp);

}  // namespace
}  // namespace minflow
