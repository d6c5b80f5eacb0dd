// Bucketize: the index of the bucket, among the sorted `boundaries`, that
// each input value falls into (the number of boundaries <= the value).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"

namespace minflow {
namespace {

template <typename T>
class BucketizeOp : public OpKernel {
 public:
  explicit BucketizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("boundaries", &boundaries_));
    OP_REQUIRES(ctx, std::is_sorted(boundaries_.begin(), boundaries_.end()),
                errors::InvalidArgument("Expected sorted boundaries"));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    const T* in = input.base<const T>();
    int32_t* out = output->base<int32_t>();
    // Compared as TensorFlow does: the value against each float boundary,
    // in C++'s usual arithmetic conversions.
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      out[i] = static_cast<int32_t>(
          std::upper_bound(boundaries_.begin(), boundaries_.end(), in[i]) -
          boundaries_.begin());
    }
  }

 private:
  std::vector<float> boundaries_;
};

#define REGISTER_CPU(T)                                            \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("Bucketize").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BucketizeOp<T>);
TF_CALL_int32(REGISTER_CPU);
TF_CALL_int64(REGISTER_CPU);
TF_CALL_float(REGISTER_CPU);
TF_CALL_double(REGISTER_CPU);
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
