// The endpoints of a Run call: `_Arg` carries a fed tensor in, `_Retval` a
// fetched one out (see graph/subgraph.h). Internal ops: the '_' prefix keeps
// them out of `minflow ops list`.
#include "minflow/framework/op.h"

namespace minflow {

REGISTER_OP("_Arg")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .Doc("A tensor fed into a Run call, by position.");

REGISTER_OP("_Retval")
    .Input("input: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .Doc("A tensor fetched from a Run call, by position.");

}  // namespace minflow
