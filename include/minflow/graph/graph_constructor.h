// GraphDef -> Graph with full validation; the one importer every entry point
// (Session, the CLI, the C API) uses.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "minflow/core/status.h"
#include "minflow/graph/tensor_id.h"

namespace minflow {

class Graph;
class GraphDef;
class Node;

// The GraphDef versions minflow reads: graphs whose min_consumer is at most
// kGraphDefVersion and whose producer is at least kGraphDefVersionMinProducer.
// kGraphDefVersion follows the TensorFlow release whose op list minflow
// tracks (2.21), so graphs TensorFlow writes today import.
inline constexpr int kGraphDefVersion = 2100;
inline constexpr int kGraphDefVersionMinProducer = 0;

struct GraphConstructorOptions {
  // Adds OpDef defaults for attrs the NodeDefs leave out (TF's behaviour).
  bool add_default_attributes = true;
  // Prepended to every node name (and to the inputs that name them), for
  // importing one graph into another's namespace. Empty: names unchanged.
  std::string prefix;
  // TensorFlow's input_map: a data input of an imported node that names a
  // key (a tensor as the GraphDef names it, before the prefix) reads the
  // value instead, a tensor of a node already in the graph (not prefixed).
  // The usual checks apply to the new edge (the port exists, the dtypes
  // agree). Control inputs are not remapped.
  std::vector<std::pair<TensorId, TensorId>> input_map;
  // When not null, receives the input_map keys whose node is not in the
  // GraphDef or has no such output (TensorFlow's
  // missing_unused_input_map_keys), in input_map order; TensorFlow's Python
  // reports them as an error.
  std::vector<TensorId>* missing_unused_input_map_keys = nullptr;
  // Null (the default): the import stops at the first error and returns it.
  // Set: the import keeps going and appends every independent error here
  // (for `minflow validate`): each node is checked on its own; a node whose
  // input comes from a node with an error is left out without an error of
  // its own (no cascades); each cycle is one error. `*graph` then holds the
  // nodes that are valid with everything upstream of them, ready for
  // ShapeRefiner. The return value is the first error appended, or OK.
  std::vector<Status>* errors = nullptr;
};

// Builds `*graph` (which must be empty) from `graph_def`, checking: versions,
// node names (syntax, duplicates), every op registered (with suggestions),
// attrs against the OpDef (after defaults), input counts after list
// expansion, each input's node and port ("x", "x:1", "^x"; data before
// control), dtypes of every data edge, and cycles (naming a node on one).
// Errors are InvalidArgument (NotFound for unknown ops) and name the node
// and its op. Shapes are not checked here: see ShapeRefiner.
Status ConvertGraphDefToGraph(const GraphConstructorOptions& options,
                              const GraphDef& graph_def, Graph* graph);
// As above, taking the NodeDefs out of `graph_def` instead of copying them
// (it is left in a valid but unspecified state). Collecting mode copies.
Status ConvertGraphDefToGraph(const GraphConstructorOptions& options,
                              GraphDef&& graph_def, Graph* graph);

// Adds the nodes of `graph_def` to `*graph`, which may already hold nodes
// (TensorFlow's ImportGraphDef; the C API builds a graph this way, one node
// at a time). With no prefix, inputs may name nodes already in `graph`;
// with one, inputs are prefixed too and so name imported nodes. The checks
// are ConvertGraphDefToGraph's, and a name already in `graph` is a
// duplicate. On error `*graph` is left as it was (the added nodes are
// removed; ids are not reused). An empty graph takes `graph_def`'s versions,
// a non-empty one keeps its own (`graph_def`'s are still checked).
// `*added`, when not null, receives the new nodes in GraphDef order.
Status ImportGraphDef(const GraphConstructorOptions& options,
                      const GraphDef& graph_def, Graph* graph,
                      std::vector<Node*>* added = nullptr);

// Parses a GraphDef from bytes in binary or text format, telling them apart
// by content rather than by file name. InvalidArgument when neither parses.
Status ParseGraphDef(absl::string_view bytes, GraphDef* graph_def);

// Reads and parses a GraphDef file (binary .pb or text .pbtxt).
Status ReadGraphDefFile(const std::string& path, GraphDef* graph_def);

}  // namespace minflow
