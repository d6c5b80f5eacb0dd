// Rewrites a Graph for one Run signature: feeds become `_Arg` nodes, fetches
// `_Retval` nodes, and everything the fetches and targets do not need is
// pruned away.
#pragma once

#include <string>
#include <vector>

#include "absl/types/span.h"
#include "minflow/core/status.h"
#include "minflow/graph/tensor_id.h"

namespace minflow {

class Graph;

// Op names of the rewrite's endpoint nodes; the executor fills their outputs
// from the call's feeds and reads their inputs as the call's results.
inline constexpr char kArgOp[] = "_Arg";
inline constexpr char kRetvalOp[] = "_Retval";

// In place: for feed i, an `_Arg` node (attr index = i) replaces the fed
// output for every consumer; for fetch j, a `_Retval` node (index = j) reads
// the fetched output (or the feed, when a feed is fetched); then nodes that
// no `_Retval` or target needs are removed. NotFound naming the tensor or
// node for a feed, fetch or target that does not exist; InvalidArgument for
// a malformed name, a port out of range, or a tensor fed twice.
Status RewriteGraphForExecution(absl::Span<const std::string> feeds,
                                absl::Span<const std::string> fetches,
                                absl::Span<const std::string> targets,
                                Graph* graph);

// Removes every node from which none of `roots` can be reached along data
// or control edges. Iterative: safe on very deep graphs.
void PruneForRoots(absl::Span<class Node* const> roots, Graph* graph);

}  // namespace minflow
