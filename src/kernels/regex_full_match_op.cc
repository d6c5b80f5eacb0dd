// StaticRegexFullMatch on the CPU: whether each string matches the
// `pattern` attr as a whole.
//
// TensorFlow uses RE2; minflow uses std::regex (ECMAScript grammar), which
// agrees with RE2 on the patterns TensorFlow's savers write ("^s3://.*")
// and on most simple ones. A pattern std::regex rejects is an
// InvalidArgument when the kernel is made.
#include <memory>
#include <regex>
#include <string>

#include "minflow/framework/op_kernel.h"

namespace minflow {
namespace {

class StaticRegexFullMatchOp : public OpKernel {
 public:
  explicit StaticRegexFullMatchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string pattern;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("pattern", &pattern));
    try {
      regex_ = std::make_unique<const std::regex>(pattern);
    } catch (const std::regex_error& e) {
      ctx->CtxFailure(errors::InvalidArgument("Invalid pattern: ", pattern,
                                              ", error: ", e.what()));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    const auto in = input.flat<tstring>();
    auto out = output->flat<bool>();
    try {
      for (int64_t i = 0; i < in.size(); ++i) {
        const std::string& s = in(i);
        out(i) = std::regex_match(s, *regex_);
      }
    } catch (const std::regex_error& e) {
      ctx->CtxFailure(errors::InvalidArgument(
          "StaticRegexFullMatch could not match the input: ", e.what()));
    }
  }

 private:
  std::unique_ptr<const std::regex> regex_;
};

REGISTER_KERNEL_BUILDER(Name("StaticRegexFullMatch").Device(DEVICE_CPU),
                        StaticRegexFullMatchOp);

}  // namespace
}  // namespace minflow
