// NoOp: does nothing; a target for control dependencies.
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"

namespace minflow {

REGISTER_OP("NoOp")
    .SetShapeFn(shape_inference::NoOutputs)
    .Doc("Does nothing; a target for control dependencies.");

}  // namespace minflow
