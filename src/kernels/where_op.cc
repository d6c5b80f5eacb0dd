// Where(input): the coordinates of input's true (nonzero) elements, one
// int64 row of rank(input) coordinates per element, in row-major order.
#include <cstdint>
#include <vector>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"

namespace minflow {
namespace {

template <typename T>
class WhereOp : public OpKernel {
 public:
  explicit WhereOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const T* in = input.base<const T>();
    const int64_t n = input.NumElements();
    int64_t num_true = 0;
    for (int64_t i = 0; i < n; ++i) num_true += IsTrue(in[i]) ? 1 : 0;
    const int rank = input.dims();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({num_true, rank}), &out));
    if (num_true == 0 || rank == 0) return;
    int64_t* coords = out->base<int64_t>();
    std::vector<int64_t> pos(rank, 0);
    for (int64_t i = 0; i < n; ++i) {
      if (IsTrue(in[i])) {
        for (int d = 0; d < rank; ++d) *coords++ = pos[d];
      }
      for (int d = rank - 1; d >= 0; --d) {
        if (++pos[d] < input.dim_size(d)) break;
        pos[d] = 0;
      }
    }
  }

 private:
  static bool IsTrue(const T& v) { return v != T(0); }
};

#define REGISTER_CPU(T)    \
  REGISTER_KERNEL_BUILDER( \
      Name("Where").Device(DEVICE_CPU).TypeConstraint<T>("T"), WhereOp<T>);
TF_CALL_POD_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
