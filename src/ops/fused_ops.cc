// TensorFlow's internal fused ops, which Grappler's remapper writes into
// graphs: a contraction (MatMul, Conv2D, DepthwiseConv2dNative) followed by
// BiasAdd or FusedBatchNorm and an optional activation, named in the
// `fused_ops` attr; and FusedBatchNorm with a side input and Relu. Interfaces
// match TensorFlow's (math_ops.cc and nn_ops.cc there).
#include <string>

#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"
#include "minflow/framework/shape_inference.h"
#include "minflow/framework/tensor_format.h"

namespace minflow {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

// FusedBatchNormV3's shape (4-D x) plus cuDNN's constraint that TensorFlow
// checks here: a known channel count divisible by 4.
Status FusedBatchNormExShape(InferenceContext* c) {
  std::string format_str;
  MF_RETURN_IF_ERROR(c->GetAttr("data_format", &format_str));
  TensorFormat format;
  MF_RETURN_IF_ERROR(GetTensorFormatFromString(format_str, &format));
  ShapeHandle x;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &x));
  bool is_training;
  MF_RETURN_IF_ERROR(c->GetAttr("is_training", &is_training));
  float exponential_avg_factor;
  MF_RETURN_IF_ERROR(
      c->GetAttr("exponential_avg_factor", &exponential_avg_factor));
  const int vectors = is_training && exponential_avg_factor == 1.0f ? 3 : 5;
  const int channel_index = GetTensorFeatureDimIndex(4, format);
  DimensionHandle channels = c->Dim(x, channel_index);
  for (int i = 1; i < vectors; ++i) {
    ShapeHandle vec;
    MF_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &vec));
    MF_RETURN_IF_ERROR(c->Merge(channels, c->Dim(vec, 0), &channels));
  }
  if (c->ValueKnown(channels) && c->Value(channels) % 4 != 0) {
    return errors::InvalidArgument(
        "_FusedBatchNormEx channel dimension must be divisible by 4.");
  }
  ShapeHandle y;
  MF_RETURN_IF_ERROR(c->ReplaceDim(x, channel_index, channels, &y));
  c->set_output(0, y);
  const ShapeHandle vector = c->Vector(channels);
  for (int i = 1; i <= 4; ++i) c->set_output(i, vector);
  c->set_output(5, c->UnknownShape());
  return OkStatus();
}

}  // namespace

REGISTER_OP("_FusedMatMul")
    .Input("a: T")
    .Input("b: T")
    .Input("args: num_args * T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {bfloat16, half, float}")
    .Attr("num_args: int >= 0")
    .Attr("fused_ops: list(string) = []")
    .Attr("epsilon: float = 0.0001")
    .Attr("leakyrelu_alpha: float = 0.2")
    .SetShapeFn(shape_inference::MatMulShape);

REGISTER_OP("_FusedConv2D")
    .Input("input: T")
    .Input("filter: T")
    .Input("args: TArgs")
    .Input("host_args : num_host_args * float")
    .Output("output: T")
    .Attr("T: {half, float, double, int8, qint8}")
    .Attr("TArgs: list(type)")
    .Attr("num_args: int >= 0")
    .Attr("num_host_args: int >= 0 = 0")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .Attr("filter_format: {'HWIO', 'OIHW', 'OIHW_VECT_I'} = 'HWIO'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("fused_ops: list(string) = []")
    .Attr("epsilon: float = 0.0001")
    .Attr("leakyrelu_alpha: float = 0.2")
    .SetShapeFn(shape_inference::Conv2DShapeWithExplicitPadding);

REGISTER_OP("_FusedDepthwiseConv2dNative")
    .Input("input: T")
    .Input("filter: T")
    .Input("args: num_args * T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("num_args: int >= 0")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("fused_ops: list(string) = []")
    .Attr("epsilon: float = 0.0001")
    .Attr("leakyrelu_alpha: float = 0.2")
    .SetShapeFn(shape_inference::DepthwiseConv2DNativeShape);

REGISTER_OP("_FusedBatchNormEx")
    .Input("x: T")
    .Input("scale: U")
    .Input("offset: U")
    .Input("mean: U")
    .Input("variance: U")
    .Input("side_input: num_side_inputs * T")
    .Output("y: T")
    .Output("batch_mean: U")
    .Output("batch_variance: U")
    .Output("reserve_space_1: U")
    .Output("reserve_space_2: U")
    .Output("reserve_space_3: U")
    .Attr("T: {half, float, bfloat16}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("num_side_inputs: int >= 0 = 0")
    .Attr("activation_mode: string = \"Identity\"")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormExShape);

}  // namespace minflow
