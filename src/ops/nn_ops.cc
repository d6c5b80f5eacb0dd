// Neural-network ops: activations, BiasAdd, Conv2D, Conv2DBackpropInput,
// the convolution and pooling gradients,
// Conv3D, DepthwiseConv2dNative, MaxPool, MaxPoolV2, AvgPool,
// MaxPoolWithArgmax, MaxPool3D, AvgPool3D, Softmax, LogSoftmax, FusedBatchNorm
// (V1-V3), LRN and TopKV2. Interfaces match TensorFlow's.
#include <cstdint>
#include <string>
#include <vector>

#include "minflow/core/tensor.h"
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"
#include "minflow/framework/padding.h"
#include "minflow/framework/shape_inference.h"
#include "minflow/framework/tensor_format.h"

namespace minflow {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

Status SoftmaxShape(InferenceContext* c) {
  return shape_inference::UnchangedShapeWithRankAtLeast(c, 1);
}

// A vector as long as out_backprop's channel dimension.
Status BiasAddGradShape(InferenceContext* c) {
  std::string data_format;
  MF_RETURN_IF_ERROR(c->GetAttr("data_format", &data_format));
  TensorFormat format;
  if (!GetTensorFormatFromString(data_format, &format).ok()) {
    return errors::InvalidArgument("Invalid data format string: ", data_format);
  }
  ShapeHandle input;
  MF_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(0), format == FORMAT_NCHW ? 3 : 2, &input));
  if (!c->RankKnown(input)) {
    c->set_output(0, c->Vector(c->UnknownDim()));
    return OkStatus();
  }
  c->set_output(0, c->Vector(c->Dim(input, GetTensorFeatureDimIndex(
                                               c->Rank(input), format))));
  return OkStatus();
}

// values and indices: the input with its last dim replaced by k.
Status TopKShape(InferenceContext* c) {
  ShapeHandle input;
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &input));
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  DimensionHandle k;
  MF_RETURN_IF_ERROR(c->MakeDimForScalarInput(1, &k));
  const DimensionHandle last = c->Dim(input, -1);
  if (c->ValueKnown(last) && c->ValueKnown(k) && c->Value(last) < c->Value(k)) {
    return errors::InvalidArgument("input must have last dimension >= k = ",
                                   c->Value(k), " but is ", c->Value(last));
  }
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->Subshape(input, 0, -1, &out));
  MF_RETURN_IF_ERROR(c->Concatenate(out, c->Vector(k), &out));
  c->set_output(0, out);
  c->set_output(1, out);
  return OkStatus();
}

// x [N, H, W, C] (or NCHW; 5-D for NDHWC / NCDHW) with per-channel scale
// and offset, plus mean and variance when they are read (inference, or a
// running average): y is x's shape with the channel dim merged across
// them, the four statistics are [C].
Status FusedBatchNormShape(InferenceContext* c) {
  std::string format_str;
  MF_RETURN_IF_ERROR(c->GetAttr("data_format", &format_str));
  TensorFormat format;
  int spatial_dims;
  MF_RETURN_IF_ERROR(GetTensorFormatAndSpatialDimsFromString(
      format_str, &format, &spatial_dims));
  const int rank = spatial_dims + 2;
  ShapeHandle x;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, &x));
  bool is_training;
  MF_RETURN_IF_ERROR(c->GetAttr("is_training", &is_training));
  float exponential_avg_factor;
  MF_RETURN_IF_ERROR(
      c->GetAttr("exponential_avg_factor", &exponential_avg_factor));
  const int vectors = is_training && exponential_avg_factor == 1.0f ? 3 : 5;
  const int channel_index = GetTensorFeatureDimIndex(rank, format);
  DimensionHandle channels = c->Dim(x, channel_index);
  for (int i = 1; i < vectors; ++i) {
    ShapeHandle vec;
    MF_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &vec));
    MF_RETURN_IF_ERROR(c->Merge(channels, c->Dim(vec, 0), &channels));
  }
  ShapeHandle y;
  MF_RETURN_IF_ERROR(c->ReplaceDim(x, channel_index, channels, &y));
  c->set_output(0, y);
  const ShapeHandle vector = c->Vector(channels);
  for (int i = 1; i <= 4; ++i) c->set_output(i, vector);
  return OkStatus();
}

// As FusedBatchNorm, and reserve_space_3 of unknown shape (an opaque
// buffer for the gradient).
Status FusedBatchNormV3Shape(InferenceContext* c) {
  MF_RETURN_IF_ERROR(FusedBatchNormShape(c));
  c->set_output(5, c->UnknownShape());
  return OkStatus();
}

// TensorFlow's Conv2DBackpropInputShape: `input_sizes` holds the whole
// input shape (4 values) or only its rows and cols (2 values; batch from
// out_backprop, depth from the filter).
Status Conv2DBackpropInputShape(InferenceContext* c) {
  std::string format_str;
  if (!c->GetAttr("data_format", &format_str).ok()) format_str = "NHWC";
  TensorFormat format;
  if (!FormatFromString(format_str, &format)) {
    return errors::InvalidArgument("Invalid data format string: ", format_str);
  }
  const int n_dim = GetTensorDimIndex(format, 'N');
  const int h_dim = GetTensorDimIndex(format, 'H');
  const int w_dim = GetTensorDimIndex(format, 'W');
  const int c_dim = GetTensorDimIndex(format, 'C');
  ShapeHandle out_backprop;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 4, &out_backprop));
  ShapeHandle filter;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, &filter));
  DimensionHandle batch = c->Dim(out_backprop, n_dim);
  DimensionHandle unused;
  MF_RETURN_IF_ERROR(
      c->Merge(c->Dim(out_backprop, c_dim), c->Dim(filter, 3), &unused));

  ShapeHandle sizes;
  MF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &sizes));
  if (!c->RankKnown(sizes)) {
    MF_RETURN_IF_ERROR(c->WithRank(sizes, 4, &sizes));
  }
  DimensionHandle rows;
  DimensionHandle cols;
  DimensionHandle depth;
  const int64_t rank = c->Rank(sizes);
  if (rank == 4) {
    // As TensorFlow: checked against, but the batch stays out_backprop's.
    MF_RETURN_IF_ERROR(c->Merge(c->Dim(sizes, n_dim), batch, &unused));
    rows = c->Dim(sizes, h_dim);
    cols = c->Dim(sizes, w_dim);
    depth = c->Dim(sizes, c_dim);
  } else if (rank == 2) {
    rows = c->Dim(sizes, 0);
    cols = c->Dim(sizes, 1);
    depth = c->Dim(filter, 2);
  } else {
    return errors::InvalidArgument(
        "Conv2DBackpropInput requires input_sizes to contain 4 values or 2 "
        "values, but got: ",
        rank);
  }
  c->set_output(0, format == FORMAT_NHWC
                       ? c->MakeShape({batch, rows, cols, depth})
                       : c->MakeShape({batch, depth, rows, cols}));
  return OkStatus();
}

// The output of a backprop op whose shape is a shape-tensor input
// (filter_sizes, input_sizes, orig_input_shape): 4-D.
Status ShapeFromSizesInput(InferenceContext* c, int sizes_input) {
  ShapeHandle sizes;
  MF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(sizes_input, &sizes));
  MF_RETURN_IF_ERROR(c->WithRank(sizes, 4, &sizes));
  c->set_output(0, sizes);
  return OkStatus();
}

// The output sizes of the three spatial dims of a 5-D window op (Conv3D,
// the 3-D pools) over `input` laid out as `format`; `window` in D, H, W
// order, `strides` and `dilations` 5 values in the data format's order.
Status Spatial3DOutputDims(InferenceContext* c, ShapeHandle input,
                           TensorFormat format,
                           const std::vector<DimensionHandle>& window,
                           const std::vector<int64_t>& strides,
                           const std::vector<int64_t>& dilations,
                           Padding padding, std::vector<DimensionHandle>* out) {
  out->resize(3);
  for (int i = 0; i < 3; ++i) {
    const int dim = GetTensorSpatialDimIndex(5, format, i);
    MF_RETURN_IF_ERROR(GetWindowedOutputSizeFromDimsV2(
        c, c->Dim(input, dim), window[i], dilations[dim], strides[dim], padding,
        0, 0, &(*out)[i]));
  }
  return OkStatus();
}

ShapeHandle MakeShape3D(InferenceContext* c, TensorFormat format,
                        DimensionHandle batch,
                        const std::vector<DimensionHandle>& spatial,
                        DimensionHandle depth) {
  return format == FORMAT_NHWC
             ? c->MakeShape({batch, spatial[0], spatial[1], spatial[2], depth})
             : c->MakeShape({batch, depth, spatial[0], spatial[1], spatial[2]});
}

// NDHWC unless `data_format` says NCDHW, as TensorFlow's 3-D shape
// functions read it.
TensorFormat Format3D(InferenceContext* c) {
  std::string data_format;
  return c->GetAttr("data_format", &data_format).ok() && data_format == "NCDHW"
             ? FORMAT_NCHW
             : FORMAT_NHWC;
}

// TensorFlow's Conv3DShape: input [N,D,H,W,C] (or NCDHW), filter
// [KD,KH,KW,C/groups,K].
Status Conv3DShape(InferenceContext* c) {
  ShapeHandle input;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 5, &input));
  ShapeHandle filter;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 5, &filter));
  const TensorFormat format = Format3D(c);
  std::vector<int64_t> dilations;
  MF_RETURN_IF_ERROR(c->GetAttr("dilations", &dilations));
  if (dilations.size() != 5) {
    return errors::InvalidArgument(
        "Conv3D requires the dilation attribute to contain 5 values, but got: ",
        dilations.size());
  }
  std::vector<int64_t> strides;
  MF_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  if (strides.size() != 5) {
    return errors::InvalidArgument(
        "Conv3D requires the stride attribute to contain 5 values, but got: ",
        strides.size());
  }
  const DimensionHandle in_depth =
      c->Dim(input, GetTensorFeatureDimIndex(5, format));
  const DimensionHandle filter_in_depth = c->Dim(filter, 3);
  const DimensionHandle out_depth = c->Dim(filter, 4);
  if (c->ValueKnown(in_depth) && c->ValueKnown(filter_in_depth)) {
    const int64_t in = c->Value(in_depth);
    const int64_t per_group = c->Value(filter_in_depth);
    if (per_group == 0) {
      return errors::InvalidArgument("Depth of filter must not be 0");
    }
    if (in % per_group != 0) {
      return errors::InvalidArgument(
          "Depth of input (", in,
          ") is not a multiple of input depth of filter (", per_group, ")");
    }
    const int64_t groups = in / per_group;
    if (in != per_group && c->ValueKnown(out_depth)) {
      if (groups == 0) {
        return errors::InvalidArgument("Number of groups must not be 0");
      }
      if (c->Value(out_depth) % groups != 0) {
        return errors::InvalidArgument(
            "Depth of output (", c->Value(out_depth),
            ") is not a multiple of the number of groups (", groups, ")");
      }
    }
  }
  Padding padding;
  MF_RETURN_IF_ERROR(GetPaddingAttr(c, "padding", &padding));
  std::vector<DimensionHandle> spatial;
  MF_RETURN_IF_ERROR(Spatial3DOutputDims(
      c, input, format,
      {c->Dim(filter, 0), c->Dim(filter, 1), c->Dim(filter, 2)}, strides,
      dilations, padding, &spatial));
  c->set_output(0,
                MakeShape3D(c, format, c->Dim(input, 0), spatial, out_depth));
  return OkStatus();
}

// TensorFlow's Pool3DShape: input [N,D,H,W,C] (or NCDHW), a window of
// `ksize` moved by `strides` (5 values each, in the data format's order).
Status Pool3DShape(InferenceContext* c) {
  ShapeHandle input;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 5, &input));
  const TensorFormat format = Format3D(c);
  std::vector<int64_t> strides;
  MF_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  if (strides.size() != 5) {
    return errors::InvalidArgument(
        "Pool3D ops require the stride attribute to contain 5 values, but "
        "got: ",
        strides.size());
  }
  std::vector<int64_t> ksize;
  MF_RETURN_IF_ERROR(c->GetAttr("ksize", &ksize));
  if (ksize.size() != 5) {
    return errors::InvalidArgument(
        "Pool3D requires the ksize attribute to contain 5 values, but got: ",
        ksize.size());
  }
  Padding padding;
  MF_RETURN_IF_ERROR(GetPaddingAttr(c, "padding", &padding));
  std::vector<DimensionHandle> window;
  for (int i = 0; i < 3; ++i) {
    window.push_back(c->MakeDim(ksize[GetTensorSpatialDimIndex(5, format, i)]));
  }
  std::vector<DimensionHandle> spatial;
  MF_RETURN_IF_ERROR(Spatial3DOutputDims(c, input, format, window, strides,
                                         {1, 1, 1, 1, 1}, padding, &spatial));
  c->set_output(
      0, MakeShape3D(c, format, c->Dim(input, 0), spatial,
                     c->Dim(input, GetTensorFeatureDimIndex(5, format))));
  return OkStatus();
}

}  // namespace

// ---- Activations
// ---------------------------------------------------------------

REGISTER_OP("Relu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {realnumbertype, qint8}")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc("Rectified linear unit: max(features, 0), element-wise.");

REGISTER_OP("ReluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn)
    .Doc(R"doc(
The gradient of Relu: gradients where features > 0, else 0.

gradients: The gradient flowing into Relu's output.
features: Relu's input; the same shape as gradients.
)doc");

// ---- Activation gradients, softmax cross-entropies, FusedBatchNormGrad

namespace {

// logits [batch, classes] and labels [batch]: loss [batch], backprop as
// logits, with the batch dim merged across both.
Status SparseXentShape(InferenceContext* c) {
  ShapeHandle features;
  ShapeHandle labels;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &features));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &labels));
  DimensionHandle batch;
  MF_RETURN_IF_ERROR(c->Merge(c->Dim(features, 0), c->Dim(labels, 0), &batch));
  MF_RETURN_IF_ERROR(c->ReplaceDim(features, 0, batch, &features));
  c->set_output(0, c->Vector(batch));
  c->set_output(1, features);
  return OkStatus();
}

// logits and labels of one shape [batch, classes], or two that broadcast
// to it: loss [batch], backprop [batch, classes].
Status XentShape(InferenceContext* c) {
  ShapeHandle shape;
  if (!c->WithRank(c->input(0), 2, &shape).ok() ||
      !c->Merge(shape, c->input(1), &shape).ok()) {
    MF_RETURN_IF_ERROR(shape_inference::BroadcastBinaryOpOutputShapeFnHelper(
        c, c->input(0), c->input(1), /*incompatible_shape_error=*/true,
        &shape));
    if (!c->RankKnown(shape) || c->Rank(shape) != 2) {
      return errors::InvalidArgument(
          "logits and labels must broadcast to rank 2, but got ",
          c->DebugString(c->input(0)), " and ", c->DebugString(c->input(1)));
    }
  }
  c->set_output(0, c->Vector(c->Dim(shape, 0)));
  c->set_output(1, shape);
  return OkStatus();
}

// y_backprop and x of one shape (rank 4, or 5 for NDHWC and NCDHW) and
// three [C] vectors: x_backprop is x's shape, scale_backprop and
// offset_backprop [C], the reserve outputs [0].
Status FusedBatchNormGradShape(InferenceContext* c) {
  std::string format_str;
  MF_RETURN_IF_ERROR(c->GetAttr("data_format", &format_str));
  TensorFormat format;
  int spatial_dims;
  MF_RETURN_IF_ERROR(GetTensorFormatAndSpatialDimsFromString(
      format_str, &format, &spatial_dims));
  ShapeHandle x;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), spatial_dims + 2, &x));
  MF_RETURN_IF_ERROR(c->Merge(x, c->input(1), &x));
  DimensionHandle channels =
      c->Dim(x, GetTensorFeatureDimIndex(spatial_dims + 2, format));
  for (int i = 2; i < 5; ++i) {
    ShapeHandle vec;
    MF_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &vec));
    MF_RETURN_IF_ERROR(c->Merge(channels, c->Dim(vec, 0), &channels));
  }
  MF_RETURN_IF_ERROR(c->ReplaceDim(
      x, GetTensorFeatureDimIndex(spatial_dims + 2, format), channels, &x));
  c->set_output(0, x);
  c->set_output(1, c->Vector(channels));
  c->set_output(2, c->Vector(channels));
  for (int i = 3; i < c->num_outputs(); ++i) c->set_output(i, c->Vector(0));
  return OkStatus();
}

// The documentation FusedBatchNormGrad, V2 and V3 share.
std::string FusedBatchNormGradDoc(const char* summary, const char* tail) {
  return std::string(summary) + "\n\n" +
         R"doc(y_backprop: The gradient flowing into the forward op's y.
x: The forward op's x.
scale: The forward op's scale.
reserve_space_1: Training: the forward op's reserve_space_1 (the batch
  mean). Inference: the population mean.
reserve_space_2: Training: the forward op's reserve_space_2 (the biased
  batch variance). Inference: the population variance.
x_backprop: The gradient of x. In training it includes the path through
  the batch statistics.
scale_backprop: The gradient of scale, per channel.
offset_backprop: The gradient of offset, per channel.
epsilon: The forward op's epsilon.
data_format: The forward op's data_format.
is_training: The forward op's is_training.
)doc" + tail;
}

}  // namespace

REGISTER_OP("SoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: T")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(XentShape)
    .Doc(R"doc(
Softmax cross-entropy of each row of features against a distribution.

loss[i] = sum_j labels[i][j] * (logsumexp(features[i]) - features[i][j]).
features and labels may broadcast against each other (a [1, classes] row
against a batch, say) to [batch, classes].

features: Unscaled logits.
labels: A probability distribution per row (each row sums to 1 for
  backprop to be the loss's gradient).
loss: The loss of each row, [batch].
backprop: softmax(features) - labels, [batch, classes].
)doc");

REGISTER_OP("SparseSoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: Tlabels")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("Tlabels: {int32, int64} = DT_INT64")
    .SetShapeFn(SparseXentShape)
    .Doc(R"doc(
Softmax cross-entropy of each row of features against a class index.

loss[i] = -log(softmax(features[i])[labels[i]]), computed as
logsumexp(features[i]) - features[i][labels[i]], so a tiny probability
does not round to log(0).

features: Unscaled logits, [batch, classes].
labels: The class of each row, [batch], each in [0, classes); another value
  is InvalidArgument.
loss: The loss of each row, [batch].
backprop: The loss's gradient with respect to features: softmax(features)
  minus the one-hot labels.
)doc");

REGISTER_OP("Relu6Grad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn)
    .Doc(R"doc(
The gradient of Relu6: gradients where 0 < features < 6, else 0.

gradients: The gradient flowing into Relu6's output.
features: Relu6's input (or its output: the mask is the same).
)doc");

REGISTER_OP("EluGrad")
    .Input("gradients: T")
    .Input("outputs: T")
    .Output("backprops: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn)
    .Doc(R"doc(
The gradient of Elu, from its output.

gradients where outputs > 0, else gradients * (outputs + 1).

gradients: The gradient flowing into Elu's output.
outputs: Elu's output.
)doc");

REGISTER_OP("SeluGrad")
    .Input("gradients: T")
    .Input("outputs: T")
    .Output("backprops: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn)
    .Doc(R"doc(
The gradient of Selu, from its output.

gradients * scale where outputs > 0, else gradients * (outputs + scale *
alpha).

gradients: The gradient flowing into Selu's output.
outputs: Selu's output.
)doc");

REGISTER_OP("LeakyReluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn)
    .Doc(R"doc(
The gradient of LeakyRelu, from its input.

gradients where features > 0, else alpha * gradients.

gradients: The gradient flowing into LeakyRelu's output.
features: LeakyRelu's input.
alpha: LeakyRelu's alpha.
)doc");

REGISTER_OP("SoftplusGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn)
    .Doc(R"doc(
The gradient of Softplus: gradients * sigmoid(features).

gradients: The gradient flowing into Softplus's output.
features: Softplus's input.
)doc");

REGISTER_OP("SoftsignGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn)
    .Doc(R"doc(
The gradient of Softsign: gradients / (1 + abs(features))^2.

gradients: The gradient flowing into Softsign's output.
features: Softsign's input.
)doc");

REGISTER_OP("FusedBatchNormGrad")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: T")
    .Input("reserve_space_1: T")
    .Input("reserve_space_2: T")
    .Output("x_backprop: T")
    .Output("scale_backprop: T")
    .Output("offset_backprop: T")
    .Output("reserve_space_3: T")
    .Output("reserve_space_4: T")
    .Attr("T: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormGradShape)
    .Doc(FusedBatchNormGradDoc(
        "The gradients of FusedBatchNorm's x, scale and offset.",
        "reserve_space_3: Unused, empty.\nreserve_space_4: Unused, empty.\n"));

REGISTER_OP("FusedBatchNormGradV2")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: float")
    .Input("reserve_space_1: U")
    .Input("reserve_space_2: U")
    .Output("x_backprop: T")
    .Output("scale_backprop: U")
    .Output("offset_backprop: U")
    .Output("reserve_space_3: U")
    .Output("reserve_space_4: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormGradShape)
    .Doc(FusedBatchNormGradDoc(
        "The gradients of FusedBatchNormV2's x, scale and offset.",
        "reserve_space_3: Unused, empty.\nreserve_space_4: Unused, empty.\n"));

REGISTER_OP("FusedBatchNormGradV3")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: float")
    .Input("reserve_space_1: U")
    .Input("reserve_space_2: U")
    .Input("reserve_space_3: U")
    .Output("x_backprop: T")
    .Output("scale_backprop: U")
    .Output("offset_backprop: U")
    .Output("reserve_space_4: U")
    .Output("reserve_space_5: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormGradShape)
    .Doc(FusedBatchNormGradDoc(
        "The gradients of FusedBatchNormV3's x, scale and offset.",
        "reserve_space_3: The forward op's reserve_space_3 (unused).\n"
        "reserve_space_4: Unused, empty.\nreserve_space_5: Unused, empty.\n"));

REGISTER_OP("Relu6")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc("Relu capped at 6: min(max(features, 0), 6), element-wise.");

REGISTER_OP("Elu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Exponential linear unit: features where > 0, else exp(features) - 1.
)doc");

REGISTER_OP("Selu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Scaled exponential linear unit, element-wise.

scale * features where features > 0, else scale * alpha * (exp(features) -
1), with the fixed alpha ~ 1.6733 and scale ~ 1.0507 of self-normalising
networks.
)doc");

REGISTER_OP("LeakyRelu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
features where > 0, else alpha * features, element-wise.

alpha: The slope for negative inputs.
)doc");

REGISTER_OP("Softplus")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
log(exp(features) + 1), element-wise, without overflow for large inputs.
)doc");

REGISTER_OP("Softsign")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc("features / (abs(features) + 1), element-wise.");

REGISTER_OP("Softmax")
    .Input("logits: T")
    .Output("softmax: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(SoftmaxShape)
    .Doc(R"doc(
exp(logits) normalised to sum to 1 along the last dimension.

Computed with the row's maximum subtracted first, so large logits do not
overflow.

logits: A tensor of rank >= 1.
)doc");

REGISTER_OP("LogSoftmax")
    .Input("logits: T")
    .Output("logsoftmax: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(SoftmaxShape)
    .Doc(R"doc(
The logarithm of Softmax along the last dimension.

logits: A tensor of rank >= 1.
)doc");

// ---- Bias, convolution, pooling
// ------------------------------------------------

REGISTER_OP("BiasAdd")
    .Attr("T: numbertype")
    .Input("value: T")
    .Input("bias: T")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Output("output: T")
    .SetShapeFn(shape_inference::BiasAddShape)
    .Doc(R"doc(
Adds a per-channel bias to value, broadcast over the other dimensions.

bias: A vector as long as value's channel dimension.
data_format: Which dimension of value is the channel: the last (NHWC) or
  the second (NCHW), for any rank >= 2 (>= 3 for NCHW).
)doc");

REGISTER_OP("BiasAddGrad")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: numbertype")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .SetShapeFn(BiasAddGradShape)
    .Doc(R"doc(
The gradient of BiasAdd's bias: out_backprop summed per channel.

Every dimension but the channel one is summed over.

out_backprop: The gradient flowing into BiasAdd's output.
data_format: Which dimension is the channel, as BiasAdd's attr.
)doc");

REGISTER_OP("Conv2D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double, int32}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(shape_inference::Conv2DShapeWithExplicitPadding)
    .Doc(R"doc(
2-D convolution of a 4-D input with a 4-D filter.

As in deep-learning libraries, this is cross-correlation: the filter is not
flipped. Channels of input must be a multiple of the filter's in_channels,
giving grouped convolution when it is larger.

input: A 4-D tensor in data_format's layout.
filter: [filter_height, filter_width, in_channels, out_channels].
strides: The step of the sliding window in each dimension of input, in
  data_format's order; the batch and channel strides must be 1.
use_cudnn_on_gpu: Accepted for compatibility; minflow ignores it.
padding: SAME pads so that the output has ceil(in / stride) positions;
  VALID uses only windows that fit inside the input; EXPLICIT takes the
  amounts from explicit_paddings.
explicit_paddings: With EXPLICIT padding, a (before, after) pair for each
  dimension of input, in data_format's order; the batch and channel pairs
  must be 0. Empty otherwise.
data_format: NHWC ([batch, height, width, channels]) or NCHW ([batch,
  channels, height, width]). The CPU kernel takes NHWC only.
dilations: The spacing of the filter taps in each dimension of input,
  in data_format's order; 1 is a dense filter. Batch and channel must be 1.
)doc");

REGISTER_OP("Conv2DBackpropInput")
    .Input("input_sizes: int32")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double, int32}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(Conv2DBackpropInputShape)
    .Doc(R"doc(
The gradient of Conv2D with respect to its input.

Also the transposed convolution used to upsample.

input_sizes: A vector of 4, the shape of Conv2D's input.
filter: Conv2D's filter.
out_backprop: The gradient with respect to Conv2D's output.
strides: The step of the sliding window in each dimension of input, in
  data_format's order; the batch and channel strides must be 1.
use_cudnn_on_gpu: Accepted for compatibility; minflow ignores it.
padding: SAME pads so that the output has ceil(in / stride) positions;
  VALID uses only windows that fit inside the input; EXPLICIT takes the
  amounts from explicit_paddings.
explicit_paddings: With EXPLICIT padding, a (before, after) pair for each
  dimension of input, in data_format's order; the batch and channel pairs
  must be 0. Empty otherwise.
data_format: NHWC ([batch, height, width, channels]) or NCHW ([batch,
  channels, height, width]). The CPU kernel takes NHWC only.
dilations: The spacing of the filter taps in each dimension of input,
  in data_format's order; 1 is a dense filter. Batch and channel must be 1.
)doc");

// ---- Convolution and pooling gradients (issue 20). The CPU kernels are
// in src/kernels/conv_grad_*_op.cc, depthwise_conv_grad_op.cc and
// pooling_grad_ops.cc; the gradient functions in src/cc/gradients/
// conv_grad.cc.

REGISTER_OP("Conv2DBackpropFilter")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn([](InferenceContext* c) { return ShapeFromSizesInput(c, 1); })
    .Doc(R"doc(
The gradient of Conv2D with respect to its filter.

input: Conv2D's input.
filter_sizes: A vector of 4, the shape of Conv2D's filter.
out_backprop: The gradient with respect to Conv2D's output.
strides: Conv2D's strides.
use_cudnn_on_gpu: Accepted for compatibility; minflow ignores it.
padding: Conv2D's padding.
explicit_paddings: Conv2D's explicit_paddings.
data_format: Conv2D's data_format. The CPU kernel takes NHWC only.
dilations: Conv2D's dilations.
)doc");

REGISTER_OP("DepthwiseConv2dNativeBackpropInput")
    .Input("input_sizes: int32")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn([](InferenceContext* c) { return ShapeFromSizesInput(c, 0); })
    .Doc(R"doc(
The gradient of DepthwiseConv2dNative with respect to its input.

input_sizes: A vector of 4, the shape of the forward input.
filter: The forward filter, [filter_height, filter_width, in_channels,
  channel_multiplier].
out_backprop: The gradient with respect to the forward output.
strides: The forward op's strides.
padding: The forward op's padding.
explicit_paddings: The forward op's explicit_paddings.
data_format: The forward op's data_format. The CPU kernel takes NHWC only.
dilations: The forward op's dilations.
)doc");

REGISTER_OP("DepthwiseConv2dNativeBackpropFilter")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn([](InferenceContext* c) { return ShapeFromSizesInput(c, 1); })
    .Doc(R"doc(
The gradient of DepthwiseConv2dNative with respect to its filter.

input: The forward input.
filter_sizes: A vector of 4, the shape of the forward filter.
out_backprop: The gradient with respect to the forward output.
strides: The forward op's strides.
padding: The forward op's padding.
explicit_paddings: The forward op's explicit_paddings.
data_format: The forward op's data_format. The CPU kernel takes NHWC only.
dilations: The forward op's dilations.
)doc");

REGISTER_OP("MaxPoolGrad")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Output("output: T")
    .Attr("T: realnumbertype = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) {
      return shape_inference::UnchangedShapeWithRank(c, 4);
    })
    .Doc(R"doc(
The gradient of MaxPool: each window's gradient goes to its maximum.

Where a window holds the maximum more than once, the first in the window's
row-major order takes the gradient, as in TensorFlow.

orig_input: MaxPool's input.
orig_output: MaxPool's output.
grad: The gradient with respect to MaxPool's output.
ksize: MaxPool's ksize.
strides: MaxPool's strides.
padding: MaxPool's padding.
explicit_paddings: MaxPool's explicit_paddings.
data_format: MaxPool's data_format. The CPU kernel takes NHWC only.
)doc");

REGISTER_OP("MaxPoolGradV2")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Input("ksize: int32")
    .Input("strides: int32")
    .Output("output: T")
    .Attr("T: realnumbertype = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) {
      return shape_inference::UnchangedShapeWithRank(c, 4);
    })
    .Doc(R"doc(
MaxPoolGrad whose window size and strides are inputs rather than attrs.

orig_input: MaxPoolV2's input.
orig_output: MaxPoolV2's output.
grad: The gradient with respect to MaxPoolV2's output.
ksize: A vector of 4, in data_format's order.
strides: A vector of 4, in data_format's order.
padding: MaxPoolV2's padding.
data_format: MaxPoolV2's data_format. The CPU kernel takes NHWC only.
)doc");

REGISTER_OP("AvgPoolGrad")
    .Input("orig_input_shape: int32")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn([](InferenceContext* c) { return ShapeFromSizesInput(c, 0); })
    .Doc(R"doc(
The gradient of AvgPool: each window's gradient spread evenly over its taps.

A window shares its gradient only among the input elements it covers
(padding is not counted), as AvgPool divides.

orig_input_shape: A vector of 4, the shape of AvgPool's input.
grad: The gradient with respect to AvgPool's output.
ksize: AvgPool's ksize.
strides: AvgPool's strides.
padding: AvgPool's padding.
data_format: AvgPool's data_format. The CPU kernel takes NHWC only.
)doc");

REGISTER_OP("Conv3D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
    .SetShapeFn(Conv3DShape)
    .Doc(R"doc(
3-D convolution of a 5-D input with a 5-D filter.

input: A 5-D tensor in data_format's layout.
filter: [filter_depth, filter_height, filter_width, in_channels,
  out_channels].
strides: The window step in each of the 5 dimensions of input, in
  data_format's order; batch and channel must be 1.
padding: SAME pads so that the output has ceil(in / stride) positions;
  VALID uses only windows that fit inside the input.
data_format: NDHWC ([batch, depth, height, width, channels]) or NCDHW
  ([batch, channels, depth, height, width]). The CPU kernel takes NDHWC
  only.
dilations: The spacing of the filter taps in each of the 5 dimensions of
  input; batch and channel must be 1. The CPU kernel takes only 1s.
)doc");

REGISTER_OP("DepthwiseConv2dNative")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .SetShapeFn(shape_inference::DepthwiseConv2DNativeShapeWithExplicitPadding)
    .Doc(R"doc(
2-D convolution of each input channel with its own filters.

Channel k of the input, convolved with filter[:, :, k, j], gives output
channel k * channel_multiplier + j.

filter: [filter_height, filter_width, in_channels, channel_multiplier].
strides: The step of the sliding window in each dimension of input, in
  data_format's order; the batch and channel strides must be 1.
padding: SAME pads so that the output has ceil(in / stride) positions;
  VALID uses only windows that fit inside the input; EXPLICIT takes the
  amounts from explicit_paddings.
explicit_paddings: With EXPLICIT padding, a (before, after) pair for each
  dimension of input, in data_format's order; the batch and channel pairs
  must be 0. Empty otherwise.
data_format: NHWC ([batch, height, width, channels]) or NCHW ([batch,
  channels, height, width]). The CPU kernel takes NHWC only.
dilations: The spacing of the filter taps in each dimension of input,
  in data_format's order; 1 is a dense filter. Batch and channel must be 1.
)doc");

REGISTER_OP("MaxPool")
    .Attr(
        "T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, "
        "uint16, qint8} = DT_FLOAT")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .Input("input: T")
    .Output("output: T")
    .SetShapeFn(shape_inference::MaxPoolShape)
    .Doc(R"doc(
The maximum of each sliding window over the spatial dimensions.

Padding positions never win.

ksize: The window size in each dimension of input, in data_format's
  order.
strides: The step of the sliding window in each dimension of input, in
  data_format's order; the batch and channel strides must be 1.
padding: SAME pads so that the output has ceil(in / stride) positions;
  VALID uses only windows that fit inside the input; EXPLICIT takes the
  amounts from explicit_paddings.
explicit_paddings: With EXPLICIT padding, a (before, after) pair for each
  dimension of input, in data_format's order; the batch and channel pairs
  must be 0. Empty otherwise.
data_format: NHWC, NCHW or NCHW_VECT_C, as in TensorFlow; the CPU kernel
  takes NHWC only.
)doc");

REGISTER_OP("MaxPoolV2")
    .Attr(
        "T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, "
        "uint16, qint8} = DT_FLOAT")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .Input("input: T")
    .Input("ksize: int32")
    .Input("strides: int32")
    .Output("output: T")
    .SetShapeFn(shape_inference::MaxPoolV2Shape)
    .Doc(R"doc(
MaxPool whose window size and strides are inputs rather than attrs.

ksize: A vector of 4, in data_format's order.
strides: A vector of 4, in data_format's order.
padding: SAME pads so that the output has ceil(in / stride) positions;
  VALID uses only windows that fit inside the input.
)doc");

REGISTER_OP("AvgPool")
    .Input("value: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_inference::AvgPoolShape)
    .Doc(R"doc(
The mean of each sliding window over the spatial dimensions.

Padding positions are not counted: a SAME window at the border averages only
the input elements it covers.

value: A 4-D tensor in data_format's layout.
ksize: The window size in each dimension of input, in data_format's
  order.
strides: The step of the sliding window in each dimension of input, in
  data_format's order; the batch and channel strides must be 1.
padding: SAME pads so that the output has ceil(in / stride) positions;
  VALID uses only windows that fit inside the input.
data_format: NHWC ([batch, height, width, channels]) or NCHW ([batch,
  channels, height, width]). The CPU kernel takes NHWC only.
)doc");

REGISTER_OP("MaxPoolWithArgmax")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("Targmax: {int32, int64} = DT_INT64")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("include_batch_in_index: bool = false")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
        "uint16, half, uint32, uint64}")
    .Input("input: T")
    .Output("output: T")
    .Output("argmax: Targmax")
    .SetShapeFn([](InferenceContext* c) {
      MF_RETURN_IF_ERROR(shape_inference::MaxPoolShape(c));
      c->set_output(1, c->output(0));
      return OkStatus();
    })
    .Doc(R"doc(
MaxPool over an NHWC input that also returns where each maximum came from.

The first maximum in the window's row-major order wins.

argmax: The flat index of each maximum in input: ((b * height + y) * width
  + x) * channels + c, or without the b term.
include_batch_in_index: Include the batch term in argmax.
ksize: The window size in each dimension of input, in data_format's
  order.
strides: The step of the sliding window in each dimension of input, in
  data_format's order; the batch and channel strides must be 1.
padding: SAME pads so that the output has ceil(in / stride) positions;
  VALID uses only windows that fit inside the input.
)doc");

REGISTER_OP("MaxPool3D")
    .Input("input: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("T: {half, bfloat16, float}")
    .SetShapeFn(Pool3DShape)
    .Doc(R"doc(
The maximum of each sliding 3-D window over a 5-D input.

ksize: The window size in each of the 5 dimensions of input, in
  data_format's order; batch and channel must be 1.
strides: The window step in each of the 5 dimensions of input, in
  data_format's order; batch and channel must be 1.
padding: SAME pads so that the output has ceil(in / stride) positions;
  VALID uses only windows that fit inside the input.
data_format: NDHWC ([batch, depth, height, width, channels]) or NCDHW
  ([batch, channels, depth, height, width]). The CPU kernel takes NDHWC
  only.
)doc");

REGISTER_OP("AvgPool3D")
    .Input("input: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(Pool3DShape)
    .Doc(R"doc(
The mean of each sliding 3-D window over a 5-D input.

Padding positions are not counted in the mean.

ksize: The window size in each of the 5 dimensions of input, in
  data_format's order; batch and channel must be 1.
strides: The window step in each of the 5 dimensions of input, in
  data_format's order; batch and channel must be 1.
padding: SAME pads so that the output has ceil(in / stride) positions;
  VALID uses only windows that fit inside the input.
data_format: NDHWC ([batch, depth, height, width, channels]) or NCDHW
  ([batch, channels, depth, height, width]). The CPU kernel takes NDHWC
  only.
)doc");

// ---- Normalisation
// ------------------------------------------------------------

namespace {

// The documentation FusedBatchNorm, V2 and V3 share: `summary`, the formula,
// then `x_doc`, the common arguments and `tail`.
std::string FusedBatchNormDoc(const char* summary, const char* x_doc,
                              const char* tail) {
  return std::string(summary) + "\n\n" +
         R"doc(y = (x - mean) / sqrt(variance + epsilon) * scale + offset, per channel.
Training uses the batch's mean and biased variance over every dimension but
the channel one.

)doc" + x_doc +
         R"doc(scale: One factor per channel.
offset: One offset per channel.
mean: The running mean, per channel; read only in inference.
variance: The running variance, per channel; read only in inference.
y: The normalised x.
batch_mean: Training: the new running mean. Inference: mean.
batch_variance: Training: the new running variance, Bessel-corrected.
  Inference: variance.
reserve_space_1: Training: the batch mean. Inference: mean.
reserve_space_2: Training: the biased batch variance. Inference: variance.
epsilon: Added to the variance before its square root.
exponential_avg_factor: Training: the weight of the batch statistics in the
  new running ones; 1 keeps only the batch statistics.
is_training: Normalise with the batch's own statistics (true) or with mean
  and variance (false).
)doc" + tail;
}

constexpr char kFusedBatchNorm4DFormat[] =
    R"doc(data_format: NHWC ([batch, height, width, channels]) or NCHW ([batch,
  channels, height, width]). The CPU kernel takes NHWC only.
)doc";

}  // namespace

REGISTER_OP("FusedBatchNorm")
    .Input("x: T")
    .Input("scale: T")
    .Input("offset: T")
    .Input("mean: T")
    .Input("variance: T")
    .Output("y: T")
    .Output("batch_mean: T")
    .Output("batch_variance: T")
    .Output("reserve_space_1: T")
    .Output("reserve_space_2: T")
    .Attr("T: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormShape)
    .Doc(FusedBatchNormDoc("Batch normalisation of a 4-D input in one op.",
                           "x: A 4-D tensor.\n", kFusedBatchNorm4DFormat));

REGISTER_OP("FusedBatchNormV2")
    .Input("x: T")
    .Input("scale: U")
    .Input("offset: U")
    .Input("mean: U")
    .Input("variance: U")
    .Output("y: T")
    .Output("batch_mean: U")
    .Output("batch_variance: U")
    .Output("reserve_space_1: U")
    .Output("reserve_space_2: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormShape)
    .Doc(FusedBatchNormDoc(
        "FusedBatchNorm whose statistics may have a type U wider than x's.",
        "x: A 4-D tensor.\n", kFusedBatchNorm4DFormat));

REGISTER_OP("FusedBatchNormV3")
    .Input("x: T")
    .Input("scale: U")
    .Input("offset: U")
    .Input("mean: U")
    .Input("variance: U")
    .Output("y: T")
    .Output("batch_mean: U")
    .Output("batch_variance: U")
    .Output("reserve_space_1: U")
    .Output("reserve_space_2: U")
    .Output("reserve_space_3: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {bfloat16, float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormV3Shape)
    .Doc(FusedBatchNormDoc(
        "FusedBatchNormV2 with a third reserve output; also takes 5-D inputs.",
        "x: A 4-D or 5-D tensor.\n",
        "reserve_space_3: An unused scalar 0.\n"
        "data_format: NHWC or NCHW for 4-D x; NDHWC or NCDHW for 5-D x.\n"));

REGISTER_OP("LRN")
    .Input("input: T")
    .Output("output: T")
    .Attr("depth_radius: int = 5")
    .Attr("bias: float = 1.0")
    .Attr("alpha: float = 1.0")
    .Attr("beta: float = 0.5")
    .Attr("T: {half, bfloat16, float} = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) {
      return shape_inference::UnchangedShapeWithRank(c, 4);
    })
    .Doc(R"doc(
Local response normalisation across channels of a 4-D NHWC input.

Each element is divided by (bias + alpha * sum of squares)^beta, the sum
over the channels within depth_radius of it.

depth_radius: How many neighbouring channels on each side are summed.
bias: Added to the scaled sum; keeps the divisor away from 0.
alpha: The scale of the sum of squares.
beta: The exponent.
)doc");

// ---- Top k
// ----------------------------------------------------------------------

REGISTER_OP("TopKV2")
    .Input("input: T")
    .Input("k: Tk")
    .Output("values: T")
    .Output("indices: index_type")
    .Attr("sorted: bool = true")
    .Attr("T: realnumbertype")
    .Attr("Tk: {int16, int32, int64} = DT_INT32")
    .Attr("index_type: {int16, int32, int64} = DT_INT32")
    .SetShapeFn(TopKShape)
    .Doc(R"doc(
The k largest entries of each row (the last dimension) and their indices.

Values come largest first; equal values come by lower index first. NaN
ranks above every number.

k: A scalar, at most the size of the last dimension.
sorted: Accepted for compatibility: the output is always sorted.
indices: The index of each value within its row.
)doc");

}  // namespace minflow
