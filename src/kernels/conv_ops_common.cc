#include "src/kernels/conv_ops_common.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_join.h"
#include "minflow/framework/op_kernel.h"

namespace minflow {
namespace {

// Every size fed to GetWindowedOutputSizeVerbose stays below this, so
// (filter - 1) * dilation + 1 and input + padding fit easily in int64.
constexpr int64_t kMaxWindowArg = std::numeric_limits<int32_t>::max();

bool InWindowRange(int64_t v) { return v >= 0 && v <= kMaxWindowArg; }

// Index of the row, column and depth dims in a rank-4 tensor or attr list.
int RowsDim(TensorFormat f) { return GetTensorDimIndex(f, 'H'); }
int ColsDim(TensorFormat f) { return GetTensorDimIndex(f, 'W'); }
int DepthDim(TensorFormat f) { return GetTensorDimIndex(f, 'C'); }

std::string ListString(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ","), "]");
}

Status ReadFormat(const OpKernelConstruction* context, TensorFormat* format) {
  std::string data_format;
  MF_RETURN_IF_ERROR(context->GetAttr("data_format", &data_format));
  return GetTensorFormatFromString(data_format, format);
}

Status ReadPadding(const OpKernelConstruction* context, int num_dims,
                   TensorFormat format, Padding* padding,
                   std::vector<int64_t>* explicit_paddings) {
  std::string padding_str;
  MF_RETURN_IF_ERROR(context->GetAttr("padding", &padding_str));
  MF_RETURN_IF_ERROR(GetPaddingFromString(padding_str, padding));
  explicit_paddings->clear();
  if (context->HasAttr("explicit_paddings")) {
    MF_RETURN_IF_ERROR(
        context->GetAttr("explicit_paddings", explicit_paddings));
  }
  MF_RETURN_IF_ERROR(
      CheckValidPadding(*padding, *explicit_paddings, num_dims, format));
  for (int64_t p : *explicit_paddings) {
    if (p > kMaxWindowArg) {
      return errors::InvalidArgument("explicit_paddings must each be at most ",
                                     kMaxWindowArg, ", but got ",
                                     ListString(*explicit_paddings));
    }
  }
  return OkStatus();
}

// The spatial part shared by convolution and pooling: output sizes and
// paddings for rows and cols.
Status ComputeSpatial(Padding padding,
                      const std::vector<int64_t>& explicit_paddings,
                      TensorFormat format, Conv2DDimensions* d) {
  if (padding == EXPLICIT) {
    d->pad_rows_before = explicit_paddings[2 * RowsDim(format)];
    d->pad_rows_after = explicit_paddings[2 * RowsDim(format) + 1];
    d->pad_cols_before = explicit_paddings[2 * ColsDim(format)];
    d->pad_cols_after = explicit_paddings[2 * ColsDim(format) + 1];
  }
  MF_RETURN_IF_ERROR(GetWindowedOutputSizeVerbose(
      d->input_rows, d->filter_rows, d->dilation_rows, d->stride_rows, padding,
      &d->out_rows, &d->pad_rows_before, &d->pad_rows_after));
  MF_RETURN_IF_ERROR(GetWindowedOutputSizeVerbose(
      d->input_cols, d->filter_cols, d->dilation_cols, d->stride_cols, padding,
      &d->out_cols, &d->pad_cols_before, &d->pad_cols_after));
  return OkStatus();
}

// Input and filter checks common to Conv2D and DepthwiseConv2dNative.
Status ReadConvShapes(const Conv2DParameters& params, const TensorShape& input,
                      const TensorShape& filter, Conv2DDimensions* d) {
  if (input.dims() != 4) {
    return errors::InvalidArgument("input must be 4-dimensional",
                                   input.DebugString());
  }
  if (filter.dims() != 4) {
    return errors::InvalidArgument("filter must be 4-dimensional: ",
                                   filter.DebugString());
  }
  for (int i = 0; i < 4; ++i) {
    if (!InWindowRange(filter.dim_size(i))) {
      return errors::InvalidArgument("filter too large");
    }
  }
  const TensorFormat f = params.data_format;
  d->batch = input.dim_size(0);
  d->input_rows = input.dim_size(RowsDim(f));
  d->input_cols = input.dim_size(ColsDim(f));
  d->in_depth = input.dim_size(DepthDim(f));
  if (!InWindowRange(d->input_rows)) {
    return errors::InvalidArgument("Input rows too large");
  }
  if (!InWindowRange(d->input_cols)) {
    return errors::InvalidArgument("Input cols too large");
  }
  d->filter_rows = filter.dim_size(0);
  d->filter_cols = filter.dim_size(1);
  d->patch_depth = filter.dim_size(2);
  d->stride_rows = params.strides[RowsDim(f)];
  d->stride_cols = params.strides[ColsDim(f)];
  d->dilation_rows = params.dilations[RowsDim(f)];
  d->dilation_cols = params.dilations[ColsDim(f)];
  return OkStatus();
}

}  // namespace

Status GetWindowedOutputSizeVerbose(int64_t input_size, int64_t filter_size,
                                    int64_t dilation_rate, int64_t stride,
                                    Padding padding, int64_t* output_size,
                                    int64_t* padding_before,
                                    int64_t* padding_after) {
  if (stride <= 0) {
    return errors::InvalidArgument("Stride must be > 0, but got ", stride);
  }
  if (dilation_rate < 1) {
    return errors::InvalidArgument("Dilation rate must be >= 1, but got ",
                                   dilation_rate);
  }
  const int64_t effective_filter_size = (filter_size - 1) * dilation_rate + 1;
  switch (padding) {
    case VALID:
      *output_size = (input_size - effective_filter_size + stride) / stride;
      *padding_before = *padding_after = 0;
      break;
    case EXPLICIT:
      *output_size = (input_size + *padding_before + *padding_after -
                      effective_filter_size + stride) /
                     stride;
      break;
    case SAME: {
      *output_size = (input_size + stride - 1) / stride;
      const int64_t padding_needed =
          std::max(int64_t{0}, (*output_size - 1) * stride +
                                   effective_filter_size - input_size);
      // An odd total puts the extra element after, as TensorFlow does.
      *padding_before = padding_needed / 2;
      *padding_after = padding_needed - *padding_before;
      break;
    }
  }
  if (*output_size < 0) {
    return errors::InvalidArgument(
        "Computed output size would be negative: ", *output_size,
        " [input_size: ", input_size,
        ", effective_filter_size: ", effective_filter_size,
        ", stride: ", stride, "]");
  }
  return OkStatus();
}

Status InitConv2DParameters(const OpKernelConstruction* context,
                            Conv2DParameters* params) {
  MF_RETURN_IF_ERROR(context->GetAttr("dilations", &params->dilations));
  MF_RETURN_IF_ERROR(context->GetAttr("strides", &params->strides));
  MF_RETURN_IF_ERROR(ReadFormat(context, &params->data_format));
  const TensorFormat f = params->data_format;
  const auto& strides = params->strides;
  const auto& dilations = params->dilations;
  if (dilations.size() != 4) {
    return errors::InvalidArgument(
        "Sliding window dilations field must specify 4 dimensions");
  }
  if (strides.size() != 4) {
    return errors::InvalidArgument(
        "Sliding window strides field must specify 4 dimensions");
  }
  if (strides[0] != 1 || strides[DepthDim(f)] != 1) {
    return errors::InvalidArgument(
        "Current implementation does not yet support strides in the batch "
        "and depth dimensions.");
  }
  if (strides[RowsDim(f)] <= 0 || strides[ColsDim(f)] <= 0) {
    return errors::InvalidArgument(
        "Row and column strides should be larger than 0.");
  }
  if (dilations[0] != 1 || dilations[DepthDim(f)] != 1) {
    return errors::InvalidArgument(
        "Current implementation does not yet support dilations in the batch "
        "and depth dimensions.");
  }
  if (dilations[RowsDim(f)] <= 0 || dilations[ColsDim(f)] <= 0) {
    return errors::InvalidArgument("Dilated rates should be larger than 0.");
  }
  if (strides[RowsDim(f)] > kMaxWindowArg ||
      strides[ColsDim(f)] > kMaxWindowArg ||
      dilations[RowsDim(f)] > kMaxWindowArg ||
      dilations[ColsDim(f)] > kMaxWindowArg) {
    return errors::InvalidArgument(
        "strides and dilations must each be at most ", kMaxWindowArg,
        ", but got strides ", ListString(strides), " and dilations ",
        ListString(dilations));
  }
  return ReadPadding(context, /*num_dims=*/4, f, &params->padding,
                     &params->explicit_paddings);
}

Status ComputeConv2DDimension(const Conv2DParameters& params,
                              const TensorShape& input,
                              const TensorShape& filter,
                              Conv2DDimensions* dimensions) {
  Conv2DDimensions d;
  MF_RETURN_IF_ERROR(ReadConvShapes(params, input, filter, &d));
  // Equal depths (zero included) are one group; otherwise the filter depth
  // must split the input depth into a whole number (>= 2) of groups.
  if (d.in_depth != d.patch_depth && (d.patch_depth == 0 || d.in_depth == 0 ||
                                      d.in_depth % d.patch_depth != 0)) {
    return errors::InvalidArgument(
        "input depth must be evenly divisible by filter depth: ", d.in_depth,
        " vs ", d.patch_depth);
  }
  d.out_depth = filter.dim_size(3);
  const int64_t groups =
      d.in_depth == d.patch_depth ? 1 : d.in_depth / d.patch_depth;
  if (d.out_depth % groups != 0) {
    return errors::InvalidArgument(
        "output depth must be evenly divisible by number of groups: ",
        d.out_depth, " vs ", groups);
  }
  MF_RETURN_IF_ERROR(ComputeSpatial(params.padding, params.explicit_paddings,
                                    params.data_format, &d));
  *dimensions = d;
  return OkStatus();
}

Status ComputeDepthwiseConv2DDimension(const Conv2DParameters& params,
                                       const TensorShape& input,
                                       const TensorShape& filter,
                                       Conv2DDimensions* dimensions) {
  Conv2DDimensions d;
  MF_RETURN_IF_ERROR(ReadConvShapes(params, input, filter, &d));
  if (d.in_depth != d.patch_depth) {
    return errors::InvalidArgument(
        "input and filter must have the same depth: ", d.in_depth, " vs ",
        d.patch_depth);
  }
  // Both factors are below 2^31 (checked above), so the product fits.
  d.out_depth = d.in_depth * filter.dim_size(3);
  MF_RETURN_IF_ERROR(ComputeSpatial(params.padding, params.explicit_paddings,
                                    params.data_format, &d));
  *dimensions = d;
  return OkStatus();
}

Status InitPoolParameters(const OpKernelConstruction* context,
                          PoolParameters* params) {
  MF_RETURN_IF_ERROR(ReadFormat(context, &params->data_format));
  MF_RETURN_IF_ERROR(context->GetAttr("ksize", &params->ksize));
  MF_RETURN_IF_ERROR(context->GetAttr("strides", &params->strides));
  MF_RETURN_IF_ERROR(CheckPoolWindow(params));
  return ReadPadding(context, /*num_dims=*/4, params->data_format,
                     &params->padding, &params->explicit_paddings);
}

Status InitPoolFormatAndPadding(const OpKernelConstruction* context,
                                PoolParameters* params) {
  MF_RETURN_IF_ERROR(ReadFormat(context, &params->data_format));
  return ReadPadding(context, /*num_dims=*/4, params->data_format,
                     &params->padding, &params->explicit_paddings);
}

Status CheckPoolWindow(const PoolParameters* params) {
  if (params->ksize.size() != 4) {
    return errors::InvalidArgument(
        "Sliding window ksize field must specify 4 dimensions");
  }
  for (size_t i = 0; i < params->ksize.size(); ++i) {
    if (params->ksize[i] <= 0) {
      return errors::InvalidArgument("Sliding window ksize for dimension ", i,
                                     " was zero.");
    }
  }
  if (params->strides.size() != 4) {
    return errors::InvalidArgument(
        "Sliding window stride field must specify 4 dimensions");
  }
  for (size_t i = 0; i < params->strides.size(); ++i) {
    if (params->strides[i] <= 0) {
      return errors::InvalidArgument("Sliding window stride for dimension ", i,
                                     " must be > 0, but got ",
                                     params->strides[i]);
    }
  }
  for (size_t i = 0; i < 4; ++i) {
    if (params->ksize[i] > kMaxWindowArg ||
        params->strides[i] > kMaxWindowArg) {
      return errors::InvalidArgument("ksize and strides must each be at most ",
                                     kMaxWindowArg, ", but got ksize ",
                                     ListString(params->ksize), " and strides ",
                                     ListString(params->strides));
    }
  }
  if (params->ksize[0] != 1 || params->strides[0] != 1) {
    return errors::Unimplemented(
        "Pooling is not yet supported on the batch dimension.");
  }
  const TensorFormat f = params->data_format;
  const int64_t depth_window = params->ksize[DepthDim(f)];
  const int64_t depth_stride = params->strides[DepthDim(f)];
  if (depth_window == 1 && depth_stride != 1) {
    return errors::Unimplemented(
        "Pooling with a depth stride requires a depth window: ksize ",
        ListString(params->ksize), " vs strides ", ListString(params->strides));
  }
  if (depth_window > 1) {
    if (params->ksize[RowsDim(f)] != 1 || params->ksize[ColsDim(f)] != 1) {
      return errors::Unimplemented(
          "MaxPooling supports exactly one of pooling across depth or "
          "pooling across width/height.");
    }
    if (depth_stride != depth_window) {
      return errors::Unimplemented(
          "Depthwise max pooling requires the depth window to equal the "
          "depth stride");
    }
  }
  return OkStatus();
}

Status ComputePoolDimensions(const PoolParameters& params,
                             const TensorShape& input,
                             PoolDimensions* dimensions) {
  if (input.dims() != 4) {
    return errors::InvalidArgument("tensor_in must be 4-dimensional: ",
                                   input.DebugString());
  }
  const TensorFormat f = params.data_format;
  PoolDimensions d;
  d.batch = input.dim_size(0);
  d.input_rows = input.dim_size(RowsDim(f));
  d.input_cols = input.dim_size(ColsDim(f));
  d.in_depth = input.dim_size(DepthDim(f));
  if (!InWindowRange(d.input_rows)) {
    return errors::InvalidArgument("Input rows too large");
  }
  if (!InWindowRange(d.input_cols)) {
    return errors::InvalidArgument("Input cols too large");
  }
  d.filter_rows = params.ksize[RowsDim(f)];
  d.filter_cols = params.ksize[ColsDim(f)];
  d.stride_rows = params.strides[RowsDim(f)];
  d.stride_cols = params.strides[ColsDim(f)];
  d.depth_window = params.ksize[DepthDim(f)];
  if (d.depth_window == 1) {
    d.patch_depth = d.out_depth = d.in_depth;
    MF_RETURN_IF_ERROR(
        ComputeSpatial(params.padding, params.explicit_paddings, f, &d));
  } else {
    // InitPoolParameters checked the window shape and stride.
    if (d.in_depth % d.depth_window != 0) {
      return errors::Unimplemented(
          "Depthwise max pooling requires the depth window to evenly divide "
          "the input depth");
    }
    d.patch_depth = d.depth_window;
    d.out_depth = d.in_depth / d.depth_window;
    d.out_rows = d.input_rows;
    d.out_cols = d.input_cols;
  }
  *dimensions = d;
  return OkStatus();
}

}  // namespace minflow
