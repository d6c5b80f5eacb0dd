// ScatterNd(indices, updates, shape): a zero tensor of `shape` with each
// update slice added at the slice its index tuple addresses (duplicates
// sum). TensorScatterUpdate / TensorScatterAdd(tensor, indices, updates): a
// copy of `tensor` (its own buffer when it may be forwarded) with the
// slices replaced (the last duplicate wins) or added to.
#include <cstdint>
#include <string>
#include <vector>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cwise_op_functor.h"
#include "src/kernels/data_movement.h"
#include "src/kernels/scatter_nd_common.h"

namespace minflow {
namespace {

enum class ScatterMode { kUpdate, kAdd };

// The ScatterNd kernel's shape checks, then (unless bad tuples are to be
// skipped) that every tuple is inside `shape`.
template <typename Index>
StatusOr<SliceIndexer> PrepareScatter(BadIndicesPolicy policy,
                                      const TensorShape& shape,
                                      const Tensor& indices,
                                      const Tensor& updates, int64_t* num) {
  int depth = 0;
  int64_t slice_size = 0;
  MF_RETURN_IF_ERROR(ValidateScatterNdShapes(
      shape, indices.shape(), updates.shape(), &depth, num, &slice_size));
  SliceIndexer indexer(shape, depth);
  if (policy == BadIndicesPolicy::kError) {
    const Index* index_data = indices.base<const Index>();
    const int64_t bad = indexer.FindBadTuple(index_data, *num);
    if (bad >= 0) {
      return errors::InvalidArgument(
          "indices[", bad, "] = [", IndexTupleString(index_data, bad, depth),
          "] does not index into shape ", shape.DebugString());
    }
  }
  return indexer;
}

// out[slice of tuple i] (=|+=) updates[i * slice_size, + slice_size), for
// the `num` tuples; ones outside the shape (IGNORE) are skipped. Serial, so
// duplicates resolve in index order.
template <typename T, typename Index, ScatterMode mode>
void ApplyUpdates(const SliceIndexer& indexer, const Index* indices,
                  int64_t num, const T* updates, T* out) {
  const int64_t slice_size = indexer.slice_size();
  for (int64_t i = 0; i < num; ++i) {
    const int64_t offset = indexer.Offset(indices + i * indexer.depth());
    if (offset < 0) continue;
    const T* src = updates + i * slice_size;
    T* dst = out + offset;
    if constexpr (mode == ScatterMode::kAdd &&
                  functor::internal::IsInt<T>::value) {
      // Integer sums wrap; see Note [Integer overflow in kernels].
      for (int64_t j = 0; j < slice_size; ++j) {
        dst[j] = functor::internal::WrapAdd(dst[j], src[j]);
      }
    } else if constexpr (mode == ScatterMode::kAdd) {
      for (int64_t j = 0; j < slice_size; ++j) dst[j] += src[j];
    } else {
      CopyElements(dst, src, slice_size);
    }
  }
}

template <typename T, typename Index>
class ScatterNdOp : public OpKernel {
 public:
  explicit ScatterNdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string policy;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("bad_indices_policy", &policy));
    OP_REQUIRES_OK(ctx, ParseBadIndicesPolicy(policy, &policy_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& updates = ctx->input(1);
    const Tensor& shape_t = ctx->input(2);
    OP_REQUIRES(ctx, indices.dims() >= 1,
                errors::InvalidArgument(
                    "Indices shape must have rank at least one. Found:",
                    indices.shape().DebugString()));
    OP_REQUIRES(ctx, updates.dims() >= 1,
                errors::InvalidArgument(
                    "Updates shape must have rank at least one. Found:",
                    updates.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsVector(shape_t.shape()),
                errors::InvalidArgument("Shape must be a 1-D tensor. Got: ",
                                        shape_t.shape().DebugString()));
    std::vector<int64_t> dims(shape_t.NumElements());
    for (int64_t i = 0; i < shape_t.NumElements(); ++i) {
      dims[i] = static_cast<int64_t>(shape_t.base<const Index>()[i]);
    }
    TensorShape shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(dims, &shape));
    int64_t num = 0;
    OP_REQUIRES_VALUE(
        const SliceIndexer indexer, ctx,
        PrepareScatter<Index>(policy_, shape, indices, updates, &num));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    T* out_data = out->base<T>();
    for (int64_t i = 0; i < shape.num_elements(); ++i) out_data[i] = T(0);
    ApplyUpdates<T, Index, ScatterMode::kAdd>(
        indexer, indices.base<const Index>(), num, updates.base<const T>(),
        out_data);
  }

 private:
  BadIndicesPolicy policy_ = BadIndicesPolicy::kError;
};

// T is the value type for kAdd; kUpdate moves elements by size (void T, one
// kernel class for every dtype).
template <typename T, typename Index, ScatterMode mode>
class TensorScatterOp : public OpKernel {
 public:
  explicit TensorScatterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string policy;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("bad_indices_policy", &policy));
    OP_REQUIRES_OK(ctx, ParseBadIndicesPolicy(policy, &policy_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    OP_REQUIRES(ctx, indices.dims() >= 1,
                errors::InvalidArgument(
                    "Indices shape must have rank at least one. Found:",
                    indices.shape().DebugString()));
    OP_REQUIRES(ctx, updates.dims() >= 1,
                errors::InvalidArgument(
                    "Updates shape must have rank at least one. Found:",
                    updates.shape().DebugString()));
    const TensorShape& shape = input.shape();
    OP_REQUIRES(ctx,
                shape.num_elements() > 0 ||
                    (indices.NumElements() == 0 && updates.NumElements() == 0),
                errors::InvalidArgument(
                    "Indices and updates specified for empty output shape"));
    // TF checks the tensor-op rule (indices.shape[-1] is the depth) before
    // the ScatterNd kernel's.
    const int outer_dims = indices.dims() - 1;
    for (int i = 0; i < outer_dims; ++i) {
      OP_REQUIRES(
          ctx, indices.dim_size(i) == updates.dim_size(i),
          errors::InvalidArgument(
              "Dimensions [0,", outer_dims,
              ") of indices[shape=", indices.shape().DebugString(),
              "] must match dimensions [0,", outer_dims,
              ") of updates[shape=", updates.shape().DebugString(), "]"));
    }
    const int64_t ix = indices.dim_size(outer_dims);
    bool suffix_ok = updates.dims() - outer_dims == shape.dims() - ix;
    for (int i = 0; suffix_ok && i + outer_dims < updates.dims(); ++i) {
      suffix_ok = updates.dim_size(i + outer_dims) ==
                  shape.dim_size(static_cast<int>(ix) + i);
    }
    OP_REQUIRES(ctx, suffix_ok,
                errors::InvalidArgument(
                    "Dimensions [", ix, ",", shape.dims(), ") of input[shape=",
                    shape.DebugString(), "] must match dimensions [",
                    outer_dims, ",", updates.dims(),
                    ") of updates[shape=", updates.shape().DebugString(), "]"));
    int64_t num = 0;
    OP_REQUIRES_VALUE(
        const SliceIndexer indexer, ctx,
        PrepareScatter<Index>(policy_, shape, indices, updates, &num));
    Tensor* out = nullptr;
    int forwarded = -1;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, shape, &out, &forwarded));
    const auto apply = [&](auto tag) {
      using E = typename decltype(tag)::type;
      if (forwarded < 0) {
        CopyElements(out->base<E>(), input.base<const E>(),
                     input.NumElements());
      }
      ApplyUpdates<E, Index, mode>(indexer, indices.base<const Index>(), num,
                                   updates.base<const E>(), out->base<E>());
    };
    if constexpr (mode == ScatterMode::kAdd) {
      apply(TypeTag<T>{});
    } else {
      OP_REQUIRES(ctx, VisitElementSize(input.dtype(), apply),
                  errors::Unimplemented(type_string_view(), " of ",
                                        DataTypeString(input.dtype()),
                                        " is not supported"));
    }
  }

 private:
  BadIndicesPolicy policy_ = BadIndicesPolicy::kError;
};

#define REGISTER_SCATTER_ND(T, Index)                             \
  REGISTER_KERNEL_BUILDER(Name("ScatterNd")                       \
                              .Device(DEVICE_CPU)                 \
                              .TypeConstraint<T>("T")             \
                              .TypeConstraint<Index>("Tindices"), \
                          ScatterNdOp<T, Index>);
#define REGISTER_CPU(T)           \
  REGISTER_SCATTER_ND(T, int32_t) \
  REGISTER_SCATTER_ND(T, int64_t)
TF_CALL_NUMBER_TYPES(REGISTER_CPU)
#undef REGISTER_CPU
#undef REGISTER_SCATTER_ND

#define REGISTER_TENSOR_SCATTER(op, mode, T, Impl, Index)         \
  REGISTER_KERNEL_BUILDER(Name(op)                                \
                              .Device(DEVICE_CPU)                 \
                              .TypeConstraint<T>("T")             \
                              .TypeConstraint<Index>("Tindices"), \
                          TensorScatterOp<Impl, Index, mode>);
#define REGISTER_UPDATE(T)                                                \
  REGISTER_TENSOR_SCATTER("TensorScatterUpdate", ScatterMode::kUpdate, T, \
                          void, int32_t)                                  \
  REGISTER_TENSOR_SCATTER("TensorScatterUpdate", ScatterMode::kUpdate, T, \
                          void, int64_t)
#define REGISTER_ADD(T)                                                \
  REGISTER_TENSOR_SCATTER("TensorScatterAdd", ScatterMode::kAdd, T, T, \
                          int32_t)                                     \
  REGISTER_TENSOR_SCATTER("TensorScatterAdd", ScatterMode::kAdd, T, T, int64_t)
TF_CALL_ALL_TYPES(REGISTER_UPDATE)
TF_CALL_NUMBER_TYPES(REGISTER_ADD)
#undef REGISTER_ADD
#undef REGISTER_UPDATE
#undef REGISTER_TENSOR_SCATTER

}  // namespace
}  // namespace minflow
