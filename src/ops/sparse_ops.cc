// Sparse ops: SparseToDense. Interfaces match TensorFlow's.
#include "minflow/framework/op.h"
#include "minflow/framework/shape_inference.h"

namespace minflow {

using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

// The dense shape is the value of `output_shape`.
Status SparseToDenseShape(InferenceContext* c) {
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &out));
  c->set_output(0, out);
  return OkStatus();
}

}  // namespace

REGISTER_OP("SparseToDense")
    .Input("sparse_indices: Tindices")
    .Input("output_shape: Tindices")
    .Input("sparse_values: T")
    .Input("default_value: T")
    .Attr("validate_indices: bool = true")
    .Attr("T: type")
    .Output("dense: T")
    .Attr("Tindices: {int32, int64}")
    .SetShapeFn(SparseToDenseShape);

}  // namespace minflow
