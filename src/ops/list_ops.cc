// TensorFlow 2's TensorList ops. A list is a DT_VARIANT scalar; its element
// dtype and (partial) element shape travel as the variant output's handle
// data, so a TensorListStack or GetItem downstream (through loops, Identity
// and Switch/Merge, which the refiner passes handle data through) infers
// its output shape from the list's producer, merged with the op's own
// element_shape input when that is a constant.
#include <vector>

#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"

namespace minflow {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeAndType;
using shape_inference::ShapeHandle;

// The list behind input `index` when its producer said (handle data of one
// dtype and shape), else null. Handle data of several entries is not a
// list's: InvalidArgument saying `what` (TF's "Trying to ... list with
// wrong variant data.").
Status ListHandleData(InferenceContext* c, int index, const char* what,
                      const ShapeAndType** data) {
  *data = nullptr;
  const std::vector<ShapeAndType>* handle =
      c->input_handle_shapes_and_types(index);
  if (handle == nullptr || handle->empty()) return OkStatus();
  if (handle->size() != 1) {
    return errors::InvalidArgument("Trying to ", what,
                                   " list with wrong variant data.");
  }
  *data = &(*handle)[0];
  return OkStatus();
}

Status ElementDtype(InferenceContext* c, DataType* dtype) {
  return c->GetAttr("element_dtype", dtype);
}

// The list's element dtype must be the op's element_dtype.
Status CheckListDtype(const ShapeAndType& list, DataType element_dtype) {
  if (list.dtype != element_dtype) {
    return errors::InvalidArgument(
        "Expected list with element dtype ", DataTypeString(element_dtype),
        " but got list with element dtype ", DataTypeString(list.dtype));
  }
  return OkStatus();
}

// A new list: a scalar whose handle data is (element_shape input `shape_input`
// merged with `known`, element_dtype).
Status NewListShape(InferenceContext* c, int shape_input, ShapeHandle known) {
  c->set_output(0, c->Scalar());
  DataType element_dtype = DT_INVALID;
  MF_RETURN_IF_ERROR(ElementDtype(c, &element_dtype));
  ShapeHandle element_shape;
  MF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensorTreatScalarAsUnknownShape(
      shape_input, &element_shape));
  MF_RETURN_IF_ERROR(c->Merge(known, element_shape, &element_shape));
  c->set_output_handle_shapes_and_types(
      0, {ShapeAndType(element_shape, element_dtype)});
  return OkStatus();
}

// EmptyTensorList, TensorListReserve: element_shape is input 0; the other
// input is a scalar.
Status EmptyListShape(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  return NewListShape(c, 0, c->UnknownShape());
}

// The list made from the rows of input 0 (FromTensor, Scatter, Split):
// rows' shape merged with element_shape (input `shape_input`). Split's rows
// keep an unknown leading dimension.
Status ListFromRowsShape(InferenceContext* c, int shape_input,
                         bool leading_dim_unknown) {
  ShapeHandle tensor;
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &tensor));
  ShapeHandle rows;
  MF_RETURN_IF_ERROR(c->Subshape(tensor, 1, &rows));
  if (leading_dim_unknown && c->RankKnown(rows)) {
    MF_RETURN_IF_ERROR(
        c->Concatenate(c->Vector(InferenceContext::kUnknownDim), rows, &rows));
  }
  return NewListShape(c, shape_input, rows);
}

// An op that returns its input list changed (PushBack, SetItem, Resize,
// ScatterIntoExistingList): a scalar keeping the list's handle data, whose
// dtype must be the op's; `item` (if >= 0) is an input whose shape must fit
// `item_prefix` + the element shape.
Status ChangedListShape(InferenceContext* c, const char* what, int item,
                        bool item_has_rows) {
  c->set_output(0, c->Scalar());
  DataType element_dtype = DT_INVALID;
  if (c->attrs().Find("element_dtype") != nullptr) {
    MF_RETURN_IF_ERROR(ElementDtype(c, &element_dtype));
  }
  const ShapeAndType* list = nullptr;
  MF_RETURN_IF_ERROR(ListHandleData(c, 0, what, &list));
  if (list == nullptr) {
    if (element_dtype != DT_INVALID) {
      c->set_output_handle_shapes_and_types(
          0, {ShapeAndType(c->UnknownShape(), element_dtype)});
    }
    return OkStatus();
  }
  if (element_dtype != DT_INVALID && list->dtype != element_dtype) {
    return errors::InvalidArgument(
        "Trying to ", what, " list with wrong element dtype. List has type ",
        DataTypeString(list->dtype), " but the op's element_dtype is ",
        DataTypeString(element_dtype));
  }
  if (item >= 0) {
    ShapeHandle expected = list->shape;
    if (item_has_rows) {
      MF_RETURN_IF_ERROR(c->Concatenate(
          c->Vector(InferenceContext::kUnknownDim), list->shape, &expected));
    }
    ShapeHandle unused;
    MF_RETURN_IF_ERROR(c->Merge(c->input(item), expected, &unused));
  }
  c->set_output_handle_shapes_and_types(0, {*list});
  return OkStatus();
}

// The element shape a reading op sees: the list's (checked against the
// op's element_dtype) merged with element_shape input `shape_input`.
Status ReadElementShape(InferenceContext* c, int shape_input,
                        ShapeHandle* element_shape) {
  DataType element_dtype = DT_INVALID;
  MF_RETURN_IF_ERROR(ElementDtype(c, &element_dtype));
  *element_shape = c->UnknownShape();
  const ShapeAndType* list = nullptr;
  MF_RETURN_IF_ERROR(ListHandleData(c, 0, "read from", &list));
  if (list != nullptr) {
    MF_RETURN_IF_ERROR(CheckListDtype(*list, element_dtype));
    *element_shape = list->shape;
  }
  ShapeHandle from_input;
  MF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensorTreatScalarAsUnknownShape(
      shape_input, &from_input));
  return c->Merge(*element_shape, from_input, element_shape);
}

Status StackShape(InferenceContext* c) {
  ShapeHandle element_shape;
  MF_RETURN_IF_ERROR(ReadElementShape(c, 1, &element_shape));
  int64_t num_elements = -1;
  MF_RETURN_IF_ERROR(c->GetAttr("num_elements", &num_elements));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(
      c->Concatenate(c->Vector(num_elements < 0 ? InferenceContext::kUnknownDim
                                                : num_elements),
                     element_shape, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status GetItemShape(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  ShapeHandle element_shape;
  MF_RETURN_IF_ERROR(ReadElementShape(c, 2, &element_shape));
  c->set_output(0, element_shape);
  return OkStatus();
}

Status GatherShape(InferenceContext* c) {
  ShapeHandle indices;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &indices));
  ShapeHandle element_shape;
  MF_RETURN_IF_ERROR(ReadElementShape(c, 2, &element_shape));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->Concatenate(indices, element_shape, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status PopBackShape(InferenceContext* c) {
  ShapeHandle element_shape;
  MF_RETURN_IF_ERROR(ReadElementShape(c, 1, &element_shape));
  c->set_output(0, c->Scalar());
  const ShapeAndType* list = nullptr;
  MF_RETURN_IF_ERROR(ListHandleData(c, 0, "read from", &list));
  if (list != nullptr) c->set_output_handle_shapes_and_types(0, {*list});
  c->set_output(1, element_shape);
  return OkStatus();
}

Status ConcatShape(InferenceContext* c) {
  ShapeHandle element_shape;
  MF_RETURN_IF_ERROR(ReadElementShape(c, 1, &element_shape));
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &unused));
  if (c->RankKnown(element_shape)) {
    ShapeHandle rows;
    MF_RETURN_IF_ERROR(c->WithRankAtLeast(element_shape, 1, &rows));
    MF_RETURN_IF_ERROR(c->Subshape(rows, 1, &rows));
    ShapeHandle out;
    MF_RETURN_IF_ERROR(
        c->Concatenate(c->Vector(InferenceContext::kUnknownDim), rows, &out));
    c->set_output(0, out);
  } else {
    c->set_output(0, c->UnknownShape());
  }
  c->set_output(1, c->Vector(InferenceContext::kUnknownDim));
  return OkStatus();
}

// A vector of the element shape's rank, or a scalar -1 when the rank is
// unknown (what the kernel returns then).
Status ElementShapeShape(InferenceContext* c) {
  const ShapeAndType* list = nullptr;
  MF_RETURN_IF_ERROR(ListHandleData(c, 0, "read from", &list));
  if (list == nullptr || !c->RankKnown(list->shape)) {
    c->set_output(0, c->UnknownShape());
  } else {
    c->set_output(0, c->Vector(c->Rank(list->shape)));
  }
  return OkStatus();
}

Status PushBackShape(InferenceContext* c) {
  return ChangedListShape(c, "push to", 1, false);
}
Status SetItemShape(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  return ChangedListShape(c, "set an item of", 2, false);
}
Status ScatterIntoExistingListShape(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &unused));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &unused));
  return ChangedListShape(c, "scatter into", 1, true);
}
Status ResizeShape(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  return ChangedListShape(c, "resize", -1, false);
}

}  // namespace

REGISTER_OP("EmptyTensorList")
    .Input("element_shape: shape_type")
    .Input("max_num_elements: int32")
    .Output("handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(EmptyListShape)
    .Doc(R"doc(
An empty TensorList: a growable list of tensors of one type, held in a variant.

element_shape: The elements' shape: a vector with -1 for unknown dims, or
  the scalar -1 for unknown rank.
max_num_elements: A scalar; -1 means no limit on the list's length.
handle: The list.
)doc");

REGISTER_OP("TensorListReserve")
    .Input("element_shape: shape_type")
    .Input("num_elements: int32")
    .Output("handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(EmptyListShape)
    .Doc(R"doc(
A TensorList of num_elements unset elements.

Reading an unset element gives zeros of the element shape, which must then
be fully known.

element_shape: The elements' shape: a vector with -1 for unknown dims, or
  the scalar -1 for unknown rank.
num_elements: A scalar.
)doc");

REGISTER_OP("TensorListFromTensor")
    .Input("tensor: element_dtype")
    .Input("element_shape: shape_type")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn([](InferenceContext* c) {
      return ListFromRowsShape(c, 1, false);
    })
    .Doc(R"doc(
A TensorList of the slices of tensor along its first dimension.

element_shape: The shape the slices must have; -1 entries for unknown dims.
)doc");

REGISTER_OP("TensorListScatter")
    .Input("tensor: element_dtype")
    .Input("indices: int32")
    .Input("element_shape: shape_type")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle unused;
      MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &unused));
      return ListFromRowsShape(c, 2, false);
    })
    .Doc(R"doc(
A new TensorList whose element indices[i] is tensor[i].

The list is as long as the largest index plus one; other elements are
unset.

element_shape: The elements' shape, -1 entries for unknown dims.
)doc");

REGISTER_OP("TensorListScatterV2")
    .Input("tensor: element_dtype")
    .Input("indices: int32")
    .Input("element_shape: shape_type")
    .Input("num_elements: int32")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle unused;
      MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &unused));
      MF_RETURN_IF_ERROR(c->WithRank(c->input(3), 0, &unused));
      return ListFromRowsShape(c, 2, false);
    })
    .Doc(R"doc(
TensorListScatter with a minimum list length.

element_shape: The elements' shape, -1 entries for unknown dims.
num_elements: A scalar, the list's length at least; -1 gives the length
  from the largest index.
)doc");

REGISTER_OP("TensorListSplit")
    .Input("tensor: element_dtype")
    .Input("element_shape: shape_type")
    .Input("lengths: int64")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle unused;
      MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &unused));
      return ListFromRowsShape(c, 1, true);
    })
    .Doc(R"doc(
A TensorList of pieces of tensor along its first dimension, of the given lengths.

element_shape: The pieces' shape, -1 entries for unknown dims.
lengths: A vector of piece lengths; they add up to tensor's first
  dimension.
)doc");

REGISTER_OP("TensorListStack")
    .Input("input_handle: variant")
    .Input("element_shape: int32")
    .Output("tensor: element_dtype")
    .Attr("element_dtype: type")
    .Attr("num_elements: int = -1")
    .SetShapeFn(StackShape)
    .Doc(R"doc(
Stacks the elements of a TensorList into one tensor.

element_shape: The elements' shape, -1 entries for unknown dims; it gives
  the shape of unset elements and of an empty stack.
num_elements: The list's expected length, or -1 for any.
)doc");

REGISTER_OP("TensorListGather")
    .Input("input_handle: variant")
    .Input("indices: int32")
    .Input("element_shape: int32")
    .Output("values: element_dtype")
    .Attr("element_dtype: type")
    .SetShapeFn(GatherShape)
    .Doc(R"doc(
Stacks the elements of a TensorList at indices into one tensor.

indices: A vector.
element_shape: The elements' shape, -1 entries for unknown dims.
)doc");

REGISTER_OP("TensorListGetItem")
    .Input("input_handle: variant")
    .Input("index: int32")
    .Input("element_shape: Tshape")
    .Output("item: element_dtype")
    .Attr("element_dtype: type")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(GetItemShape)
    .Doc(R"doc(
Element index of a TensorList.

index: A scalar.
element_shape: The element's shape: unset elements read as zeros of it.
)doc");

REGISTER_OP("TensorListSetItem")
    .Input("input_handle: variant")
    .Input("index: int32")
    .Input("item: element_dtype")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .Attr("resize_if_index_out_of_bounds: bool = false")
    .SetShapeFn(SetItemShape)
    .Doc(R"doc(
The TensorList with element index set to item.

index: A scalar.
resize_if_index_out_of_bounds: Grow the list when index is past its end
  instead of failing.
)doc");

REGISTER_OP("TensorListPushBack")
    .Input("input_handle: variant")
    .Input("tensor: element_dtype")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .SetShapeFn(PushBackShape)
    .Doc("The TensorList with tensor appended.");

REGISTER_OP("TensorListPopBack")
    .Input("input_handle: variant")
    .Input("element_shape: int32")
    .Output("output_handle: variant")
    .Output("tensor: element_dtype")
    .Attr("element_dtype: type")
    .SetShapeFn(PopBackShape)
    .Doc(R"doc(
Removes the last element of a TensorList and returns it.

Popping an empty list is an error.

element_shape: The element's shape: an unset element reads as zeros of it.
output_handle: The list without its last element.
tensor: The removed element.
)doc");

REGISTER_OP("TensorListLength")
    .Input("input_handle: variant")
    .Output("length: int32")
    .SetShapeFn(shape_inference::ScalarShape)
    .Doc("The number of elements of a TensorList.");

REGISTER_OP("TensorListElementShape")
    .Input("input_handle: variant")
    .Output("element_shape: shape_type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(ElementShapeShape)
    .Doc(R"doc(
The element shape of a TensorList, -1 for unknown dims.

element_shape: A vector, or the scalar -1 when the rank is unknown.
)doc");

REGISTER_OP("TensorListScatterIntoExistingList")
    .Input("input_handle: variant")
    .Input("tensor: element_dtype")
    .Input("indices: int32")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .SetShapeFn(ScatterIntoExistingListShape)
    .Doc(R"doc(
The TensorList with element indices[i] set to tensor[i].

indices: A vector as long as tensor's first dimension; each index must be
  within the list.
)doc");

REGISTER_OP("TensorListConcatV2")
    .Input("input_handle: variant")
    .Input("element_shape: shape_type")
    .Input("leading_dims: int64")
    .Output("tensor: element_dtype")
    .Output("lengths: int64")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(ConcatShape)
    .Doc(R"doc(
Concatenates the elements of a TensorList along their first dimension.

element_shape: The elements' shape with the first dimension -1 (they may
  differ there).
leading_dims: The first dimension of each unset element, which is read as
  zeros.
lengths: The first dimension of each element.
)doc");

REGISTER_OP("TensorListResize")
    .Input("input_handle: variant")
    .Input("size: int32")
    .Output("output_handle: variant")
    .SetShapeFn(ResizeShape)
    .Doc(R"doc(
The TensorList grown with unset elements, or cut, to size elements.

size: A scalar.
)doc");

}  // namespace minflow
