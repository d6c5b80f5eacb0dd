// Loads a TensorFlow SavedModel directory into a Session, as TensorFlow's
// C++ loader (tensorflow/cc/saved_model/loader.h) does: the MetaGraph with
// the requested tags, its variables restored and its init op run.
#pragma once

#include <memory>
#include <string>
#include <unordered_set>

#include "minflow/core/status.h"
#include "minflow/meta_graph.pb.h"
#include "minflow/runtime/session.h"

namespace minflow {

class RunOptions;
class SavedModel;

// What LoadSavedModel made: a session ready to run the MetaGraph's
// signatures, and the MetaGraphDef it came from. Owns both; the session is
// thread-safe as any Session is.
struct SavedModelBundle {
  std::unique_ptr<Session> session;
  MetaGraphDef meta_graph_def;

  // The MetaGraph's signatures by key ("serving_default", ...); see
  // saved_model/signature.h for their tensors.
  const google::protobuf::Map<std::string, SignatureDef>& GetSignatures()
      const {
    return meta_graph_def.signature_def();
  }
};

// Loads the MetaGraph of `export_dir` whose tags are exactly `tags` (as a
// set) into a new session made with `session_options`:
//   1. reads saved_model.pb, or else saved_model.pbtxt;
//   2. creates the session from the MetaGraph's graph (with its functions);
//   3. when variables/variables.index exists, runs the SaverDef's restore op
//      with its filename tensor fed with "<export_dir>/variables/variables";
//   4. runs the init op (the "__saved_model_init_op" signature, or the
//      "saved_model_main_op" or "legacy_init_op" collection), if any.
// Steps 3 and 4 feed each asset's tensor with its path under
// "<export_dir>/assets/" and run with `run_options`.
// NotFound when export_dir or both model files are missing, or no MetaGraph
// has these tags (the message lists the tag sets there are);
// InvalidArgument for a file that does not parse (truncated, corrupt, too
// deeply nested) or a MetaGraph that is inconsistent; errors of steps 2-4
// are the session's, naming the node. Every message names the directory and
// the file. `*bundle` is only changed on success.
Status LoadSavedModel(const SessionOptions& session_options,
                      const RunOptions& run_options,
                      const std::string& export_dir,
                      const std::unordered_set<std::string>& tags,
                      SavedModelBundle* bundle);

// Reads and parses export_dir's saved_model.pb (or .pbtxt): step 1 above.
Status ReadSavedModel(const std::string& export_dir, SavedModel* saved_model);

// Whether `export_dir` holds a saved_model.pb or saved_model.pbtxt. Reads
// no file.
bool MaybeSavedModelDirectory(const std::string& export_dir);

}  // namespace minflow
