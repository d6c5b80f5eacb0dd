// Freezes one signature of a SavedModel into a self-contained GraphDef: the
// variables it reads become Consts holding their restored values, and its
// function calls are inlined, as TensorFlow's convert_variables_to_constants
// does for TF 2 models (`minflow freeze`).
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "minflow/core/status.h"
#include "minflow/graph.pb.h"

namespace minflow {

// A signature's input or output key and the tensor it names in the frozen
// graph ("node:port").
struct FrozenTensor {
  std::string key;
  std::string tensor_name;
};

// What FreezeSavedModel made.
struct FrozenSignature {
  // Needs no variables, checkpoint or function library: every call is
  // inlined and If, Case and While are lowered to TF1 control flow.
  GraphDef graph_def;
  // Sorted by key, as the SignatureDef has them. Inputs keep their
  // Placeholders' names. An output keeps its tensor's name, except that an
  // output of a function call (gone once the call is inlined) becomes an
  // Identity named after its key.
  std::vector<FrozenTensor> inputs;
  std::vector<FrozenTensor> outputs;
  // How many variables became Consts.
  int num_variables = 0;
};

// Loads export_dir's MetaGraph of `tags` (variables restored and the init
// op run, as LoadSavedModel does), keeps what `signature_key`'s outputs
// need, inlines and lowers its functions, and replaces each variable read
// (ReadVariableOp, ResourceGather, a TF1 variable's value) by a Const of the
// variable's value. A read inside a loop or a branch keeps a control edge
// from the handle's frame, so the Const runs in the read's frame.
// LoadSavedModel's errors; NotFound listing the keys for an unknown
// signature; Unimplemented for an input that is not a Placeholder's output
// and for a variable the outputs change (an assign on their path) or that
// a function creates; every message names the node and op.
Status FreezeSavedModel(const std::string& export_dir,
                        const std::unordered_set<std::string>& tags,
                        const std::string& signature_key,
                        FrozenSignature* frozen);

}  // namespace minflow
