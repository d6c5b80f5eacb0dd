// _FusedMatMul on CPU: MatMul's Eigen contraction with BiasAdd and an
// optional activation applied by Eigen's OutputKernel to each output block
// as it is finished. See Note [Fused epilogues].
#define EIGEN_USE_THREADS

#include <cstdint>
#include <type_traits>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cpu_gemm.h"
#include "src/kernels/fused_eigen_output_kernels.h"
#include "src/kernels/matmul_gemv.h"
#include "src/kernels/matmul_op.h"
#include "src/kernels/matmul_op_functor.h"

namespace minflow {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;

template <typename Device, typename T>
class FusedMatMulOp : public OpKernel {
 public:
  explicit FusedMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
    b_is_const_ = internal::OperandIsMarkedConst(ctx);
    using FCT = FusedComputationType;
    OP_REQUIRES_OK(
        ctx, InitFusedComputation(
                 ctx, "MatMul",
                 {FCT::kBiasAdd, FCT::kBiasAddWithRelu, FCT::kBiasAddWithRelu6,
                  FCT::kBiasAddWithElu, FCT::kBiasAddWithLeakyRelu},
                 &fusion_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    TensorShape out_shape;
    OP_REQUIRES_OK(
        ctx, MatMulOutputShape(a, b, transpose_a_, transpose_b_, &out_shape));
    const functor::MatMulDimPair dim_pair =
        functor::MakeMatMulDimPair(transpose_a_, transpose_b_);
    const int64_t channels = out_shape.dim_size(1);
    FusedEpilogue<T> epilogue;
    OP_REQUIRES_OK(ctx, epilogue.Init(ctx, fusion_, 2, channels));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    if (a.NumElements() == 0) {
      // A zero-length inner dimension: the product is zeros, the epilogue
      // still applies.
      out->flat<T>().setZero();
      epilogue.Apply(out->base<T>(), out_shape.dim_size(0), channels, 0,
                     channels);
      return;
    }
    const int64_t k = transpose_a_ ? a.dim_size(0) : a.dim_size(1);
    if (internal::UseShardedGemv(out_shape.dim_size(0), channels, k)) {
      internal::ConstantOperand constant_b;
      if (b_is_const_) constant_b = {&b, &b_layouts_};
      internal::ShardedGemv<T>(
          ctx, a.base<const T>(), k, b.base<const T>(), transpose_b_, channels,
          out->base<T>(), constant_b,
          [&](T* row, int64_t start, int64_t limit) {
            epilogue.Apply(row + start, 1, limit - start, start, channels);
          });
      return;
    }
    const int64_t m = out_shape.dim_size(0);
    static_assert(std::is_same_v<T, float>, "registered for float only");
    if (internal::UseLibraryGemm(m, channels, k) &&
        internal::ShardedLibraryGemm(
            ctx,
            internal::GemmArgs{transpose_a_, transpose_b_, m, channels, k,
                               a.base<const T>(), a.dim_size(1),
                               b.base<const T>(), b.dim_size(1), out->base<T>(),
                               channels},
            [&](int64_t first, int64_t limit) {
              epilogue.Apply(out->base<T>() + first * channels, limit - first,
                             channels, 0, channels);
            })) {
      return;
    }
    functor::MatMulWithOutputKernel(
        ctx->eigen_device<CPUDevice>(), out->matrix<T>(), a.matrix<T>(),
        b.matrix<T>(), dim_pair, FusedContractionOutputKernel<T>{&epilogue});
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
  bool b_is_const_ = false;
  internal::ConstantLayoutCache b_layouts_;
  FusedComputation fusion_;
};

#define REGISTER_CPU(T)                                               \
  REGISTER_KERNEL_BUILDER(                                            \
      Name("_FusedMatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      FusedMatMulOp<CPUDevice, T>);
TF_CALL_float(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
