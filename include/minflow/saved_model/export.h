// Writes a SavedModel from a frozen GraphDef, turning chosen Consts into
// resource variables: the directory TensorFlow would load, and minflow's
// LoadSavedModel too. For tests, benchmarks and converting frozen graphs.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "minflow/core/status.h"
#include "minflow/graph.pb.h"
#include "minflow/meta_graph.pb.h"

namespace minflow {

struct SavedModelExport {
  // The graph to save; its Consts named in `variables` are saved as
  // variables, the rest as written.
  GraphDef graph;
  // Names of Const nodes of `graph`. Each becomes a VarHandleOp
  // ("<name>/handle", shared_name "<name>") read by a ReadVariableOp that
  // keeps the Const's name, so its consumers are unchanged; its value goes
  // to the checkpoint under "<name>".
  std::vector<std::string> variables;
  // The MetaGraph's signatures by key (e.g. "serving_default").
  std::map<std::string, SignatureDef> signatures;
  std::set<std::string> tags = {"serve"};
};

// Writes `model` to `export_dir` (which must not exist, or be an empty
// directory): saved_model.pb holding one MetaGraph with a SaverDef (a
// "saver_filename" placeholder, restore op "save/restore_all": RestoreV2
// then one AssignVariableOp per variable, save tensor "save/Identity:0":
// SaveV2), and variables/variables.{index,data-00000-of-00001}.
// InvalidArgument naming the node for a variable that is no Const of the
// graph or a Const whose value does not decode; AlreadyExists for a
// non-empty export_dir; the OS's reason when a file cannot be written.
Status ExportSavedModel(const SavedModelExport& model,
                        const std::string& export_dir);

}  // namespace minflow
