// Checks a graph runs for their side effect: Assert (fails the step when
// its condition is false, quoting its data) and CheckNumerics (fails on Inf
// or NaN). Interfaces match TensorFlow's.
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"

namespace minflow {

REGISTER_OP("Assert")
    .Input("condition: bool")
    .Input("data: T")
    .SetIsStateful()
    .Attr("T: list(type) >= 1")
    .Attr("summarize: int = 3")
    .SetShapeFn(shape_inference::NoOutputs)
    .Doc(R"doc(
Fails the run with an InvalidArgument error when condition is false.

The message quotes each of the data tensors.

condition: A scalar.
data: Tensors to print in the message.
summarize: How many values of each data tensor to print; negative prints
  all of them.
)doc");

REGISTER_OP("CheckNumerics")
    .Input("tensor: T")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("message: string")
    .SetIsStateful()
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Passes tensor through, failing the run if it holds a NaN or an infinity.

message: Put at the start of the error message.
)doc");

}  // namespace minflow
