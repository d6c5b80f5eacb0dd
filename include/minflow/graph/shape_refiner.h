// ShapeRefiner: shape inference over a whole graph. Nodes run in
// topological order; each output keeps its dtype and shape; small integer
// subgraphs that compute shapes (Const, Shape, Pack, StridedSlice, ...) are
// evaluated on the fly so shape functions see their values, as in
// TensorFlow.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "minflow/framework/shape_inference.h"

namespace minflow {

class GraphDef;
class NodeDef;
class OpRegistryInterface;
struct OpRegistrationData;

// One output of one node: (node index, output index).
struct OutputRef {
  int node = -1;
  int index = 0;
};

// What the refiner reads of a graph: nodes by dense index, each with its
// NodeDef, its data inputs in port order and its control inputs, in any
// order. GraphDefView implements it over a GraphDef; the Graph class can
// implement it over its nodes and edges (node ids as indices), so there is
// one refiner for both. Implementations must be cheap to query.
class ShapeRefinerGraphView {
 public:
  virtual ~ShapeRefinerGraphView();
  // One past the largest node index; indices without a node return nullptr
  // from node_def() and are skipped.
  virtual int num_nodes() const = 0;
  virtual const NodeDef* node_def(int node) const = 0;
  virtual absl::Span<const OutputRef> data_inputs(int node) const = 0;
  virtual absl::Span<const int> control_inputs(int node) const = 0;
};

// A GraphDef's nodes with their input strings ("x", "x:1", "^x") resolved.
// Keeps pointers into `graph`, which must outlive the view.
class GraphDefView : public ShapeRefinerGraphView {
 public:
  // InvalidArgument naming the node for duplicate or empty node names,
  // inputs naming no node, malformed ports, and data inputs after control
  // inputs.
  static Status Create(const GraphDef& graph,
                       std::unique_ptr<GraphDefView>* out);

  int num_nodes() const override { return static_cast<int>(nodes_.size()); }
  const NodeDef* node_def(int node) const override { return nodes_[node]; }
  absl::Span<const OutputRef> data_inputs(int node) const override;
  absl::Span<const int> control_inputs(int node) const override;
  // The index of the node named `name`, or -1.
  int FindNode(absl::string_view name) const;

 private:
  GraphDefView() = default;

  std::vector<const NodeDef*> nodes_;
  absl::flat_hash_map<absl::string_view, int> index_;
  // Inputs of node i: data_[data_begin_[i] .. data_begin_[i+1]).
  std::vector<OutputRef> data_;
  std::vector<int> data_begin_;
  std::vector<int> control_;
  std::vector<int> control_begin_;
};

class Graph;

// A Graph's nodes (node ids as indices) and edges, copied into flat arrays
// when the view is made; the graph must outlive the view and not change
// while it is used.
class GraphView : public ShapeRefinerGraphView {
 public:
  explicit GraphView(const Graph& graph);

  int num_nodes() const override { return static_cast<int>(nodes_.size()); }
  const NodeDef* node_def(int node) const override { return nodes_[node]; }
  absl::Span<const OutputRef> data_inputs(int node) const override;
  absl::Span<const int> control_inputs(int node) const override;

 private:
  std::vector<const NodeDef*> nodes_;  // null for removed ids
  std::vector<OutputRef> data_;
  std::vector<int> data_begin_;
  std::vector<int> control_;
  std::vector<int> control_begin_;
};

// Infers every node's output dtypes and shapes. All shapes live in one
// ShapeManager owned by the refiner, so a node's output handle is the very
// handle its consumers see as input (identity flows through the graph).
// Not thread-safe.
class ShapeRefiner {
 public:
  // Values with at most this many elements are evaluated and passed to
  // shape functions as input_tensor.
  static constexpr int64_t kMaxConstantElements = 1024;

  // `ops` resolves op names (usually OpRegistry::Global()) and must outlive
  // the refiner.
  ShapeRefiner(int graph_def_version, const OpRegistryInterface* ops);
  ~ShapeRefiner();
  ShapeRefiner(const ShapeRefiner&) = delete;
  ShapeRefiner& operator=(const ShapeRefiner&) = delete;

  // Runs every node of `graph` in a topological order (computed without
  // recursion) and keeps the results; `graph` must outlive the refiner.
  // Stops at the first error, which names the node and its op: an unknown
  // op (NotFound), a cycle (InvalidArgument naming a node on it), an input
  // port out of range or of the wrong dtype, or the shape function's error.
  // May be called once per refiner.
  Status RefineGraph(const ShapeRefinerGraphView& graph);
  // Like RefineGraph, but goes on after errors (for `minflow validate`):
  // every node whose own refinement fails appends its error to `*errors`;
  // nodes reading a data input from a node without results are skipped
  // without an error (no cascades); a cycle is one error, and the nodes on
  // or downstream of it are skipped. Returns the first error appended, or
  // OK. May be called once per refiner, instead of RefineGraph.
  Status RefineGraphCollectingErrors(const ShapeRefinerGraphView& graph,
                                     std::vector<Status>* errors);
  // Builds a GraphDefView over `graph_def` (which must outlive the refiner)
  // and refines it.
  Status RefineGraphDef(const GraphDef& graph_def);

  // Results, by node index of the view (valid after RefineGraph succeeded,
  // or up to the failing node after it failed).
  bool has_node(int node) const;
  int num_outputs(int node) const;
  DataType output_type(int node, int index) const;
  shape_inference::ShapeHandle output_shape(int node, int index) const;
  PartialTensorShape OutputPartialShape(int node, int index) const;
  // The constant value computed for an output, or nullptr.
  const Tensor* output_value(int node, int index) const;
  // "[2,?]" or "?".
  std::string ShapeString(shape_inference::ShapeHandle s) const;
  // The GraphDefView RefineGraphDef built, else nullptr.
  const GraphDefView* graph_def_view() const { return own_view_.get(); }
  int64_t num_nodes_refined() const { return num_refined_; }

 private:
  struct OutputInfo;

  Status TopologicalOrder(const ShapeRefinerGraphView& graph,
                          std::vector<int>* order) const;
  Status Refine(const ShapeRefinerGraphView& graph,
                std::vector<Status>* errors);
  bool DataInputsRefined(const ShapeRefinerGraphView& graph, int node) const;
  Status RefineNode(const ShapeRefinerGraphView& graph, int node);
  const NodeDef* WithDefaults(const NodeDef& node_def,
                              const OpRegistrationData& reg);

  const int graph_def_version_;
  const OpRegistryInterface* const ops_;
  shape_inference::ShapeManager manager_;
  absl::flat_hash_map<std::string, const OpRegistrationData*> op_cache_;
  std::unique_ptr<GraphDefView> own_view_;
  std::vector<int> first_output_;  // per node, -1 when not refined
  std::vector<int> num_outputs_;
  std::vector<OutputInfo> outputs_;
  std::deque<NodeDef> defaulted_nodes_;
  std::deque<Tensor> values_;
  int64_t num_refined_ = 0;
};

}  // namespace minflow
