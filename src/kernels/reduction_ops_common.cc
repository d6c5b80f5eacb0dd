#include "src/kernels/reduction_ops_common.h"

#include "minflow/framework/op_kernel.h"
#include "src/kernels/transpose_functor.h"

namespace minflow {
namespace {

template <typename Tidx>
Status MarkAxes(const Tensor& axis, int rank,
                absl::InlinedVector<bool, 8>* bitmap) {
  const Tidx* v = axis.base<const Tidx>();
  for (int64_t i = 0; i < axis.NumElements(); ++i) {
    const int64_t index = static_cast<int64_t>(v[i]);
    if (index < -rank || index >= rank) {
      return errors::InvalidArgument("Invalid reduction dimension (", index,
                                     " for input with ", rank, " dimension(s)");
    }
    const int64_t d = index < 0 ? index + rank : index;
    if ((*bitmap)[d]) {
      return errors::InvalidArgument(
          "Invalid reduction arguments: Axes contains duplicate dimension: ",
          d);
    }
    (*bitmap)[d] = true;
  }
  return OkStatus();
}

}  // namespace

Status ReductionHelper::Simplify(const Tensor& data, const Tensor& axis,
                                 bool keep_dims) {
  const int rank = data.dims();
  absl::InlinedVector<bool, 8> bitmap(rank, false);
  if (axis.dtype() == DT_INT32) {
    MF_RETURN_IF_ERROR(MarkAxes<int32_t>(axis, rank, &bitmap));
  } else if (axis.dtype() == DT_INT64) {
    MF_RETURN_IF_ERROR(MarkAxes<int64_t>(axis, rank, &bitmap));
  } else {
    return errors::InvalidArgument(
        "reduction indices must be int32 or int64, but got ",
        DataTypeString(axis.dtype()));
  }

  out_shape_.clear();
  for (int i = 0; i < rank; ++i) {
    if (!bitmap[i]) {
      out_shape_.push_back(data.dim_size(i));
    } else if (keep_dims) {
      out_shape_.push_back(1);
    }
  }

  // Leading size-1 dims change nothing; a size-1 dim joins the run before
  // it, so [2,1,3,1,5] reduced over {1,4} is [6,5] reduced over {1}.
  data_reshape_.clear();
  out_reshape_.clear();
  int d = 0;
  while (d < rank && data.dim_size(d) == 1) ++d;
  if (d == rank) {
    reduce_first_axis_ = true;  // In effect a scalar: nothing to reduce.
    return OkStatus();
  }
  reduce_first_axis_ = bitmap[d];
  data_reshape_.push_back(data.dim_size(d));
  for (++d; d < rank; ++d) {
    const int64_t size = data.dim_size(d);
    if (size == 1) bitmap[d] = bitmap[d - 1];
    if (bitmap[d - 1] != bitmap[d]) {
      data_reshape_.push_back(size);
    } else {
      data_reshape_.back() *= size;
    }
  }
  for (size_t i = reduce_first_axis_ ? 1 : 0; i < data_reshape_.size();
       i += 2) {
    out_reshape_.push_back(data_reshape_[i]);
  }
  return OkStatus();
}

TensorShape ReductionHelper::out_shape() const {
  return TensorShape(absl::Span<const int64_t>(out_shape_));
}

TensorShape ReductionHelper::out_reshape() const {
  return TensorShape(absl::Span<const int64_t>(out_reshape_));
}

TensorShape ReductionHelper::shuffled_shape() const {
  const int dims = ndims();
  TensorShape shape;
  for (int i = reduce_first_axis_ ? 1 : 0; i < dims; i += 2) {
    shape.AddDim(data_reshape_[i]);
  }
  for (int i = reduce_first_axis_ ? 0 : 1; i < dims; i += 2) {
    shape.AddDim(data_reshape_[i]);
  }
  return shape;
}

absl::InlinedVector<int32_t, 8> ReductionHelper::permutation() const {
  const int dims = ndims();
  const int first = reduce_first_axis_ ? 1 : 0;
  const int unreduced_dims = (dims + 1 - first) / 2;
  absl::InlinedVector<int32_t, 8> perm(dims);
  for (int i = 0; i < unreduced_dims; ++i) perm[i] = 2 * i + first;
  for (int i = unreduced_dims; i < dims; ++i) {
    perm[i] = 2 * (i - unreduced_dims) + (1 - first);
  }
  return perm;
}

Status StartReduction(OpKernelContext* ctx, bool keep_dims,
                      ReductionHelper* helper, Tensor** out) {
  *out = nullptr;
  const Tensor& data = ctx->input(0);
  MF_RETURN_IF_ERROR(helper->Simplify(data, ctx->input(1), keep_dims));
  const int ndims = helper->ndims();
  if (ndims == 0 || (ndims == 1 && !helper->reduce_first_axis())) {
    // Nothing is reduced: the input is the answer, reshaped.
    Tensor reshaped;
    if (!reshaped.CopyFrom(data, helper->out_shape())) {
      return errors::Internal("Error during reduction copy.");
    }
    ctx->set_output(0, reshaped);
    return OkStatus();
  }
  return ctx->allocate_output(0, helper->out_shape(), out);
}

namespace reduction {

Status PrepareReductionInput(OpKernelContext* ctx,
                             const ReductionHelper& helper, const Tensor& data,
                             int64_t out_size, Plan* plan, const Tensor** src,
                             Tensor* scratch) {
  *src = &data;
  if (helper.ndims() <= 3) {
    plan->dims.assign(helper.data_reshape().begin(),
                      helper.data_reshape().end());
    plan->reduce_first = helper.reduce_first_axis();
    return OkStatus();
  }
  // Move every reduced run last, then reduce the inner dim of a matrix.
  Tensor reshaped;
  if (!reshaped.CopyFrom(data, TensorShape(helper.data_reshape()))) {
    return errors::Internal("Error during reduction copy.");
  }
  MF_RETURN_IF_ERROR(
      ctx->allocate_temp(data.dtype(), helper.shuffled_shape(), scratch));
  MF_RETURN_IF_ERROR(DoTranspose(ctx->device()->tensorflow_cpu_worker_threads(),
                                 reshaped, helper.permutation(), scratch));
  *src = scratch;
  plan->dims = {out_size, data.NumElements() / out_size};
  plan->reduce_first = false;
  return OkStatus();
}

Status BeginCpuReduction(OpKernelContext* ctx, bool keep_dims,
                         CpuReduction* r) {
  ReductionHelper helper;
  MF_RETURN_IF_ERROR(StartReduction(ctx, keep_dims, &helper, &r->out));
  if (r->out == nullptr) return OkStatus();
  r->out_size = r->out->NumElements();
  const Tensor& data = ctx->input(0);
  r->empty_input = data.NumElements() == 0;
  if (r->out_size == 0 || r->empty_input) return OkStatus();
  return PrepareReductionInput(ctx, helper, data, r->out_size, &r->plan,
                               &r->src, &r->scratch);
}

}  // namespace reduction
}  // namespace minflow
