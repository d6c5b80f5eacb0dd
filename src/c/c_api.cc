// The C API's graphs and operations: import, export, iteration, inspection
// and building. See Note [C API graphs] in c_api_internal.h.
#include "minflow/c/c_api.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/op_def.pb.h"
#include "src/c/c_api_internal.h"

MF_Graph::MF_Graph() : graph(minflow::OpRegistry::Global()) {
  minflow::VersionDef versions;
  versions.set_producer(minflow::kGraphDefVersion);
  graph.set_versions(versions);
}

namespace minflow {
namespace c_api {

Status EnsureGraphRefiner(MF_Graph* g) {
  if (g->refiner != nullptr) return OkStatus();
  auto refiner = std::make_shared<ShapeRefiner>(g->graph.versions().producer(),
                                                g->graph.op_registry());
  MF_RETURN_IF_ERROR(refiner->RefineGraph(g->graph));
  refiner->AttachShapes(&g->graph);
  g->refiner = std::move(refiner);
  return OkStatus();
}

Status ImportAndRefine(MF_Graph* g, const GraphConstructorOptions& options,
                       const GraphDef& graph_def, std::vector<Node*>* added) {
  const VersionDef versions = g->graph.versions();
  g->refiner.reset();  // the graph changes under it
  MF_RETURN_IF_ERROR(ImportGraphDef(options, graph_def, &g->graph, added));
  const Status s = GraphPipeline::RefineAndAttachShapes(&g->graph);
  if (!s.ok()) {
    for (auto it = added->rbegin(); it != added->rend(); ++it) {
      g->graph.RemoveNode(*it);
    }
    added->clear();
    g->graph.set_versions(versions);
    return s;
  }
  return OkStatus();
}

namespace {

bool IsListArg(const OpDef::ArgDef& arg) {
  return !arg.number_attr().empty() || !arg.type_list_attr().empty();
}

std::string OperationContext(const NodeDef& def) {
  return absl::StrCat("operation '", def.name(), "' (op ", def.op(), ")");
}

// Checks that `oper` is an operation of `g`.
Status CheckOperation(const MF_Graph& g, const MF_Operation* oper,
                      const char* what, const NodeDef& def)
    ABSL_SHARED_LOCKS_REQUIRED(g.mu) {
  if (oper == nullptr) {
    return errors::InvalidArgument(what, " of ", OperationContext(def),
                                   " is NULL");
  }
  if (!IsNodeOf(g.graph, ToNode(oper))) {
    return errors::InvalidArgument(what, " of ", OperationContext(def),
                                   " is an operation of another graph");
  }
  return OkStatus();
}

// Turns a description into a NodeDef with its inputs and inferred attrs.
Status CompleteNodeDef(const MF_OperationDescription& desc, const OpDef& op_def,
                       NodeDef* def)
    ABSL_SHARED_LOCKS_REQUIRED(desc.graph->mu) {
  const MF_Graph& g = *desc.graph;
  const int num_args = static_cast<int>(desc.inputs.size());
  if (num_args != op_def.input_arg_size()) {
    std::vector<std::string> names;
    for (const auto& arg : op_def.input_arg()) names.push_back(arg.name());
    return errors::InvalidArgument(
        OperationContext(*def), " expects ", op_def.input_arg_size(),
        " input args (", absl::StrJoin(names, ", "), "), but got ", num_args,
        ": add one per arg, in order, with MF_AddInput (a tensor) or "
        "MF_AddInputList (a list)");
  }
  std::vector<DataTypeVector> arg_types(num_args);
  for (int a = 0; a < num_args; ++a) {
    const OpDef::ArgDef& arg = op_def.input_arg(a);
    const MF_OperationDescription::InputArg& in = desc.inputs[a];
    if (in.is_list != IsListArg(arg)) {
      return errors::InvalidArgument(
          "Input arg '", arg.name(), "' of ", OperationContext(*def), " is ",
          IsListArg(arg) ? "a list: use MF_AddInputList"
                         : "a single tensor: use MF_AddInput");
    }
    for (size_t i = 0; i < in.tensors.size(); ++i) {
      const MF_Output& out = in.tensors[i];
      const std::string what =
          absl::StrCat("Input arg '", arg.name(), "'",
                       in.is_list ? absl::StrCat("[", i, "]") : "");
      MF_RETURN_IF_ERROR(CheckOperation(g, out.oper, what.c_str(), *def));
      const Node* src = ToNode(out.oper);
      if (out.index < 0 || out.index >= src->num_outputs()) {
        return errors::OutOfRange(what, " of ", OperationContext(*def),
                                  " names output ", out.index, " of '",
                                  src->name(), "', which has ",
                                  src->num_outputs(), " outputs");
      }
      arg_types[a].push_back(src->output_type(out.index));
      def->add_input(out.index == 0
                         ? src->name()
                         : absl::StrCat(src->name(), ":", out.index));
    }
  }
  for (const MF_Operation* control : desc.control_inputs) {
    MF_RETURN_IF_ERROR(CheckOperation(g, control, "A control input", *def));
    def->add_input(absl::StrCat("^", ToNode(control)->name()));
  }
  for (const MF_Operation* op : desc.colocate_with) {
    MF_RETURN_IF_ERROR(CheckOperation(g, op, "MF_ColocateWith's op", *def));
    AttrValue* value = &(*def->mutable_attr())[kColocationAttrName];
    value->mutable_list()->add_s(
        absl::StrCat(kColocationGroupPrefix, ToNode(op)->name()));
  }
  return errors::Prefix(InferAttrsFromInputTypes(op_def, arg_types, def),
                        OperationContext(*def), ": ");
}

// Refines `node`, just added to `g`, and attaches its shapes (Note [C API
// graphs]). On error `node` has no results and may be removed.
Status RefineNewOperation(MF_Graph* g, Node& node)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(g->mu) {
  if (g->refiner == nullptr) return EnsureGraphRefiner(g);
  MF_RETURN_IF_ERROR(g->refiner->AddNode(g->graph, node));
  std::vector<PartialTensorShape> shapes;
  for (int i = 0; i < g->refiner->num_outputs(node.id()); ++i) {
    shapes.push_back(g->refiner->OutputPartialShape(node.id(), i));
  }
  node.set_output_shapes(std::move(shapes));
  return OkStatus();
}

StatusOr<Node*> FinishOperation(MF_OperationDescription* desc) {
  MF_RETURN_IF_ERROR(desc->status);
  MF_Graph* g = desc->graph;
  GraphDef graph_def;
  NodeDef* def = graph_def.add_node();
  *def = desc->node_def;
  absl::MutexLock lock(&g->mu);
  // The graph's registry: its library's functions are ops too.
  const OpDef* op_def = nullptr;
  Status lookup = g->graph.op_registry()->LookUpOpDef(def->op(), &op_def);
  if (!lookup.ok()) {
    return errors::AttachNodeContext(lookup, def->name(), def->op());
  }
  MF_RETURN_IF_ERROR(CompleteNodeDef(*desc, *op_def, def));
  *graph_def.mutable_versions() = g->graph.versions();
  std::vector<Node*> added;
  Status s =
      ImportGraphDef(GraphConstructorOptions(), graph_def, &g->graph, &added);
  if (s.ok()) s = RefineNewOperation(g, *added.at(0));
  if (!s.ok()) {
    for (auto it = added.rbegin(); it != added.rend(); ++it) {
      g->graph.RemoveNode(*it);
    }
    return s;
  }
  return added.at(0);
}

// The inferred shape of `output` (unknown when refinement did not reach it).
Status TensorShapeOf(MF_Graph* graph, MF_Output output, const char* function,
                     PartialTensorShape* shape) {
  if (graph == nullptr) return NullArgument(function, "graph");
  absl::ReaderMutexLock lock(&graph->mu);
  const Node* node = ToNode(output.oper);
  if (!IsNodeOf(graph->graph, node)) {
    return errors::InvalidArgument(
        function, ": output.oper is NULL or an operation of another graph");
  }
  if (output.index < 0 || output.index >= node->num_outputs()) {
    return errors::OutOfRange(function, ": operation '", node->name(), "' has ",
                              node->num_outputs(), " outputs, but got index ",
                              output.index);
  }
  *shape = node->output_shape(output.index);
  return OkStatus();
}

// The node of `port` ({oper, index} of an input or an output) when the
// index is in range for `count` (num_inputs or num_outputs), else null.
template <typename Port>
const Node* NodeWithPort(const Port& port, int (Node::*count)() const) {
  const Node* node = ToNode(port.oper);
  if (node == nullptr || port.index < 0 || port.index >= (node->*count)()) {
    return nullptr;
  }
  return node;
}

}  // namespace
}  // namespace c_api
}  // namespace minflow

using minflow::Node;
using minflow::Status;
namespace c_api = minflow::c_api;
namespace errors = minflow::errors;

extern "C" {

MF_Graph* MF_NewGraph(void) { return new MF_Graph; }

void MF_DeleteGraph(MF_Graph* graph) {
  if (graph == nullptr) return;
  {
    absl::MutexLock lock(&graph->mu);
    if (graph->num_sessions > 0) {
      graph->delete_requested = true;
      return;
    }
  }
  delete graph;
}

MF_Operation* MF_GraphOperationByName(MF_Graph* graph, const char* oper_name) {
  if (graph == nullptr || oper_name == nullptr) return nullptr;
  absl::ReaderMutexLock lock(&graph->mu);
  return c_api::ToOperation(graph->graph.FindNodeByName(oper_name));
}

MF_Operation* MF_GraphNextOperation(MF_Graph* graph, size_t* pos) {
  if (graph == nullptr || pos == nullptr) return nullptr;
  absl::ReaderMutexLock lock(&graph->mu);
  const size_t end = static_cast<size_t>(graph->graph.num_node_ids());
  for (; *pos < end; ++*pos) {
    Node* node = graph->graph.FindNodeId(static_cast<int>(*pos));
    if (node != nullptr) {
      ++*pos;
      return c_api::ToOperation(node);
    }
  }
  return nullptr;
}

int MF_GraphNumOperations(MF_Graph* graph) {
  if (graph == nullptr) return -1;
  absl::ReaderMutexLock lock(&graph->mu);
  return graph->graph.num_nodes();
}

int MF_GraphGetTensorNumDims(MF_Graph* graph, MF_Output output,
                             MF_Status* status) {
  minflow::PartialTensorShape shape;
  const Status s =
      c_api::TensorShapeOf(graph, output, "MF_GraphGetTensorNumDims", &shape);
  c_api::Set(status, s);
  return s.ok() ? shape.dims() : -1;
}

void MF_GraphGetTensorShape(MF_Graph* graph, MF_Output output, int64_t* dims,
                            int num_dims, MF_Status* status) {
  minflow::PartialTensorShape shape;
  Status s =
      c_api::TensorShapeOf(graph, output, "MF_GraphGetTensorShape", &shape);
  if (s.ok() && num_dims != shape.dims()) {
    s = errors::InvalidArgument(
        "MF_GraphGetTensorShape: num_dims must be the rank, ", shape.dims(),
        ", but got ", num_dims);
  } else if (s.ok() && num_dims > 0 && dims == nullptr) {
    s = c_api::NullArgument("MF_GraphGetTensorShape", "dims");
  }
  for (int d = 0; s.ok() && d < num_dims; ++d) dims[d] = shape.dim_size(d);
  c_api::Set(status, s);
}

void MF_GraphToGraphDef(MF_Graph* graph, MF_Buffer* output_graph_def,
                        MF_Status* status) {
  if (graph == nullptr) {
    c_api::Set(status, c_api::NullArgument("MF_GraphToGraphDef", "graph"));
    return;
  }
  minflow::GraphDef def;
  {
    absl::ReaderMutexLock lock(&graph->mu);
    graph->graph.ToGraphDef(&def);
  }
  c_api::Set(status, c_api::MessageToBuffer("MF_GraphToGraphDef", def,
                                            output_graph_def));
}

void MF_GraphGetOpDef(MF_Graph* graph, const char* op_name,
                      MF_Buffer* output_op_def, MF_Status* status) {
  if (graph == nullptr || op_name == nullptr) {
    c_api::Set(status, c_api::NullArgument("MF_GraphGetOpDef",
                                           graph ? "op_name" : "graph"));
    return;
  }
  const minflow::OpDef* op_def = nullptr;
  Status s = minflow::OpRegistry::Global()->LookUpOpDef(op_name, &op_def);
  if (s.ok()) {
    s = c_api::MessageToBuffer("MF_GraphGetOpDef", *op_def, output_op_def);
  }
  c_api::Set(status, s);
}

MF_Buffer* MF_GetAllOpList(void) {
  const std::string bytes =
      minflow::OpRegistry::Global()->GetRegisteredOps().SerializeAsString();
  return MF_NewBufferFromString(bytes.data(), bytes.size());
}

const char* MF_OperationName(MF_Operation* oper) {
  const Node* node = c_api::ToNode(oper);
  return node == nullptr ? nullptr : node->name().c_str();
}

const char* MF_OperationOpType(MF_Operation* oper) {
  const Node* node = c_api::ToNode(oper);
  return node == nullptr ? nullptr : node->type_string().c_str();
}

const char* MF_OperationDevice(MF_Operation* oper) {
  const Node* node = c_api::ToNode(oper);
  return node == nullptr ? nullptr : node->requested_device().c_str();
}

int MF_OperationNumInputs(MF_Operation* oper) {
  const Node* node = c_api::ToNode(oper);
  return node == nullptr ? -1 : node->num_inputs();
}

int MF_OperationNumOutputs(MF_Operation* oper) {
  const Node* node = c_api::ToNode(oper);
  return node == nullptr ? -1 : node->num_outputs();
}

MF_DataType MF_OperationInputType(MF_Input oper_in) {
  const Node* node = c_api::NodeWithPort(oper_in, &Node::num_inputs);
  return node == nullptr
             ? MF_INVALID
             : static_cast<MF_DataType>(node->input_type(oper_in.index));
}

MF_DataType MF_OperationOutputType(MF_Output oper_out) {
  const Node* node = c_api::NodeWithPort(oper_out, &Node::num_outputs);
  return node == nullptr
             ? MF_INVALID
             : static_cast<MF_DataType>(node->output_type(oper_out.index));
}

MF_Output MF_OperationInput(MF_Input oper_in) {
  const Node* node = c_api::NodeWithPort(oper_in, &Node::num_inputs);
  const minflow::Edge* edge = nullptr;
  if (node == nullptr || !node->input_edge(oper_in.index, &edge).ok()) {
    return MF_Output{nullptr, -1};
  }
  return MF_Output{c_api::ToOperation(edge->src), edge->src_output};
}

int MF_OperationOutputConsumers(MF_Output oper_out, MF_Input* consumers,
                                int max_consumers) {
  const Node* node = c_api::NodeWithPort(oper_out, &Node::num_outputs);
  if (node == nullptr || max_consumers < 0 ||
      (consumers == nullptr && max_consumers > 0)) {
    return -1;
  }
  int count = 0;
  for (const minflow::Edge* e : node->out_edges()) {
    if (e->src_output != oper_out.index || count >= max_consumers) continue;
    consumers[count++] = MF_Input{c_api::ToOperation(e->dst), e->dst_input};
  }
  return count;
}

int MF_OperationOutputNumConsumers(MF_Output oper_out) {
  const Node* node = c_api::NodeWithPort(oper_out, &Node::num_outputs);
  if (node == nullptr) return -1;
  int count = 0;
  for (const minflow::Edge* e : node->out_edges()) {
    count += e->src_output == oper_out.index;
  }
  return count;
}

int MF_OperationNumControlInputs(MF_Operation* oper) {
  const Node* node = c_api::ToNode(oper);
  if (node == nullptr) return -1;
  int count = 0;
  for (const minflow::Edge* e : node->in_edges()) count += e->IsControlEdge();
  return count;
}

int MF_OperationGetControlInputs(MF_Operation* oper,
                                 MF_Operation** control_inputs,
                                 int max_control_inputs) {
  const Node* node = c_api::ToNode(oper);
  if (node == nullptr || max_control_inputs < 0 ||
      (control_inputs == nullptr && max_control_inputs > 0)) {
    return -1;
  }
  int count = 0;
  for (const minflow::Edge* e : node->in_edges()) {
    if (!e->IsControlEdge() || count >= max_control_inputs) continue;
    control_inputs[count++] = c_api::ToOperation(e->src);
  }
  return count;
}

void MF_OperationToNodeDef(MF_Operation* oper, MF_Buffer* output_node_def,
                           MF_Status* status) {
  if (oper == nullptr) {
    c_api::Set(status, c_api::NullArgument("MF_OperationToNodeDef", "oper"));
    return;
  }
  c_api::Set(status, c_api::MessageToBuffer("MF_OperationToNodeDef",
                                            c_api::ToNode(oper)->def(),
                                            output_node_def));
}

MF_OperationDescription* MF_NewOperation(MF_Graph* graph, const char* op_type,
                                         const char* oper_name) {
  if (graph == nullptr || op_type == nullptr || oper_name == nullptr) {
    return nullptr;
  }
  auto* desc = new MF_OperationDescription;
  desc->graph = graph;
  desc->node_def.set_op(op_type);
  desc->node_def.set_name(oper_name);
  return desc;
}

void MF_SetDevice(MF_OperationDescription* desc, const char* device) {
  if (desc != nullptr) desc->node_def.set_device(device ? device : "");
}

void MF_AddInput(MF_OperationDescription* desc, MF_Output input) {
  if (desc == nullptr) return;
  desc->inputs.push_back({{input}, /*is_list=*/false});
}

void MF_AddInputList(MF_OperationDescription* desc, const MF_Output* inputs,
                     int num_inputs) {
  if (desc == nullptr) return;
  if (num_inputs < 0 || (inputs == nullptr && num_inputs > 0)) {
    if (desc->status.ok()) {
      desc->status = errors::InvalidArgument(
          "MF_AddInputList for operation '", desc->node_def.name(),
          "': inputs must hold num_inputs >= 0 outputs, but got ",
          inputs == nullptr ? "NULL" : "a list", " and num_inputs ",
          num_inputs);
    }
    return;
  }
  desc->inputs.push_back(
      {std::vector<MF_Output>(inputs, inputs + num_inputs), /*is_list=*/true});
}

void MF_AddControlInput(MF_OperationDescription* desc, MF_Operation* input) {
  if (desc != nullptr) desc->control_inputs.push_back(input);
}

void MF_ColocateWith(MF_OperationDescription* desc, MF_Operation* op) {
  if (desc != nullptr) desc->colocate_with.push_back(op);
}

MF_Operation* MF_FinishOperation(MF_OperationDescription* desc,
                                 MF_Status* status) {
  if (desc == nullptr) {
    c_api::Set(status,
               errors::InvalidArgument(
                   "MF_FinishOperation: desc is NULL (MF_NewOperation returns "
                   "NULL for a NULL graph, op_type or oper_name)"));
    return nullptr;
  }
  std::unique_ptr<MF_OperationDescription> owned(desc);
  minflow::StatusOr<Node*> node = c_api::FinishOperation(desc);
  if (!node.ok()) {
    c_api::Set(status, node.status());
    return nullptr;
  }
  c_api::SetOk(status);
  return c_api::ToOperation(*node);
}

}  // extern "C"
