// Graph: nodes (each with its OpDef, attrs, input/output types, requested and
// assigned device), data edges (src, port) -> (dst, port) and control edges.
// Built from a GraphDef by the importer (graph_constructor.h); exported back
// with ToGraphDef.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/types.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/tensor_id.h"
#include "minflow/node_def.pb.h"
#include "minflow/versions.pb.h"

namespace minflow {

class FunctionLibraryDefinition;
class Graph;
class Node;
class OpDef;
class OpRegistryInterface;

// An edge of the graph. Data edges connect an output port to an input port;
// control edges carry no data (both ports kControlSlot) and only order.
struct Edge {
  Node* src = nullptr;
  int src_output = 0;
  Node* dst = nullptr;
  int dst_input = 0;
  int id = -1;
  bool IsControlEdge() const { return src_output == kControlSlot; }
  // An edge out of a NextIteration: a TF1 loop's way back to its Merge.
  // Topological orders and cycle checks leave these edges out.
  inline bool IsBackEdge() const;
};

// A node: owned by its Graph, valid while the graph lives and the node is
// not removed. Not thread-safe to mutate; const access may be shared.
class Node {
 public:
  int id() const { return id_; }
  const std::string& name() const { return def_->name(); }
  const std::string& type_string() const { return def_->op(); }
  const NodeDef& def() const { return *def_; }
  // The NodeDef is immutable once in a graph, so copies of the graph (and
  // the kernels made for the node) share it instead of copying it.
  const std::shared_ptr<const NodeDef>& shared_def() const { return def_; }
  const OpDef& op_def() const { return *op_def_; }

  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }
  const DataTypeVector& input_types() const { return input_types_; }
  const DataTypeVector& output_types() const { return output_types_; }

  // What shape inference found for each output (see the graph pipeline);
  // empty until the graph is refined, then one entry per output.
  const std::vector<PartialTensorShape>& output_shapes() const {
    return output_shapes_;
  }
  void set_output_shapes(std::vector<PartialTensorShape> shapes) {
    output_shapes_ = std::move(shapes);
  }
  // The shape of output `index`: unknown when not refined.
  PartialTensorShape output_shape(int index) const;

  // The device the NodeDef asked for ("" when none).
  const std::string& requested_device() const { return def_->device(); }
  // The device placement chose ("" before placement).
  const std::string& assigned_device_name() const { return *assigned_device_; }
  // Names are interned (a process has few devices): nodes and their clones
  // share one copy of each.
  void set_assigned_device_name(absl::string_view name);

  // Edges in insertion order; data edges and control edges together.
  const std::vector<const Edge*>& in_edges() const { return in_edges_; }
  const std::vector<const Edge*>& out_edges() const { return out_edges_; }
  // The data edge into input `index`, or an error if there is none.
  Status input_edge(int index, const Edge** edge) const;

  bool IsOp(absl::string_view op) const { return def_->op() == op; }
  bool IsConstant() const { return IsOp("Const"); }
  bool IsPlaceholder() const { return IsOp("Placeholder"); }
  // NextIteration or RefNextIteration; any TF1 control-flow op
  // (IsControlFlowOp). Both looked up once, at AddNode.
  bool IsNextIteration() const { return is_next_iteration_; }
  bool IsControlFlow() const { return is_control_flow_; }
  // True for ops TF treats as stateful (never constant-folded or pruned away
  // silently).
  bool IsStateful() const;

 private:
  friend class Graph;
  Node() = default;

  int id_ = -1;
  std::shared_ptr<const NodeDef> def_;
  const OpDef* op_def_ = nullptr;
  bool is_next_iteration_ = false;
  bool is_control_flow_ = false;
  DataTypeVector input_types_;
  DataTypeVector output_types_;
  const std::string* assigned_device_ = &kNoDevice;
  std::vector<PartialTensorShape> output_shapes_;
  static const std::string kNoDevice;
  std::vector<const Edge*> in_edges_;
  std::vector<const Edge*> out_edges_;
};

bool Edge::IsBackEdge() const { return src->IsNextIteration(); }

// Owns nodes and edges. Node ids are dense indices into an array and are
// stable; removed nodes leave a null slot. Not thread-safe to mutate.
class Graph {
 public:
  // `ops` resolves op names (usually OpRegistry::Global()); it must outlive
  // the graph.
  explicit Graph(const OpRegistryInterface* ops);
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Adds a node after looking up its op and computing its input and output
  // types from its attrs. `node_def` should already carry attr defaults.
  // Does not connect edges.
  StatusOr<Node*> AddNode(NodeDef node_def);
  // As above with the types already computed (InOutTypesForNode); they must
  // match the NodeDef's op and attrs. `node_def` is taken only on success.
  StatusOr<Node*> AddNode(NodeDef&& node_def, const OpDef* op_def,
                          DataTypeVector input_types,
                          DataTypeVector output_types);
  // As above, for a NodeDef shared with its maker (from NewNodeDef, or one
  // another graph holds); it must not change once added.
  StatusOr<Node*> AddNode(std::shared_ptr<const NodeDef> node_def,
                          const OpDef* op_def, DataTypeVector input_types,
                          DataTypeVector output_types);
  // An empty NodeDef to fill, then add with AddNode. Its memory lives in an
  // arena that this graph and its clones share: copying a 100k-node
  // GraphDef in makes no allocation per field, and the graph frees it all at
  // once. A removed node's NodeDef stays there until the last clone dies.
  std::shared_ptr<NodeDef> NewNodeDef();
  // Room for this many more nodes and edges, to import without regrowing.
  void Reserve(int num_nodes, int num_edges);
  // A copy of this graph: the same node ids (removed ids stay unused),
  // NodeDefs, types, assigned devices, inferred shapes, edges and versions.
  std::unique_ptr<Graph> Clone() const;

  // Removes `node` and every edge touching it.
  void RemoveNode(Node* node);

  // Adds an edge; for a data edge the ports must be in range (CHECKed: the
  // importer validates user data before calling this).
  const Edge* AddEdge(Node* src, int src_output, Node* dst, int dst_input);
  const Edge* AddControlEdge(Node* src, Node* dst);
  void RemoveEdge(const Edge* edge);

  // The node named `name`, or nullptr.
  Node* FindNodeByName(absl::string_view name) const;

  // Live nodes in id order.
  std::vector<Node*> nodes() const;
  int num_nodes() const { return num_nodes_; }
  // One past the largest node id ever given out (for id-indexed arrays).
  int num_node_ids() const { return static_cast<int>(nodes_.size()); }
  Node* FindNodeId(int id) const;
  int num_edges() const { return num_edges_; }

  const VersionDef& versions() const { return versions_; }
  void set_versions(const VersionDef& versions) { versions_ = versions; }
  // Resolves the nodes' ops: the registry the graph was made with, or the
  // function library that wraps it (set_flib_def).
  const OpRegistryInterface* op_registry() const { return ops_; }

  // The functions the graph's nodes may call (its GraphDef's `library`);
  // null when it has none. Clones share it.
  const FunctionLibraryDefinition* flib_def() const { return flib_def_.get(); }
  const std::shared_ptr<const FunctionLibraryDefinition>& shared_flib_def()
      const {
    return flib_def_;
  }
  // Makes `library` (which must wrap op_registry()) the graph's library and
  // op registry, so nodes whose op is a function name resolve. Set it before
  // adding such nodes; null restores the registry the library wrapped.
  void set_flib_def(std::shared_ptr<const FunctionLibraryDefinition> library);

  // Exports nodes in id order with inputs rebuilt from the edges: data
  // inputs in port order, then "^control" inputs; assigned devices replace
  // requested ones; the function library becomes `library`. With
  // `add_shapes`, every node with inferred shapes gets
  // them as TensorFlow's `_output_shapes` attr (a list of shapes).
  void ToGraphDef(GraphDef* graph_def, bool add_shapes = false) const;

 private:
  Node* NewNode();

  const OpRegistryInterface* ops_;
  std::shared_ptr<const FunctionLibraryDefinition> flib_def_;
  VersionDef versions_;
  // Nodes and edges live in blocks the graph owns (a 100k-node import would
  // otherwise make 200k small allocations, and as many frees); removed ones
  // stay there, unreachable, until the graph dies.
  std::vector<std::unique_ptr<Node[]>> node_blocks_;
  int last_block_size_ = 0;
  int used_in_last_block_ = 0;
  std::deque<Edge> edge_pool_;
  std::shared_ptr<google::protobuf::Arena> node_def_arena_;  // on first use
  std::vector<Node*> nodes_;  // by id; null once removed
  std::vector<Edge*> edges_;  // by id; null once removed
  // Keys view the names inside the nodes' NodeDefs, which never change.
  absl::flat_hash_map<absl::string_view, Node*> name_index_;
  int num_nodes_ = 0;
  int num_edges_ = 0;
};

// Nodes in an order where every node comes after all its inputs (data and
// control) except back edges (Edge::IsBackEdge), computed without
// recursion; the one topological sort every stage uses. InvalidArgument naming
// a node on a cycle if there is one;
// `*order` then still holds every node not on or downstream of a cycle.
Status TopologicalOrder(const Graph& graph, std::vector<Node*>* order);

}  // namespace minflow
