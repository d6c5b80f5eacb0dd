// ShapeRefiner: shape inference over a whole Graph. Nodes run in
// topological order; each output keeps its dtype and shape; small integer
// values that shapes are computed from (Shape -> StridedSlice -> Pack ->
// Reshape, ...) are evaluated on the fly by the ops' own CPU kernels
// (ConstantEvaluator), so shape functions see them, as in TensorFlow.
// The graph pipeline (graph_pipeline.h) runs it once per graph and attaches
// the results to the Graph's nodes.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "minflow/framework/shape_inference.h"

namespace minflow {

class ConstantEvaluator;
class Graph;
class Node;
class NameAttrList;
class NodeDef;
class OpRegistryInterface;
struct OpRegistrationData;

// Results are by node id. Not thread-safe.
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

  // For refining a function body (graph/function_body.h): `_Arg` node i
  // gets shapes[i], and calls inside the body count one level deeper.
  void SetFunctionArgs(std::vector<PartialTensorShape> shapes, int call_depth) {
    arg_shapes_ = std::move(shapes);
    call_depth_ = call_depth;
  }

  // Runs every node of `graph` in topological order and keeps the results;
  // `graph` must not change while the refiner's results are read. Stops at
  // the first error, which names the node and its op: an unknown op
  // (NotFound), a cycle (InvalidArgument naming a node on it), or the shape
  // function's error. May be called once per refiner.
  Status RefineGraph(const Graph& graph);
  // Like RefineGraph, but goes on after errors (for `minflow validate`):
  // every node whose own refinement fails appends its error to `*errors`;
  // nodes reading a data input from a node without results are skipped
  // without an error (no cascades); a cycle is one error, and the nodes on
  // or downstream of it are skipped. Returns the first error appended, or
  // OK. May be called once per refiner, instead of RefineGraph.
  Status RefineGraphCollectingErrors(const Graph& graph,
                                     std::vector<Status>* errors);

  // Refines one node just added to `graph`, whose data inputs come from
  // nodes this refiner has already refined (the graph a builder grows one
  // node at a time, as TensorFlow's ShapeRefiner::AddNode; the C++ Scope
  // API uses it). Must not be mixed with RefineGraph on another graph, and
  // is for graphs without TF1 loops (a back edge's source is never
  // refined first). Errors as RefineGraph's; a failed node leaves no
  // results, so the caller may remove it and go on.
  Status AddNode(const Graph& graph, const Node& node);

  // Sets every refined node's output shapes on `graph` (the graph refined).
  void AttachShapes(Graph* graph) const;

  // Results, by node id (valid after RefineGraph succeeded, or up to the
  // failing node after it failed).
  bool has_node(int node) const;
  int num_outputs(int node) const;
  DataType output_type(int node, int index) const;
  shape_inference::ShapeHandle output_shape(int node, int index) const;
  PartialTensorShape OutputPartialShape(int node, int index) const;
  // The constant value computed for an output, or nullptr.
  const Tensor* output_value(int node, int index) const;
  // "[2,?]" or "?".
  std::string ShapeString(shape_inference::ShapeHandle s) const;
  int64_t num_nodes_refined() const { return num_refined_; }
  // How many kernels ran to compute values.
  int64_t num_values_evaluated() const;

 private:
  struct OutputInfo;

  Status Refine(const Graph& graph, std::vector<Status>* errors);
  Status RefineLoops(const std::vector<Node*>& order,
                     std::vector<Status>* errors);
  shape_inference::ShapeHandle MakeShape(const PartialTensorShape& shape);
  bool DataInputsRefined(const Node& node) const;
  Status RefineNode(const Node& node);
  // Values of `node`'s integer outputs, from its inputs' values.
  void ComputeValues(const Node& node, const NodeDef& def,
                     shape_inference::InferenceContext* c);
  // Output shapes of a node that calls functions (Note [Shapes through
  // functions]); `*handled` false when the op's shape function decides.
  Status FunctionCallShapes(const Node& node, const NodeDef& def,
                            std::vector<PartialTensorShape>* outputs,
                            bool* handled);
  // The shapes `call` returns for arguments of `arg_shapes`, checking the
  // argument and result types when given (non-empty).
  Status CallShapes(const NameAttrList& call,
                    const std::vector<PartialTensorShape>& arg_shapes,
                    const DataTypeVector& arg_types,
                    const DataTypeVector& ret_types,
                    std::vector<PartialTensorShape>* ret_shapes);
  const NodeDef* WithDefaults(const NodeDef& node_def,
                              const OpRegistrationData& reg);

  const int graph_def_version_;
  const OpRegistryInterface* const ops_;
  shape_inference::ShapeManager manager_;
  std::unique_ptr<ConstantEvaluator> evaluator_;
  absl::flat_hash_map<std::string, const OpRegistrationData*> op_cache_;
  std::vector<int> first_output_;  // per node id, -1 when not refined
  std::vector<int> num_outputs_;
  std::vector<OutputInfo> outputs_;
  // Per node: the (node id, port) of each data input, in port order, and
  // what is known of each input for its InferenceContext.
  std::vector<std::pair<int, int>> inputs_scratch_;
  std::vector<shape_inference::ShapeHandle> scratch_shapes_;
  std::vector<const Tensor*> scratch_tensors_;
  std::vector<shape_inference::ShapeHandle> scratch_partials_;
  std::deque<NodeDef> defaulted_nodes_;
  std::deque<Tensor> values_;
  std::deque<std::vector<shape_inference::ShapeAndType>> handle_data_;
  int64_t num_refined_ = 0;
  // Set by Refine and AddNode: the graph (for its function library).
  const Graph* graph_ = nullptr;
  std::vector<PartialTensorShape> arg_shapes_;
  int call_depth_ = 0;
  // CallShapes results by function, attrs and argument shapes.
  absl::flat_hash_map<std::string, std::vector<PartialTensorShape>> call_cache_;
};

}  // namespace minflow
