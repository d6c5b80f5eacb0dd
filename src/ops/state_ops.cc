// TensorFlow 1 reference variables: VariableV2's output is a reference to
// the variable's storage (a ref-typed edge, Note [Ref edges] in
// core/tensor.h); Assign, AssignAdd and AssignSub update through it and
// hand the reference on, and IsVariableInitialized asks about it.
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"

namespace minflow {
namespace {

using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

Status VariableShape(InferenceContext* c) {
  PartialTensorShape shape;
  MF_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shape, &out));
  c->set_output(0, out);
  return OkStatus();
}

// With validate_shape the value must fit the variable; either way the
// variable takes the value's shape.
Status AssignShape(InferenceContext* c) {
  bool validate_shape = true;
  MF_RETURN_IF_ERROR(c->GetAttr("validate_shape", &validate_shape));
  if (validate_shape) {
    ShapeHandle unused;
    MF_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &unused));
  }
  c->set_output(0, c->input(1));
  return OkStatus();
}

}  // namespace

REGISTER_OP("VariableV2")
    .Output("ref: Ref(dtype)")
    .Attr("shape: shape")
    .Attr("dtype: type")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(VariableShape)
    .Doc(R"doc(
A TensorFlow 1 variable: a mutable tensor that its Ref output refers to.

It must be initialised (by Assign) before it is read.

shape: The shape of the variable's value.
dtype: The type of the variable's value.
container: The resource container; empty is the default one.
shared_name: The variable's name in the container; empty uses the node's
  name.
)doc");

REGISTER_OP("Variable")
    .Output("ref: Ref(dtype)")
    .Attr("shape: shape")
    .Attr("dtype: type")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(VariableShape)
    .Doc(R"doc(
The older name of VariableV2, kept for old graphs.

shape: The shape of the variable's value.
dtype: The type of the variable's value.
container: The resource container; empty is the default one.
shared_name: The variable's name in the container; empty uses the node's
  name.
)doc");

REGISTER_OP("IsVariableInitialized")
    .Input("ref: Ref(dtype)")
    .Output("is_initialized: bool")
    .Attr("dtype: type")
    .SetAllowsUninitializedInput()
    .SetShapeFn(shape_inference::ScalarShape)
    .Doc(R"doc(
Whether the variable that ref refers to has been assigned a value.
)doc");

REGISTER_OP("Assign")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: type")
    .Attr("validate_shape: bool = true")
    .Attr("use_locking: bool = true")
    .SetAllowsUninitializedInput()
    .SetShapeFn(AssignShape)
    .Doc(R"doc(
Sets the variable that ref refers to to value, and passes the reference on.

validate_shape: Require value to have the variable's current shape; when
  false, the variable takes value's shape.
use_locking: Accepted for compatibility: the write always holds the
  variable's lock.
)doc");

REGISTER_OP("AssignAdd")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn)
    .Doc(R"doc(
Adds value to the variable that ref refers to, and passes the reference on.

use_locking: Accepted for compatibility: the update always holds the
  variable's lock.
)doc");

REGISTER_OP("AssignSub")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn)
    .Doc(R"doc(
Subtracts value from the variable that ref refers to, and passes the reference on.

use_locking: Accepted for compatibility: the update always holds the
  variable's lock.
)doc");

}  // namespace minflow
