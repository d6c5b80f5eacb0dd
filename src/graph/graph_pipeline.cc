#include "minflow/graph/graph_pipeline.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_join.h"
#include "minflow/framework/op.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/placer.h"
#include "minflow/graph/shape_refiner.h"
#include "minflow/graph/subgraph.h"

namespace minflow {

// Note [Graph pipeline]
// A graph is imported and refined once (Prepare); the result, a Graph whose
// nodes carry their inferred shapes, is the base every signature copies.
// Shapes travel with the nodes through the rewrite (an `_Arg` takes the
// shape of the output it replaces), the passes (a pass that adds a node
// gives it shapes) and placement (a copy has the shape of what it copies),
// and reach the executor, which hands them to each kernel's constructor
// (OpKernelConstruction::input_shapes/output_shapes). Nothing is exported
// back to a GraphDef on the way.

std::atomic<int64_t> GraphPipeline::num_prepared_{0};

GraphPipeline::GraphPipeline(std::unique_ptr<Graph> graph)
    : graph_(std::move(graph)) {}

GraphPipeline::~GraphPipeline() = default;

Status GraphPipeline::Prepare(const GraphDef& graph_def,
                              const GraphPipelineOptions& options,
                              std::unique_ptr<GraphPipeline>* out) {
  return PrepareImpl(graph_def, nullptr, options, out);
}

Status GraphPipeline::Prepare(GraphDef&& graph_def,
                              const GraphPipelineOptions& options,
                              std::unique_ptr<GraphPipeline>* out) {
  return PrepareImpl(graph_def, &graph_def, options, out);
}

Status GraphPipeline::PrepareImpl(const GraphDef& graph_def, GraphDef* movable,
                                  const GraphPipelineOptions& options,
                                  std::unique_ptr<GraphPipeline>* out) {
  out->reset();
  const OpRegistryInterface* ops =
      options.ops != nullptr ? options.ops : OpRegistry::Global();
  auto graph = std::make_unique<Graph>(ops);
  GraphConstructorOptions import;
  import.errors = options.errors;
  const Status imported =
      movable != nullptr
          ? ConvertGraphDefToGraph(import, std::move(*movable), graph.get())
          : ConvertGraphDefToGraph(import, graph_def, graph.get());
  if (options.errors == nullptr) MF_RETURN_IF_ERROR(imported);
  const Status refined = RefineAndAttachShapes(graph.get(), options.errors);
  num_prepared_.fetch_add(1, std::memory_order_relaxed);
  if (options.errors == nullptr && !options.tolerate_shape_errors) {
    MF_RETURN_IF_ERROR(refined);
  }
  out->reset(new GraphPipeline(std::move(graph)));
  if (!imported.ok()) return imported;
  return options.tolerate_shape_errors ? OkStatus() : refined;
}

Status GraphPipeline::RefineAndAttachShapes(Graph* graph,
                                            std::vector<Status>* errors) {
  ShapeRefiner refiner(graph->versions().producer(), graph->op_registry());
  const Status s = errors != nullptr
                       ? refiner.RefineGraphCollectingErrors(*graph, errors)
                       : refiner.RefineGraph(*graph);
  refiner.AttachShapes(graph);
  return s;
}

std::unique_ptr<GraphPipeline> GraphPipeline::Clone() const {
  return std::unique_ptr<GraphPipeline>(new GraphPipeline(graph_->Clone()));
}

Status GraphPipeline::PrepareForSignature(
    const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, const SignatureOptions& options,
    PreparedGraph* out) const {
  *out = PreparedGraph();
  for (const std::string& feed : feeds) {
    TensorId id;
    MF_RETURN_IF_ERROR(ParseTensorName(feed, &id));
    const Node* node = graph_->FindNodeByName(id.node);
    if (node == nullptr || id.port >= node->num_outputs()) {
      break;  // RewriteGraphForExecution reports it with the details
    }
    out->feed_nodes.push_back(node);
    out->feed_ports.push_back(id.port);
  }
  std::unique_ptr<Graph> graph = graph_->Clone();
  if (!feeds.empty() || !fetches.empty() || !targets.empty()) {
    MF_RETURN_IF_ERROR(
        RewriteGraphForExecution(feeds, fetches, targets, graph.get()));
    std::vector<std::string> unfed;
    for (const Node* n : graph->nodes()) {
      if (n->IsPlaceholder()) unfed.push_back(n->name());
    }
    if (!unfed.empty()) {
      std::sort(unfed.begin(), unfed.end());
      return errors::InvalidArgument(
          "You must feed a value for placeholder tensor",
          unfed.size() > 1 ? "s" : "", " '", absl::StrJoin(unfed, "', '"), "'");
    }
  }

  const OptimizationPassRegistry* registry =
      options.registry != nullptr ? options.registry
                                  : OptimizationPassRegistry::Global();
  MF_RETURN_IF_ERROR(registry->CheckSelection(options.passes));
  GraphOptimizationContext context;
  context.rewriter = options.passes.rewriter;
  for (const Node* n : graph->nodes()) {
    if (n->IsOp(kArgOp) || n->IsOp(kRetvalOp)) {
      context.preserved_nodes.insert(n->name());
    }
  }
  for (const std::string& target : targets) {
    context.preserved_nodes.insert(target);
  }
  MF_RETURN_IF_ERROR(registry->RunPhase(OptimizationPhase::kPrePlacement,
                                        context, options.passes, graph.get(),
                                        &out->passes));
  if (!options.devices.empty()) {
    PlacerOptions placer;
    placer.allow_soft_placement = options.allow_soft_placement;
    placer.log_device_placement = options.log_device_placement;
    placer.cache = options.placement_cache;
    MF_RETURN_IF_ERROR(PlaceGraph(options.devices, placer, graph.get()));
    context.devices = options.devices;
  }
  MF_RETURN_IF_ERROR(registry->RunPhase(OptimizationPhase::kPostPlacement,
                                        context, options.passes, graph.get(),
                                        &out->passes));
  out->graph = std::move(graph);
  return OkStatus();
}

}  // namespace minflow
