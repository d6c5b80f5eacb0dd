#include "minflow/framework/common_shape_fns.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "minflow/core/tensor.h"

namespace minflow {
namespace shape_inference {

// ---------------------------------------------------------------------------
// Padding and formats

Status GetPaddingAttr(InferenceContext* c, absl::string_view attr_name,
                      Padding* padding) {
  std::string str;
  MF_RETURN_IF_ERROR(c->GetAttr(attr_name, &str));
  return GetPaddingFromString(str, padding);
}

namespace {

// The data format attr, NHWC when the op has none.
Status DataFormatOrDefault(InferenceContext* c, TensorFormat* format) {
  std::string str;
  const Status s = c->GetAttr("data_format", &str);
  if (errors::IsNotFound(s)) {
    *format = FORMAT_NHWC;
    return OkStatus();
  }
  MF_RETURN_IF_ERROR(s);
  return GetTensorFormatFromString(str, format);
}

// `explicit_paddings` when the op has it, else empty.
Status ExplicitPaddingsOrEmpty(InferenceContext* c,
                               std::vector<int64_t>* paddings) {
  const Status s = c->GetAttr("explicit_paddings", paddings);
  if (errors::IsNotFound(s)) return OkStatus();
  return s;
}

// A list attr of exactly four ints.
Status GetFourInts(InferenceContext* c, absl::string_view op_name,
                   absl::string_view attr_name, std::vector<int64_t>* values) {
  values->clear();
  MF_RETURN_IF_ERROR(c->GetAttr(attr_name, values));
  if (values->size() != 4) {
    return errors::InvalidArgument(
        op_name, " requires the ", attr_name,
        " attribute to contain 4 values, but got: ", values->size());
  }
  return OkStatus();
}

}  // namespace

// ---------------------------------------------------------------------------
// Windows

Status GetWindowedOutputSizeFromDimsV2(
    InferenceContext* c, DimensionHandle input_size,
    DimensionOrConstant filter_size, int64_t dilation_rate, int64_t stride,
    Padding padding_type, int64_t padding_before, int64_t padding_after,
    DimensionHandle* output_size) {
  if (stride <= 0) {
    return errors::InvalidArgument("Stride must be > 0, but got ", stride);
  }
  if (dilation_rate < 1) {
    return errors::InvalidArgument("Dilation rate must be >= 1, but got ",
                                   dilation_rate);
  }
  if (!filter_size.dim.IsSet() && filter_size.val < 0) {
    return errors::InvalidArgument("Filter size must be >= 0, but got ",
                                   filter_size.val);
  }
  switch (padding_type) {
    case VALID:
    case EXPLICIT: {
      int64_t pads = 0;
      if (padding_type == EXPLICIT) {
        if (padding_before < 0 || padding_after < 0 ||
            __builtin_add_overflow(padding_before, padding_after, &pads)) {
          return errors::InvalidArgument("Invalid explicit padding ",
                                         padding_before, ", ", padding_after);
        }
      }
      MF_RETURN_IF_ERROR(c->Add(input_size, pads, &input_size));
      DimensionHandle window = c->MakeDim(filter_size);
      if (dilation_rate > 1) {
        // The dilated window spans (filter - 1) * dilation + 1 elements.
        MF_RETURN_IF_ERROR(c->Subtract(window, 1, &window));
        MF_RETURN_IF_ERROR(c->Multiply(window, dilation_rate, &window));
        MF_RETURN_IF_ERROR(c->Add(window, 1, &window));
      }
      MF_RETURN_IF_ERROR(c->Subtract(input_size, window, output_size));
      MF_RETURN_IF_ERROR(c->Add(*output_size, stride, output_size));
      MF_RETURN_IF_ERROR(c->Divide(*output_size, stride,
                                   /*evenly_divisible=*/false, output_size));
      break;
    }
    case SAME:
      MF_RETURN_IF_ERROR(c->Add(input_size, stride - 1, output_size));
      MF_RETURN_IF_ERROR(c->Divide(*output_size, stride,
                                   /*evenly_divisible=*/false, output_size));
      break;
    default:
      return errors::InvalidArgument("Unknown padding type ",
                                     static_cast<int>(padding_type));
  }
  return OkStatus();
}

Status GetWindowedOutputSizeFromDims(InferenceContext* c,
                                     DimensionHandle input_size,
                                     DimensionOrConstant filter_size,
                                     int64_t stride, Padding padding_type,
                                     DimensionHandle* output_size) {
  if (padding_type == EXPLICIT) {
    return errors::Internal(
        "GetWindowedOutputSizeFromDims does not handle EXPLICIT padding; call "
        "GetWindowedOutputSizeFromDimsV2 instead");
  }
  return GetWindowedOutputSizeFromDimsV2(c, input_size, filter_size,
                                         /*dilation_rate=*/1, stride,
                                         padding_type, 0, 0, output_size);
}

// ---------------------------------------------------------------------------
// Simple shape functions

Status UnchangedShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  const auto* handle_data = c->input_handle_shapes_and_types(0);
  if (handle_data != nullptr) {
    c->set_output_handle_shapes_and_types(0, *handle_data);
  }
  return OkStatus();
}

Status UnchangedShapeWithRank(InferenceContext* c, int32_t rank) {
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status UnchangedShapeWithRankAtLeast(InferenceContext* c, int32_t rank) {
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), rank, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status UnchangedShapeWithRankAtMost(InferenceContext* c, int32_t rank) {
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(0), rank, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status ScalarShape(InferenceContext* c) {
  c->set_output(0, c->Scalar());
  return OkStatus();
}

Status NoOutputs(InferenceContext* c) { return OkStatus(); }

Status UnknownShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, c->UnknownShape());
  }
  return OkStatus();
}

Status MergeBothInputsShapeFn(InferenceContext* c) {
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &out));
  c->set_output(0, out);
  return OkStatus();
}

// ---------------------------------------------------------------------------
// Linear algebra

Status MatMulShape(InferenceContext* c) {
  ShapeHandle a;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &a));
  ShapeHandle b;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &b));
  bool transpose_a;
  bool transpose_b;
  MF_RETURN_IF_ERROR(c->GetAttr("transpose_a", &transpose_a));
  MF_RETURN_IF_ERROR(c->GetAttr("transpose_b", &transpose_b));
  const DimensionHandle rows = c->Dim(a, transpose_a ? 1 : 0);
  const DimensionHandle cols = c->Dim(b, transpose_b ? 0 : 1);
  DimensionHandle merged;
  MF_RETURN_IF_ERROR(c->Merge(c->Dim(a, transpose_a ? 0 : 1),
                              c->Dim(b, transpose_b ? 1 : 0), &merged));
  c->set_output(0, c->Matrix(rows, cols));
  return OkStatus();
}

Status BatchMatMulV2Shape(InferenceContext* c) {
  ShapeHandle a;
  ShapeHandle b;
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &a));
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 2, &b));
  bool adj_x;
  bool adj_y;
  MF_RETURN_IF_ERROR(c->GetAttr("adj_x", &adj_x));
  MF_RETURN_IF_ERROR(c->GetAttr("adj_y", &adj_y));
  const DimensionHandle rows = c->Dim(a, adj_x ? -1 : -2);
  const DimensionHandle cols = c->Dim(b, adj_y ? -2 : -1);
  DimensionHandle inner;
  MF_RETURN_IF_ERROR(
      c->Merge(c->Dim(a, adj_x ? -2 : -1), c->Dim(b, adj_y ? -1 : -2), &inner));
  ShapeHandle a_batch;
  ShapeHandle b_batch;
  ShapeHandle batch;
  MF_RETURN_IF_ERROR(c->Subshape(a, 0, -2, &a_batch));
  MF_RETURN_IF_ERROR(c->Subshape(b, 0, -2, &b_batch));
  MF_RETURN_IF_ERROR(
      BroadcastBinaryOpOutputShapeFnHelper(c, a_batch, b_batch, true, &batch));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->Concatenate(batch, c->Matrix(rows, cols), &out));
  c->set_output(0, out);
  return OkStatus();
}

// ---------------------------------------------------------------------------
// Broadcasting

Status BroadcastBinaryOpOutputShapeFnHelper(InferenceContext* c,
                                            ShapeHandle shape_x,
                                            ShapeHandle shape_y,
                                            bool incompatible_shape_error,
                                            ShapeHandle* out) {
  if (!c->RankKnown(shape_x) || !c->RankKnown(shape_y)) {
    *out = c->UnknownShape();
    return OkStatus();
  }
  const int32_t rank_x = c->Rank(shape_x);
  const int32_t rank_y = c->Rank(shape_y);
  const int32_t rank = std::max(rank_x, rank_y);
  // The shorter shape is padded on the left with ones (one shared handle).
  DimensionHandle one;
  if (rank_x != rank_y) one = c->MakeDim(1);
  std::vector<DimensionHandle> dims;
  dims.reserve(rank);
  for (int i = 0; i < rank; ++i) {
    const bool x_padded = i < rank - rank_x;
    const bool y_padded = i < rank - rank_y;
    const DimensionHandle dim_x =
        x_padded ? one : c->Dim(shape_x, i - (rank - rank_x));
    const DimensionHandle dim_y =
        y_padded ? one : c->Dim(shape_y, i - (rank - rank_y));
    const int64_t vx = c->Value(dim_x);
    const int64_t vy = c->Value(dim_y);
    if (vx == InferenceContext::kUnknownDim ||
        vy == InferenceContext::kUnknownDim) {
      // TensorFlow assumes a valid program: a known dim > 1 is what the
      // unknown one must broadcast to (or equal); a 1 yields the other.
      if (vx > 1 || vy > 1) {
        if (!incompatible_shape_error) {
          *out = c->UnknownShape();
          return OkStatus();
        }
        dims.push_back(vx > 1 ? dim_x : dim_y);
      } else if (vx == 1) {
        dims.push_back(dim_y);
      } else if (vy == 1) {
        dims.push_back(dim_x);
      } else if (dim_x.SameHandle(dim_y)) {
        dims.push_back(dim_x);
      } else if (vx == InferenceContext::kUnknownDim &&
                 vy == InferenceContext::kUnknownDim) {
        dims.push_back(c->UnknownDim());
      } else {
        // One side is 0 and the other unknown.
        if (!incompatible_shape_error) {
          *out = c->UnknownShape();
          return OkStatus();
        }
        dims.push_back(c->UnknownDim());
      }
    } else if (vx == 1 || vy == 1) {
      dims.push_back(vx == 1 && !y_padded ? dim_y : dim_x);
    } else {
      DimensionHandle dim;
      const Status s = c->Merge(dim_x, dim_y, &dim);
      if (!s.ok()) {
        if (!incompatible_shape_error) {
          *out = c->Scalar();
          return OkStatus();
        }
        return s;
      }
      dims.push_back(dim);
    }
  }
  *out = c->MakeShape(dims);
  return OkStatus();
}

Status BroadcastBinaryOpOutputShapeFn(InferenceContext* c, int output_index) {
  ShapeHandle out;
  MF_RETURN_IF_ERROR(BroadcastBinaryOpOutputShapeFnHelper(
      c, c->input(0), c->input(1), true, &out));
  c->set_output(output_index, out);
  return OkStatus();
}

Status BroadcastBinaryOpShapeFn(InferenceContext* c) {
  return BroadcastBinaryOpOutputShapeFn(c, 0);
}

// ---------------------------------------------------------------------------
// Neural network

Status BiasAddShape(InferenceContext* c) {
  TensorFormat format;
  MF_RETURN_IF_ERROR(DataFormatOrDefault(c, &format));
  ShapeHandle input;
  MF_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(0), format == FORMAT_NCHW ? 3 : 2, &input));
  ShapeHandle bias;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &bias));
  if (!c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return OkStatus();
  }
  const int channel = GetTensorFeatureDimIndex(c->Rank(input), format);
  DimensionHandle merged;
  MF_RETURN_IF_ERROR(
      c->Merge(c->Dim(input, channel), c->Dim(bias, 0), &merged));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->ReplaceDim(input, channel, merged, &out));
  c->set_output(0, out);
  return OkStatus();
}

namespace {

// Output rows and cols of a 2-D window op over `input` (rank 4, `format`).
Status SpatialOutputDims(InferenceContext* c, ShapeHandle input,
                         TensorFormat format, DimensionOrConstant filter_rows,
                         DimensionOrConstant filter_cols,
                         const std::vector<int64_t>& strides,
                         const std::vector<int64_t>& dilations, Padding padding,
                         const std::vector<int64_t>& explicit_paddings,
                         DimensionHandle* rows, DimensionHandle* cols) {
  const int h = GetTensorDimIndex(format, 'H');
  const int w = GetTensorDimIndex(format, 'W');
  int64_t pad_rows[2] = {0, 0};
  int64_t pad_cols[2] = {0, 0};
  if (padding == EXPLICIT) {
    pad_rows[0] = explicit_paddings[2 * h];
    pad_rows[1] = explicit_paddings[2 * h + 1];
    pad_cols[0] = explicit_paddings[2 * w];
    pad_cols[1] = explicit_paddings[2 * w + 1];
  }
  MF_RETURN_IF_ERROR(GetWindowedOutputSizeFromDimsV2(
      c, c->Dim(input, h), filter_rows, dilations[h], strides[h], padding,
      pad_rows[0], pad_rows[1], rows));
  return GetWindowedOutputSizeFromDimsV2(c, c->Dim(input, w), filter_cols,
                                         dilations[w], strides[w], padding,
                                         pad_cols[0], pad_cols[1], cols);
}

ShapeHandle MakeShapeFromFormat(InferenceContext* c, TensorFormat format,
                                DimensionHandle batch, DimensionHandle rows,
                                DimensionHandle cols, DimensionHandle depth) {
  return format == FORMAT_NHWC ? c->MakeShape({batch, rows, cols, depth})
                               : c->MakeShape({batch, depth, rows, cols});
}

// NCHW_VECT_C: the input is [N, C/4, H, W, 4] and the filter OIHW_VECT_I,
// [O, I/4, H, W, 4] (channels in groups of four: the int8 layout of GPU
// convolutions); the output is [N, O/4, H', W', 4]. Strides and dilations
// are in NCHW order.
Status Conv2DVectCShape(InferenceContext* c) {
  ShapeHandle input;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 5, &input));
  ShapeHandle filter;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 5, &filter));
  for (const auto& [what, shape] :
       {std::make_pair("input", input), std::make_pair("filter", filter)}) {
    const DimensionHandle vect = c->Dim(shape, 4);
    if (c->ValueKnown(vect) && c->Value(vect) != 4) {
      return errors::InvalidArgument(
          "Conv2D with data_format NCHW_VECT_C needs a last ", what,
          " dimension of 4, but the ", what, " is ", c->DebugString(shape));
    }
  }
  std::vector<int64_t> dilations;
  MF_RETURN_IF_ERROR(GetFourInts(c, "Conv2D", "dilations", &dilations));
  std::vector<int64_t> strides;
  MF_RETURN_IF_ERROR(GetFourInts(c, "Conv2D", "strides", &strides));
  DimensionHandle in_groups;
  MF_RETURN_IF_ERROR(c->Merge(c->Dim(input, 1), c->Dim(filter, 1), &in_groups));
  const DimensionHandle out_depth = c->Dim(filter, 0);
  if (c->ValueKnown(out_depth) && c->Value(out_depth) % 4 != 0) {
    return errors::InvalidArgument(
        "Conv2D with NCHW_VECT_C needs an output depth that is a multiple "
        "of 4, not ",
        c->Value(out_depth));
  }
  Padding padding;
  MF_RETURN_IF_ERROR(GetPaddingAttr(c, "padding", &padding));
  if (padding == EXPLICIT) {
    return errors::InvalidArgument(
        "Conv2D does not take EXPLICIT padding with NCHW_VECT_C");
  }
  DimensionHandle rows;
  DimensionHandle cols;
  MF_RETURN_IF_ERROR(GetWindowedOutputSizeFromDimsV2(
      c, c->Dim(input, 2), c->Dim(filter, 2), dilations[2], strides[2], padding,
      0, 0, &rows));
  MF_RETURN_IF_ERROR(GetWindowedOutputSizeFromDimsV2(
      c, c->Dim(input, 3), c->Dim(filter, 3), dilations[3], strides[3], padding,
      0, 0, &cols));
  DimensionHandle out_groups;
  MF_RETURN_IF_ERROR(
      c->Divide(out_depth, 4, /*evenly_divisible=*/true, &out_groups));
  c->set_output(0, c->MakeShape({c->Dim(input, 0), out_groups, rows, cols,
                                 c->MakeDim(4)}));
  return OkStatus();
}

Status Conv2DShapeImpl(InferenceContext* c, bool supports_explicit_padding) {
  std::string format_str;
  if (c->GetAttr("data_format", &format_str).ok() &&
      format_str == "NCHW_VECT_C") {
    return Conv2DVectCShape(c);
  }
  TensorFormat format;
  MF_RETURN_IF_ERROR(DataFormatOrDefault(c, &format));
  ShapeHandle input;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  ShapeHandle filter;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, &filter));
  std::vector<int64_t> dilations;
  MF_RETURN_IF_ERROR(GetFourInts(c, "Conv2D", "dilations", &dilations));
  std::vector<int64_t> strides;
  MF_RETURN_IF_ERROR(GetFourInts(c, "Conv2D", "strides", &strides));

  const DimensionHandle batch = c->Dim(input, GetTensorDimIndex(format, 'N'));
  const DimensionHandle in_depth =
      c->Dim(input, GetTensorDimIndex(format, 'C'));
  // Filters are HWIO.
  const DimensionHandle filter_rows = c->Dim(filter, 0);
  const DimensionHandle filter_cols = c->Dim(filter, 1);
  const DimensionHandle filter_in_depth = c->Dim(filter, 2);
  const DimensionHandle out_depth = c->Dim(filter, 3);

  // Grouped convolution: the filter sees in_depth / groups channels.
  if (c->ValueKnown(in_depth) && c->ValueKnown(filter_in_depth)) {
    const int64_t in = c->Value(in_depth);
    const int64_t per_group = c->Value(filter_in_depth);
    if (per_group == 0 || in % per_group != 0) {
      return errors::InvalidArgument(
          "Depth of input (", in,
          ") is not a multiple of input depth of filter (", per_group, ")");
    }
    const int64_t groups = in / per_group;
    if (c->ValueKnown(out_depth) && groups > 0 &&
        c->Value(out_depth) % groups != 0) {
      return errors::InvalidArgument(
          "Depth of output (", c->Value(out_depth),
          ") is not a multiple of the number of groups (", groups, ")");
    }
  }

  Padding padding;
  MF_RETURN_IF_ERROR(GetPaddingAttr(c, "padding", &padding));
  std::vector<int64_t> explicit_paddings;
  if (supports_explicit_padding) {
    MF_RETURN_IF_ERROR(ExplicitPaddingsOrEmpty(c, &explicit_paddings));
  } else if (padding == EXPLICIT) {
    return errors::InvalidArgument("EXPLICIT padding is not supported here");
  }
  MF_RETURN_IF_ERROR(CheckValidPadding(padding, explicit_paddings, 4, format));

  DimensionHandle rows;
  DimensionHandle cols;
  MF_RETURN_IF_ERROR(SpatialOutputDims(c, input, format, filter_rows,
                                       filter_cols, strides, dilations, padding,
                                       explicit_paddings, &rows, &cols));
  c->set_output(0,
                MakeShapeFromFormat(c, format, batch, rows, cols, out_depth));
  return OkStatus();
}

Status DepthwiseConv2DNativeShapeImpl(InferenceContext* c,
                                      bool supports_explicit_padding) {
  ShapeHandle input;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  ShapeHandle filter;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, &filter));
  std::vector<int64_t> strides;
  MF_RETURN_IF_ERROR(GetFourInts(c, "DepthwiseConv2D", "strides", &strides));
  std::vector<int64_t> dilations;
  if (errors::IsNotFound(c->GetAttr("dilations", &dilations))) {
    dilations.assign(4, 1);
  }
  if (dilations.size() != 4) {
    return errors::InvalidArgument(
        "DepthwiseConv2D requires the dilations attribute to contain 4 "
        "values, but got: ",
        dilations.size());
  }
  TensorFormat format;
  MF_RETURN_IF_ERROR(DataFormatOrDefault(c, &format));

  const DimensionHandle batch = c->Dim(input, GetTensorDimIndex(format, 'N'));
  // Filters are [rows, cols, in_depth, depth_multiplier].
  DimensionHandle in_depth;
  MF_RETURN_IF_ERROR(c->Merge(c->Dim(input, GetTensorDimIndex(format, 'C')),
                              c->Dim(filter, 2), &in_depth));
  DimensionHandle out_depth;
  MF_RETURN_IF_ERROR(c->Multiply(in_depth, c->Dim(filter, 3), &out_depth));

  Padding padding;
  MF_RETURN_IF_ERROR(GetPaddingAttr(c, "padding", &padding));
  std::vector<int64_t> explicit_paddings;
  if (supports_explicit_padding) {
    MF_RETURN_IF_ERROR(ExplicitPaddingsOrEmpty(c, &explicit_paddings));
  } else if (padding == EXPLICIT) {
    return errors::InvalidArgument("EXPLICIT padding is not supported here");
  }
  MF_RETURN_IF_ERROR(CheckValidPadding(padding, explicit_paddings, 4, format));

  DimensionHandle rows;
  DimensionHandle cols;
  MF_RETURN_IF_ERROR(SpatialOutputDims(
      c, input, format, c->Dim(filter, 0), c->Dim(filter, 1), strides,
      dilations, padding, explicit_paddings, &rows, &cols));
  c->set_output(0,
                MakeShapeFromFormat(c, format, batch, rows, cols, out_depth));
  return OkStatus();
}

// A pooling op's four-int `ksize` (every entry positive) and `strides`.
// The window of a pooling op: MaxPoolV2's ksize and strides inputs
// (`given`, their constant values) or else the attrs.
struct GivenWindow {
  std::vector<int64_t> ksize;
  std::vector<int64_t> strides;
};

Status PoolWindow(InferenceContext* c, absl::string_view op_name,
                  const GivenWindow* given, std::vector<int64_t>* ksize,
                  std::vector<int64_t>* strides) {
  if (given == nullptr) {
    MF_RETURN_IF_ERROR(GetFourInts(c, op_name, "strides", strides));
    MF_RETURN_IF_ERROR(GetFourInts(c, op_name, "ksize", ksize));
  } else {
    *ksize = given->ksize;
    *strides = given->strides;
    if (strides->size() != 4) {
      return errors::InvalidArgument(
          op_name,
          " requires the stride attribute to contain 4 values, but got: ",
          strides->size());
    }
    if (ksize->size() != 4) {
      return errors::InvalidArgument(
          op_name,
          " requires the ksize attribute to contain 4 values, but got: ",
          ksize->size());
    }
  }
  for (int64_t k : *ksize) {
    if (k <= 0) {
      return errors::InvalidArgument("Sliding window ksize must be positive, ",
                                     "but got ", k);
    }
  }
  return OkStatus();
}

// NCHW_VECT_C: the input is [N, C/4, H, W, 4] (channels in groups of four,
// the int8 layout of GPU kernels); ksize and strides are in NCHW order and
// windows move over H and W only, as TensorFlow has it.
Status PoolVectCShape(InferenceContext* c, absl::string_view op_name,
                      const GivenWindow* given) {
  ShapeHandle input;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 5, &input));
  DimensionHandle vect = c->Dim(input, 4);
  if (c->ValueKnown(vect) && c->Value(vect) != 4) {
    return errors::InvalidArgument(
        op_name,
        " with data_format NCHW_VECT_C needs a last input dimension "
        "of 4, but the input is ",
        c->DebugString(input));
  }
  vect = c->MakeDim(4);
  Padding padding;
  MF_RETURN_IF_ERROR(GetPaddingAttr(c, "padding", &padding));
  if (padding == Padding::EXPLICIT) {
    return errors::InvalidArgument(
        op_name, " does not take EXPLICIT padding with NCHW_VECT_C");
  }
  std::vector<int64_t> strides;
  std::vector<int64_t> ksize;
  MF_RETURN_IF_ERROR(PoolWindow(c, op_name, given, &ksize, &strides));
  if (ksize[0] != 1 || ksize[1] != 1 || strides[0] != 1 || strides[1] != 1) {
    return errors::Unimplemented(
        op_name,
        " with data_format NCHW_VECT_C pools over H and W only: "
        "ksize and strides must be 1 on N and C");
  }
  DimensionHandle rows;
  DimensionHandle cols;
  MF_RETURN_IF_ERROR(GetWindowedOutputSizeFromDimsV2(
      c, c->Dim(input, 2), ksize[2], 1, strides[2], padding, 0, 0, &rows));
  MF_RETURN_IF_ERROR(GetWindowedOutputSizeFromDimsV2(
      c, c->Dim(input, 3), ksize[3], 1, strides[3], padding, 0, 0, &cols));
  c->set_output(
      0, c->MakeShape({c->Dim(input, 0), c->Dim(input, 1), rows, cols, vect}));
  return OkStatus();
}

Status PoolShapeImpl(InferenceContext* c, absl::string_view op_name,
                     bool pools_depth, const GivenWindow* given = nullptr) {
  std::string format_str = "NHWC";
  const Status format_status = c->GetAttr("data_format", &format_str);
  if (!format_status.ok() && !errors::IsNotFound(format_status)) {
    return format_status;
  }
  if (format_str == "NCHW_VECT_C") return PoolVectCShape(c, op_name, given);
  TensorFormat format;
  MF_RETURN_IF_ERROR(GetTensorFormatFromString(format_str, &format));
  ShapeHandle input;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  std::vector<int64_t> strides;
  std::vector<int64_t> ksize;
  MF_RETURN_IF_ERROR(PoolWindow(c, op_name, given, &ksize, &strides));
  Padding padding;
  MF_RETURN_IF_ERROR(GetPaddingAttr(c, "padding", &padding));
  std::vector<int64_t> explicit_paddings;
  MF_RETURN_IF_ERROR(ExplicitPaddingsOrEmpty(c, &explicit_paddings));
  MF_RETURN_IF_ERROR(CheckValidPadding(padding, explicit_paddings, 4, format));

  const std::vector<int64_t> no_dilation(4, 1);
  const int h = GetTensorDimIndex(format, 'H');
  const int w = GetTensorDimIndex(format, 'W');
  const int d = GetTensorDimIndex(format, 'C');
  DimensionHandle rows;
  DimensionHandle cols;
  MF_RETURN_IF_ERROR(SpatialOutputDims(c, input, format, ksize[h], ksize[w],
                                       strides, no_dilation, padding,
                                       explicit_paddings, &rows, &cols));
  DimensionHandle depth = c->Dim(input, d);
  if (pools_depth) {
    // EXPLICIT pads nothing on depth (CheckValidPadding made sure).
    MF_RETURN_IF_ERROR(GetWindowedOutputSizeFromDimsV2(
        c, depth, ksize[d], 1, strides[d], padding, 0, 0, &depth));
  }
  c->set_output(
      0, MakeShapeFromFormat(c, format, c->Dim(input, 0), rows, cols, depth));
  return OkStatus();
}

}  // namespace

Status Conv2DShape(InferenceContext* c) { return Conv2DShapeImpl(c, false); }

Status Conv2DShapeWithExplicitPadding(InferenceContext* c) {
  return Conv2DShapeImpl(c, true);
}

Status DepthwiseConv2DNativeShape(InferenceContext* c) {
  return DepthwiseConv2DNativeShapeImpl(c, false);
}

Status DepthwiseConv2DNativeShapeWithExplicitPadding(InferenceContext* c) {
  return DepthwiseConv2DNativeShapeImpl(c, true);
}

Status MaxPoolShape(InferenceContext* c) {
  return PoolShapeImpl(c, "MaxPool", /*pools_depth=*/true);
}

Status AvgPoolShape(InferenceContext* c) {
  return PoolShapeImpl(c, "AvgPool", /*pools_depth=*/false);
}

Status MaxPoolV2Shape(InferenceContext* c) {
  std::string format_str;
  MF_RETURN_IF_ERROR(c->GetAttr("data_format", &format_str));
  ShapeHandle input;
  MF_RETURN_IF_ERROR(
      c->WithRank(c->input(0), format_str == "NCHW_VECT_C" ? 5 : 4, &input));
  // The last two inputs are ksize and strides, each a vector of 4.
  const int ksize_index = c->num_inputs() - 2;
  const int strides_index = c->num_inputs() - 1;
  for (int i : {ksize_index, strides_index}) {
    ShapeHandle vec;
    DimensionHandle unused;
    MF_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &vec));
    MF_RETURN_IF_ERROR(c->WithValue(c->Dim(vec, 0), 4, &unused));
  }
  const Tensor* ksize_t = c->input_tensor(ksize_index);
  const Tensor* strides_t = c->input_tensor(strides_index);
  if (ksize_t == nullptr || strides_t == nullptr) {
    // TensorFlow gives up on the whole shape, rank included.
    c->set_output(0, c->UnknownShape());
    return OkStatus();
  }
  GivenWindow given;
  MF_RETURN_IF_ERROR(GetIntValues(*ksize_t, "ksize", &given.ksize));
  MF_RETURN_IF_ERROR(GetIntValues(*strides_t, "strides", &given.strides));
  return PoolShapeImpl(c, "MaxPool", /*pools_depth=*/true, &given);
}

// ---------------------------------------------------------------------------
// Values of constant inputs

Status GetIntValues(const Tensor& t, absl::string_view what,
                    std::vector<int64_t>* values) {
  values->clear();
  values->reserve(t.NumElements());
  if (t.dtype() == DT_INT16) {
    auto flat = t.flat<int16_t>();
    for (int64_t i = 0; i < flat.size(); ++i) values->push_back(flat(i));
  } else if (t.dtype() == DT_INT32) {
    auto flat = t.flat<int32_t>();
    for (int64_t i = 0; i < flat.size(); ++i) values->push_back(flat(i));
  } else if (t.dtype() == DT_INT64) {
    auto flat = t.flat<int64_t>();
    for (int64_t i = 0; i < flat.size(); ++i) values->push_back(flat(i));
  } else {
    return errors::InvalidArgument(what, " must be int32 or int64, but got ",
                                   DataTypeString(t.dtype()));
  }
  return OkStatus();
}

Status AppendErrorContext(const Status& s, absl::string_view context) {
  if (s.ok()) return s;
  Status out(s.code(), absl::StrCat(s.message(), "\n\t", context));
  s.ForEachPayload([&out](absl::string_view url, const absl::Cord& payload) {
    out.SetPayload(url, payload);
  });
  return out;
}

// ---------------------------------------------------------------------------
// Reductions and concatenation

Status ReductionShape(InferenceContext* c) {
  const ShapeHandle input = c->input(0);
  ShapeHandle indices;
  MF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), 1, &indices));
  bool keep_dims;
  MF_RETURN_IF_ERROR(c->GetAttr("keep_dims", &keep_dims));
  const Tensor* indices_t = c->input_tensor(1);
  if (indices_t == nullptr || !c->RankKnown(input)) {
    if (keep_dims && c->RankKnown(input)) {
      c->set_output(0, c->UnknownShapeOfRank(c->Rank(input)));
      return OkStatus();
    }
    return UnknownShape(c);
  }
  std::vector<int64_t> axes;
  MF_RETURN_IF_ERROR(GetIntValues(*indices_t, "reduction_indices", &axes));
  const int32_t rank = c->Rank(input);
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return errors::InvalidArgument("Invalid reduction dimension ", axis,
                                     " for input with ", rank, " dimensions.");
    }
    const int64_t wrapped = axis < 0 ? axis + rank : axis;
    if (reduced[wrapped]) {
      return errors::InvalidArgument(
          "Invalid reduction arguments: Axes contains duplicate dimension: ",
          wrapped);
    }
    reduced[wrapped] = true;
  }
  std::vector<DimensionHandle> dims;
  for (int i = 0; i < rank; ++i) {
    if (!reduced[i]) {
      dims.push_back(c->Dim(input, i));
    } else if (keep_dims) {
      dims.push_back(c->MakeDim(1));
    }
  }
  c->set_output(0, c->MakeShape(dims));
  return OkStatus();
}

Status ConcatShapeHelper(InferenceContext* c, int start_value_index,
                         int end_value_index, int dim_index) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(dim_index), 0, &unused));
  const Tensor* axis_t = c->input_tensor(dim_index);
  if (axis_t == nullptr) {
    // The axis is unknown: the output has the inputs' rank, all dims
    // unknown (every input must have that rank).
    int32_t rank = InferenceContext::kUnknownRank;
    for (int i = start_value_index; i < end_value_index; ++i) {
      rank = c->Rank(c->input(i));
      if (rank != InferenceContext::kUnknownRank) break;
    }
    if (rank == InferenceContext::kUnknownRank) {
      c->set_output(0, c->UnknownShape());
      return OkStatus();
    }
    if (rank == 0) {
      return errors::InvalidArgument(
          "Can't concatenate scalars (use tf.stack instead)");
    }
    for (int i = start_value_index; i < end_value_index; ++i) {
      MF_RETURN_IF_ERROR(c->WithRank(c->input(i), rank, &unused));
    }
    c->set_output(0, c->UnknownShapeOfRank(rank));
    return OkStatus();
  }
  std::vector<int64_t> axis_values;
  MF_RETURN_IF_ERROR(GetIntValues(*axis_t, "axis", &axis_values));
  if (axis_values.size() != 1) {
    return errors::InvalidArgument("axis must be a scalar, but has ",
                                   axis_values.size(), " values");
  }
  const int64_t axis = axis_values[0];
  if (axis >= kMaxTensorRank || axis < -kMaxTensorRank) {
    return errors::InvalidArgument(
        "Concat axis ", axis, " is beyond the maximum rank ", kMaxTensorRank);
  }
  const int64_t min_rank = axis < 0 ? -axis : axis + 1;

  // Merge every input's dims before and after the axis; sum along it.
  ShapeHandle before;
  ShapeHandle after;
  DimensionHandle middle;
  for (int i = end_value_index - 1; i >= start_value_index; --i) {
    ShapeHandle input;
    MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(i), min_rank, &input));
    ShapeHandle in_before;
    ShapeHandle in_after;
    MF_RETURN_IF_ERROR(c->Subshape(input, 0, axis, &in_before));
    const DimensionHandle in_middle = c->Dim(input, axis);
    if (axis == -1) {
      in_after = c->Scalar();
    } else {
      MF_RETURN_IF_ERROR(c->Subshape(input, axis + 1, &in_after));
    }
    if (i == end_value_index - 1) {
      before = in_before;
      middle = in_middle;
      after = in_after;
      continue;
    }
    MF_RETURN_IF_ERROR(c->Merge(in_before, before, &before));
    MF_RETURN_IF_ERROR(c->Add(middle, in_middle, &middle));
    MF_RETURN_IF_ERROR(c->Merge(in_after, after, &after));
  }
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->Concatenate(before, c->Vector(middle), &out));
  MF_RETURN_IF_ERROR(c->Concatenate(out, after, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status ConcatShape(InferenceContext* c, int num_inputs_to_concat) {
  return ConcatShapeHelper(c, 1, 1 + num_inputs_to_concat, 0);
}

Status ConcatV2Shape(InferenceContext* c) {
  return ConcatShapeHelper(c, 0, c->num_inputs() - 1, c->num_inputs() - 1);
}

// ---------------------------------------------------------------------------
// Slice

Status SliceShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle begin_shape;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &begin_shape));
  ShapeHandle sizes_shape;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &sizes_shape));
  MF_RETURN_IF_ERROR(c->Merge(begin_shape, sizes_shape, &begin_shape));
  const DimensionHandle ndims = c->Dim(begin_shape, 0);
  if (c->ValueKnown(ndims)) {
    MF_RETURN_IF_ERROR(c->WithRank(input, c->Value(ndims), &input));
  }
  // `begin` read as a partial shape: -1 (or an unknown value) is unknown.
  ShapeHandle begin;
  MF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &begin));

  const Tensor* sizes_t = c->input_tensor(2);
  if (sizes_t != nullptr) {
    if (sizes_t->dims() != 1) {
      return errors::InvalidArgument("size must be a vector, but got shape ",
                                     sizes_t->shape().DebugString());
    }
    std::vector<int64_t> sizes;
    MF_RETURN_IF_ERROR(GetIntValues(*sizes_t, "size", &sizes));
    const int64_t n = static_cast<int64_t>(sizes.size());
    MF_RETURN_IF_ERROR(c->WithRank(begin, n, &begin));
    MF_RETURN_IF_ERROR(c->WithRank(input, n, &input));
    std::vector<DimensionHandle> dims;
    dims.reserve(n);
    for (int64_t i = 0; i < n; ++i) {
      const DimensionHandle dim = c->Dim(input, i);
      const DimensionHandle b = c->Dim(begin, i);
      if (sizes[i] == -1) {
        DimensionHandle rest;
        MF_RETURN_IF_ERROR(c->Subtract(dim, b, &rest));
        dims.push_back(rest);
        continue;
      }
      if (sizes[i] < 0) {
        return errors::InvalidArgument(
            "Out of bounds slicing on dimension ", i, " of length ",
            c->Value(dim), ": sizes vector cannot be < -1, but was ", sizes[i]);
      }
      if (c->ValueKnown(dim) && c->ValueKnown(b) &&
          (c->Value(b) > c->Value(dim) ||
           sizes[i] > c->Value(dim) - c->Value(b))) {
        return errors::InvalidArgument(
            "Expected size[", i, "] in [0, ",
            std::max<int64_t>(0, c->Value(dim) - c->Value(b)), "], but got ",
            sizes[i]);
      }
      dims.push_back(c->MakeDim(sizes[i]));
    }
    c->set_output(0, c->MakeShape(dims));
    return OkStatus();
  }
  // Sizes unknown as values, but maybe as a partial shape (-1 reads as ?).
  ShapeHandle sizes;
  MF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(2, &sizes));
  if (c->RankKnown(sizes)) {
    MF_RETURN_IF_ERROR(c->WithRank(begin, c->Rank(sizes), &begin));
    std::vector<DimensionHandle> dims;
    for (int i = 0; i < c->Rank(sizes); ++i) dims.push_back(c->Dim(sizes, i));
    c->set_output(0, c->MakeShape(dims));
    return OkStatus();
  }
  if (c->RankKnown(input)) {
    c->set_output(0, c->UnknownShapeOfRank(c->Rank(input)));
    return OkStatus();
  }
  return UnknownShape(c);
}

}  // namespace shape_inference
}  // namespace minflow
