// MatMul on the GPU: one cuBLAS GEMM on the device's stream, behind the
// MatMulOp checks shared with the CPU (matmul_op.h). Host code only.
#include <limits>

#include "src/cuda/cuda_status.h"
#include "src/cuda/gpu_device.h"
#include "src/kernels/matmul_op.h"

namespace minflow {

using GPUDevice = Eigen::GpuDevice;

// Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T, so cuBLAS
// gets B first and no data moves.
template <>
struct LaunchMatMul<GPUDevice, float> {
  static void Launch(OpKernelContext* ctx, const Tensor& a, const Tensor& b,
                     bool transpose_a, bool transpose_b,
                     const internal::ConstantOperand& /*constant_b*/,
                     Tensor* out) {
    GpuDevice* device = nullptr;
    OP_REQUIRES_OK(ctx, GetGpuDevice(ctx, &device));
    const int64_t m = out->dim_size(0);
    const int64_t n = out->dim_size(1);
    const int64_t k = transpose_a ? a.dim_size(0) : a.dim_size(1);
    if (k == 0) {
      // A zero-length inner dimension: every output is an empty sum.
      OP_REQUIRES_OK(ctx, [&]() -> Status {
        MF_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(out->flat<float>().data(), 0,
                                                out->TotalBytes(),
                                                device->cuda_stream()));
        return OkStatus();
      }());
      return;
    }
    constexpr int64_t kMaxDim = std::numeric_limits<int>::max();
    OP_REQUIRES(
        ctx,
        m <= kMaxDim && n <= kMaxDim && k <= kMaxDim &&
            a.dim_size(1) <= kMaxDim && b.dim_size(1) <= kMaxDim,
        errors::InvalidArgument("MatMul on the GPU takes dimensions up to ",
                                kMaxDim, ", got ", a.shape().DebugString(),
                                " and ", b.shape().DebugString()));
    const float alpha = 1.0f;
    const float beta = 0.0f;
    OP_REQUIRES_OK(ctx, [&]() -> Status {
      MF_CUBLAS_RETURN_IF_ERROR(cublasSgemm(
          device->cublas_handle(), transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N,
          transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(n),
          static_cast<int>(m), static_cast<int>(k), &alpha,
          b.flat<float>().data(), static_cast<int>(b.dim_size(1)),
          a.flat<float>().data(), static_cast<int>(a.dim_size(1)), &beta,
          out->flat<float>().data(), static_cast<int>(n)));
      return OkStatus();
    }());
  }
};

REGISTER_KERNEL_BUILDER(
    Name("MatMul").Device(DEVICE_GPU).TypeConstraint<float>("T"),
    MatMulOp<GPUDevice, float>);

}  // namespace minflow
