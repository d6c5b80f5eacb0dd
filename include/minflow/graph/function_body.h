// Function calls in a Graph: which nodes call a function (a node whose op
// is a function of the graph's library, PartitionedCall and
// StatefulPartitionedCall), the functional control-flow ops that take
// functions (If, Case, While and their Stateless twins), and a function
// instantiated for one call and imported as a Graph of its own, for the
// shape refiner to look into and the lowering pass to inline.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "minflow/attr_value.pb.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/types.h"
#include "minflow/framework/node_def_util.h"

namespace minflow {

class FunctionLibraryDefinition;
class Graph;
class Node;
class VersionDef;
struct OpRegistrationData;

// Calls nested deeper than this (in shape inference or inlining) are an
// error: a function that calls itself has no end there.
inline constexpr int kMaxFunctionCallDepth = 32;

bool IsPartitionedCallOp(absl::string_view op);  // (Stateful)PartitionedCall
bool IsIfOp(absl::string_view op);               // If, StatelessIf
bool IsCaseOp(absl::string_view op);             // Case, StatelessCase
bool IsWhileOp(absl::string_view op);            // While, StatelessWhile
bool IsFunctionalControlFlowOp(absl::string_view op);
// Whether a node of op `reg` runs functions of a library: a function's own
// op, a PartitionedCall or a functional control-flow op. Such nodes have no
// kernel; the lowering pass replaces them.
bool RunsFunctions(const OpRegistrationData& reg);

// Whether `node` calls a function, and which with what attrs: a
// PartitionedCall's `f`, or the node's op and its attrs ('_' ones left out)
// when the op is a function of `library` (which may be null).
bool GetFunctionCall(const Node& node, const FunctionLibraryDefinition* library,
                     NameAttrList* call);

// A function instantiated for one call and imported.
struct FunctionBody {
  std::unique_ptr<Graph> graph;
  std::vector<Node*> arg_nodes;  // `_Arg` nodes, by index
  std::vector<Node*> ret_nodes;  // `_Retval` nodes, by index
  std::vector<Node*> control_ret_nodes;
  DataTypeVector arg_types;
  DataTypeVector ret_types;
};

// Instantiates `call` from `library` (InstantiateFunction) and imports it
// with the importer's checks into a graph that shares `library`; the body
// gets `versions`. NotFound when the library has no such function; errors
// name the function (and its node).
Status InstantiateFunctionBody(
    const std::shared_ptr<const FunctionLibraryDefinition>& library,
    const NameAttrList& call, const VersionDef& versions, FunctionBody* body);

// The most specific shape both `a` and `b` are instances of (TensorFlow's
// Relax): dims that differ become unknown; different ranks, unknown rank.
PartialTensorShape RelaxShape(const PartialTensorShape& a,
                              const PartialTensorShape& b);

}  // namespace minflow
