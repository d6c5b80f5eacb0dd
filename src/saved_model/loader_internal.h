// LoadSavedModel's two halves, for the saved_model layer's own use: freezing
// loads a MetaGraph it has extended with reads of the variables.
#pragma once

#include <string>
#include <unordered_set>

#include "minflow/core/status.h"
#include "minflow/meta_graph.pb.h"
#include "minflow/saved_model/loader.h"

namespace minflow {
namespace internal {

// Step 1 of LoadSavedModel: reads export_dir's saved_model.pb (or .pbtxt)
// and moves the MetaGraph whose tags are `tags` into `*meta_graph`; `*file`
// is the path read, for messages. LoadSavedModel's errors.
Status ReadMetaGraph(const std::string& export_dir,
                     const std::unordered_set<std::string>& tags,
                     MetaGraphDef* meta_graph, std::string* file);

// Steps 2-4 of LoadSavedModel on `meta_graph`, a MetaGraph of export_dir
// (read from `file`) that the caller may have added nodes to.
Status LoadMetaGraph(const SessionOptions& session_options,
                     const RunOptions& run_options,
                     const std::string& export_dir, const std::string& file,
                     MetaGraphDef meta_graph, SavedModelBundle* bundle);

}  // namespace internal
}  // namespace minflow
