#include "src/kernels/conv_grad_common.h"

#include <cstdint>

namespace minflow {

Status ShapeFromSizesTensor(const char* label, const char* what,
                            const Tensor& sizes, TensorShape* shape) {
  if (sizes.dtype() != DT_INT32 || !TensorShapeUtils::IsVector(sizes.shape()) ||
      sizes.NumElements() != 4) {
    return errors::InvalidArgument(label, ": ", what,
                                   " must be an int32 vector of 4 values, but "
                                   "got shape ",
                                   sizes.shape().DebugString());
  }
  const int32_t* v = sizes.base<const int32_t>();
  for (int i = 0; i < 4; ++i) {
    if (v[i] < 0) {
      return errors::InvalidArgument(label, ": ", what,
                                     " must be non-negative, but got [", v[0],
                                     ",", v[1], ",", v[2], ",", v[3], "]");
    }
  }
  return TensorShape::BuildTensorShape({v[0], v[1], v[2], v[3]}, shape);
}

Status ComputeConvBackpropDimensions(const char* label, ConvKind kind,
                                     const Conv2DParameters& params,
                                     const TensorShape& input,
                                     const TensorShape& filter,
                                     const TensorShape& out_backprop,
                                     Conv2DDimensions* d) {
  if (input.dims() != 4) {
    return errors::InvalidArgument(label, ": input must be 4-dimensional");
  }
  if (filter.dims() != 4) {
    return errors::InvalidArgument(label, ": filter must be 4-dimensional");
  }
  if (out_backprop.dims() != 4) {
    return errors::InvalidArgument(label,
                                   ": out_backprop must be 4-dimensional");
  }
  if (input.dim_size(0) != out_backprop.dim_size(0)) {
    return errors::InvalidArgument(
        label, ": input and out_backprop must have the same batch size.",
        " Input batch: ", input.dim_size(0),
        ", outbackprop batch: ", out_backprop.dim_size(0), ", batch_dim: ", 0);
  }
  if (kind == ConvKind::kConv2D) {
    if (filter.dim_size(2) <= 0) {
      return errors::InvalidArgument(
          label, ": filter depth must be strictly greated than zero");
    }
    if (input.dim_size(3) % filter.dim_size(2) != 0) {
      return errors::InvalidArgument(
          label, ": input depth must be evenly divisible by filter depth");
    }
    if (filter.dim_size(3) != out_backprop.dim_size(3)) {
      return errors::InvalidArgument(
          label, ": filter and out_backprop must have the same out_depth");
    }
    MF_RETURN_IF_ERROR(ComputeConv2DDimension(params, input, filter, d));
  } else {
    MF_RETURN_IF_ERROR(
        ComputeDepthwiseConv2DDimension(params, input, filter, d));
    if (d->out_depth != out_backprop.dim_size(3)) {
      return errors::InvalidArgument(
          label, ": out_backprop depth must be in_depth * depth_multiplier (",
          d->out_depth, "), but got ", out_backprop.dim_size(3));
    }
  }
  const int64_t computed[2] = {d->out_rows, d->out_cols};
  const int64_t inputs[2] = {d->input_rows, d->input_cols};
  const int64_t filters[2] = {d->filter_rows, d->filter_cols};
  const int64_t strides[2] = {d->stride_rows, d->stride_cols};
  const int64_t dilations[2] = {d->dilation_rows, d->dilation_cols};
  for (int i = 0; i < 2; ++i) {
    const int64_t actual = out_backprop.dim_size(1 + i);
    if (actual != computed[i]) {
      return errors::InvalidArgument(
          label, ": Size of out_backprop doesn't match computed: ", "actual = ",
          actual, ", computed = ", computed[i], " spatial_dim: ", 1 + i,
          " input: ", inputs[i], " filter: ", filters[i], " output: ", actual,
          " stride: ", strides[i], " dilation: ", dilations[i]);
    }
  }
  return OkStatus();
}

}  // namespace minflow
