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
    .Doc(R"doc(
A tensor fed into a Run call, by position.

index: The position of the feed among the call's feeds (or of the
  argument among a function's arguments).
)doc");

REGISTER_OP("_Retval")
    .Input("input: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .Doc(R"doc(
A tensor fetched from a Run call, by position.

index: The position of the fetch among the call's fetches (or of the
  result among a function's results).
)doc");

}  // namespace minflow
