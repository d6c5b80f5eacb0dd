// GraphPipeline: the one owner of a graph's journey from GraphDef to the
// graph an executor runs (the role TensorFlow's GraphExecutionState plays):
//
//   Prepare              import (validate) -> refine shapes, once; the
//                        inferred dtypes and shapes stay on the Graph's
//                        nodes (Node::output_shapes) for every later stage
//   PrepareForSignature  copy -> feed/fetch rewrite and pruning ->
//                        pre-placement passes -> placement (copies at
//                        memory boundaries) -> post-placement passes
//
// Session::Create, every command of the CLI, the C API, the benchmarks and
// the fuzzers go through it, so a graph is checked, refined and optimised
// the same way wherever it comes from. See Note [Graph pipeline].
#pragma once

#include <atomic>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "minflow/config.pb.h"
#include "minflow/core/status.h"
#include "minflow/graph/optimization_registry.h"

namespace minflow {

class Device;
class Graph;
class GraphDef;
class Node;
class OpRegistryInterface;
class PlacementCache;

struct GraphPipelineOptions {
  // Resolves op names; null means OpRegistry::Global().
  const OpRegistryInterface* ops = nullptr;
  // Null: Prepare stops at the first import or shape error. Set: every
  // independent error is appended here (for `minflow validate`; see Note
  // [Collecting import errors]) and Prepare keeps the valid part of the
  // graph, returning the first error.
  std::vector<Status>* errors = nullptr;
  // Fail-fast mode only: a shape error does not fail Prepare; the graph is
  // kept with shapes on the nodes refined before the error (for drawing a
  // graph whose shapes are wrong). Import errors still fail.
  bool tolerate_shape_errors = false;
};

struct SignatureOptions {
  // Devices to place on, in order of preference; empty: the graph is not
  // placed (for `minflow optimize` and `dot` without --devices).
  std::vector<Device*> devices;
  bool allow_soft_placement = false;
  std::ostream* log_device_placement = nullptr;
  // Optional, for preparing many signatures on the same devices with the
  // same options (a session keeps one): see PlacementCache. Calls sharing
  // a cache must not run at the same time.
  PlacementCache* placement_cache = nullptr;
  // Which optimisation passes run.
  PassSelection passes;
  // Null means OptimizationPassRegistry::Global().
  const OptimizationPassRegistry* registry = nullptr;
};

// A graph ready for an executor, and what it took.
struct PreparedGraph {
  std::unique_ptr<Graph> graph;
  // One per registered pass, in the order they ran (or would have).
  std::vector<GraphPassRecord> passes;
  // Per feed, the node of the pipeline's graph whose output it replaces,
  // and the port: what a fed tensor is checked against.
  std::vector<const Node*> feed_nodes;
  std::vector<int> feed_ports;
};

class GraphPipeline {
 public:
  ~GraphPipeline();
  GraphPipeline(const GraphPipeline&) = delete;
  GraphPipeline& operator=(const GraphPipeline&) = delete;

  // Imports and shape-refines `graph_def` once. Shape functions see the
  // graph's own producer version (versions.producer, 0 when the GraphDef
  // has none), wherever the graph comes from, as in TensorFlow.
  static Status Prepare(const GraphDef& graph_def,
                        const GraphPipelineOptions& options,
                        std::unique_ptr<GraphPipeline>* out);
  // As above, taking the NodeDefs out of `graph_def`.
  static Status Prepare(GraphDef&& graph_def,
                        const GraphPipelineOptions& options,
                        std::unique_ptr<GraphPipeline>* out);
  // Refines a Graph that was imported already (the C API builds its graph
  // one import at a time) and attaches the shapes to its nodes. Fail-fast
  // with `errors` null, else collecting.
  static Status RefineAndAttachShapes(Graph* graph,
                                      std::vector<Status>* errors = nullptr);

  // The imported graph with every node's inferred shapes attached.
  const Graph& graph() const { return *graph_; }

  // A pipeline over a copy of this one's graph (no import, no refinement).
  std::unique_ptr<GraphPipeline> Clone() const;

  // Copies the graph and prepares the copy for one Run signature (see the
  // top of this file); with no feeds, fetches or targets the whole graph is
  // kept as it is (no rewrite, no pruning), for drawing and inspecting.
  // Thread-safe: the pipeline is not changed. Errors
  // from the rewrite (unknown feeds/fetches/targets), an unfed Placeholder
  // the fetches need, a pass, or placement.
  Status PrepareForSignature(const std::vector<std::string>& feeds,
                             const std::vector<std::string>& fetches,
                             const std::vector<std::string>& targets,
                             const SignatureOptions& options,
                             PreparedGraph* out) const;

  // How many graphs Prepare has imported and refined in this process: lets
  // tests check that a session does it once whatever it runs.
  static int64_t num_graphs_prepared() { return num_prepared_.load(); }

 private:
  explicit GraphPipeline(std::unique_ptr<Graph> graph);
  static Status PrepareImpl(const GraphDef& graph_def, GraphDef* movable,
                            const GraphPipelineOptions& options,
                            std::unique_ptr<GraphPipeline>* out);

  std::unique_ptr<Graph> graph_;
  static std::atomic<int64_t> num_prepared_;
};

}  // namespace minflow
