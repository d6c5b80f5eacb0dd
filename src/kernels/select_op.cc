// Select (TensorFlow's v1 rules: a scalar or per-row vector condition, or
// every input the same shape) and SelectV2 (numpy broadcasting of all
// three inputs). Data movement only, so one instantiation per element size
// serves every dtype (see data_movement.h).
#define EIGEN_USE_THREADS

#include <array>
#include <cstdint>
#include <string>

#include "minflow/core/dtype_dispatch.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cpu_parallel_eval.h"
#include "src/kernels/cwise_ops_common.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

// Cost of choosing and moving one element of `bytes` bytes.
Eigen::TensorOpCost SelectCost(int bytes) {
  return Eigen::TensorOpCost(1 + 2 * bytes, bytes, 1);
}

class SelectOp : public OpKernel {
 public:
  explicit SelectOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& then = ctx->input(1);
    const Tensor& else_ = ctx->input(2);
    if (TensorShapeUtils::IsScalar(cond.shape())) {
      OP_REQUIRES(ctx, then.shape().IsSameSize(else_.shape()),
                  SameSizeError(then, else_));
      // Either input is the answer as it stands.
      ctx->set_output(0, cond.scalar<bool>()() ? then : else_);
      return;
    }
    const bool per_row = TensorShapeUtils::IsVector(cond.shape()) &&
                         !TensorShapeUtils::IsVector(then.shape());
    if (per_row) {
      OP_REQUIRES(ctx, TensorShapeUtils::IsVectorOrHigher(then.shape()),
                  errors::InvalidArgument(
                      "'then' must be at least a vector, but saw shape: ",
                      then.shape().DebugString()));
      OP_REQUIRES(
          ctx, then.dim_size(0) == cond.NumElements(),
          errors::InvalidArgument(
              "Number of batches of 'then' must match size of 'cond', but "
              "saw: ",
              then.dim_size(0), " vs. ", cond.NumElements()));
      OP_REQUIRES(ctx, then.shape().IsSameSize(else_.shape()),
                  SameSizeError(then, else_));
    } else {
      OP_REQUIRES_OK(ctx, ValidateSameShape(cond, then, else_));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {1, 2}, 0, then.shape(), &out));
    if (out->NumElements() == 0) return;
    const bool* c = cond.base<const bool>();
    const int64_t rows = cond.NumElements();
    // Elementwise is the per-row case with rows of one element.
    const int64_t row_size = per_row ? then.NumElements() / rows : 1;
    const CPUDevice& d = ctx->eigen_device<CPUDevice>();
    VisitElementSize(then.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      const E* t = then.base<const E>();
      const E* e = else_.base<const E>();
      E* o = out->base<E>();
      Eigen::TensorOpCost cost = SelectCost(sizeof(E));
      cost *= static_cast<double>(row_size);
      internal::CpuParallelFor(d, rows, cost, 1,
                               [&](Eigen::Index begin, Eigen::Index end) {
                                 for (int64_t r = begin; r < end; ++r) {
                                   const E* src = (c[r] ? t : e) + r * row_size;
                                   E* dst = o + r * row_size;
                                   if (src != dst)
                                     CopyElements(dst, src, row_size);
                                 }
                               });
    });
  }

 private:
  static Status SameSizeError(const Tensor& then, const Tensor& else_) {
    return errors::InvalidArgument(
        "'then' and 'else' must have the same size.  but received: ",
        then.shape().DebugString(), " vs. ", else_.shape().DebugString());
  }

  Status ValidateSameShape(const Tensor& cond, const Tensor& then,
                           const Tensor& else_) const {
    const Tensor* inputs[] = {&cond, &then, &else_};
    for (int i = 1; i < 3; ++i) {
      if (!cond.shape().IsSameSize(inputs[i]->shape())) {
        return errors::InvalidArgument(
            "Inputs to operation ", name(), " of type ", type_string(),
            " must have the same size and shape.  Input 0: ",
            cond.shape().DebugString(), " != input ", i, ": ",
            inputs[i]->shape().DebugString());
      }
    }
    return OkStatus();
  }
};

class SelectV2Op : public OpKernel {
 public:
  explicit SelectV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& then = ctx->input(1);
    const Tensor& else_ = ctx->input(2);
    const BCastList<3> bcast({cond.shape().dim_sizes(),
                              then.shape().dim_sizes(),
                              else_.shape().dim_sizes()});
    OP_REQUIRES(ctx, bcast.IsValid(),
                errors::InvalidArgument(
                    "condition ", cond.shape().DebugString(), ", then ",
                    then.shape().DebugString(), ", and else ",
                    else_.shape().DebugString(), " must be broadcastable"));
    TensorShape out_shape;
    OP_REQUIRES_OK(
        ctx, TensorShape::BuildTensorShape(bcast.output_shape(), &out_shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({1, 2}, 0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const std::array<internal::BCastVec, 3> strides = {
        BCastStrides(bcast.reshape(0)), BCastStrides(bcast.reshape(1)),
        BCastStrides(bcast.reshape(2))};
    const int64_t sc = strides[0].back();
    const int64_t st = strides[1].back();
    const int64_t se = strides[2].back();
    const bool* c = cond.base<const bool>();
    const CPUDevice& d = ctx->eigen_device<CPUDevice>();
    VisitElementSize(then.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      const E* t = then.base<const E>();
      const E* e = else_.base<const E>();
      E* o = out->base<E>();
      // See Note [CPU broadcast loops]. A forwarded input has the output's
      // shape, so each element is read before it is overwritten.
      internal::CpuParallelFor(
          d, out->NumElements(), SelectCost(sizeof(E)), 1,
          [&](Eigen::Index begin, Eigen::Index end) {
            ForEachBroadcastRun<3>(
                bcast.result_shape(), strides, begin, end,
                [&](int64_t oi, const std::array<int64_t, 3>& in, int64_t n) {
                  const bool* pc = c + in[0];
                  const E* pt = t + in[1];
                  const E* pe = e + in[2];
                  E* po = o + oi;
                  for (int64_t k = 0; k < n; ++k) {
                    po[k] = pc[k * sc] ? pt[k * st] : pe[k * se];
                  }
                });
          });
    });
  }
};

#define REGISTER_CPU(T)                                                    \
  REGISTER_KERNEL_BUILDER(                                                 \
      Name("Select").Device(DEVICE_CPU).TypeConstraint<T>("T"), SelectOp); \
  REGISTER_KERNEL_BUILDER(                                                 \
      Name("SelectV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), SelectV2Op);
TF_CALL_ALL_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
