// FreezeSavedModel: one signature of a SavedModel as a self-contained
// GraphDef. See Note [Freezing a signature].
#include "minflow/saved_model/freeze.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "minflow/config.pb.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/function.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/function_body.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/graph/optimization_registry.h"
#include "minflow/graph/subgraph.h"
#include "minflow/graph/tensor_id.h"
#include "minflow/saved_model/signature.h"
#include "minflow/tensor.pb.h"
#include "minflow/tensor_shape.pb.h"
#include "src/saved_model/loader_internal.h"

namespace minflow {

// Note [Freezing a signature]
// The variables' values come from a real load (restore op and init op run,
// as LoadSavedModel does) of the MetaGraph extended with one read per
// variable the signature needs, so whatever restores them (a Saver, a
// restore function, an init op) is honoured without being understood here.
// The graph to freeze is the MetaGraph's graph pruned to the signature,
// with every call inlined and If/Case/While lowered by the pipeline's own
// lowering pass, so every read of a variable is a node of one graph whose
// handle input leads back, through Identity and frame ops, to a VarHandleOp
// of the main graph. A read fed straight by its VarHandleOp becomes a plain
// Const; a read whose handle went through an Enter, Switch or Identity
// keeps a control edge from that node, as the lowering pass does for
// constants in a body, so the Const runs in the read's frame and is dead
// when its branch is not taken. TF1 variables (VariableV2) become Consts
// under their own names. Anything else that takes a handle or a reference
// on the outputs' path changes state or needs a live variable, and cannot
// be frozen.

namespace {

constexpr char kLoweringPass[] = "lower_functional_ops";

bool IsResourceVariableRead(const Node& node) {
  return node.IsOp("ReadVariableOp") || node.IsOp("ResourceGather");
}

bool IsTf1Variable(const Node& node) {
  return node.IsOp("VariableV2") || node.IsOp("Variable");
}

// Ops that hand a resource handle on unchanged (what calls and lowered
// control flow put between a VarHandleOp and its reads).
bool PassesHandleOn(const Node& node) {
  return node.IsOp("Identity") || node.IsOp("Enter") || node.IsOp("Exit") ||
         node.IsOp("Switch") || node.IsOp("Merge") ||
         node.IsOp("NextIteration");
}

Status NodeError(const Node& node, absl::string_view message) {
  return errors::Unimplemented("Cannot freeze node '", node.name(), "' (",
                               node.type_string(), "): ", message);
}

// The VarHandleOp that `read`'s handle comes from.
StatusOr<Node*> VariableOfRead(const Node& read) {
  const Edge* edge = nullptr;
  MF_RETURN_IF_ERROR(read.input_edge(0, &edge));
  std::vector<Node*> stack = {edge->src};
  absl::flat_hash_set<Node*> seen;
  Node* variable = nullptr;
  while (!stack.empty()) {
    Node* node = stack.back();
    stack.pop_back();
    if (!seen.insert(node).second) continue;
    if (node->IsOp("VarHandleOp")) {
      if (variable != nullptr && variable != node) {
        return NodeError(
            read, absl::StrCat("its handle may come from '", variable->name(),
                               "' or '", node->name(), "'"));
      }
      variable = node;
      continue;
    }
    if (!PassesHandleOn(*node)) {
      return NodeError(
          read, absl::StrCat("its handle comes from '", node->name(), "' (",
                             node->type_string(), "), not from a VarHandleOp"));
    }
    for (const Edge* in : node->in_edges()) {
      // A Switch's predicate and a Merge's control inputs carry no handle.
      if (in->IsControlEdge() || (node->IsOp("Switch") && in->dst_input == 1))
        continue;
      stack.push_back(in->src);
    }
  }
  if (variable == nullptr) {
    return NodeError(read, "its handle comes from no VarHandleOp");
  }
  return variable;
}

// Fails for a node on the outputs' path that needs a live variable.
Status CheckFreezable(const Graph& graph) {
  for (Node* node : graph.nodes()) {
    if (IsResourceVariableRead(*node) || PassesHandleOn(*node) ||
        IsTf1Variable(*node) || node->IsOp("VarHandleOp")) {
      continue;
    }
    for (int i = 0; i < node->num_inputs(); ++i) {
      const DataType type = node->input_type(i);
      if (type == DT_RESOURCE || IsRefType(type)) {
        return NodeError(*node,
                         "the signature's outputs need it, and it takes a "
                         "variable's handle or reference (changing a "
                         "variable, or reading it in a way minflow cannot "
                         "turn into a constant)");
      }
    }
  }
  return OkStatus();
}

std::string UniqueName(const Graph& graph, const std::string& base) {
  std::string name = base;
  for (int i = 1; graph.FindNodeByName(name) != nullptr; ++i) {
    name = absl::StrCat(base, "_", i);
  }
  return name;
}

StatusOr<Node*> AddConst(Graph* graph, const std::string& name,
                         const Tensor& value, const std::string& device) {
  NodeDef def;
  def.set_name(name);
  def.set_op("Const");
  def.set_device(device);
  AddNodeAttr("dtype", value.dtype(), &def);
  AttrValue tensor;
  value.AsProtoTensorContent(tensor.mutable_tensor());
  AddNodeAttr("value", tensor, &def);
  return graph->AddNode(std::move(def));
}

struct Consumer {
  int src_output;
  Node* dst;
  int dst_input;
};

// Removes `node` and returns what it fed, and the nodes it waited on.
void TakeOut(Graph* graph, Node* node, std::vector<Consumer>* consumers,
             std::vector<Node*>* control_inputs) {
  for (const Edge* e : node->out_edges()) {
    consumers->push_back({e->src_output, e->dst, e->dst_input});
  }
  for (const Edge* e : node->in_edges()) {
    if (e->IsControlEdge()) control_inputs->push_back(e->src);
  }
  graph->RemoveNode(node);
}

void Reconnect(Graph* graph, Node* replacement,
               const std::vector<Consumer>& consumers,
               const std::vector<Node*>& control_inputs) {
  for (const Consumer& c : consumers) {
    if (c.src_output == kControlSlot) {
      graph->AddControlEdge(replacement, c.dst);
    } else {
      graph->AddEdge(replacement, c.src_output, c.dst, c.dst_input);
    }
  }
  for (Node* src : control_inputs) graph->AddControlEdge(src, replacement);
}

// A Placeholder standing for signature input `input`, as feeding it would:
// a Placeholder's output stays as it is; a node of one output (an Identity,
// a PlaceholderWithDefault) becomes a Placeholder of the same name; any
// other tensor gets a new Placeholder named after the key, read by the
// tensor's consumers.
StatusOr<Node*> PlaceholderForInput(Graph* graph,
                                    const SignatureTensor& input) {
  TensorId id;
  MF_RETURN_IF_ERROR(ParseTensorName(input.tensor_name, &id));
  Node* node = graph->FindNodeByName(id.node);
  if (node == nullptr || id.port < 0 || id.port >= node->num_outputs()) {
    return errors::NotFound("Signature input '", input.key, "' names tensor '",
                            input.tensor_name,
                            "', which the graph does not have");
  }
  if (node->IsPlaceholder()) return node;
  const DataType dtype = node->output_type(id.port);
  if (IsRefType(dtype) || dtype == DT_RESOURCE) {
    return NodeError(
        *node, absl::StrCat("signature input '", input.key, "' is a variable"));
  }
  NodeDef def;
  def.set_op("Placeholder");
  def.set_device(node->requested_device());
  AddNodeAttr("dtype", dtype, &def);
  // A PlaceholderWithDefault accepts what its shape attr allows, which may
  // be more than the signature says.
  TensorShapeProto shape;
  if (node->IsOp("PlaceholderWithDefault") &&
      GetNodeAttr(node->def(), "shape", &shape).ok()) {
    AddNodeAttr("shape", shape, &def);
  } else if (!input.shape.unknown_rank()) {
    input.shape.AsProto(&shape);
    AddNodeAttr("shape", shape, &def);
  }
  std::vector<Consumer> consumers;
  std::vector<Node*> control_inputs;
  if (node->num_outputs() == 1) {
    def.set_name(node->name());
    TakeOut(graph, node, &consumers, &control_inputs);
  } else {
    def.set_name(UniqueName(*graph, input.key));
    for (const Edge* e : node->out_edges()) {
      if (e->src_output == id.port) {
        consumers.push_back({0, e->dst, e->dst_input});
      }
    }
    for (const Consumer& c : consumers) {
      const Edge* edge = nullptr;
      MF_RETURN_IF_ERROR(c.dst->input_edge(c.dst_input, &edge));
      graph->RemoveEdge(edge);
    }
  }
  MF_ASSIGN_OR_RETURN(Node * placeholder, graph->AddNode(std::move(def)));
  // What the fed node waited on no longer matters: it does not run.
  Reconnect(graph, placeholder, consumers, /*control_inputs=*/{});
  return placeholder;
}

// Replaces ReadVariableOp `read` by a Const of `value`, and ResourceGather
// by a GatherV2 from one, along axis batch_dims as the resource op gathers.
Status ReplaceRead(Graph* graph, Node* read, Node* variable,
                   const Tensor& value) {
  const Edge* handle_edge = nullptr;
  MF_RETURN_IF_ERROR(read->input_edge(0, &handle_edge));
  Node* handle_source = handle_edge->src;
  const bool direct = handle_source == variable;
  const std::string name = read->name();
  const std::string device = read->requested_device();
  const bool gather = read->IsOp("ResourceGather");
  NodeDef gather_def;
  Node* indices = nullptr;
  int indices_port = 0;
  if (gather) {
    const Edge* indices_edge = nullptr;
    MF_RETURN_IF_ERROR(read->input_edge(1, &indices_edge));
    indices = indices_edge->src;
    indices_port = indices_edge->src_output;
    int64_t batch_dims = 0;
    DataType tindices = DT_INT32;
    MF_RETURN_IF_ERROR(GetNodeAttr(read->def(), "batch_dims", &batch_dims));
    MF_RETURN_IF_ERROR(GetNodeAttr(read->def(), "Tindices", &tindices));
    gather_def.set_name(name);
    gather_def.set_op("GatherV2");
    gather_def.set_device(device);
    AddNodeAttr("Tparams", value.dtype(), &gather_def);
    AddNodeAttr("Tindices", tindices, &gather_def);
    AddNodeAttr("Taxis", DT_INT32, &gather_def);
    AddNodeAttr("batch_dims", batch_dims, &gather_def);
    gather_def.add_input(absl::StrCat(name, "/params"));
    gather_def.add_input(absl::StrCat(name, "/axis"));
  }
  std::vector<Consumer> consumers;
  std::vector<Node*> control_inputs;
  TakeOut(graph, read, &consumers, &control_inputs);
  if (!gather) {
    MF_ASSIGN_OR_RETURN(Node * constant, AddConst(graph, name, value, device));
    Reconnect(graph, constant, consumers, control_inputs);
    if (!direct) graph->AddControlEdge(handle_source, constant);
    return OkStatus();
  }
  MF_ASSIGN_OR_RETURN(
      Node * params,
      AddConst(graph, UniqueName(*graph, absl::StrCat(name, "/params")), value,
               device));
  int64_t batch_dims = 0;
  MF_RETURN_IF_ERROR(GetNodeAttr(gather_def, "batch_dims", &batch_dims));
  MF_ASSIGN_OR_RETURN(
      Node * axis,
      AddConst(graph, UniqueName(*graph, absl::StrCat(name, "/axis")),
               Tensor(static_cast<int32_t>(batch_dims)), device));
  gather_def.clear_input();
  MF_ASSIGN_OR_RETURN(Node * gathered, graph->AddNode(std::move(gather_def)));
  graph->AddEdge(params, 0, gathered, 0);
  graph->AddEdge(indices, indices_port, gathered, 1);
  graph->AddEdge(axis, 0, gathered, 2);
  Reconnect(graph, gathered, consumers, control_inputs);
  if (!direct) {
    graph->AddControlEdge(handle_source, params);
    graph->AddControlEdge(handle_source, axis);
  }
  return OkStatus();
}

Status ReplaceTf1Variable(Graph* graph, Node* variable, const Tensor& value) {
  const std::string name = variable->name();
  const std::string device = variable->requested_device();
  std::vector<Consumer> consumers;
  std::vector<Node*> control_inputs;
  TakeOut(graph, variable, &consumers, &control_inputs);
  MF_ASSIGN_OR_RETURN(Node * constant, AddConst(graph, name, value, device));
  Reconnect(graph, constant, consumers, control_inputs);
  return OkStatus();
}

// Whether any node still calls or names a function of the library.
bool UsesLibrary(const GraphDef& graph_def) {
  if (graph_def.library().function_size() == 0) return false;
  absl::flat_hash_set<std::string> functions;
  for (const FunctionDef& f : graph_def.library().function()) {
    functions.insert(f.signature().name());
  }
  for (const NodeDef& node : graph_def.node()) {
    if (functions.contains(node.op())) return true;
    for (const auto& [name, value] : node.attr()) {
      if (value.has_func() || value.list().func_size() > 0) return true;
    }
  }
  return false;
}

}  // namespace

Status FreezeSavedModel(const std::string& export_dir,
                        const std::unordered_set<std::string>& tags,
                        const std::string& signature_key,
                        FrozenSignature* frozen) {
  if (frozen == nullptr) {
    return errors::InvalidArgument("FreezeSavedModel: frozen must not be null");
  }
  MetaGraphDef meta_graph;
  std::string file;
  MF_RETURN_IF_ERROR(
      internal::ReadMetaGraph(export_dir, tags, &meta_graph, &file));
  MF_ASSIGN_OR_RETURN(SignatureTensors signature,
                      GetSignatureTensors(meta_graph, signature_key));

  std::unique_ptr<GraphPipeline> pipeline;
  MF_RETURN_IF_ERROR(
      errors::Prefix(GraphPipeline::Prepare(meta_graph.graph_def(),
                                            GraphPipelineOptions(), &pipeline),
                     file, ": "));
  std::unique_ptr<Graph> graph = pipeline->graph().Clone();

  FrozenSignature result;
  std::vector<Node*> roots;
  GraphOptimizationContext context;
  for (const SignatureTensor& input : signature.inputs) {
    MF_ASSIGN_OR_RETURN(Node * placeholder,
                        PlaceholderForInput(graph.get(), input));
    roots.push_back(placeholder);
    context.preserved_nodes.insert(placeholder->name());
    result.inputs.push_back(
        {input.key, absl::StrCat(placeholder->name(), ":0")});
  }
  for (const SignatureTensor& output : signature.outputs) {
    TensorId id;
    MF_RETURN_IF_ERROR(ParseTensorName(output.tensor_name, &id));
    Node* node = graph->FindNodeByName(id.node);
    if (node == nullptr || id.port < 0 || id.port >= node->num_outputs()) {
      return errors::NotFound("Signature '", signature_key, "' output '",
                              output.key, "' names tensor '",
                              output.tensor_name,
                              "', which the graph does not have");
    }
    NameAttrList call;
    if (!GetFunctionCall(*node, graph->flib_def(), &call) &&
        !IsFunctionalControlFlowOp(node->type_string())) {
      roots.push_back(node);
      context.preserved_nodes.insert(node->name());
      result.outputs.push_back({output.key, output.tensor_name});
      continue;
    }
    // The call is inlined away; an Identity keeps the output at a name.
    NodeDef identity;
    identity.set_name(UniqueName(*graph, output.key));
    identity.set_op("Identity");
    AddNodeAttr("T", node->output_type(id.port), &identity);
    MF_ASSIGN_OR_RETURN(Node * added, graph->AddNode(std::move(identity)));
    graph->AddEdge(node, id.port, added, 0);
    roots.push_back(added);
    context.preserved_nodes.insert(added->name());
    result.outputs.push_back({output.key, absl::StrCat(added->name(), ":0")});
  }
  std::vector<std::string> root_names;
  for (Node* root : roots) root_names.push_back(root->name());
  PruneForRoots(roots, graph.get());

  const OptimizationPassRegistry::Entry* lowering =
      OptimizationPassRegistry::Global()->Find(kLoweringPass);
  if (lowering == nullptr) {
    return errors::Internal("The ", kLoweringPass, " pass is not registered");
  }
  MF_RETURN_IF_ERROR(errors::Prefix(lowering->pass->Run(context, graph.get()),
                                    file,
                                    ": inlining the signature's "
                                    "functions: "));
  PruneForRoots(roots, graph.get());
  MF_RETURN_IF_ERROR(CheckFreezable(*graph));

  // Which variables the signature reads, and a node per variable that reads
  // its value once the model is loaded.
  std::vector<std::pair<Node*, Node*>> reads;  // (read, VarHandleOp)
  std::map<std::string, DataType> variables;   // name -> dtype
  for (Node* node : graph->nodes()) {
    if (IsResourceVariableRead(*node)) {
      MF_ASSIGN_OR_RETURN(Node * variable, VariableOfRead(*node));
      reads.emplace_back(node, variable);
      DataType dtype = DT_INVALID;
      MF_RETURN_IF_ERROR(GetNodeAttr(variable->def(), "dtype", &dtype));
      variables.emplace(variable->name(), dtype);
    } else if (IsTf1Variable(*node)) {
      DataType dtype = DT_INVALID;
      MF_RETURN_IF_ERROR(GetNodeAttr(node->def(), "dtype", &dtype));
      variables.emplace(node->name(), dtype);
    }
  }
  absl::flat_hash_set<std::string> main_graph_nodes;
  for (const NodeDef& node : meta_graph.graph_def().node()) {
    main_graph_nodes.insert(node.name());
  }
  std::vector<std::string> value_tensors;
  std::vector<std::string> variable_names;
  for (const auto& [name, dtype] : variables) {
    if (!main_graph_nodes.contains(name)) {
      return errors::Unimplemented(
          "Cannot freeze variable '", name,
          "': a function creates it, so no checkpoint restores it");
    }
    std::string read_name = absl::StrCat(name, "/_freeze_value");
    while (main_graph_nodes.contains(read_name)) read_name += "_";
    const NodeDef* variable_def = nullptr;
    for (const NodeDef& node : meta_graph.graph_def().node()) {
      if (node.name() == name) variable_def = &node;
    }
    NodeDef* read = meta_graph.mutable_graph_def()->add_node();
    read->set_name(read_name);
    read->add_input(name);
    read->set_device(variable_def->device());
    if (variable_def->op() == "VarHandleOp") {
      read->set_op("ReadVariableOp");
      AddNodeAttr("dtype", dtype, read);
    } else {
      read->set_op("Identity");
      AddNodeAttr("T", dtype, read);
    }
    value_tensors.push_back(absl::StrCat(read_name, ":0"));
    variable_names.push_back(name);
  }

  std::map<std::string, Tensor> values;
  if (!value_tensors.empty()) {
    SavedModelBundle bundle;
    MF_RETURN_IF_ERROR(internal::LoadMetaGraph(SessionOptions(), RunOptions(),
                                               export_dir, file,
                                               std::move(meta_graph), &bundle));
    std::vector<Tensor> fetched;
    MF_RETURN_IF_ERROR(
        errors::Prefix(bundle.session->Run({}, value_tensors, {}, &fetched),
                       file, ": reading the variables' values: "));
    for (size_t i = 0; i < variable_names.size(); ++i) {
      values[variable_names[i]] = fetched[i];
    }
  }

  for (const auto& [read, variable] : reads) {
    MF_RETURN_IF_ERROR(
        ReplaceRead(graph.get(), read, variable, values[variable->name()]));
  }
  for (Node* node : graph->nodes()) {
    if (!IsTf1Variable(*node)) continue;
    MF_RETURN_IF_ERROR(
        ReplaceTf1Variable(graph.get(), node, values[node->name()]));
  }
  // A root may have been a read, replaced by a node of the same name.
  for (size_t i = 0; i < roots.size(); ++i) {
    roots[i] = graph->FindNodeByName(root_names[i]);
  }
  PruneForRoots(roots, graph.get());

  graph->ToGraphDef(&result.graph_def);
  if (!UsesLibrary(result.graph_def)) result.graph_def.clear_library();
  result.num_variables = static_cast<int>(variables.size());
  *frozen = std::move(result);
  return OkStatus();
}

}  // namespace minflow
