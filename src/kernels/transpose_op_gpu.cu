// Transpose on the GPU (float): the CPU kernel's checks
// (CheckTransposePermutation), its shortcuts (identity, or only size-1
// dimensions moving: the output shares the input's buffer), then the
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
    const Tensor& input = ctx->input(0);
    std::vector<int32_t> permutation;
    TensorShape shape;
    bool is_identity = false;
    OP_REQUIRES_OK(
        ctx, internal::CheckTransposePermutation(
                 input, ctx->input(1), &permutation, &shape, &is_identity));
    if (input.dims() <= 1 || is_identity ||
        internal::NonSingletonDimensionsAlign(input.shape().dim_sizes(),
                                              permutation)) {
      Tensor output;
      OP_REQUIRES(ctx, output.CopyFrom(input, shape),
                  errors::Internal("Transpose: reshape to ",
                                   shape.DebugString(), " failed"));
      ctx->set_output(0, std::move(output));
      return;
    }
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &output));
    if (shape.num_elements() == 0) return;
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
