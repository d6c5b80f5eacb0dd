// lower_functional_ops: inlines every function call (a node whose op is a
// function of the graph's library, PartitionedCall, StatefulPartitionedCall)
// and lowers If, Case and While (and their Stateless twins) into the TF1
// control flow the executor runs (Switch/Merge conditionals,
// Enter/Merge/Switch/Exit/NextIteration loops), before placement. See Note
// [Lowering functional ops].
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/function.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/graph/control_flow.h"
#include "minflow/graph/function_body.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/optimization_registry.h"
#include "minflow/graph/shape_refiner.h"
#include "minflow/node_def.pb.h"

namespace minflow {

// Note [Lowering functional ops]
// The pass walks node ids upwards while the graph grows, so what one step
// adds (the branch calls a lowered If makes, the body of an inlined
// function with its own If or calls) is handled by a later step of the same
// walk. Each rewrite keeps TensorFlow's semantics:
//  - Inlining a call copies the body under "<call>/"; it reads the call's
//    inputs and its consumers read its results directly. A call with
//    control inputs passes each input through an Identity that waits for
//    them, so nothing of the body starts early. Body nodes without inputs
//    (Consts) wait on the inputs' producers (through a NoOp when there are
//    several), which puts them in the caller's frame and makes them dead
//    when the call is; a Switch's control edges are live whichever output
//    it took, so a Switch output is first passed through an Identity (a
//    pivot). The call's control consumers wait on a NoOp after the results
//    and the function's control_ret nodes. Body nodes without a device
//    take the call's.
//  - If: every input goes through a Switch on the predicate; the then and
//    else calls read the true and false outputs and wait on pivots
//    (Identities of a Switch of the predicate), so a branch without inputs
//    is dead when not taken; each output is a Merge of the two calls'.
//  - Case: a chain of Switches on branch_index == k picks branch k; an
//    index out of range takes the last branch, as in TensorFlow.
//  - While: a frame named after the node; per loop variable an Enter, a
//    Merge of it and the NextIteration, a Switch on LoopCond(cond(...)),
//    the body on the Switch's true side and an Exit on its false side.
// Calls nest at most kMaxFunctionCallDepth deep: recursion is an error.

namespace {

// Inlining may grow a graph to 16 times its nodes and its library's, or to
// this many, whichever is more; beyond that it is refused: a chain of
// functions each calling the next twice doubles at every level.
constexpr int64_t kMinNodeLimit = 100000;

class LowerFunctionalOpsPass : public GraphOptimizationPass {
 public:
  absl::string_view name() const override { return "lower_functional_ops"; }
  absl::string_view preserves() const override {
    return "the value of every fetched tensor and the effects of every "
           "stateful node; calls become their functions' bodies, and If, Case "
           "and While become TF1 control flow";
  }
  Status Run(const GraphOptimizationContext& context,
             Graph* graph) const override;
};

// Builds the nodes of one rewrite, named under the rewritten node.
class Rewriter {
 public:
  Rewriter(Graph* graph, const Node& node)
      : graph_(graph),
        prefix_(node.name() + "/"),
        device_(node.requested_device()) {}

  std::string UniqueName(const std::string& base) const {
    std::string name = prefix_ + base;
    for (int i = 1; graph_->FindNodeByName(name) != nullptr; ++i) {
      name = absl::StrCat(prefix_, base, "_", i);
    }
    return name;
  }

  // A node of op `op` with `attrs`, its data inputs connected in order.
  StatusOr<Node*> Add(const std::string& base, const std::string& op,
                      const AttrValueMap& attrs,
                      const std::vector<std::pair<Node*, int>>& inputs) {
    NodeDef def;
    def.set_name(UniqueName(base));
    def.set_op(op);
    def.set_device(device_);
    for (const auto& [key, value] : attrs) (*def.mutable_attr())[key] = value;
    const OpDef* op_def = nullptr;
    MF_RETURN_IF_ERROR(graph_->op_registry()->LookUpOpDef(op, &op_def));
    AddDefaultsToNodeDef(*op_def, &def);
    MF_ASSIGN_OR_RETURN(Node * n, graph_->AddNode(std::move(def)));
    if (n->num_inputs() != static_cast<int>(inputs.size())) {
      return errors::Internal("Lowering made a ", op, " with ", inputs.size(),
                              " inputs; it takes ", n->num_inputs());
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      graph_->AddEdge(inputs[i].first, inputs[i].second, n,
                      static_cast<int>(i));
    }
    return n;
  }

  StatusOr<Node*> Identity(const std::string& base, Node* src, int port) {
    AttrValueMap attrs;
    SetAttrValue(BaseType(src->output_type(port)), &attrs["T"]);
    MF_ASSIGN_OR_RETURN(Node * n, Add(base, "Identity", attrs, {{src, port}}));
    n->set_output_shapes({src->output_shape(port)});
    return n;
  }

  StatusOr<Node*> NoOp(const std::string& base) {
    return Add(base, "NoOp", {}, {});
  }

  // A node calling `call` (its op is the function's name).
  StatusOr<Node*> Call(const std::string& base, const NameAttrList& call,
                       const std::vector<std::pair<Node*, int>>& inputs) {
    AttrValueMap attrs(call.attr().begin(), call.attr().end());
    return Add(base, call.name(), attrs, inputs);
  }

  const std::string& device() const { return device_; }

 private:
  Graph* const graph_;
  const std::string prefix_;
  const std::string device_;
};

// The node's data inputs by port and the sources of its control inputs.
void Inputs(const Node& node, std::vector<std::pair<Node*, int>>* data,
            std::vector<Node*>* control) {
  data->assign(node.num_inputs(), {nullptr, 0});
  control->clear();
  for (const Edge* e : node.in_edges()) {
    if (e->IsControlEdge()) {
      control->push_back(e->src);
    } else {
      (*data)[e->dst_input] = {e->src, e->src_output};
    }
  }
}

// Moves `node`'s data consumers of output i to outputs[i] and its control
// consumers to `control` (when not null).
void MoveOutEdges(Graph* graph, const Node& node,
                  const std::vector<std::pair<Node*, int>>& outputs,
                  Node* control) {
  std::vector<const Edge*> out(node.out_edges().begin(),
                               node.out_edges().end());
  for (const Edge* e : out) {
    Node* dst = e->dst;
    const int dst_input = e->dst_input;
    const int src_output = e->src_output;
    graph->RemoveEdge(e);
    if (src_output == kControlSlot) {
      if (control != nullptr) graph->AddControlEdge(control, dst);
    } else {
      graph->AddEdge(outputs[src_output].first, outputs[src_output].second, dst,
                     dst_input);
    }
  }
}

bool HasControlConsumers(const Node& node) {
  for (const Edge* e : node.out_edges()) {
    if (e->IsControlEdge()) return true;
  }
  return false;
}

// Bodies instantiated, imported and refined once per function, attrs and
// argument shapes, for every call of the pass's run to copy.
class BodyCache {
 public:
  StatusOr<const FunctionBody*> Get(const NameAttrList& call,
                                    const std::vector<PartialTensorShape>& args,
                                    const Graph& graph) {
    std::string key =
        FunctionInstantiationKey(call.name(), AttrSlice(&call.attr()));
    for (const PartialTensorShape& s : args) {
      absl::StrAppend(&key, "|", s.DebugString());
    }
    auto it = bodies_.find(key);
    if (it != bodies_.end()) return it->second.get();
    auto body = std::make_unique<FunctionBody>();
    MF_RETURN_IF_ERROR(InstantiateFunctionBody(graph.shared_flib_def(), call,
                                               graph.versions(), body.get()));
    // Shapes for the copies. A body whose shapes do not refine here (they
    // did when the graph was prepared) is copied without them.
    ShapeRefiner refiner(graph.versions().producer(),
                         body->graph->op_registry());
    refiner.SetFunctionArgs(args, 0);
    if (refiner.RefineGraph(*body->graph).ok()) {
      refiner.AttachShapes(body->graph.get());
    }
    return bodies_.emplace(key, std::move(body)).first->second.get();
  }

 private:
  absl::flat_hash_map<std::string, std::unique_ptr<FunctionBody>> bodies_;
};

Status InlineCall(const NameAttrList& call, Node* node, Graph* graph,
                  BodyCache* cache) {
  std::vector<std::pair<Node*, int>> inputs;
  std::vector<Node*> control_inputs;
  Inputs(*node, &inputs, &control_inputs);
  std::vector<PartialTensorShape> arg_shapes;
  for (const auto& [src, port] : inputs) {
    arg_shapes.push_back(src->output_shape(port));
  }
  MF_ASSIGN_OR_RETURN(const FunctionBody* cached,
                      cache->Get(call, arg_shapes, *graph));
  const FunctionBody& body = *cached;
  if (body.arg_types.size() != inputs.size() ||
      body.ret_types.size() != static_cast<size_t>(node->num_outputs())) {
    return errors::InvalidArgument(
        "Function '", call.name(), "' takes ", body.arg_types.size(),
        " and returns ", body.ret_types.size(), " tensors; the call has ",
        inputs.size(), " inputs and ", node->num_outputs(), " outputs");
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (BaseType(node->input_type(static_cast<int>(i))) !=
        BaseType(body.arg_types[i])) {
      return errors::InvalidArgument(
          "Function '", call.name(), "' takes ",
          DataTypeString(body.arg_types[i]), " as argument ", i,
          "; the call gives ",
          DataTypeString(node->input_type(static_cast<int>(i))));
    }
  }

  Rewriter rw(graph, *node);
  // Where each argument comes from: with control inputs, an Identity that
  // waits for them, so nothing of the body starts early; else the input.
  std::vector<std::pair<Node*, int>> args = inputs;
  if (!control_inputs.empty()) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      MF_ASSIGN_OR_RETURN(
          Node * id, rw.Identity(absl::StrCat("input_", i), inputs[i].first,
                                 inputs[i].second));
      for (Node* c : control_inputs) graph->AddControlEdge(c, id);
      args[i] = {id, 0};
    }
  }
  // A node whose control edges are live exactly when tensor `t` is: its
  // producer, except for a Switch (live whichever output it took), which
  // gets an Identity of the output.
  std::map<std::pair<Node*, int>, Node*> pivots;
  auto control_source = [&](std::pair<Node*, int> t) -> StatusOr<Node*> {
    if (!IsSwitchOp(t.first->type_string())) return t.first;
    auto it = pivots.find(t);
    if (it != pivots.end()) return it->second;
    MF_ASSIGN_OR_RETURN(
        Node * pivot,
        rw.Identity(absl::StrCat("pivot_", pivots.size()), t.first, t.second));
    pivots[t] = pivot;
    return pivot;
  };
  // What body nodes without inputs (Consts) wait for: every argument and
  // control input, through one NoOp unless there is a single source.
  Node* input_control = nullptr;
  auto input_control_node = [&]() -> StatusOr<Node*> {
    if (input_control != nullptr) return input_control;
    std::vector<Node*> sources(control_inputs.begin(), control_inputs.end());
    for (const auto& arg : args) {
      MF_ASSIGN_OR_RETURN(Node * source, control_source(arg));
      if (std::find(sources.begin(), sources.end(), source) == sources.end()) {
        sources.push_back(source);
      }
    }
    if (sources.size() == 1) return input_control = sources[0];
    MF_ASSIGN_OR_RETURN(input_control, rw.NoOp("input_control_node"));
    for (Node* source : sources) {
      graph->AddControlEdge(source, input_control);
    }
    return input_control;
  };

  absl::flat_hash_map<const Node*, Node*> copies;
  for (Node* n : body.graph->nodes()) {
    if (n->IsOp("_Arg") || n->IsOp("_Retval")) continue;
    NodeDef def = n->def();
    def.set_name(rw.UniqueName(n->name()));
    if (def.device().empty()) def.set_device(rw.device());
    MF_ASSIGN_OR_RETURN(Node * copy,
                        graph->AddNode(std::move(def), &n->op_def(),
                                       n->input_types(), n->output_types()));
    copy->set_output_shapes(n->output_shapes());
    copies[n] = copy;
  }
  std::vector<std::pair<Node*, int>> results(body.ret_nodes.size());
  auto source = [&](const Edge* e) -> std::pair<Node*, int> {
    if (e->src->IsOp("_Arg")) {
      int64_t index = 0;
      GetNodeAttr(AttrSlice(e->src->def()), "index", &index).IgnoreError();
      return args[index];
    }
    return {copies.at(e->src), e->src_output};
  };
  for (Node* n : body.graph->nodes()) {
    if (n->IsOp("_Arg")) continue;
    if (n->IsOp("_Retval")) {
      const Edge* in = nullptr;
      MF_RETURN_IF_ERROR(n->input_edge(0, &in));
      int64_t index = 0;
      MF_RETURN_IF_ERROR(GetNodeAttr(AttrSlice(n->def()), "index", &index));
      results[index] = source(in);
      continue;
    }
    Node* copy = copies.at(n);
    bool has_inputs = false;
    for (const Edge* e : n->in_edges()) {
      has_inputs = true;
      if (e->IsControlEdge()) {
        if (e->src->IsOp("_Arg")) {
          MF_ASSIGN_OR_RETURN(Node * c, control_source(source(e)));
          graph->AddControlEdge(c, copy);
        } else {
          graph->AddControlEdge(copies.at(e->src), copy);
        }
      } else {
        const auto [src, port] = source(e);
        graph->AddEdge(src, port, copy, e->dst_input);
      }
    }
    if (!has_inputs && (!inputs.empty() || !control_inputs.empty())) {
      MF_ASSIGN_OR_RETURN(Node * ic, input_control_node());
      graph->AddControlEdge(ic, copy);
    }
  }
  // Consumers read the body's results directly.
  const std::vector<std::pair<Node*, int>>& outputs = results;
  Node* output_control = nullptr;
  if (HasControlConsumers(*node)) {
    MF_ASSIGN_OR_RETURN(output_control, rw.NoOp("output_control_node"));
    for (const auto& out : outputs) {
      MF_ASSIGN_OR_RETURN(Node * c, control_source(out));
      graph->AddControlEdge(c, output_control);
    }
    for (const Node* n : body.control_ret_nodes) {
      graph->AddControlEdge(copies.at(n), output_control);
    }
    if (outputs.empty() && body.control_ret_nodes.empty()) {
      // Still after the inputs, as the call itself would be.
      MF_ASSIGN_OR_RETURN(Node * after_inputs, input_control_node());
      graph->AddControlEdge(after_inputs, output_control);
    }
  }
  MoveOutEdges(graph, *node, outputs, output_control);
  graph->RemoveNode(node);
  return OkStatus();
}

// A bool predicate from `cond`: itself, or Cast to bool (non-zero is true,
// as TensorFlow reads a scalar cond).
StatusOr<std::pair<Node*, int>> BoolPredicate(Rewriter* rw,
                                              std::pair<Node*, int> cond) {
  const DataType type = BaseType(cond.first->output_type(cond.second));
  if (type == DT_BOOL) return cond;
  AttrValueMap attrs;
  SetAttrValue(type, &attrs["SrcT"]);
  SetAttrValue(DT_BOOL, &attrs["DstT"]);
  MF_ASSIGN_OR_RETURN(Node * cast, rw->Add("ToBool", "Cast", attrs, {cond}));
  cast->set_output_shapes({cond.first->output_shape(cond.second)});
  return std::pair<Node*, int>{cast, 0};
}

StatusOr<Node*> Switch(Rewriter* rw, const std::string& base,
                       std::pair<Node*, int> data, std::pair<Node*, int> pred) {
  AttrValueMap attrs;
  SetAttrValue(BaseType(data.first->output_type(data.second)), &attrs["T"]);
  MF_ASSIGN_OR_RETURN(Node * n, rw->Add(base, "Switch", attrs, {data, pred}));
  const PartialTensorShape shape = data.first->output_shape(data.second);
  n->set_output_shapes({shape, shape});
  return n;
}

StatusOr<Node*> Merge(Rewriter* rw, const std::string& base,
                      const std::vector<std::pair<Node*, int>>& inputs,
                      const PartialTensorShape& shape) {
  AttrValueMap attrs;
  SetAttrValue(BaseType(inputs[0].first->output_type(inputs[0].second)),
               &attrs["T"]);
  SetAttrValue(static_cast<int64_t>(inputs.size()), &attrs["N"]);
  MF_ASSIGN_OR_RETURN(Node * n, rw->Add(base, "Merge", attrs, inputs));
  n->set_output_shapes({shape, PartialTensorShape({})});
  return n;
}

// One conditional: branch k runs when `taken[k]` (a Switch output feeding
// every input) is live. Shared by If and Case.
Status LowerBranches(
    Node* node, const std::vector<NameAttrList>& branches,
    const std::vector<std::vector<std::pair<Node*, int>>>& branch_inputs,
    const std::vector<Node*>& pivots, Rewriter* rw, Graph* graph) {
  std::vector<Node*> calls(branches.size());
  for (size_t k = 0; k < branches.size(); ++k) {
    MF_ASSIGN_OR_RETURN(calls[k], rw->Call(absl::StrCat("branch_", k),
                                           branches[k], branch_inputs[k]));
    graph->AddControlEdge(pivots[k], calls[k]);
    if (calls[k]->num_outputs() != node->num_outputs()) {
      return errors::InvalidArgument("Branch function '", branches[k].name(),
                                     "' returns ", calls[k]->num_outputs(),
                                     " tensors; the node has ",
                                     node->num_outputs(), " outputs");
    }
  }
  std::vector<std::pair<Node*, int>> outputs(node->num_outputs());
  for (int j = 0; j < node->num_outputs(); ++j) {
    std::vector<std::pair<Node*, int>> merged;
    for (Node* call : calls) {
      if (BaseType(call->output_type(j)) != BaseType(node->output_type(j))) {
        return errors::InvalidArgument(
            "Branch function '", call->type_string(), "' returns ",
            DataTypeString(call->output_type(j)), " as output ", j,
            "; the node's Tout has ", DataTypeString(node->output_type(j)));
      }
      merged.push_back({call, j});
    }
    MF_ASSIGN_OR_RETURN(Node * m, Merge(rw, absl::StrCat("output_", j), merged,
                                        node->output_shape(j)));
    outputs[j] = {m, 0};
  }
  Node* executed = nullptr;
  if (HasControlConsumers(*node)) {
    // Live once the taken branch has finished, whichever it was.
    std::vector<std::pair<Node*, int>> done;
    for (size_t k = 0; k < calls.size(); ++k) {
      MF_ASSIGN_OR_RETURN(Node * d,
                          rw->Identity(absl::StrCat("done_", k), pivots[k], 0));
      graph->AddControlEdge(calls[k], d);
      done.push_back({d, 0});
    }
    MF_ASSIGN_OR_RETURN(
        executed, Merge(rw, "branch_executed", done, PartialTensorShape()));
  }
  MoveOutEdges(graph, *node, outputs, executed);
  graph->RemoveNode(node);
  return OkStatus();
}

Status LowerIf(Node* node, Graph* graph) {
  std::vector<std::pair<Node*, int>> inputs;
  std::vector<Node*> control_inputs;
  Inputs(*node, &inputs, &control_inputs);
  const AttrSlice attrs(node->def());
  std::vector<NameAttrList> branches(2);
  MF_RETURN_IF_ERROR(GetNodeAttr(attrs, "then_branch", &branches[0]));
  MF_RETURN_IF_ERROR(GetNodeAttr(attrs, "else_branch", &branches[1]));
  Rewriter rw(graph, *node);
  MF_ASSIGN_OR_RETURN(auto pred, BoolPredicate(&rw, inputs[0]));
  MF_ASSIGN_OR_RETURN(Node * pivot_switch,
                      Switch(&rw, "switch_pred", pred, pred));
  for (Node* c : control_inputs) graph->AddControlEdge(c, pivot_switch);
  MF_ASSIGN_OR_RETURN(Node * then_pivot,
                      rw.Identity("pivot_t", pivot_switch, 1));
  MF_ASSIGN_OR_RETURN(Node * else_pivot,
                      rw.Identity("pivot_f", pivot_switch, 0));
  std::vector<std::vector<std::pair<Node*, int>>> branch_inputs(2);
  for (size_t i = 1; i < inputs.size(); ++i) {
    MF_ASSIGN_OR_RETURN(
        Node * s, Switch(&rw, absl::StrCat("switch_", i - 1), inputs[i], pred));
    for (Node* c : control_inputs) graph->AddControlEdge(c, s);
    branch_inputs[0].push_back({s, 1});
    branch_inputs[1].push_back({s, 0});
  }
  return LowerBranches(node, branches, branch_inputs, {then_pivot, else_pivot},
                       &rw, graph);
}

Status LowerCase(Node* node, Graph* graph) {
  std::vector<std::pair<Node*, int>> inputs;
  std::vector<Node*> control_inputs;
  Inputs(*node, &inputs, &control_inputs);
  std::vector<NameAttrList> branches;
  MF_RETURN_IF_ERROR(
      GetNodeAttr(AttrSlice(node->def()), "branches", &branches));
  const int n = static_cast<int>(branches.size());
  Rewriter rw(graph, *node);
  // Level k keeps what has not been taken by branches 0..k-1: its true
  // side goes to branch k, its false side on to level k+1.
  std::vector<std::pair<Node*, int>> rest(inputs.begin() + 1, inputs.end());
  std::pair<Node*, int> pivot_rest = inputs[0];
  std::vector<std::vector<std::pair<Node*, int>>> branch_inputs(n);
  std::vector<Node*> pivots(n);
  for (int k = 0; k + 1 < n; ++k) {
    Tensor index(DT_INT32, TensorShape({}));
    index.scalar<int32_t>()() = k;
    AttrValueMap const_attrs;
    SetAttrValue(index, &const_attrs["value"]);
    SetAttrValue(DT_INT32, &const_attrs["dtype"]);
    MF_ASSIGN_OR_RETURN(Node * k_const, rw.Add(absl::StrCat("index_", k),
                                               "Const", const_attrs, {}));
    k_const->set_output_shapes({PartialTensorShape({})});
    // In the caller's frame and live exactly when the index is.
    graph->AddControlEdge(inputs[0].first, k_const);
    AttrValueMap eq_attrs;
    SetAttrValue(DT_INT32, &eq_attrs["T"]);
    MF_ASSIGN_OR_RETURN(Node * is_k,
                        rw.Add(absl::StrCat("is_", k), "Equal", eq_attrs,
                               {inputs[0], {k_const, 0}}));
    is_k->set_output_shapes({PartialTensorShape({})});
    MF_ASSIGN_OR_RETURN(Node * ps, Switch(&rw, absl::StrCat("switch_pred_", k),
                                          pivot_rest, {is_k, 0}));
    for (Node* c : control_inputs) graph->AddControlEdge(c, ps);
    MF_ASSIGN_OR_RETURN(pivots[k],
                        rw.Identity(absl::StrCat("pivot_", k), ps, 1));
    pivot_rest = {ps, 0};
    for (size_t i = 0; i < rest.size(); ++i) {
      MF_ASSIGN_OR_RETURN(
          Node * s,
          Switch(&rw, absl::StrCat("switch_", k, "_", i), rest[i], {is_k, 0}));
      for (Node* c : control_inputs) graph->AddControlEdge(c, s);
      branch_inputs[k].push_back({s, 1});
      rest[i] = {s, 0};
    }
  }
  MF_ASSIGN_OR_RETURN(pivots[n - 1],
                      rw.Identity(absl::StrCat("pivot_", n - 1),
                                  pivot_rest.first, pivot_rest.second));
  for (Node* c : control_inputs) graph->AddControlEdge(c, pivots[n - 1]);
  branch_inputs[n - 1] = rest;
  return LowerBranches(node, branches, branch_inputs, pivots, &rw, graph);
}

Status LowerWhile(Node* node, Graph* graph) {
  std::vector<std::pair<Node*, int>> inputs;
  std::vector<Node*> control_inputs;
  Inputs(*node, &inputs, &control_inputs);
  const AttrSlice attrs(node->def());
  NameAttrList cond;
  NameAttrList body;
  int64_t parallel_iterations = 10;
  MF_RETURN_IF_ERROR(GetNodeAttr(attrs, "cond", &cond));
  MF_RETURN_IF_ERROR(GetNodeAttr(attrs, "body", &body));
  MF_RETURN_IF_ERROR(
      GetNodeAttr(attrs, "parallel_iterations", &parallel_iterations));
  if (inputs.empty()) {
    return errors::InvalidArgument("A While needs at least one loop variable");
  }
  if (parallel_iterations < 1) {
    return errors::InvalidArgument("parallel_iterations must be >= 1, not ",
                                   parallel_iterations);
  }
  Rewriter rw(graph, *node);
  const int n = static_cast<int>(inputs.size());
  std::vector<Node*> merges(n);
  std::vector<std::pair<Node*, int>> merged(n);
  for (int i = 0; i < n; ++i) {
    const PartialTensorShape shape = node->output_shape(i);
    AttrValueMap enter_attrs;
    SetAttrValue(BaseType(inputs[i].first->output_type(inputs[i].second)),
                 &enter_attrs["T"]);
    SetAttrValue(node->name(), &enter_attrs["frame_name"]);
    SetAttrValue(false, &enter_attrs["is_constant"]);
    SetAttrValue(parallel_iterations, &enter_attrs["parallel_iterations"]);
    MF_ASSIGN_OR_RETURN(Node * enter, rw.Add(absl::StrCat("enter_", i), "Enter",
                                             enter_attrs, {inputs[i]}));
    enter->set_output_shapes({shape});
    for (Node* c : control_inputs) graph->AddControlEdge(c, enter);
    // The NextIteration input is connected once the body exists.
    MF_ASSIGN_OR_RETURN(merges[i], Merge(&rw, absl::StrCat("merge_", i),
                                         {{enter, 0}, {enter, 0}}, shape));
    merged[i] = {merges[i], 0};
  }
  MF_ASSIGN_OR_RETURN(Node * cond_call, rw.Call("cond", cond, merged));
  if (cond_call->num_outputs() != 1) {
    return errors::InvalidArgument("While's cond '", cond.name(), "' returns ",
                                   cond_call->num_outputs(),
                                   " tensors; it must return one");
  }
  MF_ASSIGN_OR_RETURN(auto pred, BoolPredicate(&rw, {cond_call, 0}));
  AttrValueMap no_attrs;
  MF_ASSIGN_OR_RETURN(Node * loop_cond,
                      rw.Add("loop_cond", "LoopCond", no_attrs, {pred}));
  loop_cond->set_output_shapes({PartialTensorShape({})});
  std::vector<std::pair<Node*, int>> body_inputs(n);
  std::vector<std::pair<Node*, int>> outputs(n);
  for (int i = 0; i < n; ++i) {
    MF_ASSIGN_OR_RETURN(Node * s, Switch(&rw, absl::StrCat("switch_", i),
                                         merged[i], {loop_cond, 0}));
    AttrValueMap exit_attrs;
    SetAttrValue(BaseType(s->output_type(0)), &exit_attrs["T"]);
    MF_ASSIGN_OR_RETURN(Node * exit, rw.Add(absl::StrCat("exit_", i), "Exit",
                                            exit_attrs, {{s, 0}}));
    exit->set_output_shapes({node->output_shape(i)});
    body_inputs[i] = {s, 1};
    outputs[i] = {exit, 0};
  }
  MF_ASSIGN_OR_RETURN(Node * body_call, rw.Call("body", body, body_inputs));
  if (body_call->num_outputs() != n) {
    return errors::InvalidArgument("While's body '", body.name(), "' returns ",
                                   body_call->num_outputs(), " tensors for ", n,
                                   " loop variables");
  }
  for (int i = 0; i < n; ++i) {
    if (BaseType(body_call->output_type(i)) != BaseType(node->input_type(i))) {
      return errors::InvalidArgument(
          "While's body '", body.name(), "' returns ",
          DataTypeString(body_call->output_type(i)), " for loop variable ", i,
          " of type ", DataTypeString(node->input_type(i)));
    }
    AttrValueMap next_attrs;
    SetAttrValue(BaseType(node->input_type(i)), &next_attrs["T"]);
    MF_ASSIGN_OR_RETURN(
        Node * next, rw.Add(absl::StrCat("next_iteration_", i), "NextIteration",
                            next_attrs, {{body_call, i}}));
    next->set_output_shapes({node->output_shape(i)});
    const Edge* placeholder = nullptr;
    MF_RETURN_IF_ERROR(merges[i]->input_edge(1, &placeholder));
    graph->RemoveEdge(placeholder);
    graph->AddEdge(next, 0, merges[i], 1);
  }
  Node* done = nullptr;
  if (HasControlConsumers(*node)) {
    MF_ASSIGN_OR_RETURN(done, rw.NoOp("exits"));
    for (const auto& [exit, port] : outputs) {
      graph->AddControlEdge(exit, done);
    }
  }
  MoveOutEdges(graph, *node, outputs, done);
  graph->RemoveNode(node);
  return OkStatus();
}

Status LowerNode(Node* node, Graph* graph, BodyCache* cache) {
  const std::string& op = node->type_string();
  if (IsIfOp(op)) return LowerIf(node, graph);
  if (IsCaseOp(op)) return LowerCase(node, graph);
  if (IsWhileOp(op)) return LowerWhile(node, graph);
  NameAttrList call;
  if (GetFunctionCall(*node, graph->flib_def(), &call)) {
    return InlineCall(call, node, graph, cache);
  }
  return OkStatus();
}

Status LowerFunctionalOpsPass::Run(const GraphOptimizationContext& /*context*/,
                                   Graph* graph) const {
  // Every call and functional op names a function of the library.
  if (graph->flib_def() == nullptr || graph->flib_def()->empty()) {
    return OkStatus();
  }
  // Call depth of the nodes inlining made, by id (absent: 0).
  absl::flat_hash_map<int, int> depth;
  BodyCache cache;
  // Inlining may grow a graph several times over, but not without bound.
  int64_t library_nodes = 0;
  if (graph->flib_def() != nullptr) {
    for (const std::string& f : graph->flib_def()->ListFunctionNames()) {
      library_nodes += graph->flib_def()->Find(f)->node_def_size();
    }
  }
  const int64_t max_nodes = std::max<int64_t>(
      kMinNodeLimit, 16 * (graph->num_nodes() + library_nodes));
  for (int id = 0; id < graph->num_node_ids(); ++id) {
    Node* node = graph->FindNodeId(id);
    if (node == nullptr) continue;
    const std::string& op = node->type_string();
    NameAttrList call;
    const bool is_call = GetFunctionCall(*node, graph->flib_def(), &call);
    if (!is_call && !IsFunctionalControlFlowOp(op)) continue;
    if (graph->num_nodes() > max_nodes) {
      return errors::ResourceExhausted(
          "Inlining functions would make the graph more than ", max_nodes,
          " nodes (functions that call others many times "
          "over multiply); stopped at a call of '",
          node->type_string(), "' by node '", node->name(), "'");
    }
    auto it = depth.find(id);
    const int level = it == depth.end() ? 0 : it->second;
    if (level >= kMaxFunctionCallDepth) {
      return errors::AttachNodeContext(
          errors::InvalidArgument(
              "Function calls nest more than ", kMaxFunctionCallDepth,
              " deep here: a function that calls itself without end cannot "
              "be inlined"),
          node->name(), op);
    }
    // Copies: lowering removes the node, and its NodeDef may go with it.
    const std::string name = node->name();
    const std::string op_name = op;
    const int first_new = graph->num_node_ids();
    MF_RETURN_IF_ERROR(errors::AttachNodeContext(LowerNode(node, graph, &cache),
                                                 name, op_name));
    // Inlining goes one level deeper; lowering makes calls at this level.
    const int next = is_call ? level + 1 : level;
    for (int added = first_new; added < graph->num_node_ids(); ++added) {
      if (next > 0) depth[added] = next;
    }
  }
  return OkStatus();
}

}  // namespace

REGISTER_GRAPH_OPTIMIZATION(kPrePlacement, 0, LowerFunctionalOpsPass);

}  // namespace minflow
