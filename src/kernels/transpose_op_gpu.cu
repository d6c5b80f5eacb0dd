// Transpose on the GPU (float): the CPU kernel's checks and shortcuts
// (StartTranspose: the identity, or only size-1 dimensions moving, share
// the input's buffer), then the
// smallest equivalent permutation (ReduceTransposeDimensions) as one Eigen
// shuffle on the device's stream. `perm` is read from host memory.
// clang-format off
#include "src/cuda/op_kernel_gpu.h"
// clang-format on

#include <cstdint>
#include <vector>

#include "src/kernels/transpose_functor.h"
#include "src/kernels/transpose_functor_gpu.h"

namespace minflow {
namespace {

class TransposeGpuOp : public OpKernel {
 public:
  explicit TransposeGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    std::vector<int32_t> permutation;
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, internal::StartTranspose(ctx, &permutation, &output));
    if (output == nullptr || output->NumElements() == 0) return;
    const Tensor& input = ctx->input(0);
    absl::InlinedVector<int64_t, 8> dims;
    absl::InlinedVector<int32_t, 8> perm;
    internal::ReduceTransposeDimensions(input.shape().dim_sizes(), permutation,
                                        &dims, &perm);
    OP_REQUIRES_OK(ctx, functor::ShuffleOnGpu(ctx->eigen_device<GPUDevice>(),
                                              input.base<const float>(), dims,
                                              perm, output->base<float>()));
  }
};

REGISTER_KERNEL_BUILDER(Name("Transpose")
                            .Device(DEVICE_GPU)
                            .TypeConstraint<float>("T")
                            .HostMemory("perm"),
                        TransposeGpuOp);

}  // namespace
}  // namespace minflow
