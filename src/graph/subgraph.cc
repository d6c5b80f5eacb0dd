#include "minflow/graph/subgraph.h"

#include "absl/container/flat_hash_set.h"
#include "minflow/core/close_names.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/graph.h"

namespace minflow {

namespace {

// " Did you mean ...?" for a feed, fetch or target that names no node.
std::string CloseNodeNames(const Graph& graph, absl::string_view name) {
  std::vector<absl::string_view> names;
  for (const Node* n : graph.nodes()) names.push_back(n->name());
  return DidYouMean(name, names);
}

Status FindOutput(const Graph& graph, const std::string& name, const char* role,
                  Node** node, int* port) {
  TensorId id;
  MF_RETURN_IF_ERROR(ParseTensorName(name, &id));
  *node = graph.FindNodeByName(id.node);
  if (*node == nullptr) {
    return errors::NotFound(role, " '", name, "': there is no node named '",
                            id.node, "' in the graph.",
                            CloseNodeNames(graph, id.node));
  }
  if (id.port >= (*node)->num_outputs()) {
    return errors::InvalidArgument(role, " '", name, "': node '", id.node,
                                   "' (", (*node)->type_string(), ") has ",
                                   (*node)->num_outputs(), " outputs");
  }
  *port = id.port;
  return OkStatus();
}

NodeDef EndpointDef(const std::string& name, const char* op, DataType type,
                    int index, const std::string& device) {
  NodeDef def;
  def.set_name(name);
  def.set_op(op);
  def.set_device(device);
  AddNodeAttr("T", type, &def);
  AddNodeAttr("index", static_cast<int64_t>(index), &def);
  return def;
}

}  // namespace

Status RewriteGraphForExecution(absl::Span<const std::string> feeds,
                                absl::Span<const std::string> fetches,
                                absl::Span<const std::string> targets,
                                Graph* graph) {
  std::vector<Node*> roots;
  // (node id, port) of each fed tensor -> the _Arg replacing it.
  absl::flat_hash_map<std::pair<int, int>, Node*> fed;
  for (size_t i = 0; i < feeds.size(); ++i) {
    Node* node;
    int port;
    MF_RETURN_IF_ERROR(FindOutput(*graph, feeds[i], "Feed", &node, &port));
    if (fed.contains({node->id(), port})) {
      return errors::InvalidArgument("Tensor '", feeds[i],
                                     "' is fed more than once");
    }
    MF_ASSIGN_OR_RETURN(
        Node * arg, graph->AddNode(EndpointDef(
                        absl::StrCat("_arg_", node->name(), "_", port, "_", i),
                        kArgOp, BaseType(node->output_type(port)),
                        static_cast<int>(i), node->requested_device())));
    if (!node->output_shapes().empty()) {
      arg->set_output_shapes({node->output_shape(port)});
    }
    // A fed Placeholder never runs, so what waited for it (converters
    // give Consts a "^input" control input) waits for its feed instead, as
    // in TensorFlow. Other fed nodes keep their control edges: they still
    // run when something else needs them.
    const bool moves_control_edges =
        node->IsOp("Placeholder") || node->IsOp("PlaceholderV2");
    // Copy: re-pointing edges edits out_edges().
    const std::vector<const Edge*> out = node->out_edges();
    for (const Edge* e : out) {
      Node* dst = e->dst;
      if (e->IsControlEdge()) {
        if (!moves_control_edges) continue;
        graph->RemoveEdge(e);
        graph->AddControlEdge(arg, dst);
        continue;
      }
      if (e->src_output != port) continue;
      const int dst_input = e->dst_input;
      graph->RemoveEdge(e);
      graph->AddEdge(arg, 0, dst, dst_input);
    }
    fed[{node->id(), port}] = arg;
  }
  for (size_t j = 0; j < fetches.size(); ++j) {
    Node* node;
    int port;
    MF_RETURN_IF_ERROR(FindOutput(*graph, fetches[j], "Fetch", &node, &port));
    auto it = fed.find({node->id(), port});
    Node* src = it == fed.end() ? node : it->second;
    const int src_port = it == fed.end() ? port : 0;
    MF_ASSIGN_OR_RETURN(
        Node * retval,
        graph->AddNode(EndpointDef(
            absl::StrCat("_retval_", node->name(), "_", port, "_", j),
            kRetvalOp, BaseType(node->output_type(port)), static_cast<int>(j),
            node->requested_device())));
    graph->AddEdge(src, src_port, retval, 0);
    roots.push_back(retval);
  }
  for (const std::string& target : targets) {
    Node* node = graph->FindNodeByName(target);
    if (node == nullptr) {
      return errors::NotFound("Target '", target, "': there is no node named '",
                              target, "' in the graph.",
                              CloseNodeNames(*graph, target));
    }
    roots.push_back(node);
  }
  PruneForRoots(roots, graph);
  return OkStatus();
}

void PruneForRoots(absl::Span<Node* const> roots, Graph* graph) {
  std::vector<bool> needed(graph->num_node_ids(), false);
  std::vector<Node*> stack;
  for (Node* root : roots) {
    if (!needed[root->id()]) {
      needed[root->id()] = true;
      stack.push_back(root);
    }
  }
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge* e : n->in_edges()) {
      if (!needed[e->src->id()]) {
        needed[e->src->id()] = true;
        stack.push_back(e->src);
      }
    }
  }
  for (Node* n : graph->nodes()) {
    if (!needed[n->id()]) graph->RemoveNode(n);
  }
}

}  // namespace minflow
