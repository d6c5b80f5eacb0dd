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
    reduction::CpuReduction r;
    OP_REQUIRES_OK(ctx, reduction::BeginCpuReduction(ctx, keep_dims_, &r));
    if (r.DoneWith(kIdentity)) return;
    reduction::ReduceEigen<CPUDevice, bool, Reducer>(
        ctx->eigen_device<CPUDevice>(), r.src->base<const bool>(), r.plan,
        r.out->base<bool>());
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
