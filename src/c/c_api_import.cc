// The C API's GraphDef import: options (prefix, default device, TensorFlow's
// input mappings and return elements) and results.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "minflow/c/c_api.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_constructor.h"
#include "src/c/c_api_internal.h"

namespace minflow {
namespace c_api {
namespace {

// Imports `graph_def` into `graph` with `options` (may be null); fills
// `results` (may be null) with the return elements and missing keys.
Status Import(MF_Graph* graph, const MF_Buffer* graph_def,
              const MF_ImportGraphDefOptions* options,
              MF_ImportGraphDefResults* results) {
  const char* fn = results != nullptr ? "MF_GraphImportGraphDefWithResults"
                                      : "MF_GraphImportGraphDef";
  if (graph == nullptr || graph_def == nullptr ||
      (graph_def->data == nullptr && graph_def->length != 0)) {
    return NullArgument(fn, graph == nullptr ? "graph" : "graph_def");
  }
  GraphDef def;
  MF_RETURN_IF_ERROR(
      ParseGraphDef(absl::string_view(static_cast<const char*>(graph_def->data),
                                      graph_def->length),
                    &def));
  const MF_ImportGraphDefOptions defaults;
  const MF_ImportGraphDefOptions& opts =
      options != nullptr ? *options : defaults;
  GraphConstructorOptions import_options;
  import_options.prefix = opts.prefix;
  if (!opts.default_device.empty()) {
    for (NodeDef& node : *def.mutable_node()) {
      if (node.device().empty()) node.set_device(opts.default_device);
    }
  }
  // Return elements must name nodes of the GraphDef (TensorFlow's check),
  // before anything is imported.
  absl::flat_hash_map<absl::string_view, int> in_def;  // name -> index
  for (int i = 0; i < def.node_size(); ++i) in_def[def.node(i).name()] = i;
  for (const TensorId& id : opts.return_outputs) {
    if (!in_def.contains(id.node)) {
      return errors::InvalidArgument("Requested return tensor '", id.ToString(),
                                     "' not found in graph def");
    }
  }
  for (const std::string& name : opts.return_operations) {
    if (!in_def.contains(name)) {
      return errors::InvalidArgument("Requested return node '", name,
                                     "' not found in graph def");
    }
  }
  std::vector<TensorId> missing;
  import_options.missing_unused_input_map_keys = &missing;

  absl::MutexLock lock(&graph->mu);
  for (const auto& [key, dst] : opts.input_map) {
    const Node* node = ToNode(dst.oper);
    if (node == nullptr || !IsNodeOf(graph->graph, node)) {
      return errors::InvalidArgument(
          fn, ": the input mapping of '", key.ToString(),
          "' names an operation that is NULL or of another graph");
    }
    if (dst.index < 0 || dst.index >= node->num_outputs()) {
      return errors::OutOfRange(fn, ": the input mapping of '", key.ToString(),
                                "' names output ", dst.index, " of '",
                                node->name(), "', which has ",
                                node->num_outputs(), " outputs");
    }
    import_options.input_map.emplace_back(key,
                                          TensorId{node->name(), dst.index});
  }
  const VersionDef versions = graph->graph.versions();
  const auto library = graph->graph.shared_flib_def();
  std::vector<Node*> added;
  MF_RETURN_IF_ERROR(ImportAndRefine(graph, import_options, def, &added));
  if (results == nullptr) return OkStatus();

  absl::flat_hash_map<std::string, MF_Output> mapped;
  for (const auto& [key, dst] : opts.input_map) mapped[key.ToString()] = dst;
  for (const TensorId& id : opts.return_outputs) {
    auto m = mapped.find(id.ToString());
    if (m != mapped.end()) {  // TensorFlow returns the mapped tensor
      results->return_outputs.push_back(m->second);
      continue;
    }
    Node* node = added.at(in_def.at(id.node));
    if (id.port < 0 || id.port >= node->num_outputs()) {
      // Rolled back like a failed import: the caller sees no change.
      graph->refiner.reset();
      for (auto it = added.rbegin(); it != added.rend(); ++it) {
        graph->graph.RemoveNode(*it);
      }
      graph->graph.set_versions(versions);
      graph->graph.set_flib_def(library);
      return errors::InvalidArgument("Invalid return output ", id.port,
                                     " of node '", id.node, "', which has ",
                                     node->num_outputs(), " output(s)");
    }
    results->return_outputs.push_back(MF_Output{ToOperation(node), id.port});
  }
  for (const std::string& name : opts.return_operations) {
    results->return_operations.push_back(
        ToOperation(added.at(in_def.at(name))));
  }
  for (const TensorId& id : missing) {
    results->missing_names.push_back(id.node);
    results->missing_indexes.push_back(id.port);
  }
  for (const std::string& name : results->missing_names) {
    results->missing_name_ptrs.push_back(name.c_str());
  }
  return OkStatus();
}

}  // namespace
}  // namespace c_api
}  // namespace minflow

namespace c_api = minflow::c_api;

extern "C" {

MF_ImportGraphDefOptions* MF_NewImportGraphDefOptions(void) {
  return new MF_ImportGraphDefOptions;
}

void MF_DeleteImportGraphDefOptions(MF_ImportGraphDefOptions* opts) {
  delete opts;
}

void MF_ImportGraphDefOptionsSetPrefix(MF_ImportGraphDefOptions* opts,
                                       const char* prefix) {
  if (opts != nullptr) opts->prefix = prefix == nullptr ? "" : prefix;
}

void MF_ImportGraphDefOptionsSetDefaultDevice(MF_ImportGraphDefOptions* opts,
                                              const char* device) {
  if (opts != nullptr) opts->default_device = device == nullptr ? "" : device;
}

void MF_ImportGraphDefOptionsAddInputMapping(MF_ImportGraphDefOptions* opts,
                                             const char* src_name,
                                             int src_index, MF_Output dst) {
  if (opts == nullptr || src_name == nullptr || src_index < 0) return;
  for (auto& [key, value] : opts->input_map) {
    if (key.node == src_name && key.port == src_index) {
      value = dst;  // the last mapping of a key wins
      return;
    }
  }
  opts->input_map.emplace_back(minflow::TensorId{src_name, src_index}, dst);
}

void MF_ImportGraphDefOptionsAddReturnOutput(MF_ImportGraphDefOptions* opts,
                                             const char* oper_name, int index) {
  if (opts == nullptr || oper_name == nullptr) return;
  opts->return_outputs.push_back(minflow::TensorId{oper_name, index});
}

int MF_ImportGraphDefOptionsNumReturnOutputs(
    const MF_ImportGraphDefOptions* opts) {
  return opts == nullptr ? -1 : static_cast<int>(opts->return_outputs.size());
}

void MF_ImportGraphDefOptionsAddReturnOperation(MF_ImportGraphDefOptions* opts,
                                                const char* oper_name) {
  if (opts == nullptr || oper_name == nullptr) return;
  opts->return_operations.push_back(oper_name);
}

int MF_ImportGraphDefOptionsNumReturnOperations(
    const MF_ImportGraphDefOptions* opts) {
  return opts == nullptr ? -1
                         : static_cast<int>(opts->return_operations.size());
}

void MF_GraphImportGraphDef(MF_Graph* graph, const MF_Buffer* graph_def,
                            const MF_ImportGraphDefOptions* options,
                            MF_Status* status) {
  c_api::Set(status, c_api::Import(graph, graph_def, options, nullptr));
}

MF_ImportGraphDefResults* MF_GraphImportGraphDefWithResults(
    MF_Graph* graph, const MF_Buffer* graph_def,
    const MF_ImportGraphDefOptions* options, MF_Status* status) {
  auto results = std::make_unique<MF_ImportGraphDefResults>();
  const minflow::Status s =
      c_api::Import(graph, graph_def, options, results.get());
  c_api::Set(status, s);
  return s.ok() ? results.release() : nullptr;
}

void MF_ImportGraphDefResultsReturnOutputs(MF_ImportGraphDefResults* results,
                                           int* num_outputs,
                                           MF_Output** outputs) {
  if (results == nullptr || num_outputs == nullptr || outputs == nullptr) {
    return;
  }
  *num_outputs = static_cast<int>(results->return_outputs.size());
  *outputs = results->return_outputs.data();
}

void MF_ImportGraphDefResultsReturnOperations(MF_ImportGraphDefResults* results,
                                              int* num_opers,
                                              MF_Operation*** opers) {
  if (results == nullptr || num_opers == nullptr || opers == nullptr) return;
  *num_opers = static_cast<int>(results->return_operations.size());
  *opers = results->return_operations.data();
}

void MF_ImportGraphDefResultsMissingUnusedInputMappings(
    MF_ImportGraphDefResults* results, int* num_missing_unused_input_mappings,
    const char*** src_names, int** src_indexes) {
  if (results == nullptr || num_missing_unused_input_mappings == nullptr ||
      src_names == nullptr || src_indexes == nullptr) {
    return;
  }
  *num_missing_unused_input_mappings =
      static_cast<int>(results->missing_names.size());
  *src_names = results->missing_name_ptrs.data();
  *src_indexes = results->missing_indexes.data();
}

void MF_DeleteImportGraphDefResults(MF_ImportGraphDefResults* results) {
  delete results;
}

}  // extern "C"
