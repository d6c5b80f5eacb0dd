// The ops of TensorFlow's "Create an op" guide, registered as built-ins:
// ZeroOut, Example and MedianPool2D (the fused sliding-window median the
// guide motivates). Their kernels live in src/kernels.
#include <cstdint>
#include <string>
#include <vector>

#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"
#include "minflow/framework/padding.h"
#include "minflow/framework/shape_inference.h"

namespace minflow {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

// A vector in, the same vector out; preserve_index must be a valid index.
Status ZeroOutShape(InferenceContext* c) {
  int64_t preserve_index;
  MF_RETURN_IF_ERROR(c->GetAttr("preserve_index", &preserve_index));
  if (preserve_index < 0) {
    return errors::InvalidArgument("Need preserve_index >= 0, got ",
                                   preserve_index);
  }
  ShapeHandle input;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &input));
  const DimensionHandle n = c->Dim(input, 0);
  if (c->ValueKnown(n) && preserve_index >= c->Value(n)) {
    return errors::InvalidArgument(
        "preserve_index out of range: ", preserve_index, " for a vector of ",
        c->Value(n), " elements");
  }
  c->set_output(0, input);
  return OkStatus();
}

// A median over each ksize window of an NHWC input: MaxPool's geometry
// without pooling across the batch or the channels.
Status MedianPool2DShape(InferenceContext* c) {
  std::string data_format;
  MF_RETURN_IF_ERROR(c->GetAttr("data_format", &data_format));
  if (data_format != "NHWC") {
    return errors::InvalidArgument(
        "MedianPool2D supports only the NHWC data format, got ", data_format);
  }
  std::vector<int64_t> ksize;
  std::vector<int64_t> strides;
  MF_RETURN_IF_ERROR(c->GetAttr("ksize", &ksize));
  MF_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  if (ksize.size() != 4 || strides.size() != 4) {
    return errors::InvalidArgument(
        "MedianPool2D requires ksize and strides to contain 4 values, but got ",
        ksize.size(), " and ", strides.size());
  }
  if (ksize[0] != 1 || ksize[3] != 1 || strides[0] != 1 || strides[3] != 1) {
    return errors::InvalidArgument(
        "MedianPool2D does not pool over the batch or depth dimensions: "
        "ksize and strides must be 1 there");
  }
  for (int i = 1; i <= 2; ++i) {
    if (ksize[i] <= 0) {
      return errors::InvalidArgument("Sliding window ksize must be positive, ",
                                     "but got ", ksize[i]);
    }
  }
  Padding padding;
  MF_RETURN_IF_ERROR(shape_inference::GetPaddingAttr(c, "padding", &padding));
  ShapeHandle input;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  DimensionHandle rows;
  DimensionHandle cols;
  MF_RETURN_IF_ERROR(shape_inference::GetWindowedOutputSizeFromDims(
      c, c->Dim(input, 1), ksize[1], strides[1], padding, &rows));
  MF_RETURN_IF_ERROR(shape_inference::GetWindowedOutputSizeFromDims(
      c, c->Dim(input, 2), ksize[2], strides[2], padding, &cols));
  c->set_output(0,
                c->MakeShape({c->Dim(input, 0), rows, cols, c->Dim(input, 3)}));
  return OkStatus();
}

}  // namespace

REGISTER_OP("ZeroOut")
    .Attr("T: realnumbertype")
    .Attr("preserve_index: int = 0")
    .Input("to_zero: T")
    .Output("zeroed: T")
    .SetShapeFn(ZeroOutShape)
    .Doc(R"doc(
Zeros every element of a vector but one.

to_zero: A 1-D tensor.
zeroed: `to_zero` with every element but `preserve_index` set to 0.
preserve_index: The index of the element kept; 0 <= preserve_index < len.
)doc");

REGISTER_OP("Example")
    .Attr("T: numbertype")
    .Input("input: T")
    .Output("input_times_two: T")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Doubles every element (the guide's functor example, CPU and GPU).
)doc");

REGISTER_OP("MedianPool2D")
    .Attr("T: realnumbertype")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC'} = 'NHWC'")
    .Input("input: T")
    .Output("output: T")
    .SetShapeFn(MedianPool2DShape)
    .Doc(R"doc(
Median of each sliding window over the rows and cols of an NHWC input.

The output has MaxPool's shape for the same ksize, strides and padding.
Padding positions are not values (as MaxPool ignores them): a SAME window at
the border takes the median of the in-image values it covers. The median of
n values is the element at index (n - 1) / 2 of them sorted ascending, so an
even-sized window takes the LOWER middle value, never a mean: the output is
always one of the inputs. With VALID padding that is the value
ExtractImagePatches -> TopKV2(k = n) -> element n / 2 picks, bit for bit up
to a zero's sign and a NaN's payload: floats are ordered with -0 just below
+0 and every NaN above +inf, and a NaN median is the canonical quiet NaN.

ksize: The window size for each dimension of the input; 1 on batch and depth.
strides: The stride of the window for each dimension; 1 on batch and depth.
)doc");

}  // namespace minflow
