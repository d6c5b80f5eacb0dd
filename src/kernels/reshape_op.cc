// Reshape, ExpandDims, Squeeze: the output is the input's buffer under a new
// shape; nothing is copied.
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "minflow/framework/op_kernel.h"

namespace minflow {
namespace {

// Sets output 0 to `input`'s buffer under `shape` (same element count).
void SetReshapedOutput(OpKernelContext* ctx, const Tensor& input,
                       const TensorShape& shape) {
  Tensor output;
  OP_REQUIRES(
      ctx, output.CopyFrom(input, shape),
      errors::Internal("Could not reshape ", input.shape().DebugString(),
                       " to ", shape.DebugString()));
  ctx->set_output(0, std::move(output));
}

// Reshape(tensor, shape): `shape` may hold one -1, inferred from the
// element count. Tshape: int32 or int64.
class ReshapeOp : public OpKernel {
 public:
  explicit ReshapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& sizes = ctx->input(1);
    // TF still accepts a scalar for a rank-1 shape (legacy).
    OP_REQUIRES(ctx,
                TensorShapeUtils::IsVector(sizes.shape()) ||
                    TensorShapeUtils::IsScalar(sizes.shape()),
                errors::InvalidArgument("sizes input must be 1-D, not ",
                                        sizes.shape().DebugString()));
    std::vector<int64_t> dims(sizes.NumElements());
    for (int64_t d = 0; d < sizes.NumElements(); ++d) {
      dims[d] = sizes.dtype() == DT_INT32
                    ? static_cast<int64_t>(sizes.base<const int32_t>()[d])
                    : sizes.base<const int64_t>()[d];
    }
    OP_REQUIRES(ctx, dims.size() <= static_cast<size_t>(kMaxTensorRank),
                errors::InvalidArgument("Reshape: shape has too many "
                                        "dimensions: ",
                                        dims.size(), " > ", kMaxTensorRank));

    // `product` is the product of the known non-zero sizes: zeros are left
    // out so that a -1 can still be inferred next to them. TF's overflow
    // rule is that of the shape itself (a zero before a huge size hides
    // it), so `running` follows that and `product` saturates.
    int64_t product = 1;
    bool product_saturated = false;
    int64_t running = 1;
    int unknown_index = -1;
    bool sizes_has_zero_dim = false;
    for (int d = 0; d < static_cast<int>(dims.size()); ++d) {
      const int64_t size = dims[d];
      if (size == -1) {
        OP_REQUIRES(
            ctx, unknown_index == -1,
            errors::InvalidArgument("Only one input size may be -1, not both ",
                                    unknown_index, " and ", d));
        unknown_index = d;
      } else if (size < 0) {
        OP_REQUIRES(ctx, false,
                    errors::InvalidArgument(
                        "Size ", d, " must be non-negative, not ", size));
      } else if (size == 0) {
        sizes_has_zero_dim = true;
        running = 0;
      } else {
        OP_REQUIRES(
            ctx, running <= std::numeric_limits<int64_t>::max() / size,
            errors::InvalidArgument("Shape [", absl::StrJoin(dims, ", "),
                                    "] has too many elements"));
        running *= size;
        if (product > std::numeric_limits<int64_t>::max() / size) {
          product_saturated = true;
        } else {
          product *= size;
        }
      }
    }

    if (unknown_index != -1) {
      // With a zero in `sizes`, the input's zero dims are left out too, so
      // the other dims can still be inferred (TF's rule). The product of
      // the rest cannot overflow: without zeros it is the element count,
      // and with zeros it is checked.
      int64_t input_num_elements = 1;
      bool input_has_zero_dim = false;
      for (int d = 0; d < input.dims(); ++d) {
        const int64_t s = input.dim_size(d);
        if (s > 0 || !sizes_has_zero_dim) {
          OP_REQUIRES(
              ctx,
              s == 0 ||
                  input_num_elements <= std::numeric_limits<int64_t>::max() / s,
              errors::InvalidArgument("Reshape cannot infer the missing input "
                                      "size for an input of shape ",
                                      input.shape().DebugString()));
          input_num_elements *= s;
        } else {
          input_has_zero_dim = true;
        }
      }
      // A saturated product exceeds any element count: nothing is missing,
      // and the element-count check below reports the mismatch.
      const int64_t missing =
          product_saturated ? 0 : input_num_elements / product;
      if (!input_has_zero_dim && !product_saturated) {
        OP_REQUIRES(
            ctx, product * missing == input_num_elements,
            errors::InvalidArgument(
                "Input to reshape is a tensor with ", input_num_elements,
                " values, but the requested shape requires a multiple of ",
                product));
      }
      dims[unknown_index] = missing;
    }
    TensorShape shape;
    OP_REQUIRES(ctx, TensorShape::BuildTensorShape(dims, &shape).ok(),
                errors::InvalidArgument("Shape [", absl::StrJoin(dims, ", "),
                                        "] has too many elements"));
    OP_REQUIRES(ctx, shape.num_elements() == input.NumElements(),
                errors::InvalidArgument("Input to reshape is a tensor with ",
                                        input.NumElements(),
                                        " values, but the requested shape has ",
                                        shape.num_elements()));
    SetReshapedOutput(ctx, input, shape);
  }

  bool IsExpensive() override { return false; }
};

// ExpandDims(input, dim): inserts a dimension of size 1 at `dim`, which may
// be negative (-1 appends). Tdim: int32 or int64.
class ExpandDimsOp : public OpKernel {
 public:
  explicit ExpandDimsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& dim_t = ctx->input(1);
    OP_REQUIRES(
        ctx, dim_t.NumElements() == 1,
        errors::InvalidArgument("'dim' must be a tensor with a single value"));
    int64_t dim = dim_t.dtype() == DT_INT32
                      ? static_cast<int64_t>(dim_t.base<const int32_t>()[0])
                      : dim_t.base<const int64_t>()[0];
    const int input_dims = input.dims();
    OP_REQUIRES(ctx, dim >= -1 - input_dims && dim <= input_dims,
                errors::InvalidArgument("Tried to expand dim index ", dim,
                                        " for tensor with ", input_dims,
                                        " dimensions."));
    // numpy's rule: -1 appends, -input_dims-1 prepends.
    if (dim < 0) dim += input_dims + 1;
    absl::InlinedVector<int64_t, 8> dims(input.shape().dim_sizes().begin(),
                                         input.shape().dim_sizes().end());
    dims.insert(dims.begin() + dim, 1);
    TensorShape shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(dims, &shape));
    SetReshapedOutput(ctx, input, shape);
  }

  bool IsExpensive() override { return false; }
};

// Squeeze(input; squeeze_dims): removes the listed size-1 dimensions, or
// every size-1 dimension when the list is empty.
class SqueezeOp : public OpKernel {
 public:
  explicit SqueezeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::vector<int32_t> squeeze_dims;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("squeeze_dims", &squeeze_dims));
    squeeze_dims_.insert(squeeze_dims.begin(), squeeze_dims.end());
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int rank = input.dims();
    absl::flat_hash_set<int> wrapped;
    for (int32_t dim : squeeze_dims_) {
      OP_REQUIRES(
          ctx, dim >= -rank && dim < rank,
          errors::InvalidArgument("Tried to squeeze dim index ", dim,
                                  " for tensor with ", rank, " dimensions."));
      wrapped.insert(dim < 0 ? dim + rank : dim);
    }
    absl::InlinedVector<int64_t, 8> dims;
    for (int i = 0; i < rank; ++i) {
      const int64_t existing = input.dim_size(i);
      if (!wrapped.empty()) {
        if (wrapped.contains(i)) {
          OP_REQUIRES(ctx, existing == 1,
                      errors::InvalidArgument(
                          "Can not squeeze dim[", i,
                          "], expected a dimension of 1, got ", existing));
        } else {
          dims.push_back(existing);
        }
      } else if (existing != 1) {
        dims.push_back(existing);
      }
    }
    TensorShape shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(dims, &shape));
    SetReshapedOutput(ctx, input, shape);
  }

  bool IsExpensive() override { return false; }

 private:
  absl::flat_hash_set<int32_t> squeeze_dims_;
};

// No T constraint: these only relabel the buffer, so every type works.
REGISTER_KERNEL_BUILDER(Name("Reshape")
                            .Device(DEVICE_CPU)
                            .HostMemory("shape")
                            .TypeConstraint<int32_t>("Tshape"),
                        ReshapeOp);
REGISTER_KERNEL_BUILDER(Name("Reshape")
                            .Device(DEVICE_CPU)
                            .HostMemory("shape")
                            .TypeConstraint<int64_t>("Tshape"),
                        ReshapeOp);
REGISTER_KERNEL_BUILDER(Name("ExpandDims")
                            .Device(DEVICE_CPU)
                            .HostMemory("dim")
                            .TypeConstraint<int32_t>("Tdim"),
                        ExpandDimsOp);
REGISTER_KERNEL_BUILDER(Name("ExpandDims")
                            .Device(DEVICE_CPU)
                            .HostMemory("dim")
                            .TypeConstraint<int64_t>("Tdim"),
                        ExpandDimsOp);
REGISTER_KERNEL_BUILDER(Name("Squeeze").Device(DEVICE_CPU), SqueezeOp);

// The same kernels serve the GPU: they only relabel the input's buffer and
// read their shape argument from host memory; no CUDA is needed.
REGISTER_KERNEL_BUILDER(Name("Reshape")
                            .Device(DEVICE_GPU)
                            .HostMemory("shape")
                            .TypeConstraint<int32_t>("Tshape"),
                        ReshapeOp);
REGISTER_KERNEL_BUILDER(Name("Reshape")
                            .Device(DEVICE_GPU)
                            .HostMemory("shape")
                            .TypeConstraint<int64_t>("Tshape"),
                        ReshapeOp);
REGISTER_KERNEL_BUILDER(Name("ExpandDims")
                            .Device(DEVICE_GPU)
                            .HostMemory("dim")
                            .TypeConstraint<int32_t>("Tdim"),
                        ExpandDimsOp);
REGISTER_KERNEL_BUILDER(Name("ExpandDims")
                            .Device(DEVICE_GPU)
                            .HostMemory("dim")
                            .TypeConstraint<int64_t>("Tdim"),
                        ExpandDimsOp);
REGISTER_KERNEL_BUILDER(Name("Squeeze").Device(DEVICE_GPU), SqueezeOp);

}  // namespace
}  // namespace minflow
