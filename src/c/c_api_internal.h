// The structs behind the C API's opaque handles, and helpers shared by its
// .cc files. Not installed; nothing outside src/c/ includes it.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/message_lite.h"
#include "minflow/c/c_api.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/shape_refiner.h"
#include "minflow/graph/tensor_id.h"
#include "minflow/node_def.pb.h"
#include "minflow/runtime/session.h"

struct MF_Status {
  minflow::Status status;
  // MF_Message's storage: absl::Status has no NUL-terminated message.
  std::string message;
};

struct MF_Tensor {
  minflow::Tensor tensor;
};

struct MF_ImportGraphDefOptions {
  std::string prefix;
  std::string default_device;
  // Keys as the GraphDef names them; values are operations of the graph
  // imported into, checked by the import.
  std::vector<std::pair<minflow::TensorId, MF_Output>> input_map;
  std::vector<minflow::TensorId> return_outputs;
  std::vector<std::string> return_operations;
};

struct MF_ImportGraphDefResults {
  std::vector<MF_Output> return_outputs;
  std::vector<MF_Operation*> return_operations;
  std::vector<std::string> missing_names;
  std::vector<const char*> missing_name_ptrs;  // into missing_names
  std::vector<int> missing_indexes;
};

struct MF_SessionOptions {
  minflow::SessionOptions options;
};

// Note [C API graphs]
// An MF_Graph owns a minflow::Graph; an MF_Operation* is a Node* of it,
// cast, so it stays valid as long as the graph (nodes are only removed when
// an import or MF_FinishOperation fails, before anyone saw them). Every
// change goes through ImportGraphDef, the importer sessions use, followed
// by shape refinement, which leaves the shapes on the nodes (they answer
// MF_GraphGetTensorShape); a failure removes what the change added. An
// import refines the whole graph. MF_FinishOperation refines only its new
// node, with a refiner the graph keeps between operations (made from the
// whole graph at the first operation after an import): re-refining the
// whole graph for every operation made building an N-node graph O(N^2)
// (10,000 operations took a minute).
// A session copies the graph (as a GraphDef) when it is made, and holds a
// reference so the MF_Graph outlives it.
struct MF_Graph {
  MF_Graph();

  absl::Mutex mu;
  minflow::Graph graph ABSL_GUARDED_BY(mu);
  // The refiner MF_FinishOperation extends; null when an import changed the
  // graph since it was made.
  // Shared: MF_AddGradients's Scope holds it too (c_api_gradients.cc).
  std::shared_ptr<minflow::ShapeRefiner> refiner ABSL_GUARDED_BY(mu);
  int num_sessions ABSL_GUARDED_BY(mu) = 0;
  bool delete_requested ABSL_GUARDED_BY(mu) = false;
};

struct MF_OperationDescription {
  MF_Graph* graph = nullptr;
  minflow::NodeDef node_def;
  // One entry per input arg added: its tensors, and whether it was added
  // as a list (MF_AddInputList) or a single tensor (MF_AddInput).
  struct InputArg {
    std::vector<MF_Output> tensors;
    bool is_list = false;
  };
  std::vector<InputArg> inputs;
  // Checked against the graph by MF_FinishOperation, under its lock.
  std::vector<MF_Operation*> control_inputs;
  std::vector<MF_Operation*> colocate_with;
  // The first problem a setter met, reported by MF_FinishOperation.
  minflow::Status status;
};

struct MF_Session {
  std::unique_ptr<minflow::Session> session;
  MF_Graph* graph = nullptr;
};

namespace minflow {
namespace c_api {

// Stores `s` into `out` (a null `out` drops it).
void Set(MF_Status* out, const Status& s);
inline void SetOk(MF_Status* out) { Set(out, OkStatus()); }

inline Node* ToNode(MF_Operation* oper) {
  return reinterpret_cast<Node*>(oper);
}
inline const Node* ToNode(const MF_Operation* oper) {
  return reinterpret_cast<const Node*>(oper);
}
inline MF_Operation* ToOperation(Node* node) {
  return reinterpret_cast<MF_Operation*>(node);
}

// Whether `node` is a live node of `graph` (without trusting its id).
bool IsNodeOf(const Graph& graph, const Node* node);

// "<what> must not be NULL" as InvalidArgument.
Status NullArgument(const char* function, const char* what);

// Copies `bytes` into an empty `out` (InvalidArgument if it holds data).
Status CopyToBuffer(const std::string& bytes, MF_Buffer* out);
// Serializes `message` into an empty `out`; a NULL `out` is an error.
Status MessageToBuffer(const char* function,
                       const google::protobuf::MessageLite& message,
                       MF_Buffer* out);

// Makes g->refiner from the whole graph, and attaches the shapes, unless
// it exists (Note [C API graphs]).
Status EnsureGraphRefiner(MF_Graph* g) ABSL_EXCLUSIVE_LOCKS_REQUIRED(g->mu);

// Adds `graph_def` to g's graph through the importer, then refines the
// whole graph; on any error removes what was added (Note [C API graphs]).
Status ImportAndRefine(MF_Graph* g, const GraphConstructorOptions& options,
                       const GraphDef& graph_def, std::vector<Node*>* added)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(g->mu);

// "name:index" for `output`, an output of g's graph, after checking it
// (InvalidArgument / OutOfRange naming `function` and `what`[i]).
Status OutputName(const char* function, const MF_Graph& g,
                  const MF_Output& output, const char* what, int i,
                  std::string* name) ABSL_SHARED_LOCKS_REQUIRED(g.mu);

// A DataType from a C enum value, InvalidArgument unless it is a valid,
// non-ref type.
Status ToDataType(int value, DataType* out);

}  // namespace c_api
}  // namespace minflow
