// LRN (local response normalisation across channels), CPU:
//   sqr_sum[n, h, w, d] = sum of input[n, h, w, d'] ^ 2 over
//                         d' in [d - depth_radius, d + depth_radius]
//   output = input / (bias + alpha * sqr_sum) ^ beta
// The window sum slides along each pixel's channels in double, so the cost
// does not grow with depth_radius and no precision is lost in the running
// subtraction; half and bfloat16 compute the same way.
#define EIGEN_USE_THREADS

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"

namespace minflow {
namespace {

template <typename T>
class LRNOp : public OpKernel {
 public:
  explicit LRNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t depth_radius;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("depth_radius", &depth_radius));
    OP_REQUIRES(
        ctx,
        depth_radius >= 0 && depth_radius < std::numeric_limits<int32_t>::max(),
        errors::InvalidArgument("depth_radius = ", depth_radius,
                                " larger than int max"));
    depth_radius_ = depth_radius;
    float v;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("bias", &v));
    bias_ = v;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &v));
    alpha_ = v;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("beta", &v));
    beta_ = v;
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES(ctx, in.dims() == 4,
                errors::InvalidArgument("in must be 4-dimensional"));
    OP_REQUIRES(ctx, in.NumElements() < std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument("argument to LRN too large"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, in.shape(), &out));
    if (in.NumElements() == 0) return;
    const int64_t depth = in.dim_size(3);
    const int64_t pixels = in.NumElements() / depth;
    const T* x = in.base<const T>();
    T* y = out->base<T>();
    const int64_t r = depth_radius_;
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    Shard(workers->num_threads, workers->workers, pixels, depth * 30,
          [&](int64_t p0, int64_t p1) {
            // Squares of one pixel, so `out` may alias `in`.
            std::vector<double> sq(depth);
            for (int64_t p = p0; p < p1; ++p) {
              const T* xp = x + p * depth;
              T* yp = y + p * depth;
              for (int64_t d = 0; d < depth; ++d) {
                const double v = static_cast<double>(xp[d]);
                sq[d] = v * v;
              }
              // Window [d - r, d + r] clipped to [0, depth).
              double sum = 0;
              for (int64_t d = 0; d < std::min(r, depth); ++d) sum += sq[d];
              for (int64_t d = 0; d < depth; ++d) {
                if (d + r < depth) sum += sq[d + r];
                if (d - r - 1 >= 0) sum -= sq[d - r - 1];
                const double v = static_cast<double>(xp[d]);
                yp[d] =
                    static_cast<T>(v * std::pow(bias_ + alpha_ * sum, -beta_));
              }
            }
          });
  }

 private:
  int64_t depth_radius_ = 0;
  double bias_ = 0;
  double alpha_ = 0;
  double beta_ = 0;
};

#define REGISTER_CPU(T)    \
  REGISTER_KERNEL_BUILDER( \
      Name("LRN").Device(DEVICE_CPU).TypeConstraint<T>("T"), LRNOp<T>);
TF_CALL_float(REGISTER_CPU) TF_CALL_half(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
