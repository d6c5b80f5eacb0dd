// The C API's gradients (include/minflow/c/c_api.h, "Gradients"):
// MF_AddGradients over AddSymbolicGradients, and gradient functions
// registered through the C API. Compiled with the C++ graph API into
// libminflow; see Note [Gradients in libminflow] in src/cc/CMakeLists.txt.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "minflow/c/c_api.h"
#include "minflow/cc/framework/grad_op_registry.h"
#include "minflow/cc/framework/gradients.h"
#include "minflow/cc/framework/ops.h"
#include "minflow/cc/framework/scope.h"
#include "minflow/core/status.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/shape_refiner.h"
#include "src/c/c_api_internal.h"

namespace minflow {
namespace c_api {
namespace {

// Note [C gradient functions]
// A GradFunc is a plain function pointer, so every op type registered
// through MF_RegisterGradientFunction gets the same GradFunc, CGradient,
// which finds the C function and its context by the op's type. The C
// function adds its operations with MF_FinishOperation, which locks the
// MF_Graph; MF_AddGradients holds that lock while AddSymbolicGradients
// runs, so CGradient releases it around the call, and finds the MF_Graph
// through a thread-local that MF_AddGradients sets (a Scope knows only the
// Graph). MF_Graph::refiner is shared with the Scope, so what the function
// adds is known to the refiner the Scope's ops are refined with; a function
// that makes the graph drop its refiner (MF_GraphImportGraphDef) is
// refused. C++'s AddSymbolicGradients has no MF_Graph to hand over: it
// fails on such an op.

struct CGradientFunction {
  MF_GradientFunction fn = nullptr;
  void* context = nullptr;
};

struct CGradientRegistry {
  absl::Mutex mu;
  absl::flat_hash_map<std::string, CGradientFunction> functions
      ABSL_GUARDED_BY(mu);
};

CGradientRegistry& CGradients() {
  static auto* registry = new CGradientRegistry;
  return *registry;
}

// What CGradient needs from the MF_AddGradients call on its thread.
struct GradientCall {
  MF_Graph* graph = nullptr;
  ShapeRefiner* refiner = nullptr;  // the Scope's
};
thread_local GradientCall* current_call = nullptr;

Status CGradient(const Scope& scope, const Operation& op,
                 const std::vector<Output>& grad_inputs,
                 std::vector<Output>* grad_outputs) {
  Node* node = op.node();
  CGradientFunction function;
  {
    CGradientRegistry& registry = CGradients();
    absl::MutexLock lock(&registry.mu);
    auto it = registry.functions.find(node->type_string());
    if (it == registry.functions.end()) {
      return errors::Internal("no C gradient function for op ",
                              node->type_string(), "; please report");
    }
    function = it->second;
  }
  GradientCall* call = current_call;
  if (call == nullptr || &call->graph->graph != scope.graph()) {
    return errors::FailedPrecondition(
        "the gradient of op ", node->type_string(),
        " is registered through the C API (MF_RegisterGradientFunction) and "
        "is only built by MF_AddGradients");
  }
  std::vector<MF_Output> output_grads;
  for (const Output& g : grad_inputs) {
    output_grads.push_back({ToOperation(g.node()), g.index()});
  }
  std::vector<MF_Output> input_grads(node->num_inputs(),
                                     MF_Output{nullptr, -1});
  const std::string name_scope =
      scope.GetUniqueNameForOp(absl::StrCat(node->name(), "_grad"));
  MF_Status status;
  MF_Graph* g = call->graph;
  // See Note [C gradient functions]: MF_AddGradients holds the lock.
  g->mu.Unlock();
  function.fn(function.context, g, ToOperation(node), name_scope.c_str(),
              output_grads.data(), static_cast<int>(output_grads.size()),
              input_grads.data(), static_cast<int>(input_grads.size()),
              &status);
  g->mu.Lock();
  MF_RETURN_IF_ERROR(status.status);
  if (g->refiner.get() != call->refiner) {
    return errors::FailedPrecondition(
        "the gradient function changed the graph other than by adding "
        "operations (MF_GraphImportGraphDef is not allowed inside it)");
  }
  for (size_t i = 0; i < input_grads.size(); ++i) {
    const MF_Output& grad = input_grads[i];
    if (grad.oper == nullptr) {
      grad_outputs->push_back(NoGradient());
      continue;
    }
    std::string unused;
    MF_RETURN_IF_ERROR(OutputName("the gradient function", *g, grad,
                                  "input_grads", static_cast<int>(i), &unused));
    grad_outputs->push_back(Output(ToNode(grad.oper), grad.index));
  }
  return OkStatus();
}

// Checks the arguments of MF_AddGradients*, under g->mu.
Status CheckGradientArgs(const char* function, const MF_Graph& g,
                         const MF_Output* y, int ny, const MF_Output* x, int nx,
                         const MF_Output* dx, const MF_Output* dy)
    ABSL_SHARED_LOCKS_REQUIRED(g.mu) {
  if (ny < 0 || nx < 0) {
    return errors::InvalidArgument(
        function, ": ny and nx must be >= 0, but got ny=", ny, " and nx=", nx);
  }
  if (ny > 0 && y == nullptr) return NullArgument(function, "y");
  if (nx > 0 && x == nullptr) return NullArgument(function, "x");
  if (nx > 0 && dy == nullptr) return NullArgument(function, "dy");
  std::string unused;
  for (int i = 0; i < ny; ++i) {
    MF_RETURN_IF_ERROR(OutputName(function, g, y[i], "y", i, &unused));
    if (dx != nullptr) {
      MF_RETURN_IF_ERROR(OutputName(function, g, dx[i], "dx", i, &unused));
    }
  }
  for (int i = 0; i < nx; ++i) {
    MF_RETURN_IF_ERROR(OutputName(function, g, x[i], "x", i, &unused));
  }
  return OkStatus();
}

// TensorFlow's rule: the prefix must not name an operation, nor a scope
// some operation's name is under.
Status CheckPrefix(const char* function, const Graph& graph,
                   const std::string& prefix) {
  for (const Node* node : graph.nodes()) {
    const std::string& name = node->name();
    if (name == prefix || absl::StartsWith(name, absl::StrCat(prefix, "/"))) {
      return errors::InvalidArgument(function, ": prefix [", prefix,
                                     "] conflicts with existing node in the "
                                     "graph named [",
                                     name, "]");
    }
  }
  return OkStatus();
}

std::vector<Output> ToOutputs(const MF_Output* outputs, int n) {
  std::vector<Output> result;
  for (int i = 0; i < n; ++i) {
    result.emplace_back(ToNode(outputs[i].oper), outputs[i].index);
  }
  return result;
}

Status AddGradients(const char* function, MF_Graph* g, const char* prefix,
                    const MF_Output* y, int ny, const MF_Output* x, int nx,
                    const MF_Output* dx, MF_Output* dy) {
  if (g == nullptr) return NullArgument(function, "g");
  g->mu.Lock();
  // Unlocked on every path below; CGradient unlocks and relocks inside.
  struct Unlock {
    MF_Graph* g;
    ~Unlock() { g->mu.Unlock(); }
  } unlock{g};
  MF_RETURN_IF_ERROR(CheckGradientArgs(function, *g, y, ny, x, nx, dx, dy));
  const std::string prefix_name = prefix == nullptr ? "" : prefix;
  if (!prefix_name.empty()) {
    MF_RETURN_IF_ERROR(CheckPrefix(function, g->graph, prefix_name));
  }
  MF_RETURN_IF_ERROR(EnsureGraphRefiner(g));
  // Kept alive here even if a gradient function makes the graph drop it.
  const std::shared_ptr<ShapeRefiner> refiner = g->refiner;
  const int first_new_id = g->graph.num_node_ids();
  Scope scope = Scope::NewRootScopeOver(&g->graph, refiner.get());
  if (!prefix_name.empty()) scope = scope.NewSubScope(prefix_name);

  GradientCall call{g, refiner.get()};
  GradientCall* outer_call = current_call;
  current_call = &call;
  std::vector<Output> grads;
  Status s = dx == nullptr ? AddSymbolicGradients(scope, ToOutputs(y, ny),
                                                  ToOutputs(x, nx), &grads)
                           : AddSymbolicGradients(scope, ToOutputs(y, ny),
                                                  ToOutputs(x, nx),
                                                  ToOutputs(dx, ny), &grads);
  current_call = outer_call;
  if (s.ok() && static_cast<int>(grads.size()) != nx) {
    s = errors::Internal(function, ": got ", grads.size(), " gradients for ",
                         nx, " xs; please report");
  }
  if (!s.ok()) {
    // Note [C API graphs]: a failed change leaves the graph as it was.
    // Node ids only grow, so what the call added is above first_new_id;
    // consumers come after their inputs, so removing from the end is safe.
    for (int id = g->graph.num_node_ids() - 1; id >= first_new_id; --id) {
      Node* node = g->graph.FindNodeId(id);
      if (node != nullptr) g->graph.RemoveNode(node);
    }
    g->refiner.reset();  // it knew the removed nodes
    return Status(s.code(), absl::StrCat(function, ": ", s.message()));
  }
  for (int i = 0; i < nx; ++i) {
    dy[i] = MF_Output{ToOperation(grads[i].node()),
                      grads[i].node() == nullptr ? -1 : grads[i].index()};
  }
  return OkStatus();
}

}  // namespace
}  // namespace c_api
}  // namespace minflow

namespace c_api = minflow::c_api;
namespace errors = minflow::errors;

extern "C" {

void MF_AddGradients(MF_Graph* g, MF_Output* y, int ny, MF_Output* x, int nx,
                     MF_Output* dx, MF_Status* status, MF_Output* dy) {
  c_api::Set(status, c_api::AddGradients("MF_AddGradients", g, nullptr, y, ny,
                                         x, nx, dx, dy));
}

void MF_AddGradientsWithPrefix(MF_Graph* g, const char* prefix, MF_Output* y,
                               int ny, MF_Output* x, int nx, MF_Output* dx,
                               MF_Status* status, MF_Output* dy) {
  c_api::Set(status, c_api::AddGradients("MF_AddGradientsWithPrefix", g, prefix,
                                         y, ny, x, nx, dx, dy));
}

void MF_RegisterGradientFunction(const char* op_type, MF_GradientFunction fn,
                                 void* context, MF_Status* status) {
  constexpr char kFunction[] = "MF_RegisterGradientFunction";
  if (op_type == nullptr || op_type[0] == '\0') {
    c_api::Set(status, errors::InvalidArgument(
                           kFunction, ": op_type must be a non-empty string"));
    return;
  }
  if (fn == nullptr) {
    c_api::Set(status, c_api::NullArgument(kFunction, "fn"));
    return;
  }
  c_api::CGradientRegistry& registry = c_api::CGradients();
  absl::MutexLock lock(&registry.mu);
  minflow::ops::GradFunc existing = nullptr;
  if (minflow::ops::GradOpRegistry::Global()->Lookup(op_type, &existing).ok()) {
    c_api::Set(status,
               errors::AlreadyExists(
                   kFunction, ": op type ", op_type,
                   existing == nullptr ? " is declared to have no gradient"
                                       : " already has a registered gradient"));
    return;
  }
  // Added first: CGradient may run as soon as the registry has it.
  registry.functions[op_type] = {fn, context};
  if (!minflow::ops::GradOpRegistry::Global()->Register(op_type,
                                                        &c_api::CGradient)) {
    // Another thread registered a C++ gradient between the two calls.
    registry.functions.erase(op_type);
    c_api::Set(status,
               errors::AlreadyExists(kFunction, ": op type ", op_type,
                                     " already has a registered gradient"));
    return;
  }
  c_api::SetOk(status);
}

void MF_RegisterNoGradient(const char* op_type, MF_Status* status) {
  constexpr char kFunction[] = "MF_RegisterNoGradient";
  if (op_type == nullptr || op_type[0] == '\0') {
    c_api::Set(status, errors::InvalidArgument(
                           kFunction, ": op_type must be a non-empty string"));
    return;
  }
  // The registry refuses a second registration (C++'s, a C function's or
  // another declaration) and says which it found.
  minflow::ops::GradFunc existing = nullptr;
  if (minflow::ops::GradOpRegistry::Global()->Lookup(op_type, &existing).ok() ||
      !minflow::ops::GradOpRegistry::Global()->Register(op_type, nullptr)) {
    c_api::Set(status,
               errors::AlreadyExists(
                   kFunction, ": op type ", op_type,
                   existing == nullptr ? " is declared to have no gradient"
                                       : " already has a registered gradient"));
    return;
  }
  c_api::SetOk(status);
}

}  // extern "C"
