// Seeded random tensors: RandomUniform, RandomStandardNormal,
// TruncatedNormal and RandomUniformInt. See Note [Random op determinism].
#include "src/kernels/random_op.h"

#include <cstdint>
#include <random>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"

namespace minflow {

Status GuardedPhiloxRandom::Init(OpKernelConstruction* ctx) {
  int64_t seed = 0;
  int64_t seed2 = 0;
  MF_RETURN_IF_ERROR(ctx->GetAttr("seed", &seed));
  MF_RETURN_IF_ERROR(ctx->GetAttr("seed2", &seed2));
  Init(seed, seed2);
  return OkStatus();
}

void GuardedPhiloxRandom::Init(int64_t seed, int64_t seed2) {
  uint64_t lo = static_cast<uint64_t>(seed);
  uint64_t hi = static_cast<uint64_t>(seed2);
  if (lo == 0 && hi == 0) {
    std::random_device device;
    auto next64 = [&device] {
      return (static_cast<uint64_t>(device()) << 32) | device();
    };
    lo = next64();
    hi = next64();
  }
  absl::MutexLock lock(&mu_);
  generator_ = random::PhiloxRandom(lo, hi);
}

random::PhiloxRandom GuardedPhiloxRandom::ReserveSamples128(int64_t blocks) {
  absl::MutexLock lock(&mu_);
  const random::PhiloxRandom reserved = generator_;
  generator_.Skip(static_cast<uint64_t>(blocks));
  return reserved;
}

namespace {

// `shape` input: an int32 or int64 vector of non-negative sizes.
Status ShapeFromTensor(const Tensor& t, TensorShape* out) {
  if (!TensorShapeUtils::IsVector(t.shape())) {
    return errors::InvalidArgument(
        "shape must be a vector of {int32,int64}, got shape ",
        t.shape().DebugString());
  }
  if (t.dtype() == DT_INT32) {
    return TensorShapeUtils::MakeShape(
        absl::Span<const int32_t>(t.base<const int32_t>(), t.NumElements()),
        out);
  }
  return TensorShapeUtils::MakeShape(
      absl::Span<const int64_t>(t.base<const int64_t>(), t.NumElements()), out);
}

// RandomUniform, RandomStandardNormal, TruncatedNormal: one distribution
// over the whole output.
template <typename Distribution, typename T>
class PhiloxRandomOp : public OpKernel {
 public:
  explicit PhiloxRandomOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, generator_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ShapeFromTensor(ctx->input(0), &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t size = out->NumElements();
    if (size == 0) return;
    functor::FillPhiloxRandom(*ctx->device()->tensorflow_cpu_worker_threads(),
                              generator_.ReserveRandomOutputs(size, 256),
                              out->base<T>(), size, Distribution());
  }

 private:
  GuardedPhiloxRandom generator_;
};

// RandomUniformInt(shape, minval, maxval): integers in [minval, maxval).
template <typename T>
class RandomUniformIntOp : public OpKernel {
 public:
  explicit RandomUniformIntOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, generator_.Init(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& minval = ctx->input(1);
    const Tensor& maxval = ctx->input(2);
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(minval.shape()),
                errors::InvalidArgument("minval must be 0-D, got shape ",
                                        minval.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(maxval.shape()),
                errors::InvalidArgument("maxval must be 0-D, got shape ",
                                        maxval.shape().DebugString()));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ShapeFromTensor(ctx->input(0), &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t size = out->NumElements();
    // As in TensorFlow, an empty output never checks the range.
    if (size == 0) return;
    const T lo = *minval.base<const T>();
    const T hi = *maxval.base<const T>();
    OP_REQUIRES(
        ctx, lo < hi,
        errors::InvalidArgument("Need minval < maxval, got ", lo, " >= ", hi));
    functor::FillPhiloxRandom(*ctx->device()->tensorflow_cpu_worker_threads(),
                              generator_.ReserveRandomOutputs(size, 256),
                              out->base<T>(), size,
                              random::UniformIntDistribution<T>(lo, hi));
  }

 private:
  GuardedPhiloxRandom generator_;
};

#define REGISTER_CPU(T)                                                       \
  REGISTER_KERNEL_BUILDER(Name("RandomUniform")                               \
                              .Device(DEVICE_CPU)                             \
                              .HostMemory("shape")                            \
                              .TypeConstraint<T>("dtype"),                    \
                          PhiloxRandomOp<random::UniformDistribution<T>, T>); \
  REGISTER_KERNEL_BUILDER(Name("RandomStandardNormal")                        \
                              .Device(DEVICE_CPU)                             \
                              .HostMemory("shape")                            \
                              .TypeConstraint<T>("dtype"),                    \
                          PhiloxRandomOp<random::NormalDistribution<T>, T>);  \
  REGISTER_KERNEL_BUILDER(                                                    \
      Name("TruncatedNormal")                                                 \
          .Device(DEVICE_CPU)                                                 \
          .HostMemory("shape")                                                \
          .TypeConstraint<T>("dtype"),                                        \
      PhiloxRandomOp<random::TruncatedNormalDistribution<T>, T>);
TF_CALL_half(REGISTER_CPU);
TF_CALL_bfloat16(REGISTER_CPU);
TF_CALL_float(REGISTER_CPU);
TF_CALL_double(REGISTER_CPU);
#undef REGISTER_CPU

#define REGISTER_INT(T)                                   \
  REGISTER_KERNEL_BUILDER(Name("RandomUniformInt")        \
                              .Device(DEVICE_CPU)         \
                              .HostMemory("shape")        \
                              .HostMemory("minval")       \
                              .HostMemory("maxval")       \
                              .TypeConstraint<T>("Tout"), \
                          RandomUniformIntOp<T>);
TF_CALL_int32(REGISTER_INT);
TF_CALL_int64(REGISTER_INT);
#undef REGISTER_INT

}  // namespace
}  // namespace minflow
