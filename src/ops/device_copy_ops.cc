// Copies the placer inserts where a tensor moves between host memory and a
// device's memory (graph/placer.h). Internal ops; each non-CPU device
// registers kernels for them.
#include "minflow/framework/op.h"

namespace minflow {

REGISTER_OP("_CopyFromHost")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Doc("Copies a host tensor into the memory of the device it runs on.");

REGISTER_OP("_CopyToHost")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Doc("Copies a tensor from the device it runs on into host memory.");

}  // namespace minflow
