// TensorFlow 1's TensorArray (the V3 ops). TensorArrayV3 hands out a
// DT_RESOURCE handle whose handle data carries the element dtype and shape,
// so the refiner sees through it (also across Enter/Switch/Merge/Identity):
// Read, Gather and Concat infer their outputs from it, Write, Scatter and
// Split check their values against it. Every op takes and gives a float
// "flow" scalar that only orders the ops.
//
// One departure from TensorFlow: TF's shape functions say the handle is a
// vector of 2 (the V2 string handle's shape), although the V3 kernel
// outputs a scalar. minflow infers the scalar the kernel really makes, and
// the consumers accept either, so graphs whose handle comes from elsewhere
// with TF's static shape still refine.
#include <string>
#include <vector>

#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"

namespace minflow {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeAndType;
using shape_inference::ShapeHandle;

// Input 0 must be a TensorArray handle: a scalar, or TensorFlow's static
// vector of 2.
Status CheckHandle(InferenceContext* c) {
  ShapeHandle handle = c->input(0);
  if (!c->RankKnown(handle) || c->Rank(handle) == 0) return OkStatus();
  ShapeHandle vec;
  MF_RETURN_IF_ERROR(c->WithRank(handle, 1, &vec));
  DimensionHandle unused;
  return c->WithValue(c->Dim(vec, 0), 2, &unused);
}

// The elements' dtype and shape from the handle's producer; null when
// unknown.
const ShapeAndType* ElementData(InferenceContext* c) {
  const std::vector<ShapeAndType>* data = c->input_handle_shapes_and_types(0);
  if (data == nullptr || data->empty()) return nullptr;
  return &(*data)[0];
}

// The TensorArray's dtype (when known) must be the op's `attr`.
Status CheckElementDtype(InferenceContext* c, const ShapeAndType* element,
                         const char* attr) {
  if (element == nullptr || element->dtype == DT_INVALID) return OkStatus();
  DataType dtype = DT_INVALID;
  MF_RETURN_IF_ERROR(c->GetAttr(attr, &dtype));
  if (dtype == element->dtype) return OkStatus();
  // The kernels' wording, for reads and for writes.
  return errors::InvalidArgument(
      "TensorArray dtype is ", DataTypeString(element->dtype),
      std::string(attr) == "T" ? " but Op is trying to write dtype "
                               : " but Op requested dtype ",
      DataTypeString(dtype), ".");
}

// The element shape: the handle's, narrowed by the op's shape attr `attr`
// when it has one.
Status ElementShape(InferenceContext* c, const ShapeAndType* element,
                    const char* attr, ShapeHandle* out) {
  *out = element != nullptr ? element->shape : c->UnknownShape();
  if (attr == nullptr) return OkStatus();
  PartialTensorShape p;
  MF_RETURN_IF_ERROR(c->GetAttr(attr, &p));
  ShapeHandle from_attr;
  MF_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(p, &from_attr));
  return c->Merge(*out, from_attr, out);
}

Status TensorArrayShape(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, &unused));
  c->set_output(0, c->Scalar());
  c->set_output(1, c->Scalar());
  DataType dtype = DT_INVALID;
  MF_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
  PartialTensorShape p;
  MF_RETURN_IF_ERROR(c->GetAttr("element_shape", &p));
  ShapeHandle element;
  MF_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(p, &element));
  // Every write is checked against element_shape, so even a partly known
  // one holds for every element.
  c->set_output_handle_shapes_and_types(0, {ShapeAndType(element, dtype)});
  return OkStatus();
}

Status TensorArrayWriteShape(InferenceContext* c) {
  MF_RETURN_IF_ERROR(CheckHandle(c));
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(3), 0, &unused));
  const ShapeAndType* element = ElementData(c);
  if (element != nullptr) {
    MF_RETURN_IF_ERROR(CheckElementDtype(c, element, "T"));
    MF_RETURN_IF_ERROR(c->Merge(element->shape, c->input(2), &unused));
  }
  return shape_inference::ScalarShape(c);
}

Status TensorArrayReadShape(InferenceContext* c) {
  MF_RETURN_IF_ERROR(CheckHandle(c));
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  const ShapeAndType* element = ElementData(c);
  MF_RETURN_IF_ERROR(CheckElementDtype(c, element, "dtype"));
  ShapeHandle shape;
  MF_RETURN_IF_ERROR(ElementShape(c, element, nullptr, &shape));
  c->set_output(0, shape);
  return OkStatus();
}

// [len(indices)] + element shape.
Status TensorArrayGatherShape(InferenceContext* c) {
  MF_RETURN_IF_ERROR(CheckHandle(c));
  ShapeHandle indices;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &indices));
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  const ShapeAndType* element = ElementData(c);
  MF_RETURN_IF_ERROR(CheckElementDtype(c, element, "dtype"));
  ShapeHandle shape;
  MF_RETURN_IF_ERROR(ElementShape(c, element, "element_shape", &shape));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->Concatenate(indices, shape, &out));
  c->set_output(0, out);
  return OkStatus();
}

// value: [len(indices)] + element shape.
Status TensorArrayScatterShape(InferenceContext* c) {
  MF_RETURN_IF_ERROR(CheckHandle(c));
  ShapeHandle indices;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &indices));
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(3), 0, &unused));
  ShapeHandle value;
  MF_RETURN_IF_ERROR(c->MergePrefix(c->input(2), indices, &value, &indices));
  const ShapeAndType* element = ElementData(c);
  if (element != nullptr) {
    MF_RETURN_IF_ERROR(CheckElementDtype(c, element, "T"));
    ShapeHandle rows;
    MF_RETURN_IF_ERROR(c->Subshape(value, 1, &rows));
    MF_RETURN_IF_ERROR(c->Merge(element->shape, rows, &unused));
  }
  return shape_inference::ScalarShape(c);
}

// value: [?] + element shape[1:]; lengths: [?].
Status TensorArrayConcatShape(InferenceContext* c) {
  MF_RETURN_IF_ERROR(CheckHandle(c));
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  const ShapeAndType* element = ElementData(c);
  MF_RETURN_IF_ERROR(CheckElementDtype(c, element, "dtype"));
  c->set_output(1, c->Vector(InferenceContext::kUnknownDim));
  ShapeHandle except0 = c->UnknownShape();
  // A scalar element fails at run time ("Concat saw a scalar shape"); the
  // refiner leaves that to the kernel, as TensorFlow's does.
  if (element != nullptr && c->RankKnown(element->shape) &&
      c->Rank(element->shape) >= 1) {
    MF_RETURN_IF_ERROR(c->Subshape(element->shape, 1, &except0));
  }
  PartialTensorShape p;
  MF_RETURN_IF_ERROR(c->GetAttr("element_shape_except0", &p));
  ShapeHandle from_attr;
  MF_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(p, &from_attr));
  MF_RETURN_IF_ERROR(c->Merge(except0, from_attr, &except0));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(
      c->Concatenate(c->Vector(InferenceContext::kUnknownDim), except0, &out));
  c->set_output(0, out);
  return OkStatus();
}

// value: at least a vector whose rows fit the element shape[1:].
Status TensorArraySplitShape(InferenceContext* c) {
  MF_RETURN_IF_ERROR(CheckHandle(c));
  ShapeHandle unused;
  ShapeHandle value;
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &value));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &unused));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(3), 0, &unused));
  const ShapeAndType* element = ElementData(c);
  if (element != nullptr) {
    MF_RETURN_IF_ERROR(CheckElementDtype(c, element, "T"));
    if (c->RankKnown(element->shape) && c->RankKnown(value)) {
      ShapeHandle element_rows;
      MF_RETURN_IF_ERROR(
          c->WithRank(element->shape, c->Rank(value), &element_rows));
      MF_RETURN_IF_ERROR(c->Subshape(element_rows, 1, &element_rows));
      ShapeHandle value_rows;
      MF_RETURN_IF_ERROR(c->Subshape(value, 1, &value_rows));
      MF_RETURN_IF_ERROR(c->Merge(element_rows, value_rows, &unused));
    }
  }
  return shape_inference::ScalarShape(c);
}

Status TensorArraySizeShape(InferenceContext* c) {
  MF_RETURN_IF_ERROR(CheckHandle(c));
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  return shape_inference::ScalarShape(c);
}

Status TensorArrayCloseShape(InferenceContext* c) {
  MF_RETURN_IF_ERROR(CheckHandle(c));
  return shape_inference::NoOutputs(c);
}

}  // namespace

REGISTER_OP("TensorArrayV3")
    .Input("size: int32")
    .Attr("dtype: type")
    .Attr("element_shape: shape = { unknown_rank: true }")
    .Attr("dynamic_size: bool = false")
    .Attr("clear_after_read: bool = true")
    .Attr("identical_element_shapes: bool = false")
    .Attr("tensor_array_name: string = ''")
    .Output("handle: resource")
    .Output("flow: float")
    .SetIsStateful()
    .SetShapeFn(TensorArrayShape)
    .Doc(R"doc(
Creates a TensorArray: a list of tensors of one type for loops to fill and read.

The array lives for the step (the run) unless closed first. Each element is
written once.

size: A scalar, the initial number of elements.
handle: The array.
flow: A scalar that orders the ops on the array: thread it through them.
dtype: The type of every element.
element_shape: The shape of every element, where known.
dynamic_size: Writes past the end grow the array instead of failing.
clear_after_read: A read frees the element, so it may be read only once.
identical_element_shapes: Every element has the same shape: the first
  write fixes the shape of the rest.
tensor_array_name: A name for error messages.
)doc");

REGISTER_OP("TensorArrayWriteV3")
    .Input("handle: resource")
    .Input("index: int32")
    .Input("value: T")
    .Input("flow_in: float")
    .Output("flow_out: float")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(TensorArrayWriteShape)
    .Doc(R"doc(
Writes value as element index of a TensorArray.

Writing an element a second time is an error.

index: A scalar.
flow_in: The flow of the op this one must follow.
flow_out: A flow for later ops on the array.
)doc");

REGISTER_OP("TensorArrayReadV3")
    .Input("handle: resource")
    .Input("index: int32")
    .Input("flow_in: float")
    .Output("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(TensorArrayReadShape)
    .Doc(R"doc(
Reads element index of a TensorArray.

index: A scalar.
flow_in: The flow of the op this one must follow.
)doc");

REGISTER_OP("TensorArrayGatherV3")
    .Input("handle: resource")
    .Input("indices: int32")
    .Input("flow_in: float")
    .Output("value: dtype")
    .Attr("dtype: type")
    .Attr("element_shape: shape = { unknown_rank: true }")
    .SetIsStateful()
    .SetShapeFn(TensorArrayGatherShape)
    .Doc(R"doc(
Stacks the elements at indices of a TensorArray into one tensor.

indices: A vector; the output's first dimension is its length.
flow_in: The flow of the op this one must follow.
element_shape: The shape of the elements, where known: it gives the shape
  of an empty gather.
)doc");

REGISTER_OP("TensorArrayScatterV3")
    .Input("handle: resource")
    .Input("indices: int32")
    .Input("value: T")
    .Input("flow_in: float")
    .Output("flow_out: float")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(TensorArrayScatterShape)
    .Doc(R"doc(
Writes the slices value[i] along the first dimension to the elements indices[i].

indices: A vector as long as value's first dimension.
flow_in: The flow of the op this one must follow.
flow_out: A flow for later ops on the array.
)doc");

REGISTER_OP("TensorArrayConcatV3")
    .Input("handle: resource")
    .Input("flow_in: float")
    .Output("value: dtype")
    .Output("lengths: int64")
    .Attr("dtype: type")
    .Attr("element_shape_except0: shape = { unknown_rank: true }")
    .SetIsStateful()
    .SetShapeFn(TensorArrayConcatShape)
    .Doc(R"doc(
Concatenates every element of a TensorArray along the first dimension.

value: The elements joined along their first dimension.
lengths: The first dimension of each element.
flow_in: The flow of the op this one must follow.
element_shape_except0: The shape of the elements past their first
  dimension, where known.
)doc");

REGISTER_OP("TensorArraySplitV3")
    .Input("handle: resource")
    .Input("value: T")
    .Input("lengths: int64")
    .Input("flow_in: float")
    .Output("flow_out: float")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(TensorArraySplitShape)
    .Doc(R"doc(
Splits value along its first dimension into the elements of a TensorArray.

lengths: A vector, the size of each piece; they add up to value's first
  dimension.
flow_in: The flow of the op this one must follow.
flow_out: A flow for later ops on the array.
)doc");

REGISTER_OP("TensorArraySizeV3")
    .Input("handle: resource")
    .Input("flow_in: float")
    .Output("size: int32")
    .SetIsStateful()
    .SetShapeFn(TensorArraySizeShape)
    .Doc(R"doc(
The current number of elements of a TensorArray.

flow_in: The flow of the op this one must follow.
)doc");

REGISTER_OP("TensorArrayCloseV3")
    .Input("handle: resource")
    .SetIsStateful()
    .SetShapeFn(TensorArrayCloseShape)
    .Doc("Frees a TensorArray and its elements before the step ends.");

}  // namespace minflow
