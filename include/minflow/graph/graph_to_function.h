// A Graph made as a function body (with `_Arg` and `_Retval` nodes, as
// InstantiateFunctionBody imports one) turned back into a FunctionDef.
#pragma once

#include <string>

#include "minflow/core/status.h"
#include "minflow/function.pb.h"

namespace minflow {

class Graph;
class Node;

// The FunctionDef reference to output `port` of `node`:
// "node:out_arg:index", the output arg of the node's OpDef holding that
// port and the position in it.
StatusOr<std::string> FunctionOutputRef(const Node& node, int port);

// Makes `*fdef` the function `name` whose body is `graph`: one input arg per
// `_Arg` node (ordered by its `index` attr, which must run 0..n-1), one
// output arg per `_Retval` node (likewise), every other node a node_def.
// Edges from an `_Arg` read the input arg; control edges from `_Arg`s and
// into `_Retval`s are dropped (an arg is there before the body runs, a
// return after it). The result is checked with ValidateFunctionDef.
Status GraphToFunctionDef(const Graph& graph, const std::string& name,
                          FunctionDef* fdef);

}  // namespace minflow
