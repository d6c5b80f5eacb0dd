// SparseToDense(sparse_indices, output_shape, sparse_values, default_value):
// a dense tensor of `default_value` with the listed elements set. Indices
// are always bounds-checked; with validate_indices they must also be
// strictly increasing in row-major order (sorted, no repeats), with
// TensorFlow's messages. Written over element bytes (and strings).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

// Shapes of the four inputs, as TensorFlow checks them.
Status CheckShapes(const Tensor& indices, const Tensor& output_shape,
                   const Tensor& values, const Tensor& default_value) {
  if (indices.dims() > 2) {
    return errors::InvalidArgument(
        "sparse_indices should be a scalar, vector, or matrix, got shape ",
        indices.shape().DebugString());
  }
  const int64_t num_elems = indices.dims() > 0 ? indices.dim_size(0) : 1;
  const int64_t num_dims = indices.dims() > 1 ? indices.dim_size(1) : 1;
  if (!TensorShapeUtils::IsVector(output_shape.shape())) {
    return errors::InvalidArgument("output_shape must be rank 1, got shape ",
                                   output_shape.shape().DebugString());
  }
  if (output_shape.NumElements() != num_dims) {
    return errors::InvalidArgument(
        "output_shape has incorrect number of elements: ",
        output_shape.NumElements(), " should be: ", num_dims);
  }
  if (values.dims() != 0 &&
      (values.dims() != 1 || values.NumElements() != num_elems)) {
    return errors::InvalidArgument("sparse_values has incorrect shape ",
                                   values.shape().DebugString(),
                                   ", should be [] or [", num_elems, "]");
  }
  if (!TensorShapeUtils::IsScalar(default_value.shape())) {
    return errors::InvalidArgument("default_value should be a scalar.");
  }
  return OkStatus();
}

template <typename Index>
class SparseToDenseOp : public OpKernel {
 public:
  explicit SparseToDenseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_indices", &validate_indices_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& output_shape = ctx->input(1);
    const Tensor& values = ctx->input(2);
    const Tensor& default_value = ctx->input(3);
    OP_REQUIRES_OK(ctx,
                   CheckShapes(indices, output_shape, values, default_value));
    const int64_t num_elems = indices.dims() > 0 ? indices.dim_size(0) : 1;
    const int num_dims = static_cast<int>(output_shape.NumElements());
    absl::InlinedVector<int64_t, 8> dims;
    for (int d = 0; d < num_dims; ++d) {
      dims.push_back(static_cast<int64_t>(output_shape.flat<Index>()(d)));
    }
    TensorShape dense_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(dims, &dense_shape));

    // Every index is checked, and its flat offset taken, before any write.
    const Index* ix = indices.base<const Index>();
    std::vector<int64_t> offsets(num_elems);
    for (int64_t n = 0; n < num_elems; ++n) {
      const Index* row = ix + n * num_dims;
      bool valid = true;
      bool different = n == 0;
      bool increasing = true;
      int64_t offset = 0;
      for (int d = 0; d < num_dims; ++d) {
        const int64_t v = static_cast<int64_t>(row[d]);
        if (v < 0 || v >= dims[d]) valid = false;
        offset = offset * dims[d] + v;
        if (n > 0) {
          const int64_t diff = v - static_cast<int64_t>(row[d - num_dims]);
          if (diff > 0) different = true;
          if (!different && diff < 0) increasing = false;
        }
      }
      if (!valid || (validate_indices_ && (!increasing || !different))) {
        std::string index = absl::StrCat("indices[", n, "] = [");
        for (int d = 0; d < num_dims; ++d) {
          absl::StrAppend(&index, static_cast<int64_t>(row[d]),
                          d < num_dims - 1 ? "," : "");
        }
        absl::StrAppend(&index, "]");
        OP_REQUIRES(ctx, valid,
                    errors::InvalidArgument(
                        index, " is out of bounds: need 0 <= index < [",
                        absl::StrJoin(dims, ","), "]"));
        OP_REQUIRES(ctx, increasing,
                    errors::InvalidArgument(
                        index,
                        " is out of order. Many sparse ops require sorted "
                        "indices.\n    Use `tf.sparse.reorder` to create a "
                        "correctly ordered copy.\n\n"));
        OP_REQUIRES(ctx, different,
                    errors::InvalidArgument(index, " is repeated"));
      }
      offsets[n] = offset;
    }

    Tensor* dense = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, dense_shape, &dense));
    const int64_t size = dense_shape.num_elements();
    const bool scalar_value = values.dims() == 0;
    const bool ok = VisitElementSize(values.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      E* out = dense->base<E>();
      const E fill = *default_value.base<const E>();
      for (int64_t i = 0; i < size; ++i) out[i] = fill;
      const E* v = values.base<const E>();
      // Later entries win over repeated ones (validate_indices = false).
      for (int64_t n = 0; n < num_elems; ++n) {
        out[offsets[n]] = v[scalar_value ? 0 : n];
      }
    });
    OP_REQUIRES(ctx, ok,
                errors::Unimplemented("SparseToDense of ",
                                      DataTypeString(values.dtype()),
                                      " is not supported"));
  }

 private:
  bool validate_indices_ = true;
};

#define REGISTER_CPU_INDEX(T, Index)                              \
  REGISTER_KERNEL_BUILDER(Name("SparseToDense")                   \
                              .Device(DEVICE_CPU)                 \
                              .TypeConstraint<T>("T")             \
                              .TypeConstraint<Index>("Tindices"), \
                          SparseToDenseOp<Index>);
#define REGISTER_CPU(T)          \
  REGISTER_CPU_INDEX(T, int32_t) \
  REGISTER_CPU_INDEX(T, int64_t)
TF_CALL_ALL_TYPES(REGISTER_CPU)
#undef REGISTER_CPU
#undef REGISTER_CPU_INDEX

}  // namespace
}  // namespace minflow
