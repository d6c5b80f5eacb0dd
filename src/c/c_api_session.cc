// The C API's sessions: options, creation from an MF_Graph or a SavedModel,
// runs.
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "minflow/c/c_api.h"
#include "minflow/config.pb.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "minflow/saved_model/loader.h"
#include "src/c/c_api_internal.h"

namespace minflow {
namespace c_api {

Status OutputName(const char* function, const MF_Graph& g,
                  const MF_Output& output, const char* what, int i,
                  std::string* name) {
  const Node* node = ToNode(output.oper);
  if (!IsNodeOf(g.graph, node)) {
    return errors::InvalidArgument(
        function, ": ", what, "[", i, "].oper is ",
        node == nullptr ? "NULL" : "an operation of another graph");
  }
  if (output.index < 0 || output.index >= node->num_outputs()) {
    return errors::OutOfRange(function, ": ", what, "[", i, "] names output ",
                              output.index, " of '", node->name(), "' (op ",
                              node->type_string(), "), which has ",
                              node->num_outputs(), " outputs");
  }
  *name = absl::StrCat(node->name(), ":", output.index);
  return OkStatus();
}

namespace {

// Checks the arrays handed to MF_SessionRun.
Status CheckRunArrays(const void* inputs, const void* input_values, int ninputs,
                      const void* outputs, const void* output_values,
                      int noutputs, const void* targets, int ntargets) {
  const struct {
    const char* name;
    const void* array;
    int count;
  } arrays[] = {{"inputs", inputs, ninputs},
                {"input_values", input_values, ninputs},
                {"outputs", outputs, noutputs},
                {"output_values", output_values, noutputs},
                {"target_opers", targets, ntargets}};
  for (const auto& a : arrays) {
    if (a.count < 0) {
      return errors::InvalidArgument("MF_SessionRun: the count for ", a.name,
                                     " must be >= 0, but got ", a.count);
    }
    if (a.array == nullptr && a.count > 0) {
      return NullArgument("MF_SessionRun", a.name);
    }
  }
  return OkStatus();
}

Status Run(MF_Session* session, const MF_Buffer* run_options,
           const MF_Output* inputs, MF_Tensor* const* input_values, int ninputs,
           const MF_Output* outputs, MF_Tensor** output_values, int noutputs,
           const MF_Operation* const* targets, int ntargets,
           MF_Buffer* run_metadata) {
  if (session == nullptr) return NullArgument("MF_SessionRun", "session");
  MF_RETURN_IF_ERROR(CheckRunArrays(inputs, input_values, ninputs, outputs,
                                    output_values, noutputs, targets,
                                    ntargets));
  RunOptions options;
  if (run_options != nullptr &&
      (run_options->length > static_cast<size_t>(INT32_MAX) ||
       (run_options->data == nullptr && run_options->length > 0) ||
       !options.ParseFromArray(run_options->data,
                               static_cast<int>(run_options->length)))) {
    return errors::InvalidArgument(
        "MF_SessionRun: run_options is not a serialized RunOptions");
  }
  if (run_metadata != nullptr && run_metadata->data != nullptr) {
    return errors::InvalidArgument(
        "MF_SessionRun: run_metadata must be an empty buffer");
  }
  std::vector<std::pair<std::string, Tensor>> feeds(ninputs);
  std::vector<std::string> fetches(noutputs);
  std::vector<std::string> target_names(ntargets);
  {
    const MF_Graph& g = *session->graph;
    absl::ReaderMutexLock lock(&session->graph->mu);
    for (int i = 0; i < ninputs; ++i) {
      MF_RETURN_IF_ERROR(OutputName("MF_SessionRun", g, inputs[i], "inputs", i,
                                    &feeds[i].first));
      if (input_values[i] == nullptr) {
        return errors::InvalidArgument("MF_SessionRun: input_values[", i,
                                       "] (for ", feeds[i].first, ") is NULL");
      }
      feeds[i].second = input_values[i]->tensor;
    }
    for (int i = 0; i < noutputs; ++i) {
      MF_RETURN_IF_ERROR(OutputName("MF_SessionRun", g, outputs[i], "outputs",
                                    i, &fetches[i]));
    }
    for (int i = 0; i < ntargets; ++i) {
      const Node* node = ToNode(targets[i]);
      if (!IsNodeOf(g.graph, node)) {
        return errors::InvalidArgument(
            "MF_SessionRun: target_opers[", i, "] is ",
            node == nullptr ? "NULL" : "an operation of another graph");
      }
      target_names[i] = node->name();
    }
  }
  std::vector<Tensor> values;
  RunMetadata metadata;
  MF_RETURN_IF_ERROR(session->session->Run(options, feeds, fetches,
                                           target_names, &values, &metadata));
  if (values.size() != static_cast<size_t>(noutputs)) {
    return errors::Internal("MF_SessionRun: the session returned ",
                            values.size(), " tensors for ", noutputs,
                            " outputs");
  }
  if (run_metadata != nullptr) {
    MF_RETURN_IF_ERROR(
        MessageToBuffer("MF_SessionRun", metadata, run_metadata));
  }
  for (int i = 0; i < noutputs; ++i) {
    output_values[i] = new MF_Tensor{std::move(values[i])};
  }
  return OkStatus();
}

// Drops the session's hold on its graph; deletes the graph when it was
// waiting for that.
void ReleaseGraph(MF_Graph* graph) {
  bool delete_graph = false;
  {
    absl::MutexLock lock(&graph->mu);
    delete_graph = --graph->num_sessions == 0 && graph->delete_requested;
  }
  if (delete_graph) delete graph;
}

}  // namespace
}  // namespace c_api
}  // namespace minflow

using minflow::Status;
namespace c_api = minflow::c_api;
namespace errors = minflow::errors;

extern "C" {

MF_SessionOptions* MF_NewSessionOptions(void) { return new MF_SessionOptions; }

void MF_DeleteSessionOptions(MF_SessionOptions* opts) { delete opts; }

void MF_SetConfig(MF_SessionOptions* options, const void* proto,
                  size_t proto_len, MF_Status* status) {
  Status s;
  minflow::ConfigProto config;
  if (options == nullptr) {
    s = c_api::NullArgument("MF_SetConfig", "options");
  } else if (proto == nullptr && proto_len > 0) {
    s = c_api::NullArgument("MF_SetConfig", "proto");
  } else if (proto_len > static_cast<size_t>(INT32_MAX) ||
             !config.ParseFromArray(proto, static_cast<int>(proto_len))) {
    s = errors::InvalidArgument(
        "MF_SetConfig: the bytes are not a serialized ConfigProto");
  } else {
    options->options.config = std::move(config);
  }
  c_api::Set(status, s);
}

void MF_SetNumThreads(MF_SessionOptions* options, int intra_op_threads,
                      int inter_op_threads, MF_Status* status) {
  Status s;
  if (options == nullptr) {
    s = c_api::NullArgument("MF_SetNumThreads", "options");
  } else if (intra_op_threads < 0 || inter_op_threads < 0) {
    s = errors::InvalidArgument(
        "MF_SetNumThreads: thread counts must be >= 0 (0: one per core), "
        "but got intra_op_threads ",
        intra_op_threads, " and inter_op_threads ", inter_op_threads);
  } else {
    options->options.config.set_intra_op_parallelism_threads(intra_op_threads);
    options->options.config.set_inter_op_parallelism_threads(inter_op_threads);
  }
  c_api::Set(status, s);
}

MF_Session* MF_NewSession(MF_Graph* graph, const MF_SessionOptions* opts,
                          MF_Status* status) {
  if (graph == nullptr) {
    c_api::Set(status, c_api::NullArgument("MF_NewSession", "graph"));
    return nullptr;
  }
  minflow::GraphDef def;
  {
    absl::ReaderMutexLock lock(&graph->mu);
    graph->graph.ToGraphDef(&def);
  }
  const minflow::SessionOptions options =
      opts == nullptr ? minflow::SessionOptions() : opts->options;
  minflow::StatusOr<std::unique_ptr<minflow::Session>> session =
      minflow::Session::Create(def, options);
  if (!session.ok()) {
    c_api::Set(status, session.status());
    return nullptr;
  }
  {
    absl::MutexLock lock(&graph->mu);
    ++graph->num_sessions;
  }
  c_api::SetOk(status);
  return new MF_Session{*std::move(session), graph};
}

MF_Session* MF_LoadSessionFromSavedModel(
    const MF_SessionOptions* opts, const MF_Buffer* run_options,
    const char* export_dir, const char* const* tags, int tags_len,
    MF_Graph* graph, MF_Buffer* meta_graph_def, MF_Status* status) {
  constexpr char kFunction[] = "MF_LoadSessionFromSavedModel";
  Status s;
  if (graph == nullptr || export_dir == nullptr ||
      (tags == nullptr && tags_len > 0)) {
    s = c_api::NullArgument(kFunction, graph == nullptr        ? "graph"
                                       : export_dir == nullptr ? "export_dir"
                                                               : "tags");
  } else if (tags_len < 0) {
    s = errors::InvalidArgument(kFunction, ": tags_len must be >= 0, but got ",
                                tags_len);
  } else if (meta_graph_def != nullptr && meta_graph_def->data != nullptr) {
    s = errors::InvalidArgument(kFunction,
                                ": meta_graph_def must be an empty buffer");
  }
  std::unordered_set<std::string> tag_set;
  for (int i = 0; s.ok() && i < tags_len; ++i) {
    if (tags[i] == nullptr) {
      s = errors::InvalidArgument(kFunction, ": tags[", i, "] is NULL");
    } else {
      tag_set.insert(tags[i]);
    }
  }
  minflow::RunOptions options;
  if (s.ok() && run_options != nullptr &&
      (run_options->length > static_cast<size_t>(INT32_MAX) ||
       (run_options->data == nullptr && run_options->length > 0) ||
       !options.ParseFromArray(run_options->data,
                               static_cast<int>(run_options->length)))) {
    s = errors::InvalidArgument(kFunction,
                                ": run_options is not a serialized RunOptions");
  }
  if (s.ok()) {
    absl::ReaderMutexLock lock(&graph->mu);
    if (graph->graph.num_nodes() != 0) {
      s = errors::InvalidArgument(kFunction,
                                  ": graph must be empty, but it has ",
                                  graph->graph.num_nodes(), " operations");
    }
  }
  minflow::SavedModelBundle bundle;
  if (s.ok()) {
    s = minflow::LoadSavedModel(
        opts == nullptr ? minflow::SessionOptions() : opts->options, options,
        export_dir, tag_set, &bundle);
  }
  if (s.ok()) {
    absl::MutexLock lock(&graph->mu);
    std::vector<minflow::Node*> added;
    s = c_api::ImportAndRefine(graph, minflow::GraphConstructorOptions(),
                               bundle.meta_graph_def.graph_def(), &added);
    if (s.ok() && meta_graph_def != nullptr) {
      s = c_api::MessageToBuffer(kFunction, bundle.meta_graph_def,
                                 meta_graph_def);
      if (!s.ok()) {
        for (auto it = added.rbegin(); it != added.rend(); ++it) {
          graph->graph.RemoveNode(*it);
        }
      }
    }
    if (s.ok()) ++graph->num_sessions;
  }
  if (!s.ok()) {
    c_api::Set(status, s);
    return nullptr;
  }
  c_api::SetOk(status);
  return new MF_Session{std::move(bundle.session), graph};
}

void MF_CloseSession(MF_Session* session, MF_Status* status) {
  if (session == nullptr) {
    c_api::Set(status, c_api::NullArgument("MF_CloseSession", "session"));
    return;
  }
  c_api::Set(status, session->session->Close());
}

void MF_DeleteSession(MF_Session* session, MF_Status* status) {
  if (session == nullptr) {
    c_api::SetOk(status);
    return;
  }
  MF_Graph* graph = session->graph;
  delete session;
  c_api::ReleaseGraph(graph);
  c_api::SetOk(status);
}

void MF_SessionRun(MF_Session* session, const MF_Buffer* run_options,
                   const MF_Output* inputs, MF_Tensor* const* input_values,
                   int ninputs, const MF_Output* outputs,
                   MF_Tensor** output_values, int noutputs,
                   const MF_Operation* const* target_opers, int ntargets,
                   MF_Buffer* run_metadata, MF_Status* status) {
  if (output_values != nullptr) {
    for (int i = 0; i < noutputs; ++i) output_values[i] = nullptr;
  }
  c_api::Set(status, c_api::Run(session, run_options, inputs, input_values,
                                ninputs, outputs, output_values, noutputs,
                                target_opers, ntargets, run_metadata));
}

}  // extern "C"
