// Cumulative reductions along one axis: Cumsum and Cumprod, each inclusive
// or exclusive, forward or reversed. Interfaces match TensorFlow's.
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"

namespace minflow {

REGISTER_OP("Cumsum")
    .Input("x: T")
    .Input("axis: Tidx")
    .Attr("exclusive: bool = false")
    .Attr("reverse: bool = false")
    .Output("out: T")
    .Attr("T: numbertype")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Running sum of x along axis.

With x = [a, b, c]: [a, a + b, a + b + c]; exclusive gives [0, a, a + b];
reverse gives [a + b + c, b + c, c].

axis: A scalar; negative counts from the end.
exclusive: Leave each element out of its own sum.
reverse: Sum from the end of the axis towards its start.
)doc");

REGISTER_OP("Cumprod")
    .Input("x: T")
    .Input("axis: Tidx")
    .Attr("exclusive: bool = false")
    .Attr("reverse: bool = false")
    .Output("out: T")
    .Attr("T: numbertype")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Running product of x along axis.

With x = [a, b, c]: [a, a * b, a * b * c]; exclusive gives [1, a, a * b];
reverse gives [a * b * c, b * c, c].

axis: A scalar; negative counts from the end.
exclusive: Leave each element out of its own product.
reverse: Multiply from the end of the axis towards its start.
)doc");

}  // namespace minflow
