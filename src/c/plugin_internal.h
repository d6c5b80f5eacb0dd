// What stands behind the opaque handles of the C plugin kernel ABI
// (include/minflow/c/kernel_plugin.h), shared by the API table
// (plugin_api.cc), the kernel adapter (plugin_kernel.cc) and the loader
// entry (plugin_init.cc).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "minflow/c/kernel_plugin.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/types.h"
#include "minflow/framework/op_def_builder.h"

namespace minflow {

class NodeDef;
class OpKernelContext;
namespace shape_inference {
class InferenceContext;
}  // namespace shape_inference

namespace c_plugin {

// One registered operator: its callbacks and who made it. Immutable once
// registered; shared by the operator's kernels and its shape function.
struct OperatorSpec {
  std::string name;
  int32_t version = 1;
  std::string library;
  void* user_data = nullptr;
  MF_PluginInitFn init = nullptr;
  MF_PluginFreeFn free = nullptr;
  MF_PluginPrepareFn prepare = nullptr;
  MF_PluginInvokeFn invoke = nullptr;
  int32_t shape_mode = MF_PLUGIN_SHAPES_UNKNOWN;
  // "plugin op 'Examples>Atan' v1 from 'libatan.so'", for messages.
  std::string description;
};

// The first error of one call into a plugin: what the plugin reported and
// every misuse of the API it made. Not thread-safe (one call, one thread).
class ErrorSink {
 public:
  explicit ErrorSink(const std::string* description)
      : description_(description) {}

  // Keeps `s` unless an error is already kept.
  void Record(const Status& s);
  // Records InvalidArgument "<function>: <what> (<description>)".
  void Misuse(absl::string_view function, absl::string_view what);
  const Status& status() const { return status_; }
  bool ok() const { return status_.ok(); }

 private:
  const std::string* description_;
  Status status_;
};

// Which callback a handle belongs to.
enum class HandleKind { kRegistrar, kInit, kKernel };

// Marks `handle` as the one the plugin may use on this thread while the
// scope lives (the callback's duration); API calls with any other handle
// are refused and recorded in `sink`. Scopes nest.
class CallScope {
 public:
  CallScope(HandleKind kind, void* handle, ErrorSink* sink);
  ~CallScope();
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

  // The innermost scope's sink on this thread, or null.
  static ErrorSink* CurrentSink();
  static bool IsCurrent(HandleKind kind, const void* handle);
  // The innermost scope's handle if it is of `kind`, else null.
  static void* CurrentHandle(HandleKind kind);

 private:
  CallScope* previous_;
  HandleKind kind_;
  void* handle_;
  ErrorSink* sink_;
};

// Canonical codes both ways; a code the plugin invents becomes kUnknown.
absl::StatusCode ToStatusCode(MF_Code code);
MF_Code ToPluginCode(const Status& status);

// The Status of a finished callback: the first recorded error; else, when
// the callback returned a non-OK `code`, that code with a message saying
// the plugin gave none; else OK.
Status CallbackStatus(const ErrorSink& sink, MF_Code code,
                      const OperatorSpec& spec, absl::string_view callback);

// The function table and its frozen base (plugin_api.cc).
const MF_PluginApi* PluginApi();
const MF_PluginApiBase* PluginApiBase();

// The CPU kernel adapter's factory and the shape function that runs
// Prepare (plugin_kernel.cc).
void RegisterPluginKernel(std::shared_ptr<const OperatorSpec> spec);
OpShapeInferenceFn MakePrepareShapeFn(std::shared_ptr<const OperatorSpec> spec,
                                      const OpDef& op_def);

}  // namespace c_plugin
}  // namespace minflow

// An operator being described inside MF_PluginInit; owned by its registrar.
struct MF_PluginOperator {
  MF_PluginOperator(std::string name, int32_t version)
      : builder(name),
        spec(std::make_shared<minflow::c_plugin::OperatorSpec>()) {
    spec->name = std::move(name);
    spec->version = version;
  }
  minflow::OpDefBuilder builder;
  std::shared_ptr<minflow::c_plugin::OperatorSpec> spec;
};

// One MF_PluginInit call: the version the plugin asked for, the operators
// it is describing and those it registered, and the load's first error.
struct MF_PluginRegistrar : minflow::c_plugin::ErrorSink {
  explicit MF_PluginRegistrar(std::string path);

  struct Accepted {
    std::shared_ptr<const minflow::c_plugin::OperatorSpec> spec;
    minflow::OpRegistrationData data;
  };

  std::string library_path;
  std::string description;   // "plugin library '<path>'"
  uint32_t api_version = 0;  // 0 until GetApi succeeds
  absl::flat_hash_map<const MF_PluginOperator*,
                      std::unique_ptr<MF_PluginOperator>>
      live;
  std::vector<Accepted> accepted;
  absl::flat_hash_set<std::string> accepted_names;
};

// Init: a node being made into a kernel (or checked by shape inference).
struct MF_KernelInitContext : minflow::c_plugin::ErrorSink {
  MF_KernelInitContext(const minflow::c_plugin::OperatorSpec& op,
                       const minflow::NodeDef& def,
                       minflow::DataTypeSlice inputs,
                       minflow::DataTypeSlice outputs)
      : ErrorSink(&op.description),
        spec(op),
        node_def(def),
        input_types(inputs),
        output_types(outputs) {}

  const minflow::c_plugin::OperatorSpec& spec;
  const minflow::NodeDef& node_def;
  minflow::DataTypeSlice input_types;
  minflow::DataTypeSlice output_types;
};

// Prepare or Invoke: one call on one node, at run time (op_ctx) or during
// shape inference (infer_ctx).
struct MF_KernelContext : minflow::c_plugin::ErrorSink {
  enum class Phase { kPrepare, kInvoke, kShapeInference };

  struct Input {
    minflow::DataType dtype = minflow::DT_INVALID;
    absl::Span<const int64_t> dims;
    int64_t num_elements = 0;
    const minflow::Tensor* tensor = nullptr;  // run time only
  };

  MF_KernelContext(const minflow::c_plugin::OperatorSpec& op,
                   const std::string& node, Phase p,
                   minflow::DataTypeSlice outputs)
      : ErrorSink(&op.description),
        spec(op),
        node_name(node),
        phase(p),
        output_types(outputs),
        output_shapes(outputs.size()) {}

  const minflow::c_plugin::OperatorSpec& spec;
  const std::string& node_name;
  Phase phase;
  minflow::OpKernelContext* op_ctx = nullptr;
  minflow::shape_inference::InferenceContext* infer_ctx = nullptr;
  absl::InlinedVector<Input, 4> inputs;
  minflow::DataTypeSlice output_types;
  absl::InlinedVector<std::optional<minflow::TensorShape>, 4> output_shapes;
  std::vector<minflow::Tensor> temps;  // data pointers survive moves
  // Shape inference only: Prepare asked for something only a run has (an
  // input's value, output data, scratch memory).
  bool wanted_run_time_data = false;
};
