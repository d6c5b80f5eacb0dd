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
    .SetShapeFn(SparseToDenseShape)
    .Doc(R"doc(
A dense tensor of default_value with sparse_values written at sparse_indices.

sparse_indices: An [n, rank] matrix of coordinates, a vector of n indices
  (rank 1), or a scalar (one element).
output_shape: A vector, the dense shape.
sparse_values: A vector of n values, or a scalar used for all of them.
default_value: A scalar, the value everywhere else.
validate_indices: Also require the indices to be sorted in row-major order
  without repeats; indices are bounds-checked either way.
)doc");

}  // namespace minflow
