// The MatMul kernel over any device: the checks and the output are here,
// the product is LaunchMatMul<Device, T> (Eigen on the CPU in matmul_op.cc,
// cuBLAS on the GPU in nn_ops_gpu.cc).
#pragma once

#include "minflow/framework/op_kernel.h"
#include "src/kernels/constant_layout_cache.h"
#include "src/kernels/matmul_op_functor.h"

namespace minflow {

// out = op(a) * op(b) for non-empty `out`, where op transposes per flag; a
// zero-length inner dimension must give zeros. `constant_b`, when set, is
// b as a Const's value, with the kernel's cache for copies of it in other
// layouts (Note [Kept constant layouts]); a device may ignore it.
template <typename Device, typename T>
struct LaunchMatMul {
  static void Launch(OpKernelContext* ctx, const Tensor& a, const Tensor& b,
                     bool transpose_a, bool transpose_b,
                     const internal::ConstantOperand& constant_b, Tensor* out);
};

// Checks that `a` and `b` are matrices whose inner dimensions agree, with
// TensorFlow's messages, and gives op(a) * op(b)'s shape.
inline Status MatMulOutputShape(const Tensor& a, const Tensor& b,
                                bool transpose_a, bool transpose_b,
                                TensorShape* out_shape) {
  if (!TensorShapeUtils::IsMatrix(a.shape())) {
    return errors::InvalidArgument(
        "In[0] is not a matrix. Instead it has shape ",
        a.shape().DebugString());
  }
  if (!TensorShapeUtils::IsMatrix(b.shape())) {
    return errors::InvalidArgument(
        "In[1] is not a matrix. Instead it has shape ",
        b.shape().DebugString());
  }
  const functor::MatMulDimPair dim_pair =
      functor::MakeMatMulDimPair(transpose_a, transpose_b);
  const int a_inner = dim_pair[0].first;
  const int b_inner = dim_pair[0].second;
  if (a.dim_size(a_inner) != b.dim_size(b_inner)) {
    return errors::InvalidArgument(
        "Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
        ", In[1]: ", b.shape().DebugString());
  }
  // BuildTensorShape: with an empty inner dimension the outer ones may be
  // huge, and their product overflow.
  return TensorShape::BuildTensorShape(
      {a.dim_size(1 - a_inner), b.dim_size(1 - b_inner)}, out_shape);
}

template <typename Device, typename T>
class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
    b_is_const_ = internal::OperandIsMarkedConst(ctx);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    TensorShape out_shape;
    OP_REQUIRES_OK(
        ctx, MatMulOutputShape(a, b, transpose_a_, transpose_b_, &out_shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    internal::ConstantOperand constant_b;
    if (b_is_const_) constant_b = {&b, &b_layouts_};
    LaunchMatMul<Device, T>::Launch(ctx, a, b, transpose_a_, transpose_b_,
                                    constant_b, out);
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
  bool b_is_const_ = false;
  internal::ConstantLayoutCache b_layouts_;
};

}  // namespace minflow
