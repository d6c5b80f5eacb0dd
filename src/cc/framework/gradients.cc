#include "minflow/cc/framework/gradients.h"

#include <deque>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/graph/control_flow.h"
#include "minflow/graph/graph.h"

namespace minflow {
namespace {

// Note [Symbolic gradients]
// The backward pass visits only the nodes that lie on a path from some x
// to some y along edges that can carry a gradient (floating-point and
// complex dtypes): integer and bool edges (shapes, indices, masks) cut a
// path. Such a node is processed once every consumer of its outputs that
// is also on a path has been, so the gradients of each output are complete
// and are summed (AddN) when there are several. An op declared without
// gradient (REGISTER_NO_GRADIENT_OP, StopGradient among them) passes
// nothing back; so does a node whose outputs received nothing. Of an op
// with several outputs, those that received nothing get zeros, so the
// gradient function sees a tensor for each. The result for an x is the sum
// of what reached it, or NoGradient() when nothing did (TensorFlow
// Python's None; ZerosForNoGradients turns it into zeros). An x that is
// computed from another x passes its gradient on too: the result is the
// total derivative. Conditionals are differentiated by the gradients of
// Switch, Merge, If and Case (Note [Gradients of conditionals] in
// src/cc/gradients/control_flow_grad.cc, Note [Gradients of functional
// conditionals] in functional_grad.cc). Loops are out of scope: a loop op
// on a path is Unimplemented, before anything is added.

bool IsLoopOp(absl::string_view op) {
  return IsEnterOp(op) || IsExitOp(op) || IsNextIterationOp(op) ||
         IsLoopCondOp(op) || op == "While" || op == "StatelessWhile";
}

Status CheckOutput(const Graph& graph, const Output& out, const char* what,
                   size_t i) {
  if (out.node() == nullptr) {
    return errors::InvalidArgument(what, "[", i, "] is a null Output");
  }
  if (graph.FindNodeId(out.node()->id()) != out.node()) {
    return errors::InvalidArgument(what, "[", i, "] ('", out.node()->name(),
                                   "') belongs to another graph");
  }
  if (out.index() < 0 || out.index() >= out.node()->num_outputs()) {
    return errors::InvalidArgument(what, "[", i, "] names output ", out.index(),
                                   " of node '", out.node()->name(),
                                   "', which has ", out.node()->num_outputs(),
                                   " outputs");
  }
  return OkStatus();
}

class SymbolicGradientBuilder {
 public:
  SymbolicGradientBuilder(const Scope& scope, const std::vector<Output>& ys,
                          const std::vector<Output>& xs,
                          const std::vector<Output>& grad_ys)
      : scope_(scope.NewSubScope("gradients")),
        graph_(*scope.graph()),
        ys_(ys),
        xs_(xs),
        grad_ys_(grad_ys) {}

  Status Run(std::vector<Output>* grad_xs);

 private:
  // Marks on_path_ and counts pending_ (see the Note).
  void FindPath();
  Status CheckNoLoops() const;
  // The sum of the gradients that reached `out` (null when none).
  Output SumGradients(const Output& out);
  Status BackpropNode(Node* node, std::deque<Node*>* ready);

  Scope scope_;
  const Graph& graph_;
  const std::vector<Output>& ys_;
  const std::vector<Output>& xs_;
  const std::vector<Output>& grad_ys_;
  std::vector<bool> on_path_;
  std::vector<int> pending_;
  std::unordered_map<Output, std::vector<Output>, OutputHash> grads_;
};

void SymbolicGradientBuilder::FindPath() {
  const int n = graph_.num_node_ids();
  // Nodes some y depends on through gradient-carrying edges.
  std::vector<bool> reaches_y(n, false);
  std::vector<Node*> stack;
  for (const Output& y : ys_) {
    if (!reaches_y[y.node()->id()]) {
      reaches_y[y.node()->id()] = true;
      stack.push_back(y.node());
    }
  }
  while (!stack.empty()) {
    Node* node = stack.back();
    stack.pop_back();
    for (const Edge* e : node->in_edges()) {
      if (e->IsControlEdge() ||
          !CarriesGradient(node->input_type(e->dst_input)))
        continue;
      if (!reaches_y[e->src->id()]) {
        reaches_y[e->src->id()] = true;
        stack.push_back(e->src);
      }
    }
  }
  // Of those, the nodes that depend on an x: starting from the edges out
  // of the x tensors themselves, then every output of the nodes reached.
  on_path_.assign(n, false);
  pending_.assign(n, 0);
  auto follow = [&](const Edge* e) {
    if (e->IsControlEdge() ||
        !CarriesGradient(e->src->output_type(e->src_output)))
      return;
    Node* dst = e->dst;
    if (!reaches_y[dst->id()] || on_path_[dst->id()]) return;
    on_path_[dst->id()] = true;
    stack.push_back(dst);
  };
  for (const Output& x : xs_) {
    for (const Edge* e : x.node()->out_edges()) {
      if (e->src_output == x.index()) follow(e);
    }
  }
  while (!stack.empty()) {
    Node* node = stack.back();
    stack.pop_back();
    for (const Edge* e : node->out_edges()) follow(e);
  }
  for (int id = 0; id < n; ++id) {
    Node* node = graph_.FindNodeId(id);
    if (node == nullptr || !on_path_[id]) continue;
    for (const Edge* e : node->out_edges()) {
      if (!e->IsControlEdge() && on_path_[e->dst->id()] &&
          CarriesGradient(node->output_type(e->src_output))) {
        ++pending_[id];
      }
    }
  }
}

// A loop's Merge and Switch have gradients of their own (for conds), so
// the loop is found by its other ops, before anything is added.
Status SymbolicGradientBuilder::CheckNoLoops() const {
  for (int id = 0; id < graph_.num_node_ids(); ++id) {
    Node* node = graph_.FindNodeId(id);
    if (node == nullptr || !on_path_[id]) continue;
    const std::string& op = node->type_string();
    if (IsLoopOp(op)) {
      return errors::Unimplemented(
          "Gradients of while loops are out of scope: node '", node->name(),
          "' (op ", op, ") is part of a loop on the path from ys to xs");
    }
  }
  return OkStatus();
}

Output SymbolicGradientBuilder::SumGradients(const Output& out) {
  auto it = grads_.find(out);
  if (it == grads_.end() || it->second.empty()) return NoGradient();
  std::vector<Output>& list = it->second;
  if (list.size() > 1) {
    Output sum = ops::AddN(scope_, InputList(list));
    list.assign(1, sum);
  }
  return list[0];
}

Status SymbolicGradientBuilder::BackpropNode(Node* node,
                                             std::deque<Node*>* ready) {
  const Operation op(node);
  std::vector<Output> grad_outputs;
  bool any = false;
  for (int i = 0; i < node->num_outputs(); ++i) {
    grad_outputs.push_back(SumGradients(Output(node, i)));
    any = any || grad_outputs.back().node() != nullptr;
  }
  ops::GradFunc fn = nullptr;
  if (any) {
    Status found =
        ops::GradOpRegistry::Global()->Lookup(node->type_string(), &fn);
    if (!found.ok()) {
      return Status(
          found.code(),
          absl::StrCat(found.message(), " Node '", node->name(), "' (op ",
                       node->type_string(), ") is on the path from ys to xs."));
    }
  }
  std::vector<Output> grad_inputs;
  if (fn != nullptr) {
    for (int i = 0; i < node->num_outputs(); ++i) {
      if (grad_outputs[i].node() == nullptr) {
        grad_outputs[i] = ops::ZerosLike(scope_, Output(node, i));
      }
    }
    MF_RETURN_IF_ERROR(scope_.status());
    Status s = fn(scope_, op, grad_outputs, &grad_inputs);
    if (s.ok()) s = scope_.status();
    if (!s.ok()) {
      return Status(s.code(),
                    absl::StrCat("Gradient of node '", node->name(), "' (op ",
                                 node->type_string(), "): ", s.message()));
    }
    if (static_cast<int>(grad_inputs.size()) != node->num_inputs()) {
      return errors::InvalidArgument(
          "The gradient function of op ", node->type_string(), " returned ",
          grad_inputs.size(), " gradients for node '", node->name(),
          "', but the op has ", node->num_inputs(), " inputs");
    }
    for (int i = 0; i < node->num_inputs(); ++i) {
      const Output& g = grad_inputs[i];
      if (g.node() == nullptr) continue;
      const DataType want = RemoveRefType(node->input_type(i));
      if (graph_.FindNodeId(g.node()->id()) != g.node() || g.index() < 0 ||
          g.index() >= g.node()->num_outputs() || g.type() != want) {
        return errors::InvalidArgument(
            "The gradient function of op ", node->type_string(),
            " returned a bad gradient for input ", i, " of node '",
            node->name(), "': expected a ", DataTypeString(want),
            " tensor of this graph");
      }
    }
  }
  for (const Edge* e : node->in_edges()) {
    if (e->IsControlEdge() || !CarriesGradient(node->input_type(e->dst_input)))
      continue;
    if (!grad_inputs.empty() && grad_inputs[e->dst_input].node() != nullptr) {
      grads_[Output(e->src, e->src_output)].push_back(
          grad_inputs[e->dst_input]);
    }
    const int src = e->src->id();
    if (on_path_[src] && --pending_[src] == 0) ready->push_back(e->src);
  }
  return OkStatus();
}

Status SymbolicGradientBuilder::Run(std::vector<Output>* grad_xs) {
  FindPath();
  MF_RETURN_IF_ERROR(CheckNoLoops());
  for (size_t i = 0; i < ys_.size(); ++i) {
    if (CarriesGradient(ys_[i].type())) grads_[ys_[i]].push_back(grad_ys_[i]);
  }
  std::deque<Node*> ready;
  int remaining = 0;
  for (int id = 0; id < graph_.num_node_ids(); ++id) {
    if (!on_path_[id]) continue;
    ++remaining;
    if (pending_[id] == 0) ready.push_back(graph_.FindNodeId(id));
  }
  while (!ready.empty()) {
    Node* node = ready.front();
    ready.pop_front();
    --remaining;
    MF_RETURN_IF_ERROR(BackpropNode(node, &ready));
  }
  if (remaining != 0) {
    return errors::Internal("AddSymbolicGradients left ", remaining,
                            " nodes unvisited; please report");
  }
  grad_xs->clear();
  for (const Output& x : xs_) grad_xs->push_back(SumGradients(x));
  return scope_.status();
}

}  // namespace

bool CarriesGradient(DataType dtype) {
  switch (RemoveRefType(dtype)) {
    case DT_FLOAT:
    case DT_DOUBLE:
    case DT_HALF:
    case DT_BFLOAT16:
    case DT_COMPLEX64:
    case DT_COMPLEX128:
      return true;
    default:
      return false;
  }
}

Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& ys,
                            const std::vector<Output>& xs,
                            const std::vector<Output>& grad_ys,
                            std::vector<Output>* grad_xs) {
  MF_RETURN_IF_ERROR(scope.status());
  if (grad_ys.size() != ys.size()) {
    return errors::InvalidArgument("AddSymbolicGradients got ", ys.size(),
                                   " ys but ", grad_ys.size(), " grad_ys");
  }
  const Graph& graph = *scope.graph();
  for (size_t i = 0; i < ys.size(); ++i) {
    MF_RETURN_IF_ERROR(CheckOutput(graph, ys[i], "ys", i));
    MF_RETURN_IF_ERROR(CheckOutput(graph, grad_ys[i], "grad_ys", i));
    if (grad_ys[i].type() != RemoveRefType(ys[i].type())) {
      return errors::InvalidArgument(
          "grad_ys[", i, "] must have the dtype of ys[", i, "] (",
          DataTypeString(RemoveRefType(ys[i].type())), "), but got ",
          DataTypeString(grad_ys[i].type()));
    }
  }
  for (size_t i = 0; i < xs.size(); ++i) {
    MF_RETURN_IF_ERROR(CheckOutput(graph, xs[i], "xs", i));
  }
  SymbolicGradientBuilder builder(scope, ys, xs, grad_ys);
  Status s = builder.Run(grad_xs);
  scope.UpdateStatus(s);
  return s;
}

Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& ys,
                            const std::vector<Output>& xs,
                            std::vector<Output>* grad_xs) {
  MF_RETURN_IF_ERROR(scope.status());
  const Graph& graph = *scope.graph();
  std::vector<Output> grad_ys;
  for (size_t i = 0; i < ys.size(); ++i) {
    MF_RETURN_IF_ERROR(CheckOutput(graph, ys[i], "ys", i));
    grad_ys.push_back(ops::OnesLike(scope.NewSubScope("gradients"), ys[i]));
  }
  MF_RETURN_IF_ERROR(scope.status());
  return AddSymbolicGradients(scope, ys, xs, grad_ys, grad_xs);
}

Status ZerosForNoGradients(const Scope& scope, const std::vector<Output>& xs,
                           std::vector<Output>* grad_xs) {
  if (grad_xs->size() != xs.size()) {
    return errors::InvalidArgument("ZerosForNoGradients got ", xs.size(),
                                   " xs but ", grad_xs->size(), " gradients");
  }
  for (size_t i = 0; i < xs.size(); ++i) {
    if ((*grad_xs)[i].node() == nullptr) {
      (*grad_xs)[i] = ops::ZerosLike(scope, xs[i]);
    }
  }
  return scope.status();
}

}  // namespace minflow
