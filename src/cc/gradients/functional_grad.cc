// Gradients of the functional conditionals: If, StatelessIf, Case and
// StatelessCase. See Note [Gradients of functional conditionals].
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "minflow/cc/framework/grad_op_registry.h"
#include "minflow/cc/framework/gradients.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/framework/function.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/function_body.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/graph_to_function.h"
#include "minflow/graph/shape_refiner.h"

namespace minflow {
namespace ops {
namespace {

// Note [Gradients of functional conditionals]
// The gradient of an If (or Case) is another If (Case) on the same
// condition (branch index), whose branches are the gradients of the
// forward branches. Each gradient branch takes the forward inputs and the
// gradients of the forward outputs, recomputes the forward branch and
// differentiates it with AddSymbolicGradients (so conditionals nest: a
// conditional inside a branch gets its own gradient functions), and
// returns one gradient per forward input that some branch differentiates;
// where its own branch does not, zeros. Inputs no branch differentiates get
// NoGradient. The new functions are added to the graph's library under
// fresh names ("<branch>_grad", "<branch>_grad_1", ...).
//
// Recomputing is exact only when the branch computes the same values a
// second time, so a branch with stateful ops other than variable reads
// (random numbers, assignments) is refused, naming the node: its gradient
// would silently use different values.

// Stateful ops a branch may still recompute: they read state and change
// none.
bool IsRecomputable(const Node& node) {
  return !node.IsStateful() || node.IsOp("ReadVariableOp") ||
         node.IsOp("VarHandleOp") || node.IsOp("_Arg") ||
         node.IsOp("_Retval") || node.IsOp("NoOp");
}

// The gradient of one forward branch, built in a graph of its own.
class BranchGradient {
 public:
  BranchGradient() : scope_(Scope::NewRootScope()) {}

  // Imports `branch` (instantiated against `outer`'s library) and adds the
  // gradients of its inputs, given `num_outputs` output gradients of
  // `out_types`, as new `_Arg`s after the forward ones.
  Status Build(const Graph& outer, const NameAttrList& branch,
               const DataTypeVector& out_types);

  // Whether this branch gives input `i` a gradient.
  bool HasGradient(int i) const { return grads_[i].node() != nullptr; }

  // Returns a gradient (zeros where this branch gives none) for each input
  // `i` with `wanted[i]`, and turns the graph into the function `name`.
  Status Finish(const std::vector<bool>& wanted, const std::string& name,
                FunctionDef* fdef);

  const Graph& graph() const { return *scope_.graph(); }

 private:
  // Adds `def` to the graph (reading `input` when it has a node) and to
  // the refiner.
  StatusOr<Node*> AddNode(NodeDef def, const Output& input = Output());

  Scope scope_;
  std::vector<Output> inputs_;
  std::vector<Output> grads_;
};

StatusOr<Node*> BranchGradient::AddNode(NodeDef def, const Output& input) {
  Graph* graph = scope_.graph();
  MF_ASSIGN_OR_RETURN(Node * node, graph->AddNode(std::move(def)));
  if (input.node() != nullptr) {
    graph->AddEdge(input.node(), input.index(), node, 0);
  }
  MF_RETURN_IF_ERROR(scope_.refiner()->AddNode(*graph, *node));
  return node;
}

NodeDef ArgOrRetvalDef(const std::string& name, const char* op, DataType type,
                       int index) {
  NodeDef def;
  def.set_name(name);
  def.set_op(op);
  AttrValue t;
  t.set_type(type);
  (*def.mutable_attr())["T"] = t;
  AttrValue i;
  i.set_i(index);
  (*def.mutable_attr())["index"] = i;
  return def;
}

Status BranchGradient::Build(const Graph& outer, const NameAttrList& branch,
                             const DataTypeVector& out_types) {
  FunctionBody body;
  MF_RETURN_IF_ERROR(InstantiateFunctionBody(outer.shared_flib_def(), branch,
                                             outer.versions(), &body));
  for (const Node* node : body.graph->nodes()) {
    if (!IsRecomputable(*node)) {
      return errors::Unimplemented(
          "The gradient of branch '", branch.name(),
          "' would run its stateful node '", node->name(), "' (op ",
          node->type_string(),
          ") a second time; only branches whose stateful ops just read "
          "variables can be differentiated");
    }
  }
  if (out_types.size() != body.ret_nodes.size()) {
    return errors::InvalidArgument(
        "Branch '", branch.name(), "' returns ", body.ret_nodes.size(),
        " values, but the conditional has ", out_types.size(), " outputs");
  }
  GraphDef def;
  body.graph->ToGraphDef(&def);
  Graph* graph = scope_.graph();
  std::vector<Node*> added;
  MF_RETURN_IF_ERROR(
      ImportGraphDef(GraphConstructorOptions(), def, graph, &added));
  std::vector<Node*> order;
  MF_RETURN_IF_ERROR(TopologicalOrder(*graph, &order));
  for (Node* node : order) {
    MF_RETURN_IF_ERROR(scope_.refiner()->AddNode(*graph, *node));
  }
  std::vector<Node*> args(body.arg_nodes.size());
  std::vector<Node*> rets(body.ret_nodes.size());
  for (Node* node : added) {
    int64_t index = -1;
    if (node->IsOp("_Arg") || node->IsOp("_Retval")) {
      MF_RETURN_IF_ERROR(GetNodeAttr(node->def(), "index", &index));
      (node->IsOp("_Arg") ? args : rets)[index] = node;
    }
  }
  // The forward results the gradient starts from, and the new args that
  // bring their gradients.
  std::vector<Output> ys, grad_ys;
  for (size_t j = 0; j < rets.size(); ++j) {
    const Edge* in = nullptr;
    MF_RETURN_IF_ERROR(rets[j]->input_edge(0, &in));
    MF_ASSIGN_OR_RETURN(
        Node * grad_arg,
        AddNode(ArgOrRetvalDef(scope_.GetUniqueNameForOp("grad_arg"), "_Arg",
                               out_types[j], args.size() + j)));
    if (!CarriesGradient(out_types[j])) continue;
    ys.emplace_back(in->src, in->src_output);
    grad_ys.emplace_back(grad_arg, 0);
  }
  for (Node* ret : rets) graph->RemoveNode(ret);
  std::vector<Output> xs;
  for (Node* arg : args) {
    inputs_.emplace_back(arg, 0);
    if (CarriesGradient(arg->output_type(0))) xs.emplace_back(arg, 0);
  }
  std::vector<Output> dxs;
  if (!ys.empty() && !xs.empty()) {
    MF_RETURN_IF_ERROR(AddSymbolicGradients(scope_, ys, xs, grad_ys, &dxs));
  }
  grads_.assign(args.size(), NoGradient());
  for (size_t i = 0, k = 0; i < args.size(); ++i) {
    if (CarriesGradient(args[i]->output_type(0)) && k < dxs.size()) {
      grads_[i] = dxs[k++];
    }
  }
  return scope_.status();
}

Status BranchGradient::Finish(const std::vector<bool>& wanted,
                              const std::string& name, FunctionDef* fdef) {
  int index = 0;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (!wanted[i]) continue;
    Output grad = HasGradient(i) ? grads_[i] : ZerosLike(scope_, inputs_[i]);
    MF_RETURN_IF_ERROR(scope_.status());
    MF_RETURN_IF_ERROR(
        AddNode(ArgOrRetvalDef(scope_.GetUniqueNameForOp("grad_ret"), "_Retval",
                               grad.type(), index++),
                grad)
            .status());
  }
  return GraphToFunctionDef(*scope_.graph(), name, fdef);
}

// `base`, or `base_1`, `base_2`, ...: the first name no function of
// `library` (nor `taken`) has.
std::string FreshFunctionName(const FunctionLibraryDefinition* library,
                              const std::vector<std::string>& taken,
                              const std::string& base) {
  auto used = [&](const std::string& name) {
    if (library != nullptr && library->Find(name) != nullptr) return true;
    for (const std::string& t : taken) {
      if (t == name) return true;
    }
    return false;
  };
  std::string name = base;
  for (int i = 1; used(name); ++i) name = absl::StrCat(base, "_", i);
  return name;
}

// The gradient of a conditional whose data inputs start at input 1 and
// whose branches are `branches`. `make` adds the gradient conditional
// given its inputs, output types and gradient branches.
using MakeConditional = std::function<std::vector<Output>(
    const Scope&, const std::vector<Output>& inputs, const DataTypeVector& tout,
    const std::vector<NameAttrList>& branches)>;

Status ConditionalGrad(const Scope& scope, const Operation& op,
                       const std::vector<NameAttrList>& branches,
                       const std::vector<Output>& grad_inputs,
                       const MakeConditional& make,
                       std::vector<Output>* grad_outputs) {
  Graph* graph = scope.graph();
  const Node* node = op.node();
  DataTypeVector out_types;
  for (int j = 0; j < node->num_outputs(); ++j) {
    out_types.push_back(node->output_type(j));
  }
  std::vector<std::unique_ptr<BranchGradient>> grads;
  for (const NameAttrList& branch : branches) {
    grads.push_back(std::make_unique<BranchGradient>());
    MF_RETURN_IF_ERROR(grads.back()->Build(*graph, branch, out_types));
  }
  const int num_inputs = op.num_inputs() - 1;
  std::vector<bool> wanted(num_inputs, false);
  DataTypeVector tout;
  for (int i = 0; i < num_inputs; ++i) {
    for (const auto& g : grads) wanted[i] = wanted[i] || g->HasGradient(i);
    if (wanted[i]) tout.push_back(RemoveRefType(op.input_type(i + 1)));
  }
  if (tout.empty()) {
    grad_outputs->assign(op.num_inputs(), NoGradient());
    return OkStatus();
  }
  // The gradient functions, and any their own conditionals added to their
  // graphs' libraries, go into the outer graph's library.
  GraphDef library_def;
  *library_def.mutable_versions() = graph->versions();
  FunctionDefLibrary* library = library_def.mutable_library();
  std::vector<std::string> new_names;
  std::vector<NameAttrList> grad_branches;
  for (size_t b = 0; b < branches.size(); ++b) {
    const std::string name =
        FreshFunctionName(graph->flib_def(), new_names,
                          absl::StrCat(branches[b].name(), "_grad"));
    new_names.push_back(name);
    MF_RETURN_IF_ERROR(grads[b]->Finish(wanted, name, library->add_function()));
    NameAttrList call;
    call.set_name(name);
    grad_branches.push_back(call);
    const FunctionLibraryDefinition* inner = grads[b]->graph().flib_def();
    if (inner == nullptr) continue;
    for (const std::string& fn : inner->ListFunctionNames()) {
      if (graph->flib_def() == nullptr ||
          graph->flib_def()->Find(fn) == nullptr) {
        *library->add_function() = *inner->Find(fn);
      }
    }
  }
  MF_RETURN_IF_ERROR(
      ImportGraphDef(GraphConstructorOptions(), library_def, graph));
  std::vector<Output> inputs;
  for (int i = 1; i < op.num_inputs(); ++i) inputs.push_back(op.input(i));
  for (const Output& g : grad_inputs) inputs.push_back(g);
  std::vector<Output> results = make(scope, inputs, tout, grad_branches);
  MF_RETURN_IF_ERROR(scope.status());
  grad_outputs->push_back(NoGradient());  // the condition or branch index
  for (int i = 0, k = 0; i < num_inputs; ++i) {
    grad_outputs->push_back(wanted[i] ? results[k++] : NoGradient());
  }
  return OkStatus();
}

Status IfGrad(const Scope& scope, const Operation& op,
              const std::vector<Output>& grad_inputs,
              std::vector<Output>* grad_outputs) {
  NameAttrList then_branch, else_branch;
  MF_RETURN_IF_ERROR(
      GetNodeAttr(op.node()->def(), "then_branch", &then_branch));
  MF_RETURN_IF_ERROR(
      GetNodeAttr(op.node()->def(), "else_branch", &else_branch));
  const Output cond = op.input(0);
  const bool stateless = op.node()->IsOp("StatelessIf");
  auto make = [&](const Scope& s, const std::vector<Output>& inputs,
                  const DataTypeVector& tout,
                  const std::vector<NameAttrList>& branches) {
    if (stateless) {
      return StatelessIf(s, cond, InputList(inputs), tout, branches[0],
                         branches[1])
          .output;
    }
    return If(s, cond, InputList(inputs), tout, branches[0], branches[1])
        .output;
  };
  return ConditionalGrad(scope, op, {then_branch, else_branch}, grad_inputs,
                         make, grad_outputs);
}
REGISTER_GRADIENT_OP("If", IfGrad);
REGISTER_GRADIENT_OP("StatelessIf", IfGrad);

Status CaseGrad(const Scope& scope, const Operation& op,
                const std::vector<Output>& grad_inputs,
                std::vector<Output>* grad_outputs) {
  std::vector<NameAttrList> branches;
  MF_RETURN_IF_ERROR(GetNodeAttr(op.node()->def(), "branches", &branches));
  const Output index = op.input(0);
  const bool stateless = op.node()->IsOp("StatelessCase");
  auto make = [&](const Scope& s, const std::vector<Output>& inputs,
                  const DataTypeVector& tout,
                  const std::vector<NameAttrList>& grad_branches) {
    if (stateless) {
      return StatelessCase(s, index, InputList(inputs), tout, grad_branches)
          .output;
    }
    return Case(s, index, InputList(inputs), tout, grad_branches).output;
  };
  return ConditionalGrad(scope, op, branches, grad_inputs, make, grad_outputs);
}
REGISTER_GRADIENT_OP("Case", CaseGrad);
REGISTER_GRADIENT_OP("StatelessCase", CaseGrad);

}  // namespace
}  // namespace ops
}  // namespace minflow
