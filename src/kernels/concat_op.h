// ConcatV2 and Pack over any device: the checks and the output shape are
// here; both reduce to a 2-D concat of rows, which `Joiner::Join(ctx,
// values, outer, output)` does on the device (every input viewed as
// [outer, inner_i], written one after another into each row of `output`).
// concat_op.cc joins on the CPU, concat_op_gpu.cc with strided copies on the
// GPU's stream.
#pragma once

#include <cstdint>
#include <limits>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "minflow/framework/op_kernel.h"

namespace minflow {

// ConcatV2(values: N * T, axis: Tidx): axis in [-rank, rank).
template <typename Joiner>
class ConcatV2Op : public OpKernel {
 public:
  explicit ConcatV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& axis_tensor = ctx->input(ctx->num_inputs() - 1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(axis_tensor.shape()),
                errors::InvalidArgument(
                    "axis tensor should be a scalar integer, but got shape ",
                    axis_tensor.shape().DebugString()));
    const int64_t concat_dim =
        axis_tensor.dtype() == DT_INT32
            ? static_cast<int64_t>(*axis_tensor.base<const int32_t>())
            : *axis_tensor.base<const int64_t>();

    OpInputList values;
    OP_REQUIRES_OK(ctx, ctx->input_list("values", &values));
    const int n = values.size();
    const TensorShape& input_shape = values[0].shape();
    const int input_dims = input_shape.dims();
    const int64_t axis = concat_dim < 0 ? concat_dim + input_dims : concat_dim;
    OP_REQUIRES(ctx, 0 <= axis && axis < input_dims,
                errors::InvalidArgument(
                    "ConcatOp : Expected concatenating dimensions in the range "
                    "[",
                    -input_dims, ", ", input_dims, "), but got ", concat_dim));

    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= input_shape.dim_size(d);
    int64_t output_concat_dim = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& in = values[i];
      OP_REQUIRES(
          ctx, in.dims() == input_dims,
          errors::InvalidArgument(
              "ConcatOp : Ranks of all input tensors should match: shape[0] = ",
              input_shape.DebugString(), " vs. shape[", i,
              "] = ", in.shape().DebugString()));
      for (int j = 0; j < input_dims; ++j) {
        if (j == axis) continue;
        OP_REQUIRES(
            ctx, in.dim_size(j) == input_shape.dim_size(j),
            errors::InvalidArgument("ConcatOp : Dimension ", j,
                                    " in both shapes must be equal: "
                                    "shape[0] = ",
                                    input_shape.DebugString(), " vs. shape[", i,
                                    "] = ", in.shape().DebugString()));
      }
      const int64_t d = in.dim_size(axis);
      OP_REQUIRES(
          ctx, output_concat_dim <= std::numeric_limits<int64_t>::max() - d,
          errors::InvalidArgument("ConcatOp : the concatenated dimension ",
                                  axis, " overflows int64"));
      output_concat_dim += d;
    }
    TensorShape output_shape(input_shape);
    OP_REQUIRES_OK(ctx, output_shape.SetDimWithStatus(static_cast<int>(axis),
                                                      output_concat_dim));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, output_shape, &output));
    Joiner::Join(ctx, values, outer, output);
  }
};

// Pack(values: N * T; axis): stacks N equal shapes along a new dimension
// `axis` in [-(rank+1), rank+1).
template <typename Joiner>
class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    OpInputList values;
    OP_REQUIRES_OK(ctx, ctx->input_list("values", &values));
    const int num = values.size();
    for (int i = 1; i < num; ++i) {
      OP_REQUIRES(ctx, values[0].shape().IsSameSize(values[i].shape()),
                  errors::InvalidArgument(
                      "Shapes of all inputs must match: values[0].shape = ",
                      values[0].shape().DebugString(), " != values[", i,
                      "].shape = ", values[i].shape().DebugString()));
    }
    const int expanded_num_dims = values[0].dims() + 1;
    int64_t axis = axis_ < 0 ? axis_ + expanded_num_dims : axis_;
    OP_REQUIRES(ctx, 0 <= axis && axis < expanded_num_dims,
                errors::InvalidArgument("axis = ", axis_, " not in [",
                                        -expanded_num_dims, ", ",
                                        expanded_num_dims, ")"));
    absl::InlinedVector<int64_t, 8> dims(values[0].shape().dim_sizes().begin(),
                                         values[0].shape().dim_sizes().end());
    dims.insert(dims.begin() + axis, num);
    TensorShape output_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(dims, &output_shape));

    if (num == 1) {
      Tensor output;
      OP_REQUIRES(ctx, output.CopyFrom(values[0], output_shape),
                  errors::Internal("Pack: reshape failed"));
      ctx->set_output(0, std::move(output));
      return;
    }
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, output_shape, &output));
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= output_shape.dim_size(d);
    Joiner::Join(ctx, values, outer, output);
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace minflow
