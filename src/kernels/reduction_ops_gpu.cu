// Sum, Mean, Prod, Max and Min on the GPU (float): the CPU kernel's planning
// (ReductionHelper) and Eigen reductions (reduction_ops_common.h) evaluated
// on Eigen::GpuDevice; more than three merged dims are first shuffled on the
// GPU so every reduced run is last. The axes are read from host memory.
// clang-format off
#include "src/cuda/op_kernel_gpu.h"
// clang-format on

#include <cstdint>

#include "src/kernels/reduction_ops_common.h"
#include "src/kernels/transpose_functor_gpu.h"

namespace minflow {
namespace {

using reduction::EigenReducer;
using reduction::Kind;
using reduction::Plan;
using reduction::ReduceEigen;
using reduction::ReductionIdentity;

template <Kind K>
class ReductionGpuOp : public OpKernel {
 public:
  explicit ReductionGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    ReductionHelper helper;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, StartReduction(ctx, keep_dims_, &helper, &out));
    if (out == nullptr) return;
    const int ndims = helper.ndims();
    const int64_t out_size = out->NumElements();
    if (out_size == 0) return;
    const GPUDevice& d = ctx->eigen_device<GPUDevice>();
    auto out_flat = out->flat<float>();
    if (data.NumElements() == 0) {
      out_flat.device(d) = out_flat.constant(ReductionIdentity<float, K>());
      return;
    }
    Plan plan;
    const float* src = data.base<const float>();
    Tensor shuffled;
    if (ndims <= 3) {
      plan.dims.assign(helper.data_reshape().begin(),
                       helper.data_reshape().end());
      plan.reduce_first = helper.reduce_first_axis();
    } else {
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, helper.shuffled_shape(),
                                             &shuffled));
      const auto perm = helper.permutation();
      OP_REQUIRES_OK(ctx, functor::ShuffleOnGpu(d, src, helper.data_reshape(),
                                                perm, shuffled.base<float>()));
      src = shuffled.base<const float>();
      plan.dims = {out_size, data.NumElements() / out_size};
      plan.reduce_first = false;
    }
    ReduceEigen<GPUDevice, float, typename EigenReducer<float, K>::type>(
        d, src, plan, out->base<float>());
    if constexpr (K == Kind::kMean) {
      // As the CPU kernel: the sum divided by the count, in float.
      const float count = static_cast<float>(data.NumElements() / out_size);
      out_flat.device(d) = out_flat / out_flat.constant(count);
    }
  }

 private:
  bool keep_dims_ = false;
};

constexpr DataType kTidxTypes[] = {DT_INT32, DT_INT64};

#define REGISTER_GPU_KIND(NAME, KIND)                             \
  REGISTER_KERNEL_BUILDER(Name(NAME)                              \
                              .Device(DEVICE_GPU)                 \
                              .TypeConstraint<float>("T")         \
                              .TypeConstraint("Tidx", kTidxTypes) \
                              .HostMemory("reduction_indices"),   \
                          ReductionGpuOp<KIND>);
REGISTER_GPU_KIND("Sum", Kind::kSum)
REGISTER_GPU_KIND("Mean", Kind::kMean)
REGISTER_GPU_KIND("Prod", Kind::kProd)
REGISTER_GPU_KIND("Max", Kind::kMax)
REGISTER_GPU_KIND("Min", Kind::kMin)
#undef REGISTER_GPU_KIND

}  // namespace
}  // namespace minflow
