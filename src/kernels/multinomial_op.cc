// Multinomial(logits, num_samples): class indices drawn from each row's
// softmax(logits), by binary search of a uniform double in the row's
// unnormalised CDF. Non-finite logits are never drawn.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/random_op.h"

namespace minflow {
namespace {

// Note [Multinomial stream layout]
// Each sample takes two 32-bit words (one double). TensorFlow's CPU kernel
// consumes them row after row from one stream when it runs on one thread,
// but its per-shard skip does not match that layout, so its samples change
// with the thread count. Here row b always starts at word
// 2 * num_samples * b of the reserved stream: the single-thread TensorFlow
// layout, for any number of threads.
template <typename T, typename OutputType>
void SampleRows(const DeviceBase::CpuWorkerThreads& workers,
                const random::PhiloxRandom& gen, const T* logits,
                int64_t batch_size, int64_t num_classes, int64_t num_samples,
                OutputType* output) {
  auto work = [&](int64_t begin, int64_t end) {
    std::vector<double> cdf(num_classes);
    for (int64_t b = begin; b < end; ++b) {
      const uint64_t first_word = static_cast<uint64_t>(2 * num_samples * b);
      random::PhiloxRandom local = gen;
      local.Skip(first_word / 4);
      random::SingleSampleAdapter words(&local);
      for (uint64_t i = 0; i < first_word % 4; ++i) words();

      const T* row = logits + b * num_classes;
      double max_logit = std::numeric_limits<double>::lowest();
      for (int64_t j = 0; j < num_classes; ++j) {
        const double v = static_cast<double>(row[j]);
        if (std::isfinite(v)) max_logit = std::max(max_logit, v);
      }
      double running_total = 0;
      for (int64_t j = 0; j < num_classes; ++j) {
        const double v = static_cast<double>(row[j]);
        if (std::isfinite(v)) running_total += std::exp(v - max_logit);
        cdf[j] = running_total;
      }
      OutputType* out_row = output + b * num_samples;
      for (int64_t s = 0; s < num_samples; ++s) {
        const uint32_t x0 = words();
        const uint32_t x1 = words();
        const double to_find = random::Uint64ToDouble(x0, x1) * running_total;
        out_row[s] = static_cast<OutputType>(
            std::upper_bound(cdf.begin(), cdf.end(), to_find) - cdf.begin());
      }
    }
  };
  const int64_t cost =
      50 *
      (num_samples * std::log2(static_cast<double>(num_classes)) + num_classes);
  Shard(workers.num_threads, workers.workers, batch_size, cost, work);
}

template <typename T, typename OutputType>
class MultinomialOp : public OpKernel {
 public:
  explicit MultinomialOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, generator_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& num_samples_t = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsMatrix(logits.shape()),
                errors::InvalidArgument("logits should be a matrix, got shape ",
                                        logits.shape().DebugString()));
    OP_REQUIRES(
        ctx, TensorShapeUtils::IsScalar(num_samples_t.shape()),
        errors::InvalidArgument("num_samples should be a scalar, got shape ",
                                num_samples_t.shape().DebugString()));
    const int32_t num_samples = *num_samples_t.base<const int32_t>();
    OP_REQUIRES(ctx, num_samples >= 0,
                errors::InvalidArgument(
                    "num_samples should be nonnegative, got ", num_samples));
    for (int i = 0; i < 2; ++i) {
      OP_REQUIRES(ctx,
                  logits.dim_size(i) <= std::numeric_limits<int32_t>::max(),
                  errors::InvalidArgument(
                      "logits.shape = ", logits.shape().DebugString(),
                      " too large for int"));
    }
    const int64_t batch_size = logits.dim_size(0);
    const int64_t num_classes = logits.dim_size(1);
    OP_REQUIRES(ctx, num_classes > 0,
                errors::InvalidArgument("num_classes should be positive, got ",
                                        num_classes));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({batch_size, num_samples}), &out));
    if (out->NumElements() == 0) return;
    // TensorFlow's reservation: two words per sample, rounded up.
    const int64_t num_samples_ceil_4 = (int64_t{num_samples} + 3) / 4 * 4 * 2;
    const random::PhiloxRandom gen =
        generator_.ReserveRandomOutputs(batch_size * num_samples_ceil_4, 256);
    SampleRows(*ctx->device()->tensorflow_cpu_worker_threads(), gen,
               logits.base<const T>(), batch_size, num_classes, num_samples,
               out->base<OutputType>());
  }

 private:
  GuardedPhiloxRandom generator_;
};

#define REGISTER_CPU(T)                                                 \
  REGISTER_KERNEL_BUILDER(Name("Multinomial")                           \
                              .Device(DEVICE_CPU)                       \
                              .HostMemory("num_samples")                \
                              .TypeConstraint<T>("T")                   \
                              .TypeConstraint<int32_t>("output_dtype"), \
                          MultinomialOp<T, int32_t>);                   \
  REGISTER_KERNEL_BUILDER(Name("Multinomial")                           \
                              .Device(DEVICE_CPU)                       \
                              .HostMemory("num_samples")                \
                              .TypeConstraint<T>("T")                   \
                              .TypeConstraint<int64_t>("output_dtype"), \
                          MultinomialOp<T, int64_t>);
TF_CALL_half(REGISTER_CPU);
TF_CALL_float(REGISTER_CPU);
TF_CALL_double(REGISTER_CPU);
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
