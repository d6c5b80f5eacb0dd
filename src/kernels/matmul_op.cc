// MatMul: product = op(a) * op(b), op a transpose per attr.
#define EIGEN_USE_THREADS

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/matmul_op_functor.h"

namespace minflow {

using CPUDevice = Eigen::ThreadPoolDevice;

namespace functor {

// Eigen's tensor contraction on the intra-op pool: it packs and blocks like
// Eigen's GEMM and splits the output over the pool's threads. See
// bench/matmul_bench.cc for how it compares with a direct Eigen product.
template <typename T>
struct MatMulFunctor<CPUDevice, T> {
  void operator()(const CPUDevice& d, typename TTypes<T>::Matrix out,
                  typename TTypes<T>::ConstMatrix in0,
                  typename TTypes<T>::ConstMatrix in1,
                  const MatMulDimPair& dim_pair) {
    MatMul<CPUDevice>(d, out, in0, in1, dim_pair);
  }
};

}  // namespace functor

namespace {

template <typename Device, typename T>
class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsMatrix(a.shape()),
                errors::InvalidArgument("In[0] is not a matrix. Instead it has "
                                        "shape ",
                                        a.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsMatrix(b.shape()),
                errors::InvalidArgument("In[1] is not a matrix. Instead it has "
                                        "shape ",
                                        b.shape().DebugString()));
    const functor::MatMulDimPair dim_pair =
        functor::MakeMatMulDimPair(transpose_a_, transpose_b_);
    const int a_inner = dim_pair[0].first;
    const int b_inner = dim_pair[0].second;
    OP_REQUIRES(ctx, a.dim_size(a_inner) == b.dim_size(b_inner),
                errors::InvalidArgument("Matrix size-incompatible: In[0]: ",
                                        a.shape().DebugString(),
                                        ", In[1]: ", b.shape().DebugString()));
    // BuildTensorShape: with an empty inner dimension the outer ones may be
    // huge, and their product overflow.
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(
                            {a.dim_size(1 - a_inner), b.dim_size(1 - b_inner)},
                            &out_shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    if (a.NumElements() == 0 || b.NumElements() == 0) {
      // A zero-length inner dimension: every output is an empty sum.
      out->flat<T>().setZero();
      return;
    }
    functor::MatMulFunctor<Device, T>()(ctx->eigen_device<Device>(),
                                        out->matrix<T>(), a.matrix<T>(),
                                        b.matrix<T>(), dim_pair);
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

#define REGISTER_CPU(T)                                         \
  REGISTER_KERNEL_BUILDER(                                      \
      Name("MatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      MatMulOp<CPUDevice, T>);
MF_CALL_CORE_REAL_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
