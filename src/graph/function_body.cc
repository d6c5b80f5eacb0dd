#include "minflow/graph/function_body.h"

#include <utility>

#include "absl/strings/match.h"
#include "minflow/framework/function.h"
#include "minflow/framework/op.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"

namespace minflow {

bool IsPartitionedCallOp(absl::string_view op) {
  return op == "PartitionedCall" || op == "StatefulPartitionedCall";
}
bool IsIfOp(absl::string_view op) { return op == "If" || op == "StatelessIf"; }
bool IsCaseOp(absl::string_view op) {
  return op == "Case" || op == "StatelessCase";
}
bool IsWhileOp(absl::string_view op) {
  return op == "While" || op == "StatelessWhile";
}
bool IsFunctionalControlFlowOp(absl::string_view op) {
  return IsIfOp(op) || IsCaseOp(op) || IsWhileOp(op);
}

bool RunsFunctions(const OpRegistrationData& reg) {
  const std::string& op = reg.op_def.name();
  return reg.is_function_op || IsPartitionedCallOp(op) ||
         IsFunctionalControlFlowOp(op);
}

bool GetFunctionCall(const Node& node, const FunctionLibraryDefinition* library,
                     NameAttrList* call) {
  if (IsPartitionedCallOp(node.type_string())) {
    const NameAttrList* f = nullptr;
    if (!GetNodeAttr(AttrSlice(node.def()), "f", &f).ok()) return false;
    *call = *f;
    return true;
  }
  if (library == nullptr || library->Find(node.type_string()) == nullptr) {
    return false;
  }
  call->Clear();
  call->set_name(node.type_string());
  for (const auto& [key, value] : node.def().attr()) {
    if (!absl::StartsWith(key, "_")) (*call->mutable_attr())[key] = value;
  }
  return true;
}

Status InstantiateFunctionBody(
    const std::shared_ptr<const FunctionLibraryDefinition>& library,
    const NameAttrList& call, const VersionDef& versions, FunctionBody* body) {
  body->graph.reset();
  body->arg_nodes.clear();
  body->ret_nodes.clear();
  body->control_ret_nodes.clear();
  const FunctionDef* fdef =
      library != nullptr ? library->Find(call.name()) : nullptr;
  if (fdef == nullptr) {
    return errors::NotFound("No function named '", call.name(),
                            "' in the graph's function library");
  }
  InstantiationResult instance;
  MF_RETURN_IF_ERROR(
      InstantiateFunction(*fdef, AttrSlice(&call.attr()), *library, &instance));
  *instance.body.mutable_versions() = versions;
  auto graph = std::make_unique<Graph>(library->default_registry());
  graph->set_flib_def(library);
  Status imported = ConvertGraphDefToGraph(GraphConstructorOptions(),
                                           instance.body, graph.get());
  if (!imported.ok()) {
    return Status(imported.code(), absl::StrCat("In function '", call.name(),
                                                "': ", imported.message()));
  }
  body->arg_nodes.assign(instance.arg_types.size(), nullptr);
  body->ret_nodes.assign(instance.ret_types.size(), nullptr);
  for (Node* n : graph->nodes()) {
    const bool arg = n->IsOp("_Arg");
    if (!arg && !n->IsOp("_Retval")) continue;
    int64_t index = -1;
    MF_RETURN_IF_ERROR(GetNodeAttr(AttrSlice(n->def()), "index", &index));
    (arg ? body->arg_nodes : body->ret_nodes)[index] = n;
  }
  for (const std::string& name : instance.control_ret_nodes) {
    body->control_ret_nodes.push_back(graph->FindNodeByName(name));
  }
  body->arg_types = std::move(instance.arg_types);
  body->ret_types = std::move(instance.ret_types);
  body->graph = std::move(graph);
  return OkStatus();
}

PartialTensorShape RelaxShape(const PartialTensorShape& a,
                              const PartialTensorShape& b) {
  if (a.unknown_rank() || b.unknown_rank() || a.dims() != b.dims()) {
    return PartialTensorShape();
  }
  std::vector<int64_t> dims(a.dims());
  for (int d = 0; d < a.dims(); ++d) {
    dims[d] = a.dim_size(d) == b.dim_size(d) ? a.dim_size(d) : -1;
  }
  return PartialTensorShape(dims);
}

}  // namespace minflow
