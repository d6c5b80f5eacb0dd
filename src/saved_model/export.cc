#include "minflow/saved_model/export.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "minflow/core/tensor.h"
#include "minflow/io/tensor_bundle.h"
#include "minflow/saved_model.pb.h"
#include "minflow/saved_model/constants.h"

namespace minflow {
namespace {

namespace fs = std::filesystem;

constexpr char kFilenameTensor[] = "saver_filename";
constexpr char kSavePrefix[] = "save/";

void SetType(NodeDef* node, const std::string& attr, DataType dtype) {
  (*node->mutable_attr())[attr].set_type(dtype);
}

NodeDef* AddNode(GraphDef* graph, const std::string& name,
                 const std::string& op) {
  NodeDef* node = graph->add_node();
  node->set_name(name);
  node->set_op(op);
  return node;
}

// A Const holding a vector of strings.
void AddStringVector(GraphDef* graph, const std::string& name,
                     const std::vector<std::string>& values) {
  NodeDef* node = AddNode(graph, name, "Const");
  SetType(node, "dtype", DT_STRING);
  TensorProto* value = (*node->mutable_attr())["value"].mutable_tensor();
  value->set_dtype(DT_STRING);
  value->mutable_tensor_shape()->add_dim()->set_size(
      static_cast<int64_t>(values.size()));
  for (const std::string& v : values) value->add_string_val(v);
}

void SetTypeList(NodeDef* node, const std::vector<DataType>& dtypes) {
  auto* list = (*node->mutable_attr())["dtypes"].mutable_list();
  for (DataType dtype : dtypes) list->add_type(dtype);
}

// Replaces each variable's Const by a VarHandleOp and a ReadVariableOp of
// the Const's name; `*values` gets the Consts' values by name.
Status MakeVariables(const std::vector<std::string>& names, GraphDef* graph,
                     std::vector<std::pair<std::string, Tensor>>* values) {
  std::unordered_map<std::string, int> index;
  for (int i = 0; i < graph->node_size(); ++i) {
    index.emplace(graph->node(i).name(), i);
  }
  for (const std::string& name : names) {
    const auto it = index.find(name);
    if (it == index.end() || graph->node(it->second).op() != "Const") {
      return errors::InvalidArgument(
          "ExportSavedModel: variable '", name, "' must name a Const node ",
          "of the graph, but ",
          it == index.end()
              ? "there is no such node"
              : absl::StrCat("it is a ", graph->node(it->second).op()));
    }
    if (index.count(name + "/handle") > 0) {
      return errors::InvalidArgument("ExportSavedModel: the graph already has ",
                                     "a node '", name, "/handle'");
    }
    NodeDef* node = graph->mutable_node(it->second);
    Tensor value;
    const auto attr = node->attr().find("value");
    MF_RETURN_IF_ERROR(
        errors::Prefix(attr == node->attr().end()
                           ? errors::InvalidArgument("it has no value attr")
                           : TensorFromProto(attr->second.tensor(), &value),
                       "ExportSavedModel: Const '", name, "': "));
    const DataType dtype = value.dtype();
    const std::string device = node->device();

    NodeDef* handle = AddNode(graph, name + "/handle", "VarHandleOp");
    handle->set_device(device);
    SetType(handle, "dtype", dtype);
    value.shape().AsProto((*handle->mutable_attr())["shape"].mutable_shape());
    (*handle->mutable_attr())["shared_name"].set_s(name);
    (*handle->mutable_attr())["container"].set_s("");

    // AddNode may have moved the nodes: find the Const again.
    node = graph->mutable_node(it->second);
    node->set_op("ReadVariableOp");
    node->clear_attr();
    node->clear_input();
    node->add_input(name + "/handle");
    SetType(node, "dtype", dtype);
    values->emplace_back(name, std::move(value));
  }
  return OkStatus();
}

// The SaverDef's nodes: RestoreV2 then one AssignVariableOp per variable,
// joined by save/restore_all; SaveV2 of the variables' reads, then
// save/Identity of the file name.
void AddSaver(const std::vector<std::pair<std::string, Tensor>>& variables,
              GraphDef* graph, SaverDef* saver) {
  const std::string prefix = kSavePrefix;
  NodeDef* filename = AddNode(graph, kFilenameTensor, "Placeholder");
  SetType(filename, "dtype", DT_STRING);
  (*filename->mutable_attr())["shape"].mutable_shape();

  std::vector<std::string> names;
  std::vector<DataType> dtypes;
  for (const auto& [name, value] : variables) {
    names.push_back(name);
    dtypes.push_back(value.dtype());
  }
  AddStringVector(graph, prefix + "tensor_names", names);
  AddStringVector(graph, prefix + "shape_and_slices",
                  std::vector<std::string>(names.size()));

  NodeDef* restore = AddNode(graph, prefix + "RestoreV2", "RestoreV2");
  for (const char* input : {"tensor_names", "shape_and_slices"}) {
    if (restore->input_size() == 0) restore->add_input(kFilenameTensor);
    restore->add_input(prefix + input);
  }
  SetTypeList(restore, dtypes);
  std::vector<std::string> assigns;
  for (size_t i = 0; i < names.size(); ++i) {
    NodeDef* assign =
        AddNode(graph, absl::StrCat(prefix, "Assign_", i), "AssignVariableOp");
    assign->add_input(names[i] + "/handle");
    assign->add_input(absl::StrCat(prefix, "RestoreV2:", i));
    SetType(assign, "dtype", dtypes[i]);
    assigns.push_back(assign->name());
  }
  NodeDef* restore_all = AddNode(graph, prefix + "restore_all", "NoOp");
  for (const std::string& assign : assigns) {
    restore_all->add_input("^" + assign);
  }

  NodeDef* save = AddNode(graph, prefix + "SaveV2", "SaveV2");
  save->add_input(kFilenameTensor);
  save->add_input(prefix + "tensor_names");
  save->add_input(prefix + "shape_and_slices");
  for (const std::string& name : names) save->add_input(name);
  SetTypeList(save, dtypes);
  NodeDef* identity = AddNode(graph, prefix + "Identity", "Identity");
  identity->add_input(kFilenameTensor);
  identity->add_input("^" + prefix + "SaveV2");
  SetType(identity, "T", DT_STRING);

  saver->set_filename_tensor_name(absl::StrCat(kFilenameTensor, ":0"));
  saver->set_save_tensor_name(prefix + "Identity:0");
  saver->set_restore_op_name(prefix + "restore_all");
  saver->set_version(SaverDef::V2);
}

Status CheckNoClash(const GraphDef& graph) {
  for (const NodeDef& node : graph.node()) {
    if (node.name() == kFilenameTensor ||
        node.name().rfind(kSavePrefix, 0) == 0) {
      return errors::InvalidArgument(
          "ExportSavedModel: node '", node.name(), "' clashes with the ",
          "saver's nodes ('", kFilenameTensor, "', '", kSavePrefix, "*')");
    }
  }
  return OkStatus();
}

Status WriteFile(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    return errors::Internal(
        "ExportSavedModel: cannot write '", path.string(),
        "': ", std::error_code(errno, std::generic_category()).message());
  }
  return OkStatus();
}

}  // namespace

Status ExportSavedModel(const SavedModelExport& model,
                        const std::string& export_dir) {
  std::error_code error;
  if (fs::exists(export_dir, error) && !(fs::is_directory(export_dir, error) &&
                                         fs::is_empty(export_dir, error))) {
    return errors::AlreadyExists("ExportSavedModel: '", export_dir,
                                 "' exists and is not an empty directory");
  }
  MetaGraphDef meta_graph;
  GraphDef* graph = meta_graph.mutable_graph_def();
  *graph = model.graph;
  std::vector<std::pair<std::string, Tensor>> variables;
  if (!model.variables.empty()) {
    MF_RETURN_IF_ERROR(CheckNoClash(*graph));
    MF_RETURN_IF_ERROR(MakeVariables(model.variables, graph, &variables));
    AddSaver(variables, graph, meta_graph.mutable_saver_def());
  }
  for (const std::string& tag : model.tags) {
    meta_graph.mutable_meta_info_def()->add_tags(tag);
  }
  for (const auto& [key, signature] : model.signatures) {
    (*meta_graph.mutable_signature_def())[key] = signature;
  }

  const fs::path dir(export_dir);
  fs::create_directories(dir / kSavedModelVariablesDirectory, error);
  if (error) {
    return errors::Internal("ExportSavedModel: cannot create '",
                            (dir / kSavedModelVariablesDirectory).string(),
                            "': ", error.message());
  }
  if (!variables.empty()) {
    std::sort(variables.begin(), variables.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    BundleWriter writer(
        (dir / kSavedModelVariablesDirectory / kSavedModelVariablesFilename)
            .string());
    for (const auto& [name, value] : variables) {
      MF_RETURN_IF_ERROR(writer.Add(name, value));
    }
    MF_RETURN_IF_ERROR(writer.Finish());
  }
  SavedModel saved_model;
  saved_model.set_saved_model_schema_version(1);
  *saved_model.add_meta_graphs() = std::move(meta_graph);
  std::string bytes;
  if (!saved_model.SerializeToString(&bytes)) {
    return errors::InvalidArgument(
        "ExportSavedModel: the SavedModel does not serialize (over 2 GiB?)");
  }
  return WriteFile(dir / kSavedModelFilenamePb, bytes);
}

}  // namespace minflow
