// Function libraries: the FunctionDefs a GraphDef's `library` holds. A
// FunctionLibraryDefinition is also an op registry, so a node whose op is a
// function's name resolves to the function's signature, as in TensorFlow;
// InstantiateFunction turns a function and the attrs of one call into a
// body ready to import as a Graph (`_Arg` and `_Retval` nodes at its ends).
// See Note [Functions] in function.cc.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "minflow/core/status.h"
#include "minflow/core/types.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/function.pb.h"
#include "minflow/graph.pb.h"

namespace minflow {

// Immutable once built and shared by every Graph imported with it (and their
// clones); thread-safe for reading.
class FunctionLibraryDefinition : public OpRegistryInterface {
 public:
  // `default_registry` resolves every op that is not a function; it must
  // outlive this library.
  explicit FunctionLibraryDefinition(
      const OpRegistryInterface* default_registry);
  ~FunctionLibraryDefinition() override;
  FunctionLibraryDefinition(const FunctionLibraryDefinition&) = delete;
  FunctionLibraryDefinition& operator=(const FunctionLibraryDefinition&) =
      delete;

  // Adds every function and gradient of `library`, then checks each
  // function (ValidateFunctionDef, and that every op its nodes use exists
  // here or in the default registry). Errors name the function and node.
  Status AddLibrary(const FunctionDefLibrary& library);
  // Adds one function after ValidateFunctionDef. The same definition twice
  // is accepted; another one under a name already taken, or the name of a
  // registered op, is InvalidArgument.
  Status AddFunctionDef(const FunctionDef& fdef);

  // nullptr when `name` is not a function of this library.
  const FunctionDef* Find(absl::string_view name) const;
  bool empty() const { return functions_.empty(); }
  int num_functions() const { return static_cast<int>(functions_.size()); }
  // Sorted.
  std::vector<std::string> ListFunctionNames() const;
  // The functions (sorted by name) and gradients, as a GraphDef's library.
  void ToProto(FunctionDefLibrary* library) const;

  const OpRegistryInterface* default_registry() const {
    return default_registry_;
  }
  // The function's signature (with is_function_op set and no shape
  // function: the shape refiner looks into the body instead), else the
  // default registry's op.
  Status LookUp(absl::string_view op_type_name,
                const OpRegistrationData** op_reg_data) const override;

 private:
  struct Entry;
  const OpRegistryInterface* const default_registry_;
  absl::flat_hash_map<std::string, std::unique_ptr<Entry>> functions_;
  std::vector<GradientDef> gradients_;
};

// The structure of `fdef` alone: a signature with a name and valid args;
// node names valid, unique and distinct from the input args'; every input
// naming an input arg or a node ("x", "node:out_arg:index", "^node"); a
// `ret` for every output arg (entries for no output arg are ignored, as
// TensorFlow does: its own graphs have them); `control_ret` naming nodes,
// one per control output. InvalidArgument naming the function (and
// the node) otherwise.
Status ValidateFunctionDef(const FunctionDef& fdef);

// A function instantiated for one call.
struct InstantiationResult {
  DataTypeVector arg_types;  // one per `_Arg`, in index order
  DataTypeVector ret_types;  // one per `_Retval`, in index order
  // The body: `_Arg` i stands for the call's input i, `_Retval` j gives
  // output j; inputs are "node:port" after list expansion. Import it into
  // a Graph that has the library it was instantiated from.
  GraphDef body;
  // Nodes of `body` that must run before the call counts as done (the
  // function's control outputs).
  std::vector<std::string> control_ret_nodes;
};

// Instantiates `fdef` with the call's `attrs` (a call node's attrs, or a
// `func` attr's NameAttrList attrs): resolves the signature's type, list and
// number attrs (defaults from the signature), substitutes every "$attr"
// placeholder in the nodes' attrs, expands list args into one `_Arg` or
// `_Retval` per tensor and rewrites "node:out_arg:index" inputs to
// "node:port". `ops` resolves the nodes' ops (a FunctionLibraryDefinition
// for calls between functions). Errors name the function and the node.
Status InstantiateFunction(const FunctionDef& fdef, AttrSlice attrs,
                           const OpRegistryInterface& ops,
                           InstantiationResult* result);

// "f[T=float]": a function and the attrs of one instantiation, as a key for
// caches and in messages. Attrs are sorted by name.
std::string FunctionInstantiationKey(absl::string_view name, AttrSlice attrs);

}  // namespace minflow
