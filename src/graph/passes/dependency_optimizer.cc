// dependency_optimizer: removes nodes that only forward their inputs
// (Identity, IdentityN, StopGradient, Snapshot, PreventGradient) or only
// order others (NoOp), moving their control dependencies onto their
// consumers, and drops control edges that say nothing new. Before
// placement. See Note [Bypassing forwarding nodes].
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/control_flow.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/optimization_registry.h"

namespace minflow {
namespace {

// Note [Bypassing forwarding nodes]
// A forwarding node N is removed by making each consumer read N's input
// where it read N's output, and wait for whatever N waited for (N's control
// inputs; for a control edge out of N, also the nodes N read). A consumer
// then starts no earlier than before, and sees the same values; a dead
// input (TF1 cond) reaches it through the same edges, since a control edge
// carries the deadness of its source.
//
// N stays when removing it could change more than scheduling:
// - it is preserved (a feed, fetch or target) or named by another node's
//   colocation attr, or the signature is unknown;
// - it reads a Switch: an Identity of a Switch output is dead with its
//   branch, while a control edge from the Switch itself never is;
// - it is in a TF1 loop frame, or a consumer is a control-flow op (Merge,
//   Enter, Exit, NextIteration, Switch), whose inputs have roles;
// - a ref edge touches it (an Identity of a TF1 variable reads its value at
//   that point), or it is a Snapshot of a stateful node's output (the copy
//   is its point);
// - its input, itself and its consumers are not all on one device (the
//   node may be a deliberate device crossing);
// - an IdentityN of several inputs feeds a _Retval (as in TensorFlow);
// - bypassing it would add edges: TensorFlow's rule, the edges after must
//   not outnumber those before (a NoOp joining 10 inputs to 10 consumers
//   stays).

class DependencyOptimizerPass : public GraphOptimizationPass {
 public:
  absl::string_view name() const override { return "dependency_optimizer"; }
  absl::string_view preserves() const override {
    return "every fetched value and every preserved node; the order control "
           "edges impose; TF1 control flow and device crossings";
  }
  bool EnabledBy(const RewriterConfig& config) const override {
    return config.dependency_optimization() != RewriterConfig::OFF;
  }
  Status Run(const GraphOptimizationContext& context,
             Graph* graph) const override;
};

bool IsForwarding(const Node& n) {
  return n.IsOp("Identity") || n.IsOp("IdentityN") || n.IsOp("StopGradient") ||
         n.IsOp("Snapshot") || n.IsOp("PreventGradient");
}

bool SameDevice(const Node& a, const Node& b) {
  return a.requested_device() == b.requested_device() &&
         a.assigned_device_name() == b.assigned_device_name();
}

// Drops control edges into `n` that repeat another control edge or a data
// edge from the same node. Control-flow ops keep theirs: a Merge counts its
// inputs.
void CleanControlInputs(Graph* graph, Node* n) {
  if (n->IsControlFlow()) return;
  absl::flat_hash_set<const Node*> seen;
  for (const Edge* e : n->in_edges()) {
    if (!e->IsControlEdge()) seen.insert(e->src);
  }
  std::vector<const Edge*> redundant;
  for (const Edge* e : n->in_edges()) {
    if (e->IsControlEdge() && !e->src->IsControlFlow() &&
        !seen.insert(e->src).second) {
      redundant.push_back(e);
    }
  }
  for (const Edge* e : redundant) graph->RemoveEdge(e);
}

struct Bypass {
  std::vector<const Edge*> data_in;  // by input index
  std::vector<Node*> data_srcs;      // distinct nodes read
  std::vector<Node*> control_srcs;   // distinct control inputs
  std::vector<Node*> consumers;      // distinct
};

// Fills `b` and says whether `n` may be bypassed.
bool CanBypass(const Node& n, const absl::flat_hash_set<std::string>& keep,
               const ControlFlowInfo* frames, Bypass* b) {
  if (!IsForwarding(n) && !n.IsOp("NoOp")) return false;
  if (keep.contains(n.name()) || n.IsStateful()) {
    return false;
  }
  if (frames != nullptr && frames->frame_of_node[n.id()] != 0) return false;
  for (DataType t : n.input_types()) {
    if (IsRefType(t)) return false;
  }
  b->data_in.assign(n.num_inputs(), nullptr);
  absl::flat_hash_set<const Node*> in_seen, out_seen;
  for (const Edge* e : n.in_edges()) {
    Node* src = e->src;
    if (!SameDevice(*src, n)) return false;
    if (e->IsControlEdge()) {
      if (in_seen.insert(src).second) b->control_srcs.push_back(src);
      continue;
    }
    if (IsRefType(src->output_type(e->src_output)) ||
        IsSwitchOp(src->type_string()) ||
        (n.IsOp("Snapshot") && src->IsStateful())) {
      return false;
    }
    b->data_in[e->dst_input] = e;
    if (in_seen.insert(src).second) b->data_srcs.push_back(src);
  }
  for (const Edge* e : b->data_in) {
    if (e == nullptr) return false;  // an input not connected
  }
  // The edges bypassing adds, against those it removes.
  int after = 0;
  for (const Edge* e : n.out_edges()) {
    Node* dst = e->dst;
    if (dst->IsControlFlow() || !SameDevice(n, *dst)) return false;
    if (n.num_inputs() > 1 && dst->IsOp("_Retval")) return false;
    if (out_seen.insert(dst).second) {
      b->consumers.push_back(dst);
      after += static_cast<int>(b->control_srcs.size());
    }
    after += e->IsControlEdge() ? static_cast<int>(b->data_srcs.size()) : 1;
  }
  const int before =
      static_cast<int>(n.in_edges().size() + n.out_edges().size());
  return after <= before;
}

void DoBypass(Graph* graph, Node* n, const Bypass& b) {
  const std::vector<const Edge*> out = n->out_edges();
  for (const Edge* e : out) {
    Node* dst = e->dst;
    if (e->IsControlEdge()) {
      graph->RemoveEdge(e);
      for (Node* src : b.data_srcs) graph->AddControlEdge(src, dst);
    } else {
      const Edge* in = b.data_in[e->src_output];
      const int input = e->dst_input;
      graph->RemoveEdge(e);
      graph->AddEdge(in->src, in->src_output, dst, input);
    }
  }
  for (Node* dst : b.consumers) {
    for (Node* src : b.control_srcs) graph->AddControlEdge(src, dst);
  }
  graph->RemoveNode(n);
}

Status DependencyOptimizerPass::Run(const GraphOptimizationContext& context,
                                    Graph* graph) const {
  // With no signature, any node's output may be asked for later.
  if (context.preserved_nodes.empty()) return OkStatus();
  std::vector<Node*> order;
  MF_RETURN_IF_ERROR(TopologicalOrder(*graph, &order));
  bool has_control_flow = false;
  for (const Node* n : order) has_control_flow |= n->IsControlFlow();
  ControlFlowInfo frames;
  if (has_control_flow && !BuildControlFlowInfo(*graph, &frames).ok()) {
    return OkStatus();  // the executor reports it
  }
  const absl::flat_hash_set<std::string> keep = NodesToKeep(context, *graph);
  for (Node* n : order) CleanControlInputs(graph, n);
  // In topological order, a chain of forwarding nodes goes one at a time:
  // bypassing only adds edges from a node's inputs to its consumers.
  std::vector<Node*> touched;
  for (Node* n : order) {
    Bypass b;
    if (!CanBypass(*n, keep, has_control_flow ? &frames : nullptr, &b)) {
      continue;
    }
    for (Node* dst : b.consumers) touched.push_back(dst);
    DoBypass(graph, n, b);
  }
  for (Node* n : touched) {
    if (graph->FindNodeId(n->id()) == n) CleanControlInputs(graph, n);
  }
  return OkStatus();
}

}  // namespace

REGISTER_GRAPH_OPTIMIZATION(kPrePlacement, 30, DependencyOptimizerPass);

}  // namespace minflow
