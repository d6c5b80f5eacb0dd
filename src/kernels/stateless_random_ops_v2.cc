// StatelessRandomUniformV2, StatelessRandomNormalV2 and
// StatelessTruncatedNormalV2: the stateful ops' distributions on a Philox
// stream given by the `key` and `counter` inputs (alg 1 = Philox; 3 =
// auto-select, which is Philox on CPU). Pure functions of their inputs.
#include <cstdint>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/random_op.h"

namespace minflow {
namespace {

// TensorFlow's rng_alg.h ids.
constexpr int kRngAlgPhilox = 1;
constexpr int kRngAlgThreefry = 2;
constexpr int kRngAlgAutoSelect = 3;
constexpr int kRngKeySize = 1;

// Philox reads two counter words. TensorFlow checks the counter against the
// algorithm's counter size (2 for Philox, 1 for ThreeFry).
int MinCounterSize(int alg) { return alg == kRngAlgThreefry ? 1 : 2; }

template <typename Distribution, typename T>
class StatelessRandomOpV2 : public OpKernel {
 public:
  explicit StatelessRandomOpV2(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& key_t = ctx->input(1);
    const Tensor& counter_t = ctx->input(2);
    const Tensor& alg_t = ctx->input(3);
    OP_REQUIRES(ctx, alg_t.dims() == 0,
                errors::InvalidArgument("input 3 (0-based) must have shape "
                                        "[], not ",
                                        alg_t.shape().DebugString()));
    int alg = *alg_t.base<const int32_t>();
    if (alg == kRngAlgAutoSelect) alg = kRngAlgPhilox;
    OP_REQUIRES(ctx, key_t.dims() == 1 && key_t.dim_size(0) == kRngKeySize,
                errors::InvalidArgument(
                    "key must have shape [", kRngKeySize, "], not ",
                    key_t.shape().DebugString(),
                    ". (Note that batched keys are not supported yet.)"));
    const int min_counter = MinCounterSize(alg);
    OP_REQUIRES(
        ctx, counter_t.dims() == 1 && counter_t.dim_size(0) >= min_counter,
        errors::InvalidArgument(
            "counter must be a vector with length at least ", min_counter,
            "; got shape: ", counter_t.shape().DebugString(),
            ". (Note that batched counters are not supported yet.)"));

    const Tensor& shape_t = ctx->input(0);
    OP_REQUIRES(ctx, TensorShapeUtils::IsVector(shape_t.shape()),
                errors::InvalidArgument(
                    "shape must be a vector of {int32,int64}, got shape ",
                    shape_t.shape().DebugString()));
    TensorShape shape;
    if (shape_t.dtype() == DT_INT32) {
      OP_REQUIRES_OK(
          ctx, TensorShapeUtils::MakeShape(
                   absl::Span<const int32_t>(shape_t.base<const int32_t>(),
                                             shape_t.NumElements()),
                   &shape));
    } else {
      OP_REQUIRES_OK(
          ctx, TensorShapeUtils::MakeShape(
                   absl::Span<const int64_t>(shape_t.base<const int64_t>(),
                                             shape_t.NumElements()),
                   &shape));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t size = out->NumElements();
    // As in TensorFlow, an empty output never looks at the algorithm.
    if (size == 0) return;
    OP_REQUIRES(ctx, alg == kRngAlgPhilox,
                errors::InvalidArgument("Unsupported algorithm id: ", alg));

    // key = k, counter = [c0, c1]: Philox key (lo(k), hi(k)) and 128-bit
    // counter (lo(c0), hi(c0), lo(c1), hi(c1)).
    const uint64_t key = *key_t.base<const uint64_t>();
    const uint64_t* counter = counter_t.base<const uint64_t>();
    random::PhiloxRandom::Key philox_key{
        {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)}};
    random::PhiloxRandom::ResultType philox_counter{
        {static_cast<uint32_t>(counter[0]),
         static_cast<uint32_t>(counter[0] >> 32),
         static_cast<uint32_t>(counter[1]),
         static_cast<uint32_t>(counter[1] >> 32)}};
    functor::FillPhiloxRandom(*ctx->device()->tensorflow_cpu_worker_threads(),
                              random::PhiloxRandom(philox_counter, philox_key),
                              out->base<T>(), size, Distribution());
  }
};

#define REGISTER_CPU(T)                                        \
  REGISTER_KERNEL_BUILDER(                                     \
      Name("StatelessRandomUniformV2")                         \
          .Device(DEVICE_CPU)                                  \
          .HostMemory("shape")                                 \
          .HostMemory("alg")                                   \
          .TypeConstraint<T>("dtype"),                         \
      StatelessRandomOpV2<random::UniformDistribution<T>, T>); \
  REGISTER_KERNEL_BUILDER(                                     \
      Name("StatelessRandomNormalV2")                          \
          .Device(DEVICE_CPU)                                  \
          .HostMemory("shape")                                 \
          .HostMemory("alg")                                   \
          .TypeConstraint<T>("dtype"),                         \
      StatelessRandomOpV2<random::NormalDistribution<T>, T>);  \
  REGISTER_KERNEL_BUILDER(                                     \
      Name("StatelessTruncatedNormalV2")                       \
          .Device(DEVICE_CPU)                                  \
          .HostMemory("shape")                                 \
          .HostMemory("alg")                                   \
          .TypeConstraint<T>("dtype"),                         \
      StatelessRandomOpV2<random::TruncatedNormalDistribution<T>, T>);
TF_CALL_half(REGISTER_CPU);
TF_CALL_bfloat16(REGISTER_CPU);
TF_CALL_float(REGISTER_CPU);
TF_CALL_double(REGISTER_CPU);
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
