// The function table of the C plugin kernel ABI. Every entry treats its
// caller as untrusted (see Note [Plugin kernel ABI] in kernel_plugin.h): a
// handle must be the one of the current call on this thread, every pointer
// and index is checked, and a misuse returns NULL / -1 / an error code
// after recording a message in the call's ErrorSink.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "minflow/attr_value.pb.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/types.h"
#include "minflow/framework/attr_value_util.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_def_util.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/shape_inference.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"
#include "src/c/plugin_internal.h"

namespace minflow {
namespace c_plugin {

void ErrorSink::Record(const Status& s) {
  if (status_.ok() && !s.ok()) status_ = s;
}

void ErrorSink::Misuse(absl::string_view function, absl::string_view what) {
  Record(
      errors::InvalidArgument(function, ": ", what, " (", *description_, ")"));
}

namespace {
thread_local CallScope* current_scope = nullptr;
}  // namespace

CallScope::CallScope(HandleKind kind, void* handle, ErrorSink* sink)
    : previous_(current_scope), kind_(kind), handle_(handle), sink_(sink) {
  current_scope = this;
}

CallScope::~CallScope() { current_scope = previous_; }

ErrorSink* CallScope::CurrentSink() {
  return current_scope == nullptr ? nullptr : current_scope->sink_;
}

bool CallScope::IsCurrent(HandleKind kind, const void* handle) {
  return current_scope != nullptr && current_scope->kind_ == kind &&
         current_scope->handle_ == handle;
}

void* CallScope::CurrentHandle(HandleKind kind) {
  return current_scope != nullptr && current_scope->kind_ == kind
             ? current_scope->handle_
             : nullptr;
}

absl::StatusCode ToStatusCode(MF_Code code) {
  if (code <= 0 || code > static_cast<int>(absl::StatusCode::kUnauthenticated))
    return absl::StatusCode::kUnknown;
  return static_cast<absl::StatusCode>(code);
}

MF_Code ToPluginCode(const Status& status) {
  return static_cast<MF_Code>(status.code());
}

Status CallbackStatus(const ErrorSink& sink, MF_Code code,
                      const OperatorSpec& spec, absl::string_view callback) {
  if (!sink.ok()) return sink.status();
  if (code == MF_OK) return OkStatus();
  return Status(
      ToStatusCode(code),
      absl::StrCat(callback, " of ", spec.description, " returned error code ",
                   code, " without a message"));
}

namespace {

using Phase = MF_KernelContext::Phase;

constexpr char kNullHandle[] = "the handle is null";
constexpr char kStaleHandle[] =
    "the handle is not the one of the current call (kept past its "
    "callback, used on another thread, or of another kind)";

// Returned for tensors with no elements: never NULL, never to be read.
alignas(64) unsigned char empty_data[64];

// The handle if it is the current call's; else records why and returns
// null.
template <typename H>
H* Use(H* handle, c_plugin::HandleKind kind, const char* function) {
  if (handle != nullptr && CallScope::IsCurrent(kind, handle)) return handle;
  if (ErrorSink* sink = CallScope::CurrentSink()) {
    sink->Misuse(function, handle == nullptr ? kNullHandle : kStaleHandle);
  }
  return nullptr;
}

MF_PluginRegistrar* UseRegistrar(MF_PluginRegistrar* r, const char* fn) {
  return Use(r, HandleKind::kRegistrar, fn);
}
MF_KernelInitContext* UseInit(MF_KernelInitContext* c, const char* fn) {
  return Use(c, HandleKind::kInit, fn);
}
MF_KernelContext* UseKernel(MF_KernelContext* c, const char* fn) {
  return Use(c, HandleKind::kKernel, fn);
}

// The registrar of the MF_PluginInit running on this thread, or null.
MF_PluginRegistrar* CurrentRegistrar() {
  return static_cast<MF_PluginRegistrar*>(
      CallScope::CurrentHandle(HandleKind::kRegistrar));
}

// An operator of the current MF_PluginInit not yet registered or deleted.
MF_PluginOperator* UseOperator(MF_PluginOperator* op, const char* fn) {
  MF_PluginRegistrar* registrar = CurrentRegistrar();
  if (registrar == nullptr) {
    if (ErrorSink* sink = CallScope::CurrentSink()) {
      sink->Misuse(fn, "operators may only be changed inside MF_PluginInit");
    }
    return nullptr;
  }
  if (op == nullptr) {
    registrar->Misuse(fn, "the operator is null");
    return nullptr;
  }
  if (!registrar->live.contains(op)) {
    registrar->Misuse(fn,
                      "the operator was not made by OperatorCreate in this "
                      "MF_PluginInit, or was already registered or deleted");
    return nullptr;
  }
  return op;
}

bool CheckIndex(ErrorSink* sink, const char* fn, const char* what,
                int32_t index, size_t count) {
  if (index >= 0 && static_cast<size_t>(index) < count) return true;
  sink->Misuse(fn, absl::StrCat(what, " index must be in [0, ", count,
                                "), but got ", index));
  return false;
}

// The shape `dims[0..num_dims)` or a recorded misuse.
bool BuildShape(ErrorSink* sink, const char* fn, const int64_t* dims,
                int32_t num_dims, TensorShape* shape) {
  if (num_dims < 0 || num_dims > kMaxTensorRank) {
    sink->Misuse(fn, absl::StrCat("num_dims must be in [0, ", kMaxTensorRank,
                                  "], but got ", num_dims));
    return false;
  }
  if (dims == nullptr && num_dims > 0) {
    sink->Misuse(fn,
                 absl::StrCat("dims must not be null for num_dims ", num_dims));
    return false;
  }
  Status s = TensorShape::BuildTensorShape(
      absl::MakeConstSpan(dims, static_cast<size_t>(num_dims)), shape);
  if (!s.ok()) {
    sink->Misuse(fn, s.message());
    return false;
  }
  return true;
}

// True when data of `dtype` may cross the ABI and `asked` is that dtype.
bool CheckDataType(ErrorSink* sink, const char* fn, DataType dtype,
                   MF_DataType asked) {
  if (!DataTypeCanUseMemcpy(dtype)) {
    sink->Misuse(fn, absl::StrCat("tensors of type ", DataTypeString(dtype),
                                  " have no data access through the plugin "
                                  "API"));
    return false;
  }
  if (asked != static_cast<MF_DataType>(dtype)) {
    DataType asked_type = static_cast<DataType>(asked);
    sink->Misuse(fn, absl::StrCat("dtype must be the tensor's (",
                                  DataTypeString(dtype), "), but got ",
                                  DataTypeIsValid(asked_type)
                                      ? DataTypeString(asked_type)
                                      : absl::StrCat("invalid type ", asked)));
    return false;
  }
  return true;
}

void* DataOrEmpty(const Tensor& t) {
  return t.NumElements() == 0 ? static_cast<void*>(empty_data) : t.data();
}

// ---- Registration ----------------------------------------------------------

MF_PluginOperator* OperatorCreate(MF_PluginRegistrar* registrar,
                                  const char* name, int32_t version) {
  constexpr char fn[] = "OperatorCreate";
  MF_PluginRegistrar* r = UseRegistrar(registrar, fn);
  if (r == nullptr) return nullptr;
  if (name == nullptr) {
    r->Misuse(fn, "the name is null");
    return nullptr;
  }
  if (version < 1) {
    r->Misuse(fn, absl::StrCat("the version of operator '", name,
                               "' must be >= 1, but got ", version));
    return nullptr;
  }
  auto op = std::make_unique<MF_PluginOperator>(name, version);
  op->spec->library = r->library_path;
  op->spec->description = absl::StrCat("plugin op '", name, "' v", version,
                                       " from '", r->library_path, "'");
  MF_PluginOperator* raw = op.get();
  r->live.emplace(raw, std::move(op));
  return raw;
}

// The spec-string setters share one shape.
template <OpDefBuilder& (OpDefBuilder::*Add)(std::string)>
void AddSpec(MF_PluginOperator* op, const char* spec, const char* fn) {
  MF_PluginOperator* o = UseOperator(op, fn);
  if (o == nullptr) return;
  if (spec == nullptr) {
    CurrentRegistrar()->Misuse(fn, absl::StrCat("the spec for operator '",
                                                o->spec->name, "' is null"));
    return;
  }
  (o->builder.*Add)(spec);
}

void OperatorAddInput(MF_PluginOperator* op, const char* spec) {
  AddSpec<&OpDefBuilder::Input>(op, spec, "OperatorAddInput");
}
void OperatorAddOutput(MF_PluginOperator* op, const char* spec) {
  AddSpec<&OpDefBuilder::Output>(op, spec, "OperatorAddOutput");
}
void OperatorAddAttr(MF_PluginOperator* op, const char* spec) {
  AddSpec<&OpDefBuilder::Attr>(op, spec, "OperatorAddAttr");
}
void OperatorSetDoc(MF_PluginOperator* op, const char* doc) {
  AddSpec<&OpDefBuilder::Doc>(op, doc, "OperatorSetDoc");
}

void OperatorSetUserData(MF_PluginOperator* op, void* user_data) {
  if (auto* o = UseOperator(op, "OperatorSetUserData")) {
    o->spec->user_data = user_data;
  }
}
void OperatorSetInit(MF_PluginOperator* op, MF_PluginInitFn fn) {
  if (auto* o = UseOperator(op, "OperatorSetInit")) o->spec->init = fn;
}
void OperatorSetFree(MF_PluginOperator* op, MF_PluginFreeFn fn) {
  if (auto* o = UseOperator(op, "OperatorSetFree")) o->spec->free = fn;
}
void OperatorSetPrepare(MF_PluginOperator* op, MF_PluginPrepareFn fn) {
  if (auto* o = UseOperator(op, "OperatorSetPrepare")) o->spec->prepare = fn;
}
void OperatorSetInvoke(MF_PluginOperator* op, MF_PluginInvokeFn fn) {
  if (auto* o = UseOperator(op, "OperatorSetInvoke")) o->spec->invoke = fn;
}

void OperatorSetShapeInference(MF_PluginOperator* op, int32_t mode) {
  constexpr char fn[] = "OperatorSetShapeInference";
  MF_PluginOperator* o = UseOperator(op, fn);
  if (o == nullptr) return;
  if (mode != MF_PLUGIN_SHAPES_UNKNOWN &&
      mode != MF_PLUGIN_SHAPES_FROM_PREPARE) {
    CurrentRegistrar()->Misuse(
        fn, absl::StrCat("mode must be MF_PLUGIN_SHAPES_UNKNOWN (0) or "
                         "MF_PLUGIN_SHAPES_FROM_PREPARE (1), but got ",
                         mode));
    return;
  }
  o->spec->shape_mode = mode;
}

// Everything the OpRegistry would check, and what the ABI cannot carry.
Status CheckOperator(const MF_PluginRegistrar& r, const MF_PluginOperator& op,
                     OpRegistrationData* data) {
  const OperatorSpec& spec = *op.spec;
  if (spec.invoke == nullptr) {
    return errors::InvalidArgument("RegisterOperator: ", spec.description,
                                   " has no Invoke; call OperatorSetInvoke");
  }
  if (spec.shape_mode == MF_PLUGIN_SHAPES_FROM_PREPARE &&
      spec.prepare == nullptr) {
    return errors::InvalidArgument(
        "RegisterOperator: ", spec.description,
        " infers shapes with Prepare but has no Prepare; call "
        "OperatorSetPrepare");
  }
  MF_RETURN_IF_ERROR(errors::Prefix(
      op.builder.Finalize(data), "RegisterOperator: ", spec.description, ": "));
  MF_RETURN_IF_ERROR(errors::Prefix(ValidateOpDef(data->op_def),
                                    "RegisterOperator: ", spec.description,
                                    ": "));
  for (const auto* args :
       {&data->op_def.input_arg(), &data->op_def.output_arg()}) {
    for (const OpDef::ArgDef& arg : *args) {
      if (arg.is_ref()) {
        return errors::InvalidArgument(
            "RegisterOperator: ", spec.description, ": arg '", arg.name(),
            "' is a Ref, which the plugin API does not support");
      }
    }
  }
  if (r.accepted_names.contains(spec.name)) {
    return errors::AlreadyExists("RegisterOperator: op '", spec.name,
                                 "' is registered twice by ", r.description);
  }
  if (const OpRegistrationData* existing =
          OpRegistry::Global()->LookUp(spec.name)) {
    return errors::AlreadyExists(
        "Op '", spec.name, "' is already registered by '", existing->owner,
        "'; ", r.description,
        " cannot register it again (give the plugin's op a prefixed name, "
        "such as 'MyProject>",
        spec.name, "')");
  }
  return OkStatus();
}

MF_Code RegisterOperator(MF_PluginRegistrar* registrar, MF_PluginOperator* op) {
  constexpr char fn[] = "RegisterOperator";
  MF_PluginRegistrar* r = UseRegistrar(registrar, fn);
  if (r == nullptr) return MF_INVALID_ARGUMENT;
  MF_PluginOperator* o = UseOperator(op, fn);
  if (o == nullptr) return MF_INVALID_ARGUMENT;
  std::unique_ptr<MF_PluginOperator> owned = std::move(r->live[o]);
  r->live.erase(o);

  MF_PluginRegistrar::Accepted accepted;
  Status s = CheckOperator(*r, *owned, &accepted.data);
  if (!s.ok()) {
    r->Record(s);
    return ToPluginCode(s);
  }
  if (owned->spec->shape_mode == MF_PLUGIN_SHAPES_FROM_PREPARE) {
    accepted.data.shape_inference_fn =
        MakePrepareShapeFn(owned->spec, accepted.data.op_def);
  }
  accepted.spec = owned->spec;
  r->accepted_names.insert(owned->spec->name);
  r->accepted.push_back(std::move(accepted));
  return MF_OK;
}

void OperatorDelete(MF_PluginOperator* op) {
  if (UseOperator(op, "OperatorDelete") == nullptr) return;
  CurrentRegistrar()->live.erase(op);
}

void RegistrarSetError(MF_PluginRegistrar* registrar, MF_Code code,
                       const char* message) {
  MF_PluginRegistrar* r = UseRegistrar(registrar, "RegistrarSetError");
  if (r == nullptr) return;
  r->Record(
      Status(ToStatusCode(code),
             absl::StrCat(r->description, ": ",
                          message == nullptr ? "(no message)" : message)));
}

// ---- Init ------------------------------------------------------------------

const char* InitNodeName(MF_KernelInitContext* ctx) {
  MF_KernelInitContext* c = UseInit(ctx, "InitContext_NodeName");
  return c == nullptr ? nullptr : c->node_def.name().c_str();
}
int32_t InitNumInputs(MF_KernelInitContext* ctx) {
  MF_KernelInitContext* c = UseInit(ctx, "InitContext_NumInputs");
  return c == nullptr ? -1 : static_cast<int32_t>(c->input_types.size());
}
int32_t InitNumOutputs(MF_KernelInitContext* ctx) {
  MF_KernelInitContext* c = UseInit(ctx, "InitContext_NumOutputs");
  return c == nullptr ? -1 : static_cast<int32_t>(c->output_types.size());
}
MF_DataType InitInputDataType(MF_KernelInitContext* ctx, int32_t i) {
  constexpr char fn[] = "InitContext_InputDataType";
  MF_KernelInitContext* c = UseInit(ctx, fn);
  if (c == nullptr || !CheckIndex(c, fn, "input", i, c->input_types.size()))
    return MF_INVALID;
  return static_cast<MF_DataType>(c->input_types[i]);
}
MF_DataType InitOutputDataType(MF_KernelInitContext* ctx, int32_t i) {
  constexpr char fn[] = "InitContext_OutputDataType";
  MF_KernelInitContext* c = UseInit(ctx, fn);
  if (c == nullptr || !CheckIndex(c, fn, "output", i, c->output_types.size()))
    return MF_INVALID;
  return static_cast<MF_DataType>(c->output_types[i]);
}

int32_t InitHasAttr(MF_KernelInitContext* ctx, const char* name) {
  MF_KernelInitContext* c = UseInit(ctx, "InitContext_HasAttr");
  if (c == nullptr || name == nullptr) return 0;
  return AttrSlice(c->node_def).Find(name) != nullptr ? 1 : 0;
}

// An attr reader's failure, which already names the node and attr.
Status AttrError(const MF_KernelInitContext& c, const char* fn,
                 const Status& s) {
  return errors::Prefix(s, fn, " (", c.spec.description, "): ");
}

// Reads attr `name` as T through GetNodeAttr, recording failures.
template <typename T>
MF_Code GetAttr(MF_KernelInitContext* ctx, const char* fn, const char* name,
                const void* out, T* value) {
  MF_KernelInitContext* c = UseInit(ctx, fn);
  if (c == nullptr) return MF_INVALID_ARGUMENT;
  if (name == nullptr || out == nullptr) {
    c->Misuse(fn, name == nullptr ? "the attr name is null"
                                  : "the output pointer is null");
    return MF_INVALID_ARGUMENT;
  }
  Status s = GetNodeAttr(AttrSlice(c->node_def), name, value);
  c->Record(AttrError(*c, fn, s));
  return ToPluginCode(s);
}

// A scalar attr read as T and handed to the plugin as Out.
template <typename T, typename Out>
MF_Code GetScalarAttr(MF_KernelInitContext* ctx, const char* fn,
                      const char* name, Out* out) {
  T v{};
  MF_Code code = GetAttr(ctx, fn, name, out, &v);
  if (code == MF_OK) *out = static_cast<Out>(v);
  return code;
}

MF_Code InitGetAttrInt(MF_KernelInitContext* ctx, const char* name,
                       int64_t* value) {
  return GetScalarAttr<int64_t>(ctx, "InitContext_GetAttrInt", name, value);
}
MF_Code InitGetAttrFloat(MF_KernelInitContext* ctx, const char* name,
                         float* value) {
  return GetScalarAttr<float>(ctx, "InitContext_GetAttrFloat", name, value);
}
MF_Code InitGetAttrBool(MF_KernelInitContext* ctx, const char* name,
                        int32_t* value) {
  return GetScalarAttr<bool>(ctx, "InitContext_GetAttrBool", name, value);
}
MF_Code InitGetAttrType(MF_KernelInitContext* ctx, const char* name,
                        MF_DataType* value) {
  return GetScalarAttr<DataType>(ctx, "InitContext_GetAttrType", name, value);
}
MF_Code InitGetAttrIntList(MF_KernelInitContext* ctx, const char* name,
                           int64_t* values, int32_t max_values,
                           int32_t* count) {
  constexpr char fn[] = "InitContext_GetAttrIntList";
  std::vector<int64_t> v;
  MF_Code code = GetAttr(ctx, fn, name, count, &v);
  if (code != MF_OK) return code;
  if (max_values < 0 || (values == nullptr && max_values > 0)) {
    ctx->Misuse(fn, absl::StrCat("values must hold max_values (", max_values,
                                 ") ints, but got ",
                                 values == nullptr ? "null"
                                                   : "a negative "
                                                     "count"));
    return MF_INVALID_ARGUMENT;
  }
  const size_t n = std::min(v.size(), static_cast<size_t>(max_values));
  if (n > 0) std::memcpy(values, v.data(), n * sizeof(int64_t));
  *count = static_cast<int32_t>(v.size());
  return MF_OK;
}

MF_Code InitGetAttrString(MF_KernelInitContext* ctx, const char* name,
                          const char** data, size_t* length) {
  constexpr char fn[] = "InitContext_GetAttrString";
  MF_KernelInitContext* c = UseInit(ctx, fn);
  if (c == nullptr) return MF_INVALID_ARGUMENT;
  if (name == nullptr || data == nullptr || length == nullptr) {
    c->Misuse(fn, "the attr name, data and length must not be null");
    return MF_INVALID_ARGUMENT;
  }
  const AttrValue* value = nullptr;
  Status s = AttrSlice(c->node_def).Find(name, &value);
  if (s.ok()) s = AttrValueHasType(*value, "string");
  if (!s.ok()) {
    c->Record(AttrError(*c, fn, s));
    return ToPluginCode(s);
  }
  *data = value->s().data();
  *length = value->s().size();
  return MF_OK;
}

void InitSetError(MF_KernelInitContext* ctx, MF_Code code,
                  const char* message) {
  MF_KernelInitContext* c = UseInit(ctx, "InitContext_SetError");
  if (c == nullptr) return;
  c->Record(Status(ToStatusCode(code),
                   message == nullptr ? "(no message)" : message));
}

// ---- Prepare and Invoke ----------------------------------------------------

const char* KernelNodeName(MF_KernelContext* ctx) {
  MF_KernelContext* c = UseKernel(ctx, "KernelContext_NodeName");
  return c == nullptr ? nullptr : c->node_name.c_str();
}
int32_t KernelIsShapeInference(MF_KernelContext* ctx) {
  MF_KernelContext* c = UseKernel(ctx, "KernelContext_IsShapeInference");
  return c != nullptr && c->phase == Phase::kShapeInference ? 1 : 0;
}
int32_t KernelNumInputs(MF_KernelContext* ctx) {
  MF_KernelContext* c = UseKernel(ctx, "KernelContext_NumInputs");
  return c == nullptr ? -1 : static_cast<int32_t>(c->inputs.size());
}
int32_t KernelNumOutputs(MF_KernelContext* ctx) {
  MF_KernelContext* c = UseKernel(ctx, "KernelContext_NumOutputs");
  return c == nullptr ? -1 : static_cast<int32_t>(c->output_types.size());
}

// The input `index` of the current call, or null after recording why.
const MF_KernelContext::Input* KernelInput(MF_KernelContext* ctx,
                                           const char* fn, int32_t index) {
  MF_KernelContext* c = UseKernel(ctx, fn);
  if (c == nullptr || !CheckIndex(c, fn, "input", index, c->inputs.size()))
    return nullptr;
  return &c->inputs[index];
}

MF_DataType KernelInputDataType(MF_KernelContext* ctx, int32_t index) {
  const auto* in = KernelInput(ctx, "KernelContext_InputDataType", index);
  if (in == nullptr) return MF_INVALID;
  return static_cast<MF_DataType>(in->dtype);
}
int32_t KernelInputNumDims(MF_KernelContext* ctx, int32_t index) {
  const auto* in = KernelInput(ctx, "KernelContext_InputNumDims", index);
  return in == nullptr ? -1 : static_cast<int32_t>(in->dims.size());
}
int64_t KernelInputDim(MF_KernelContext* ctx, int32_t index, int32_t dim) {
  constexpr char fn[] = "KernelContext_InputDim";
  const auto* in = KernelInput(ctx, fn, index);
  if (in == nullptr || !CheckIndex(ctx, fn, "dimension", dim, in->dims.size()))
    return -1;
  return in->dims[dim];
}
int64_t KernelInputNumElements(MF_KernelContext* ctx, int32_t index) {
  const auto* in = KernelInput(ctx, "KernelContext_InputNumElements", index);
  return in == nullptr ? -1 : in->num_elements;
}

const void* KernelInputData(MF_KernelContext* ctx, int32_t index,
                            MF_DataType dtype) {
  constexpr char fn[] = "KernelContext_InputData";
  const auto* in = KernelInput(ctx, fn, index);
  if (in == nullptr || !CheckDataType(ctx, fn, in->dtype, dtype))
    return nullptr;
  if (ctx->phase != Phase::kShapeInference) return DataOrEmpty(*in->tensor);
  const Tensor* value = ctx->infer_ctx->input_tensor(index);
  if (value == nullptr || value->dtype() != in->dtype) {
    ctx->wanted_run_time_data = true;
    return nullptr;
  }
  return DataOrEmpty(*value);
}

MF_DataType KernelOutputDataType(MF_KernelContext* ctx, int32_t index) {
  constexpr char fn[] = "KernelContext_OutputDataType";
  MF_KernelContext* c = UseKernel(ctx, fn);
  if (c == nullptr ||
      !CheckIndex(c, fn, "output", index, c->output_types.size()))
    return MF_INVALID;
  return static_cast<MF_DataType>(c->output_types[index]);
}

// Checks the output index and that no buffer is allocated for it yet.
bool CheckOutputUnallocated(MF_KernelContext* c, const char* fn,
                            int32_t index) {
  if (!CheckIndex(c, fn, "output", index, c->output_types.size())) return false;
  if (c->op_ctx != nullptr && c->op_ctx->has_output(index)) {
    c->Misuse(fn, absl::StrCat("output ", index, " is already allocated"));
    return false;
  }
  return true;
}

MF_Code KernelSetOutputShape(MF_KernelContext* ctx, int32_t index,
                             const int64_t* dims, int32_t num_dims) {
  constexpr char fn[] = "KernelContext_SetOutputShape";
  MF_KernelContext* c = UseKernel(ctx, fn);
  if (c == nullptr) return MF_INVALID_ARGUMENT;
  TensorShape shape;
  if (!CheckOutputUnallocated(c, fn, index) ||
      !BuildShape(c, fn, dims, num_dims, &shape)) {
    return MF_INVALID_ARGUMENT;
  }
  c->output_shapes[index] = std::move(shape);
  return MF_OK;
}

// Invoke only: allocates output `index` with `shape` and returns its data.
void* Allocate(MF_KernelContext* c, const char* fn, int32_t index,
               const TensorShape& shape) {
  Tensor* out = nullptr;
  Status s = c->op_ctx->allocate_output(index, shape, &out);
  if (!s.ok()) {
    c->Record(s);
    return nullptr;
  }
  return DataOrEmpty(*out);
}

// The context if this is Invoke and output `index` may take `dtype`.
MF_KernelContext* UseForOutputData(MF_KernelContext* ctx, const char* fn,
                                   int32_t index, MF_DataType dtype) {
  MF_KernelContext* c = UseKernel(ctx, fn);
  if (c == nullptr) return nullptr;
  if (c->phase != Phase::kInvoke) {
    c->Misuse(fn, "output data may only be requested from Invoke");
    return nullptr;
  }
  if (!CheckIndex(c, fn, "output", index, c->output_types.size()) ||
      !CheckDataType(c, fn, c->output_types[index], dtype)) {
    return nullptr;
  }
  return c;
}

void* KernelAllocateOutput(MF_KernelContext* ctx, int32_t index,
                           MF_DataType dtype, const int64_t* dims,
                           int32_t num_dims) {
  constexpr char fn[] = "KernelContext_AllocateOutput";
  MF_KernelContext* c = UseForOutputData(ctx, fn, index, dtype);
  TensorShape shape;
  if (c == nullptr || !CheckOutputUnallocated(c, fn, index) ||
      !BuildShape(c, fn, dims, num_dims, &shape)) {
    return nullptr;
  }
  const std::optional<TensorShape>& set = c->output_shapes[index];
  if (set.has_value() && *set != shape) {
    c->Misuse(fn, absl::StrCat("output ", index,
                               "'s shape must be the one SetOutputShape gave, ",
                               set->DebugString(), ", but got ",
                               shape.DebugString()));
    return nullptr;
  }
  return Allocate(c, fn, index, shape);
}

void* KernelOutputData(MF_KernelContext* ctx, int32_t index,
                       MF_DataType dtype) {
  constexpr char fn[] = "KernelContext_OutputData";
  MF_KernelContext* c = UseForOutputData(ctx, fn, index, dtype);
  if (c == nullptr) return nullptr;
  if (c->op_ctx->has_output(index)) {
    return DataOrEmpty(*c->op_ctx->mutable_output(index));
  }
  if (!c->output_shapes[index].has_value()) {
    c->Misuse(fn, absl::StrCat("output ", index,
                               " has no shape; set one with "
                               "KernelContext_SetOutputShape or use "
                               "KernelContext_AllocateOutput"));
    return nullptr;
  }
  return Allocate(c, fn, index, *c->output_shapes[index]);
}

void* KernelAllocateTemp(MF_KernelContext* ctx, MF_DataType dtype,
                         const int64_t* dims, int32_t num_dims) {
  constexpr char fn[] = "KernelContext_AllocateTemp";
  MF_KernelContext* c = UseKernel(ctx, fn);
  if (c == nullptr) return nullptr;
  const DataType type = static_cast<DataType>(dtype);
  if (!DataTypeIsValid(type) || !DataTypeCanUseMemcpy(type)) {
    c->Misuse(fn, absl::StrCat("dtype must be a numeric or bool type, but "
                               "got ",
                               DataTypeIsValid(type)
                                   ? DataTypeString(type)
                                   : absl::StrCat("invalid type ", dtype)));
    return nullptr;
  }
  TensorShape shape;
  if (!BuildShape(c, fn, dims, num_dims, &shape)) return nullptr;
  if (c->phase == Phase::kShapeInference) {
    c->wanted_run_time_data = true;
    return nullptr;
  }
  Tensor temp;
  Status s = c->op_ctx->allocate_temp(type, shape, &temp);
  if (!s.ok()) {
    c->Record(s);
    return nullptr;
  }
  c->temps.push_back(std::move(temp));
  return DataOrEmpty(c->temps.back());
}

void KernelSetError(MF_KernelContext* ctx, MF_Code code, const char* message) {
  MF_KernelContext* c = UseKernel(ctx, "KernelContext_SetError");
  if (c == nullptr) return;
  c->Record(Status(ToStatusCode(code),
                   message == nullptr ? "(no message)" : message));
}

// ---- The tables ------------------------------------------------------------

const MF_PluginApi* GetApi(MF_PluginRegistrar* registrar, uint32_t version);

MF_PluginApi MakeApi() {
  MF_PluginApi api;
  std::memset(&api, 0, sizeof(api));
  api.api_version = MF_PLUGIN_API_VERSION;
  api.struct_size = sizeof(MF_PluginApi);
  api.minflow_version = MINFLOW_VERSION;

  api.OperatorCreate = OperatorCreate;
  api.OperatorAddInput = OperatorAddInput;
  api.OperatorAddOutput = OperatorAddOutput;
  api.OperatorAddAttr = OperatorAddAttr;
  api.OperatorSetDoc = OperatorSetDoc;
  api.OperatorSetUserData = OperatorSetUserData;
  api.OperatorSetInit = OperatorSetInit;
  api.OperatorSetFree = OperatorSetFree;
  api.OperatorSetPrepare = OperatorSetPrepare;
  api.OperatorSetInvoke = OperatorSetInvoke;
  api.OperatorSetShapeInference = OperatorSetShapeInference;
  api.RegisterOperator = RegisterOperator;
  api.OperatorDelete = OperatorDelete;
  api.RegistrarSetError = RegistrarSetError;

  api.InitContext_NodeName = InitNodeName;
  api.InitContext_NumInputs = InitNumInputs;
  api.InitContext_NumOutputs = InitNumOutputs;
  api.InitContext_InputDataType = InitInputDataType;
  api.InitContext_OutputDataType = InitOutputDataType;
  api.InitContext_HasAttr = InitHasAttr;
  api.InitContext_GetAttrInt = InitGetAttrInt;
  api.InitContext_GetAttrFloat = InitGetAttrFloat;
  api.InitContext_GetAttrBool = InitGetAttrBool;
  api.InitContext_GetAttrType = InitGetAttrType;
  api.InitContext_GetAttrString = InitGetAttrString;
  api.InitContext_GetAttrIntList = InitGetAttrIntList;
  api.InitContext_SetError = InitSetError;

  api.KernelContext_NodeName = KernelNodeName;
  api.KernelContext_IsShapeInference = KernelIsShapeInference;
  api.KernelContext_NumInputs = KernelNumInputs;
  api.KernelContext_NumOutputs = KernelNumOutputs;
  api.KernelContext_InputDataType = KernelInputDataType;
  api.KernelContext_InputNumDims = KernelInputNumDims;
  api.KernelContext_InputDim = KernelInputDim;
  api.KernelContext_InputNumElements = KernelInputNumElements;
  api.KernelContext_InputData = KernelInputData;
  api.KernelContext_OutputDataType = KernelOutputDataType;
  api.KernelContext_SetOutputShape = KernelSetOutputShape;
  api.KernelContext_AllocateOutput = KernelAllocateOutput;
  api.KernelContext_OutputData = KernelOutputData;
  api.KernelContext_AllocateTemp = KernelAllocateTemp;
  api.KernelContext_SetError = KernelSetError;
  return api;
}

const MF_PluginApi* GetApi(MF_PluginRegistrar* registrar, uint32_t version) {
  MF_PluginRegistrar* r = UseRegistrar(registrar, "GetApi");
  if (r == nullptr) return nullptr;
  if (version < MF_PLUGIN_API_MIN_VERSION || version > MF_PLUGIN_API_VERSION) {
    r->Record(errors::FailedPrecondition(
        r->description, " requires plugin API version ", version,
        ", but this minflow (", MINFLOW_VERSION,
        ") serves plugin API versions ", MF_PLUGIN_API_MIN_VERSION, " to ",
        MF_PLUGIN_API_VERSION,
        "; rebuild the plugin against this minflow's "
        "minflow/c/kernel_plugin.h"));
    return nullptr;
  }
  r->api_version = version;
  return PluginApi();
}

}  // namespace

const MF_PluginApi* PluginApi() {
  static const MF_PluginApi api = MakeApi();
  return &api;
}

const MF_PluginApiBase* PluginApiBase() {
  static const MF_PluginApiBase base = {MF_PLUGIN_API_VERSION,
                                        MF_PLUGIN_API_MIN_VERSION, GetApi};
  return &base;
}

}  // namespace c_plugin
}  // namespace minflow
