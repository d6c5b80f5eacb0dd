// Assert(condition, data...; summarize): nothing when condition is true;
// otherwise InvalidArgument "assertion failed: [d0] [d1] ...", each data
// tensor summarised to its first `summarize` values (all when negative).
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "minflow/framework/op_kernel.h"

namespace minflow {
namespace {

class AssertOp : public OpKernel {
 public:
  explicit AssertOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("summarize", &summarize_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    // TF also takes a one-element vector (a "legacy scalar").
    OP_REQUIRES(ctx,
                cond.dims() == 0 || (cond.dims() == 1 && cond.dim_size(0) == 1),
                errors::InvalidArgument("In[0] expects a scalar. Got ",
                                        cond.shape().DebugString()));
    if (*cond.base<const bool>()) return;
    std::string msg = "assertion failed: ";
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      const Tensor& t = ctx->input(i);
      const int64_t n = summarize_ < 0 ? t.NumElements() : summarize_;
      absl::StrAppend(&msg, i > 1 ? " " : "", "[",
                      t.SummarizeValue(n, /*print_v2=*/false), "]");
    }
    ctx->SetStatus(errors::InvalidArgument(msg));
  }

 private:
  int64_t summarize_ = 3;
};

REGISTER_KERNEL_BUILDER(Name("Assert").Device(DEVICE_CPU), AssertOp);

}  // namespace
}  // namespace minflow
