#include "minflow/graph/graph_to_function.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "minflow/framework/function.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/graph.h"

namespace minflow {
namespace {

// Arg and output names: node names with the characters arg names do not
// read well with made '_', then made unique.
std::string UniqueArgName(absl::string_view node_name,
                          absl::flat_hash_set<std::string>* used) {
  std::string base(node_name);
  for (char& c : base) {
    if (c == '/' || c == '.' || c == '-' || c == '>') c = '_';
  }
  std::string name = base;
  for (int i = 1; used->contains(name); ++i) name = absl::StrCat(base, "_", i);
  used->insert(name);
  return name;
}

// The `_Arg` or `_Retval` nodes ordered by their `index` attr.
Status NodesByIndex(const Graph& graph, absl::string_view op,
                    const std::string& fn, std::vector<const Node*>* nodes) {
  for (const Node* node : graph.nodes()) {
    if (!node->IsOp(op)) continue;
    int64_t index = -1;
    MF_RETURN_IF_ERROR(GetNodeAttr(node->def(), "index", &index));
    if (index < 0 || index >= graph.num_node_ids()) {
      return errors::InvalidArgument("Function '", fn, "': ", op, " node '",
                                     node->name(), "' has index ", index);
    }
    if (static_cast<size_t>(index) >= nodes->size()) {
      nodes->resize(index + 1, nullptr);
    }
    if ((*nodes)[index] != nullptr) {
      return errors::InvalidArgument("Function '", fn, "': ", op, " nodes '",
                                     (*nodes)[index]->name(), "' and '",
                                     node->name(), "' both have index ", index);
    }
    (*nodes)[index] = node;
  }
  for (size_t i = 0; i < nodes->size(); ++i) {
    if ((*nodes)[i] == nullptr) {
      return errors::InvalidArgument("Function '", fn, "' has no ", op,
                                     " node with index ", i);
    }
  }
  return OkStatus();
}

}  // namespace

StatusOr<std::string> FunctionOutputRef(const Node& node, int port) {
  NameRangeMap outputs;
  MF_RETURN_IF_ERROR(NameRangesForNode(AttrSlice(node.def()), node.op_def(),
                                       nullptr, &outputs));
  for (const auto& [arg, range] : outputs) {
    if (port >= range.first && port < range.second) {
      return absl::StrCat(node.name(), ":", arg, ":", port - range.first);
    }
  }
  return errors::Internal("output ", port, " of node '", node.name(), "' (op ",
                          node.type_string(),
                          ") is in none of its output args");
}

Status GraphToFunctionDef(const Graph& graph, const std::string& name,
                          FunctionDef* fdef) {
  std::vector<const Node*> args, rets;
  MF_RETURN_IF_ERROR(NodesByIndex(graph, "_Arg", name, &args));
  MF_RETURN_IF_ERROR(NodesByIndex(graph, "_Retval", name, &rets));
  fdef->Clear();
  OpDef* sig = fdef->mutable_signature();
  sig->set_name(name);
  absl::flat_hash_set<std::string> used;
  for (const Node* node : graph.nodes()) {
    if (!node->IsOp("_Arg") && !node->IsOp("_Retval"))
      used.insert(node->name());
  }
  // Arg node id -> input arg name.
  std::vector<std::string> arg_name(graph.num_node_ids());
  for (const Node* arg : args) {
    DataType type;
    MF_RETURN_IF_ERROR(GetNodeAttr(arg->def(), "T", &type));
    OpDef::ArgDef* def = sig->add_input_arg();
    def->set_name(UniqueArgName(arg->name(), &used));
    def->set_type(type);
    arg_name[arg->id()] = def->name();
  }
  auto ref = [&](const Edge* e) -> StatusOr<std::string> {
    if (e->src->IsOp("_Arg")) return arg_name[e->src->id()];
    if (e->src->IsOp("_Retval")) {
      return errors::InvalidArgument("Function '", name, "': node '",
                                     e->dst->name(), "' reads _Retval '",
                                     e->src->name(), "'");
    }
    return FunctionOutputRef(*e->src, e->src_output);
  };
  for (const Node* node : graph.nodes()) {
    if (node->IsOp("_Arg") || node->IsOp("_Retval")) continue;
    NodeDef* def = fdef->add_node_def();
    *def = node->def();
    def->clear_input();
    std::vector<const Edge*> data(node->num_inputs(), nullptr);
    std::vector<const Node*> controls;
    for (const Edge* e : node->in_edges()) {
      if (!e->IsControlEdge()) {
        data[e->dst_input] = e;
      } else if (!e->src->IsOp("_Arg")) {
        controls.push_back(e->src);
      }
    }
    for (const Edge* e : data) {
      if (e == nullptr) {
        return errors::Internal("Function '", name, "': node '", node->name(),
                                "' has an input without an edge");
      }
      MF_ASSIGN_OR_RETURN(std::string input, ref(e));
      def->add_input(std::move(input));
    }
    for (const Node* src : controls) {
      def->add_input(absl::StrCat("^", src->name()));
    }
  }
  absl::flat_hash_set<std::string> ret_names;
  for (const Node* ret : rets) {
    const Edge* in = nullptr;
    MF_RETURN_IF_ERROR(ret->input_edge(0, &in));
    DataType type;
    MF_RETURN_IF_ERROR(GetNodeAttr(ret->def(), "T", &type));
    OpDef::ArgDef* def = sig->add_output_arg();
    def->set_name(UniqueArgName(ret->name(), &ret_names));
    def->set_type(type);
    MF_ASSIGN_OR_RETURN((*fdef->mutable_ret())[def->name()], ref(in));
  }
  return ValidateFunctionDef(*fdef);
}

}  // namespace minflow
