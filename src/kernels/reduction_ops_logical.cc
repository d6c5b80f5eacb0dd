// All and Any: logical and / or of a bool tensor over a set of axes, with
// the shared reduction planning of reduction_ops_common.h. An empty
// reduction is true for All and false for Any.
#define EIGEN_USE_THREADS

#include <cstdint>

#include "minflow/framework/op_kernel.h"
#include "src/kernels/cwise_ops_common.h"
#include "src/kernels/reduction_ops_common.h"

namespace minflow {
namespace {

template <typename Reducer, bool kIdentity>
class LogicalReductionOp : public OpKernel {
 public:
  explicit LogicalReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    ReductionHelper helper;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, StartReduction(ctx, keep_dims_, &helper, &out));
    if (out == nullptr) return;
    const int64_t out_size = out->NumElements();
    if (out_size == 0) return;
    bool* out_data = out->base<bool>();
    if (data.NumElements() == 0) {
      for (int64_t i = 0; i < out_size; ++i) out_data[i] = kIdentity;
      return;
    }
    reduction::Plan plan;
    const Tensor* src = nullptr;
    Tensor shuffled;
    OP_REQUIRES_OK(ctx,
                   reduction::PrepareReductionInput(ctx, helper, data, out_size,
                                                    &plan, &src, &shuffled));
    reduction::ReduceEigen<CPUDevice, bool, Reducer>(
        ctx->eigen_device<CPUDevice>(), src->base<const bool>(), plan,
        out_data);
  }

 private:
  bool keep_dims_ = false;
};

constexpr DataType kTidxTypes[] = {DT_INT32, DT_INT64};

REGISTER_KERNEL_BUILDER(Name("All")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Tidx", kTidxTypes)
                            .HostMemory("reduction_indices"),
                        LogicalReductionOp<Eigen::internal::AndReducer, true>);
REGISTER_KERNEL_BUILDER(Name("Any")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Tidx", kTidxTypes)
                            .HostMemory("reduction_indices"),
                        LogicalReductionOp<Eigen::internal::OrReducer, false>);

}  // namespace
}  // namespace minflow
