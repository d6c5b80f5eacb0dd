// TensorFlow 2 resource variables: VarHandleOp makes a DT_RESOURCE handle
// whose handle data carries the variable's dtype and shape, so the shape
// functions below see through it (ReadVariableOp infers the variable's
// shape, assignments are checked against it).
#include <vector>

#include "absl/strings/str_cat.h"
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"

namespace minflow {
namespace {

using shape_inference::InferenceContext;
using shape_inference::ShapeAndType;
using shape_inference::ShapeHandle;

// The variable behind input 0, when the handle's producer said; null when
// unknown. A handle carrying several shapes is not a variable's.
Status VariableHandleData(InferenceContext* c, const ShapeAndType** data) {
  *data = nullptr;
  const std::vector<ShapeAndType>* handle = c->input_handle_shapes_and_types(0);
  if (handle == nullptr || handle->empty()) return OkStatus();
  if (handle->size() != 1) {
    return errors::InvalidArgument(
        "Resource handle of a variable must hold exactly one dtype and shape, "
        "but it holds ",
        handle->size());
  }
  *data = &(*handle)[0];
  return OkStatus();
}

// The variable's dtype must be the op's `dtype` attr.
Status CheckVariableDtype(InferenceContext* c, const ShapeAndType& var,
                          const char* verb) {
  DataType dtype = DT_INVALID;
  MF_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
  if (var.dtype != dtype) {
    return errors::InvalidArgument(
        "Trying to ", verb, " variable with wrong dtype. Expected ",
        DataTypeString(var.dtype), " got ", DataTypeString(dtype));
  }
  return OkStatus();
}

Status VarHandleShape(InferenceContext* c) {
  c->set_output(0, c->Scalar());
  DataType dtype = DT_INVALID;
  MF_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
  PartialTensorShape shape;
  MF_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  ShapeHandle s;
  MF_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shape, &s));
  c->set_output_handle_shapes_and_types(0, {ShapeAndType(s, dtype)});
  return OkStatus();
}

Status ReadVariableShape(InferenceContext* c) {
  const ShapeAndType* var = nullptr;
  MF_RETURN_IF_ERROR(VariableHandleData(c, &var));
  if (var == nullptr) return shape_inference::UnknownShape(c);
  MF_RETURN_IF_ERROR(CheckVariableDtype(c, *var, "read"));
  c->set_output(0, var->shape);
  return OkStatus();
}

// The value must fit the variable's shape (for AssignVariableOp only when
// validate_shape is set: otherwise it may change the shape).
Status AssignToVariableShape(InferenceContext* c) {
  const ShapeAndType* var = nullptr;
  MF_RETURN_IF_ERROR(VariableHandleData(c, &var));
  if (var == nullptr) return OkStatus();
  MF_RETURN_IF_ERROR(CheckVariableDtype(c, *var, "assign"));
  bool validate_shape = true;
  if (c->attrs().Find("validate_shape") != nullptr) {
    MF_RETURN_IF_ERROR(c->GetAttr("validate_shape", &validate_shape));
  }
  if (!validate_shape) return OkStatus();
  ShapeHandle unused;
  return c->Merge(var->shape, c->input(1), &unused);
}

Status VariableShapeShape(InferenceContext* c) {
  const ShapeAndType* var = nullptr;
  MF_RETURN_IF_ERROR(VariableHandleData(c, &var));
  if (var == nullptr || !c->RankKnown(var->shape)) {
    c->set_output(0, c->Vector(InferenceContext::kUnknownDim));
  } else {
    c->set_output(0, c->Vector(c->Rank(var->shape)));
  }
  return OkStatus();
}

// params[:batch_dims] + indices[batch_dims:] + params[batch_dims + 1:].
Status ResourceGatherShape(InferenceContext* c) {
  const ShapeAndType* var = nullptr;
  MF_RETURN_IF_ERROR(VariableHandleData(c, &var));
  if (var == nullptr) return shape_inference::UnknownShape(c);
  MF_RETURN_IF_ERROR(CheckVariableDtype(c, *var, "gather from"));
  int64_t batch_dims = 0;
  MF_RETURN_IF_ERROR(c->GetAttr("batch_dims", &batch_dims));
  if (batch_dims < 0) {
    return errors::InvalidArgument("batch_dims must be non-negative, got ",
                                   batch_dims);
  }
  ShapeHandle params;
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(var->shape, batch_dims + 1, &params));
  ShapeHandle indices;
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), batch_dims, &indices));
  ShapeHandle batch;
  MF_RETURN_IF_ERROR(c->Subshape(params, 0, batch_dims, &batch));
  ShapeHandle indices_batch;
  MF_RETURN_IF_ERROR(c->Subshape(indices, 0, batch_dims, &indices_batch));
  MF_RETURN_IF_ERROR(c->Merge(batch, indices_batch, &batch));
  ShapeHandle indices_rest;
  MF_RETURN_IF_ERROR(c->Subshape(indices, batch_dims, &indices_rest));
  ShapeHandle params_rest;
  MF_RETURN_IF_ERROR(c->Subshape(params, batch_dims + 1, &params_rest));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->Concatenate(batch, indices_rest, &out));
  MF_RETURN_IF_ERROR(c->Concatenate(out, params_rest, &out));
  c->set_output(0, out);
  return OkStatus();
}

// updates: a scalar, or indices.shape + var.shape[1:].
Status ResourceScatterShape(InferenceContext* c) {
  const ShapeAndType* var = nullptr;
  MF_RETURN_IF_ERROR(VariableHandleData(c, &var));
  if (var == nullptr) return OkStatus();
  MF_RETURN_IF_ERROR(CheckVariableDtype(c, *var, "update"));
  ShapeHandle updates = c->input(2);
  if (c->RankKnown(updates) && c->Rank(updates) == 0) return OkStatus();
  ShapeHandle params;
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(var->shape, 1, &params));
  ShapeHandle rows;
  MF_RETURN_IF_ERROR(c->Subshape(params, 1, &rows));
  ShapeHandle expected;
  MF_RETURN_IF_ERROR(c->Concatenate(c->input(1), rows, &expected));
  ShapeHandle unused;
  return c->Merge(updates, expected, &unused);
}

}  // namespace

REGISTER_OP("VarHandleOp")
    .Output("resource: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("debug_name: string = ''")
    .Attr("dtype: type")
    .Attr("shape: shape")
    .Attr("allowed_devices: list(string) = []")
    .SetIsStateful()
    .SetShapeFn(VarHandleShape)
    .Doc(R"doc(
A handle to a resource variable, created on first use by an assignment.

container: The resource container; empty is the default one.
shared_name: The variable's name in the container; empty uses the node's
  name. Handles with the same container and name share one variable.
debug_name: A name for messages; not used to find the variable.
dtype: The variable's type.
shape: The variable's shape; it may be partly unknown.
allowed_devices: Accepted for compatibility; minflow ignores it.
)doc");

REGISTER_OP("ReadVariableOp")
    .Input("resource: resource")
    .Output("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(ReadVariableShape)
    .Doc(R"doc(
The current value of a resource variable.

Reading an uninitialised variable is a FailedPrecondition error. The value
does not change when the variable is assigned later.
)doc");

REGISTER_OP("AssignVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .Attr("validate_shape: bool = false")
    .SetIsStateful()
    .SetShapeFn(AssignToVariableShape)
    .Doc(R"doc(
Sets a resource variable to value, creating it if needed.

validate_shape: Require value's shape to be the variable's declared shape.
)doc");

REGISTER_OP("AssignAddVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(AssignToVariableShape)
    .Doc(R"doc(
Adds value to a resource variable, in place.

value: A tensor of the variable's shape.
)doc");

REGISTER_OP("AssignSubVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(AssignToVariableShape)
    .Doc(R"doc(
Subtracts value from a resource variable, in place.

value: A tensor of the variable's shape.
)doc");

REGISTER_OP("VarIsInitializedOp")
    .Input("resource: resource")
    .Output("is_initialized: bool")
    .SetIsStateful()
    .SetShapeFn(shape_inference::ScalarShape)
    .Doc("Whether a resource variable has been assigned a value.");

REGISTER_OP("DisableCopyOnRead")
    .Input("resource: resource")
    .SetIsStateful()
    .SetShapeFn(shape_inference::NoOutputs)
    .Doc(R"doc(
Checks that a resource variable exists; minflow has no copy-on-read mode to leave.

TensorFlow switches the variable's storage mode before checkpointing;
minflow's variables always copy on write, so there is nothing to change.
)doc");

REGISTER_OP("DestroyResourceOp")
    .Input("resource: resource")
    .Attr("ignore_lookup_error: bool = true")
    .SetIsStateful()
    .SetShapeFn(shape_inference::NoOutputs)
    .Doc(R"doc(
Deletes the resource a handle names from its resource manager.

ignore_lookup_error: Succeed when the resource does not exist.
)doc");

REGISTER_OP("VariableShape")
    .Input("input: resource")
    .Output("output: out_type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetIsStateful()
    .SetShapeFn(VariableShapeShape)
    .Doc("The shape of a resource variable's value, as a vector.");

REGISTER_OP("ResourceGather")
    .Input("resource: resource")
    .Input("indices: Tindices")
    .Attr("batch_dims: int = 0")
    .Attr("validate_indices: bool = true")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("Tindices: {int32,int64}")
    .SetIsStateful()
    .SetShapeFn(ResourceGatherShape)
    .Doc(R"doc(
Gathers slices of a resource variable's value along axis 0.

As GatherV2 with axis = batch_dims on the variable's value.

batch_dims: The number of leading dimensions shared by the value and
  indices and matched one to one.
validate_indices: Accepted for compatibility; minflow always checks
  indices.
)doc");

REGISTER_OP("ResourceScatterAdd")
    .Input("resource: resource")
    .Input("indices: Tindices")
    .Input("updates: dtype")
    .Attr("dtype: numbertype")
    .Attr("Tindices: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(ResourceScatterShape)
    .Doc(R"doc(
Adds updates to the rows indices of a resource variable, in place.

Duplicate indices add up.

indices: Row indices of the variable's first dimension.
updates: indices.shape + the variable's shape[1:], or a scalar.
)doc");

REGISTER_OP("ResourceScatterUpdate")
    .Input("resource: resource")
    .Input("indices: Tindices")
    .Input("updates: dtype")
    .Attr("dtype: type")
    .Attr("Tindices: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(ResourceScatterShape)
    .Doc(R"doc(
Replaces the rows indices of a resource variable with updates, in place.

indices: Row indices of the variable's first dimension.
updates: indices.shape + the variable's shape[1:], or a scalar.
)doc");

}  // namespace minflow
