// LinSpace(start, stop, num): `num` evenly spaced values from start to stop,
// both included. half and bfloat16 compute in float.
#include <cstdint>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cwise_op_functor.h"

namespace minflow {
namespace {

template <typename T, typename Tnum>
class LinSpaceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& start_in = ctx->input(0);
    const Tensor& stop_in = ctx->input(1);
    const Tensor& num_in = ctx->input(2);
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(start_in.shape()),
                errors::InvalidArgument("start must be a scalar, not shape ",
                                        start_in.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(stop_in.shape()),
                errors::InvalidArgument("stop must be a scalar, not shape ",
                                        stop_in.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(num_in.shape()),
                errors::InvalidArgument("num must be a scalar, not shape ",
                                        num_in.shape().DebugString()));
    const int64_t num = static_cast<int64_t>(num_in.scalar<Tnum>()());
    OP_REQUIRES(ctx, num > 0,
                errors::InvalidArgument("Requires num > 0: ", num));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({num}), &out));
    using C = functor::internal::CalcType<T>;
    const C start = static_cast<C>(start_in.scalar<T>()());
    const C stop = static_cast<C>(stop_in.scalar<T>()());
    T* o = out->base<T>();
    if (num == 1) {
      o[0] = static_cast<T>(start);
      return;
    }
    // The last value is `stop` exactly, as in TensorFlow.
    const C step = (stop - start) / static_cast<C>(num - 1);
    for (int64_t i = 0; i < num - 1; ++i) {
      o[i] = static_cast<T>(start + step * static_cast<C>(i));
    }
    o[num - 1] = static_cast<T>(stop);
  }
};

#define REGISTER_INDEX(T, Tnum)                             \
  REGISTER_KERNEL_BUILDER(Name("LinSpace")                  \
                              .Device(DEVICE_CPU)           \
                              .TypeConstraint<T>("T")       \
                              .TypeConstraint<Tnum>("Tidx") \
                              .HostMemory("start")          \
                              .HostMemory("stop")           \
                              .HostMemory("num"),           \
                          LinSpaceOp<T, Tnum>);
#define REGISTER_CPU(T)      \
  REGISTER_INDEX(T, int32_t) \
  REGISTER_INDEX(T, int64_t)
MF_CALL_CORE_FLOAT_TYPES(REGISTER_CPU)
#undef REGISTER_CPU
#undef REGISTER_INDEX

}  // namespace
}  // namespace minflow
