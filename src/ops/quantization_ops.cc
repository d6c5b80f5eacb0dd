// Quantisation-aware training ops: FakeQuantWithMinMax{Args,Vars,
// VarsPerChannel} and QuantizeAndDequantizeV2/V3/V4 (array_ops in
// TensorFlow). Interfaces match TensorFlow's.
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"
#include "minflow/framework/shape_inference.h"

namespace minflow {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

Status FakeQuantVarsShape(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  c->set_output(0, c->input(0));
  return OkStatus();
}

Status FakeQuantVarsPerChannelShape(InferenceContext* c) {
  ShapeHandle input;
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &input));
  ShapeHandle min;
  ShapeHandle max;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &min));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &max));
  DimensionHandle depth;
  MF_RETURN_IF_ERROR(c->Merge(c->Dim(input, -1), c->Dim(min, 0), &depth));
  MF_RETURN_IF_ERROR(c->Merge(depth, c->Dim(max, 0), &depth));
  c->set_output(0, input);
  return OkStatus();
}

// Scalar input_min/input_max, or vectors of the input's dim `axis`.
Status QuantizeAndDequantizeShape(InferenceContext* c) {
  int axis;
  MF_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  const int minmax_rank = axis == -1 ? 0 : 1;
  ShapeHandle minmax;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), minmax_rank, &minmax));
  MF_RETURN_IF_ERROR(c->Merge(c->input(2), minmax, &minmax));
  if (axis < -1) {
    return errors::InvalidArgument("axis should be at least -1, got ", axis);
  }
  if (axis != -1) {
    ShapeHandle input;
    MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), axis + 1, &input));
    DimensionHandle depth;
    MF_RETURN_IF_ERROR(
        c->Merge(c->Dim(minmax, 0), c->Dim(input, axis), &depth));
  }
  c->set_output(0, c->input(0));
  return OkStatus();
}

Status QuantizeAndDequantizeV3Shape(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(3), 0, &unused));
  return QuantizeAndDequantizeShape(c);
}

}  // namespace

REGISTER_OP("FakeQuantWithMinMaxArgs")
    .Input("inputs: float")
    .Output("outputs: float")
    .Attr("min: float = -6.0")
    .Attr("max: float = 6.0")
    .Attr("num_bits: int = 8")
    .Attr("narrow_range: bool = false")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Rounds floats to the nearest of 2^num_bits levels spanning [min, max].

The range is nudged so that 0 is one of the levels, values are clamped to
it, and the result stays float: this simulates 8-bit (or narrower)
quantisation in a float graph.

min: The lower end of the range.
max: The upper end of the range.
num_bits: From 2 to 16.
narrow_range: Use 2^num_bits - 1 levels, leaving out the lowest.
)doc");

REGISTER_OP("FakeQuantWithMinMaxVars")
    .Input("inputs: float")
    .Input("min: float")
    .Input("max: float")
    .Output("outputs: float")
    .Attr("num_bits: int = 8")
    .Attr("narrow_range: bool = false")
    .SetShapeFn(FakeQuantVarsShape)
    .Doc(R"doc(
FakeQuantWithMinMaxArgs whose range comes from the min and max inputs.

min: A scalar, the lower end of the range.
max: A scalar, the upper end of the range.
num_bits: From 2 to 16.
narrow_range: Use 2^num_bits - 1 levels, leaving out the lowest.
)doc");

REGISTER_OP("FakeQuantWithMinMaxVarsPerChannel")
    .Input("inputs: float")
    .Input("min: float")
    .Input("max: float")
    .Output("outputs: float")
    .Attr("num_bits: int = 8")
    .Attr("narrow_range: bool = false")
    .SetShapeFn(FakeQuantVarsPerChannelShape)
    .Doc(R"doc(
FakeQuantWithMinMaxVars with one range per channel (the last dimension).

min: A vector, one lower end per channel.
max: A vector, one upper end per channel.
num_bits: From 2 to 16.
narrow_range: Use 2^num_bits - 1 levels, leaving out the lowest.
)doc");

REGISTER_OP("QuantizeAndDequantizeV2")
    .Input("input: T")
    .Input("input_min: T")
    .Input("input_max: T")
    .Output("output: T")
    .Attr("signed_input: bool = true")
    .Attr("num_bits: int = 8")
    .Attr("range_given: bool = false")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("round_mode: {'HALF_TO_EVEN', 'HALF_UP'} = 'HALF_TO_EVEN'")
    .Attr("narrow_range: bool = false")
    .Attr("axis: int = -1")
    .SetShapeFn(QuantizeAndDequantizeShape)
    .Doc(R"doc(
Rounds input as a round trip through a num_bits integer would, staying in float.

The range [min, max] is widened on one side so that 0 maps exactly: the
end that needs the coarser step sets the scale, and the output is
round(input * scale) / scale.

input_min: The lower end of the range, when range_given; a scalar, or a
  vector with one value per slice of axis.
input_max: The upper end of the range, when range_given.
signed_input: Simulate a signed integer (else unsigned).
num_bits: The integer's width.
range_given: Use input_min and input_max, clamping input to them; else the
  range is the input's own minimum and maximum.
round_mode: HALF_TO_EVEN or HALF_UP.
narrow_range: For signed input, leave out the lowest integer so that the
  range is symmetric.
axis: Quantise each slice along this axis with its own range; -1 uses one
  range for the whole tensor.
)doc");

REGISTER_OP("QuantizeAndDequantizeV3")
    .Input("input: T")
    .Input("input_min: T")
    .Input("input_max: T")
    .Input("num_bits: int32")
    .Output("output: T")
    .Attr("signed_input: bool = true")
    .Attr("range_given: bool = true")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("narrow_range: bool = false")
    .Attr("axis: int = -1")
    .SetShapeFn(QuantizeAndDequantizeV3Shape)
    .Doc(R"doc(
QuantizeAndDequantizeV2 with num_bits as an input and rounding half to even.

input_min: The lower end of the range, when range_given.
input_max: The upper end of the range, when range_given.
num_bits: A scalar, the integer's width.
signed_input: Simulate a signed integer (else unsigned).
range_given: Use input_min and input_max, clamping input to them; else the
  range is the input's own minimum and maximum.
narrow_range: For signed input, leave out the lowest integer so that the
  range is symmetric.
axis: Quantise each slice along this axis with its own range; -1 uses one
  range for the whole tensor.
)doc");

REGISTER_OP("QuantizeAndDequantizeV4")
    .Input("input: T")
    .Input("input_min: T")
    .Input("input_max: T")
    .Output("output: T")
    .Attr("signed_input: bool = true")
    .Attr("num_bits: int = 8")
    .Attr("range_given: bool = false")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("round_mode: {'HALF_TO_EVEN', 'HALF_UP'} = 'HALF_TO_EVEN'")
    .Attr("narrow_range: bool = false")
    .Attr("axis: int = -1")
    .SetShapeFn(QuantizeAndDequantizeShape)
    .Doc(R"doc(
The same forward computation as QuantizeAndDequantizeV2.

TensorFlow gives V4 a different gradient; minflow runs both alike.

input_min: The lower end of the range, when range_given.
input_max: The upper end of the range, when range_given.
signed_input: Simulate a signed integer (else unsigned).
num_bits: The integer's width.
range_given: Use input_min and input_max, clamping input to them; else the
  range is the input's own minimum and maximum.
round_mode: HALF_TO_EVEN or HALF_UP.
narrow_range: For signed input, leave out the lowest integer so that the
  range is symmetric.
axis: Quantise each slice along this axis with its own range; -1 uses one
  range for the whole tensor.
)doc");

}  // namespace minflow
