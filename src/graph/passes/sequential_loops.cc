// sequential_loops: replaces a TF1 while loop whose iterations cannot
// overlap by one _SequentialLoop node, whose kernel runs the loop's nodes in
// order. After placement. See Note [Sequential loops].
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "minflow/framework/device_name_utils.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/control_flow.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/optimization_registry.h"
#include "minflow/node_def.pb.h"

namespace minflow {
namespace {

// Note [Sequential loops]
// The executor runs a loop's nodes one by one through its ready queue:
// every node pays for an OpKernelContext, its output tensors, the frame's
// bookkeeping and the hand-off to the next node, about ten times the cost of
// a scalar kernel. That buys overlap: with parallel_iterations > 1, work of
// iteration i+1 may start before iteration i is done. When it cannot, the
// same results come from running the frame's nodes in a fixed order, one
// iteration after another, and this pass hands such a loop to one
// _SequentialLoop node, whose kernel does exactly that.
//
// A loop is handed over when
// - it has the shape tf.while_loop and the While lowering give it: per loop
//   variable an Enter, a Merge of it and a NextIteration, a Switch of the
//   Merge on the one LoopCond, Exits on the Switch's false side; invariants
//   enter through constant Enters;
// - its other nodes have no control flow of their own (no inner cond or
//   loop; an inner loop handed over first is one node like any other), no
//   ref edges, are on a CPU device, and none is a feed, fetch or target;
// - and its iterations cannot overlap (or parallel_iterations is 1): every
//   node of an iteration either leads to the condition or to the next value
//   of a variable the condition reads, so iteration i+1 starts only after
//   all of iteration i. Work off that path may overlap the next iteration
//   in the executor; the loop is still handed over when that work is cheap
//   (no contraction or convolution), since overlapping a few element-wise
//   ops saves less than their hand-offs cost.
// Nodes that run every iteration regardless of the condition (those not
// reading the Switches) run before the condition is read, the others only in
// iterations that go on, as in the executor. Inner loops are handed over
// first, so a nest of such loops becomes one node.
//
// What changes: the loop's nodes no longer appear in step stats and traces
// (the _SequentialLoop node does), and an error inside names the inner node
// and then the _SequentialLoop node.

class SequentialLoopsPass : public GraphOptimizationPass {
 public:
  absl::string_view name() const override { return "sequential_loops"; }
  absl::string_view preserves() const override {
    return "the value of every fetched tensor and the effects of every "
           "stateful node; a loop whose iterations cannot overlap runs as one "
           "node";
  }
  // TensorFlow's toggle for its loop optimizer is the nearest match.
  bool EnabledBy(const RewriterConfig& config) const override {
    return config.loop_optimization() != RewriterConfig::OFF;
  }
  Status Run(const GraphOptimizationContext& context,
             Graph* graph) const override;
};

bool IsContractionOrConvolution(absl::string_view op) {
  static const auto* const kOps = new absl::flat_hash_set<std::string>{
      "MatMul",
      "BatchMatMul",
      "BatchMatMulV2",
      "BatchMatMulV3",
      "_FusedMatMul",
      "Einsum",
      "Conv2D",
      "Conv3D",
      "_FusedConv2D",
      "DepthwiseConv2dNative",
      "_FusedDepthwiseConv2dNative",
      "Conv2DBackpropInput",
      "Conv2DBackpropFilter",
  };
  return kOps->contains(op);
}

bool OnCpu(const Node& n) {
  DeviceNameUtils::ParsedName parsed;
  return DeviceNameUtils::ParseFullName(n.assigned_device_name(), &parsed)
             .ok() &&
         parsed.has_type && parsed.type == "CPU";
}

bool HasRefs(const Node& n) {
  for (DataType t : n.input_types()) {
    if (IsRefType(t)) return true;
  }
  for (DataType t : n.output_types()) {
    if (IsRefType(t)) return true;
  }
  return false;
}

// One loop frame taken apart.
struct Loop {
  std::vector<Node*> var_enters, merges, switches, next_iterations;
  std::vector<Node*> invariant_enters;
  std::vector<std::vector<Node*>> exits;  // per variable
  Node* loop_cond = nullptr;
  std::vector<Node*> body;                       // in topological order
  absl::flat_hash_map<const Node*, int> var_of;  // Merge/Switch/NextIteration
  int parallel_iterations = 10;
};

// The data input edge `index` of `n` (connected by the importer).
const Edge* InEdge(const Node& n, int index) {
  const Edge* e = nullptr;
  return n.input_edge(index, &e).ok() ? e : nullptr;
}

class LoopCompiler {
 public:
  LoopCompiler(Graph* graph, const ControlFlowInfo& info,
               const absl::flat_hash_set<std::string>& keep,
               const std::vector<Node*>& order)
      : graph_(graph), info_(info), keep_(keep), order_(order) {}

  // Replaces frame `f` if it qualifies; whether it did.
  bool TryReplace(int f);

 private:
  bool Analyse(int f, Loop* loop) const;
  bool IterationsAreSerial(const Loop& loop) const;
  bool Replace(const Loop& loop, int f);

  Graph* graph_;
  const ControlFlowInfo& info_;
  const absl::flat_hash_set<std::string>& keep_;
  const std::vector<Node*>& order_;
};

bool LoopCompiler::Analyse(int f, Loop* loop) const {
  absl::flat_hash_set<const Node*> members;
  for (Node* n : order_) {
    const int id = n->id();
    if (info_.frame_of_node[id] == f) {
      members.insert(n);
    } else if (IsEnterOp(n->type_string()) &&
               info_.output_frame_of_node[id] == f) {
      if (!n->IsOp("Enter") || keep_.contains(n->name())) return false;
      bool is_constant = false;
      if (!GetNodeAttr(AttrSlice(n->def()), "is_constant", &is_constant).ok()) {
        return false;
      }
      (is_constant ? loop->invariant_enters : loop->var_enters).push_back(n);
    }
  }
  loop->parallel_iterations = info_.frames[f].parallel_iterations;
  for (Node* n : order_) {
    if (!members.contains(n)) continue;
    if (keep_.contains(n->name()) || HasRefs(*n) || !OnCpu(*n)) return false;
    const std::string& op = n->type_string();
    if (op == "Merge") {
      loop->var_of[n] = static_cast<int>(loop->merges.size());
      loop->merges.push_back(n);
    } else if (op == "Switch") {
      loop->switches.push_back(n);
    } else if (op == "NextIteration") {
      loop->next_iterations.push_back(n);
    } else if (op == "LoopCond") {
      if (loop->loop_cond != nullptr) return false;
      loop->loop_cond = n;
    } else if (op == "Exit") {
      // Placed by its Switch below.
    } else if (IsControlFlowOp(op) || n->IsOp("_Arg") || n->IsOp("_Retval")) {
      return false;
    } else {
      loop->body.push_back(n);
    }
    // Nothing of the frame but its Exits is read outside it.
    for (const Edge* e : n->out_edges()) {
      if (!members.contains(e->dst) && !IsExitOp(op)) return false;
    }
  }
  const size_t num_vars = loop->merges.size();
  if (loop->loop_cond == nullptr || num_vars == 0 ||
      loop->var_enters.size() != num_vars ||
      loop->switches.size() != num_vars ||
      loop->next_iterations.size() != num_vars) {
    return false;
  }
  loop->var_enters.assign(num_vars, nullptr);
  loop->switches.assign(num_vars, nullptr);
  loop->next_iterations.assign(num_vars, nullptr);
  loop->exits.assign(num_vars, {});
  // Each Merge: its Enter and its NextIteration; output 1 unused.
  for (size_t k = 0; k < num_vars; ++k) {
    Node* merge = loop->merges[k];
    if (merge->num_inputs() != 2) return false;
    for (int i = 0; i < 2; ++i) {
      const Edge* e = InEdge(*merge, i);
      if (e == nullptr) return false;
      Node* src = e->src;
      if (src->IsOp("Enter") && loop->var_enters[k] == nullptr &&
          info_.output_frame_of_node[src->id()] == f) {
        loop->var_enters[k] = src;
      } else if (src->IsOp("NextIteration") && members.contains(src) &&
                 loop->next_iterations[k] == nullptr) {
        loop->next_iterations[k] = src;
        loop->var_of[src] = static_cast<int>(k);
      } else {
        return false;
      }
    }
    if (loop->var_enters[k] == nullptr || loop->next_iterations[k] == nullptr) {
      return false;
    }
    for (const Edge* e : merge->out_edges()) {
      if (!e->IsControlEdge() && e->src_output != 0) return false;
      if (e->dst->IsOp("Switch")) {
        if (e->dst_input != 0 || loop->switches[k] != nullptr) return false;
        loop->switches[k] = e->dst;
        loop->var_of[e->dst] = static_cast<int>(k);
      }
    }
    if (loop->switches[k] == nullptr) return false;
  }
  // A variable's Enter leads only to its Merge.
  for (Node* enter : loop->var_enters) {
    if (enter->out_edges().size() != 1) return false;
  }
  for (Node* enter : loop->invariant_enters) {
    for (const Edge* e : enter->out_edges()) {
      if (!members.contains(e->dst)) return false;
    }
  }
  // Each Switch: its Merge and the LoopCond; the false side to Exits only;
  // the true side to the body.
  for (size_t k = 0; k < num_vars; ++k) {
    Node* sw = loop->switches[k];
    const Edge* pred = InEdge(*sw, 1);
    if (pred == nullptr || pred->src != loop->loop_cond) return false;
    for (const Edge* e : sw->out_edges()) {
      if (e->IsControlEdge()) continue;
      if (e->src_output == 0) {
        if (!e->dst->IsOp("Exit")) return false;
        for (const Edge* in : e->dst->in_edges()) {
          if (in->IsControlEdge()) return false;
        }
        loop->exits[k].push_back(e->dst);
      } else if (IsControlFlowOp(e->dst->type_string()) &&
                 !e->dst->IsOp("NextIteration")) {
        return false;
      }
    }
  }
  // The LoopCond reads the body (or a variable) and feeds only Switches.
  const Edge* cond = InEdge(*loop->loop_cond, 0);
  if (cond == nullptr) return false;
  for (const Edge* e : loop->loop_cond->out_edges()) {
    if (e->IsControlEdge() || !e->dst->IsOp("Switch")) return false;
  }
  for (Node* next : loop->next_iterations) {
    for (const Edge* e : next->out_edges()) {
      if (!e->dst->IsOp("Merge")) return false;
    }
  }
  return true;
}

bool LoopCompiler::IterationsAreSerial(const Loop& loop) const {
  // The variables the condition reads: Merges among its ancestors.
  absl::flat_hash_set<const Node*> seen;
  absl::flat_hash_set<int> cond_vars;
  auto walk = [&](std::vector<const Node*> stack) {
    while (!stack.empty()) {
      const Node* n = stack.back();
      stack.pop_back();
      if (!seen.insert(n).second) continue;
      if (n->IsOp("Merge")) {
        cond_vars.insert(loop.var_of.at(n));
        continue;
      }
      if (n->IsOp("Switch") || n->IsOp("Enter")) continue;
      for (const Edge* e : n->in_edges()) stack.push_back(e->src);
    }
  };
  walk({InEdge(*loop.loop_cond, 0)->src});
  // Then what their next values need.
  std::vector<const Node*> next_inputs;
  for (int k : cond_vars) {
    next_inputs.push_back(InEdge(*loop.next_iterations[k], 0)->src);
  }
  walk(next_inputs);
  for (const Node* n : loop.body) {
    if (!seen.contains(n) && IsContractionOrConvolution(n->type_string())) {
      return false;
    }
  }
  return true;
}

std::string UniqueName(const Graph& graph, std::string base) {
  for (char& c : base) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '_' || c == '.' ||
                    c == '/' || c == '-';
    if (!ok) c = '_';
  }
  if (base.empty() || base[0] == '_' || base[0] == '/' || base[0] == '-') {
    base = "loop" + base;
  }
  std::string name = base;
  for (int i = 1; graph.FindNodeByName(name) != nullptr; ++i) {
    name = absl::StrCat(base, "_", i);
  }
  return name;
}

bool LoopCompiler::Replace(const Loop& loop, int f) {
  absl::flat_hash_set<const Node*> body(loop.body.begin(), loop.body.end());
  absl::flat_hash_map<const Node*, int> invariant_of;
  for (size_t j = 0; j < loop.invariant_enters.size(); ++j) {
    invariant_of[loop.invariant_enters[j]] = static_cast<int>(j);
  }
  // How a body node names the tensor behind edge `e`; false if it cannot.
  auto tensor_name = [&](const Edge& e, std::string* name) {
    const Node* src = e.src;
    if (body.contains(src) || src->IsOp("Merge") || src->IsOp("Enter")) {
      *name = absl::StrCat(src->name(), ":", e.src_output);
      return !src->IsOp("Merge") || e.src_output == 0;
    }
    if (src->IsOp("Switch")) {
      *name = absl::StrCat(src->name(), ":", e.src_output);
      return e.src_output == 1;
    }
    return false;
  };

  NodeDef def;
  def.set_op("_SequentialLoop");
  def.set_name(UniqueName(*graph_, info_.frames[f].name + "/sequential_loop"));
  DataTypeVector var_types, invariant_types;
  std::vector<std::string> body_nodes, merges, switches, enters, next_values;
  for (size_t k = 0; k < loop.merges.size(); ++k) {
    var_types.push_back(loop.merges[k]->output_type(0));
    merges.push_back(loop.merges[k]->name());
    switches.push_back(loop.switches[k]->name());
    std::string next;
    if (!tensor_name(*InEdge(*loop.next_iterations[k], 0), &next)) {
      return false;
    }
    next_values.push_back(next);
  }
  for (Node* enter : loop.invariant_enters) {
    invariant_types.push_back(enter->output_type(0));
    enters.push_back(enter->name());
  }
  for (const Node* n : loop.body) {
    NodeDef body_def = n->def();
    body_def.clear_input();
    std::vector<std::string> control;
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Edge* e = InEdge(*n, i);
      std::string name;
      if (e == nullptr || !tensor_name(*e, &name)) return false;
      body_def.add_input(name);
    }
    // Only a body node's control edges order anything here: the Switches,
    // Merges and Enters are there from the start of every iteration (a
    // Switch's control edges are live whichever side it takes).
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge() && body.contains(e->src)) {
        body_def.add_input("^" + e->src->name());
      }
    }
    body_nodes.push_back(body_def.SerializeAsString());
  }
  std::string cond;
  if (!tensor_name(*InEdge(*loop.loop_cond, 0), &cond)) return false;

  AddNodeAttr("T", var_types, &def);
  AddNodeAttr("Tinvariant", invariant_types, &def);
  AddNodeAttr("frame_name", info_.frames[f].name, &def);
  AddNodeAttr("body_nodes", body_nodes, &def);
  AddNodeAttr("var_merges", merges, &def);
  AddNodeAttr("var_switches", switches, &def);
  AddNodeAttr("invariant_enters", enters, &def);
  AddNodeAttr("cond", cond, &def);
  AddNodeAttr("next_values", next_values, &def);
  const std::string device = loop.var_enters[0]->assigned_device_name();
  def.set_device(device);
  std::vector<const Edge*> inputs;
  for (Node* enter : loop.var_enters) inputs.push_back(InEdge(*enter, 0));
  for (Node* enter : loop.invariant_enters) inputs.push_back(InEdge(*enter, 0));
  for (const Edge* e : inputs) {
    if (e == nullptr) return false;
    def.add_input(absl::StrCat(e->src->name(), ":", e->src_output));
  }
  StatusOr<Node*> added = graph_->AddNode(std::move(def));
  if (!added.ok()) return false;
  Node* node = *added;
  node->set_assigned_device_name(device);

  std::vector<PartialTensorShape> shapes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    graph_->AddEdge(inputs[i]->src, inputs[i]->src_output, node,
                    static_cast<int>(i));
  }
  for (size_t k = 0; k < loop.merges.size(); ++k) {
    shapes.push_back(loop.exits[k].empty() ? PartialTensorShape()
                                           : loop.exits[k][0]->output_shape(0));
  }
  node->set_output_shapes(std::move(shapes));
  absl::flat_hash_set<Node*> control_sources;
  for (const std::vector<Node*>* enters_of :
       {&loop.var_enters, &loop.invariant_enters}) {
    for (Node* enter : *enters_of) {
      for (const Edge* e : enter->in_edges()) {
        if (e->IsControlEdge() && control_sources.insert(e->src).second) {
          graph_->AddControlEdge(e->src, node);
        }
      }
    }
  }
  for (size_t k = 0; k < loop.exits.size(); ++k) {
    for (Node* exit : loop.exits[k]) {
      std::vector<const Edge*> outs(exit->out_edges().begin(),
                                    exit->out_edges().end());
      for (const Edge* e : outs) {
        Node* dst = e->dst;
        const int dst_input = e->dst_input;
        const bool control = e->IsControlEdge();
        graph_->RemoveEdge(e);
        if (control) {
          graph_->AddControlEdge(node, dst);
        } else {
          graph_->AddEdge(node, static_cast<int>(k), dst, dst_input);
        }
      }
    }
  }
  // The frame's nodes and its Enters go.
  for (Node* n : order_) {
    const int id = n->id();
    if (info_.frame_of_node[id] == f ||
        (IsEnterOp(n->type_string()) && info_.output_frame_of_node[id] == f)) {
      graph_->RemoveNode(n);
    }
  }
  return true;
}

bool LoopCompiler::TryReplace(int f) {
  Loop loop;
  if (!Analyse(f, &loop)) return false;
  if (loop.parallel_iterations != 1 && !IterationsAreSerial(loop)) {
    return false;
  }
  return Replace(loop, f);
}

Status SequentialLoopsPass::Run(const GraphOptimizationContext& context,
                                Graph* graph) const {
  if (context.devices.empty()) return OkStatus();  // not placed
  const absl::flat_hash_set<std::string> keep = NodesToKeep(context, *graph);
  for (bool replaced = true; replaced;) {
    replaced = false;
    bool has_loops = false;
    for (const Node* n : graph->nodes()) has_loops |= n->IsOp("Enter");
    if (!has_loops) return OkStatus();
    ControlFlowInfo info;
    std::vector<Node*> order;
    // A graph the executor would refuse is left for it to report.
    if (!BuildControlFlowInfo(*graph, &info).ok() ||
        !TopologicalOrder(*graph, &order).ok()) {
      return OkStatus();
    }
    std::vector<bool> has_children(info.frames.size(), false);
    for (const FrameDesc& frame : info.frames) {
      if (frame.parent >= 0) has_children[frame.parent] = true;
    }
    LoopCompiler compiler(graph, info, keep, order);
    for (int f = 1; f < static_cast<int>(info.frames.size()); ++f) {
      if (has_children[f]) continue;
      if (compiler.TryReplace(f)) {
        replaced = true;
        // The order and frame info name removed nodes now; start again.
        break;
      }
    }
  }
  return OkStatus();
}

REGISTER_GRAPH_OPTIMIZATION(kPostPlacement, 0, SequentialLoopsPass);

}  // namespace
}  // namespace minflow
