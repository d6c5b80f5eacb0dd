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
    .SetShapeFn(shape_inference::MatMulShape)
    .Doc(R"doc(
MatMul followed by BiasAdd and an optional activation, in one pass.

Grappler's remapper writes it into graphs; the result equals the unfused
ops'.

args: The bias vector.
num_args: The number of args: 1.
transpose_a: Use the transpose of a.
transpose_b: Use the transpose of b.
fused_ops: ["BiasAdd"], optionally followed by "Relu", "Relu6", "Elu" or
  "LeakyRelu".
epsilon: Unused: no batch norm fuses into a MatMul.
leakyrelu_alpha: LeakyRelu's slope for negative inputs.
)doc");

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
    .SetShapeFn(shape_inference::Conv2DShapeWithExplicitPadding)
    .Doc(R"doc(
Conv2D followed by BiasAdd or FusedBatchNorm and an optional activation.

Grappler's remapper writes it into graphs; the result equals the unfused
ops'. minflow's CPU kernel takes the NHWC and HWIO layouts.

args: The operands of fused_ops: the bias vector for BiasAdd; scale,
  offset, mean and variance (inference only) for FusedBatchNorm.
host_args: Host-side scalars of quantised forms; the CPU kernel takes none.
TArgs: The types of args.
num_args: The number of args.
num_host_args: The number of host_args: 0 on the CPU.
strides: As Conv2D's.
padding: As Conv2D's.
explicit_paddings: As Conv2D's.
data_format: As Conv2D's, plus NCHW_VECT_C.
filter_format: The filter's layout: HWIO as Conv2D's, or OIHW forms.
dilations: As Conv2D's.
use_cudnn_on_gpu: Accepted for compatibility; minflow ignores it.
fused_ops: What follows the contraction, in order: ["BiasAdd"] or
  ["FusedBatchNorm"], optionally followed by "Relu", "Relu6", "Elu" or
  "LeakyRelu".
epsilon: FusedBatchNorm's epsilon.
leakyrelu_alpha: LeakyRelu's slope for negative inputs.
)doc");

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
    .SetShapeFn(shape_inference::DepthwiseConv2DNativeShape)
    .Doc(R"doc(
DepthwiseConv2dNative followed by BiasAdd or FusedBatchNorm and an optional activation.

Grappler's remapper writes it into graphs; the result equals the unfused
ops'.

args: The operands of fused_ops: the bias vector for BiasAdd; scale,
  offset, mean and variance (inference only) for FusedBatchNorm.
num_args: The number of args.
strides: As DepthwiseConv2dNative's.
padding: As DepthwiseConv2dNative's.
data_format: As DepthwiseConv2dNative's.
dilations: As DepthwiseConv2dNative's.
fused_ops: What follows the contraction, in order: ["BiasAdd"] or
  ["FusedBatchNorm"], optionally followed by "Relu", "Relu6", "Elu" or
  "LeakyRelu".
epsilon: FusedBatchNorm's epsilon.
leakyrelu_alpha: LeakyRelu's slope for negative inputs.
)doc");

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
    .SetShapeFn(FusedBatchNormExShape)
    .Doc(R"doc(
FusedBatchNormV3 plus an optional side input added to y and an optional Relu.

TensorFlow runs it on the GPU only; minflow runs it on the CPU too. Inputs,
outputs and the shared attrs are FusedBatchNormV3's.

side_input: Zero or one tensor of x's shape, added to y before the
  activation.
num_side_inputs: 0 or 1.
activation_mode: "Identity" (none) or "Relu".
epsilon: Added to the variance before its square root.
exponential_avg_factor: Training: the weight of the batch statistics in the
  new running ones.
is_training: Normalise with the batch's own statistics (true) or with mean
  and variance (false).
)doc");

}  // namespace minflow
