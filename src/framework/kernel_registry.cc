#include "minflow/framework/kernel_registry.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "minflow/core/logging.h"
#include "minflow/framework/attr_value_util.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_def_util.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/selective_registration.h"
#include "minflow/kernel_def.pb.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"
#include "src/framework/kernel_staging.h"

namespace minflow {
namespace {

// See Note [Lazy kernel validation].
enum class Validity { kUnchecked, kValid, kInvalid };

struct KernelRegistration {
  KernelRegistration(KernelDef d, absl::string_view class_name,
                     std::unique_ptr<kernel_factory::OpKernelFactory> f,
                     std::string registered_by)
      : def(std::move(d)),
        kernel_class_name(class_name),
        factory(std::move(f)),
        owner(std::move(registered_by)) {}

  const KernelDef def;
  const std::string kernel_class_name;
  const std::unique_ptr<kernel_factory::OpKernelFactory> factory;
  // "minflow", or the library that was loading (OpRegistry::CurrentOwner()).
  const std::string owner;
  // Written under the registry's writer lock, read under its reader lock.
  Validity validity = Validity::kUnchecked;
  Status error;
};

class KernelRegistry {
 public:
  static KernelRegistry* Global() {
    static KernelRegistry* registry = new KernelRegistry;
    return registry;
  }

  void Add(std::unique_ptr<KernelRegistration> reg) {
    absl::MutexLock lock(&mu);
    if (staging) {
      staged.push_back(std::move(reg));
      return;
    }
    AddLocked(std::move(reg));
  }

  void AddLocked(std::unique_ptr<KernelRegistration> reg)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    in_order.push_back(reg.get());
    by_op[reg->def.op()].push_back(std::move(reg));
    num_unchecked.fetch_add(1, std::memory_order_release);
  }

  absl::Mutex mu;
  // Registrations are never removed, so pointers to them stay valid.
  absl::flat_hash_map<std::string,
                      std::vector<std::unique_ptr<KernelRegistration>>>
      by_op ABSL_GUARDED_BY(mu);
  std::vector<KernelRegistration*> in_order ABSL_GUARDED_BY(mu);
  // See Note [Staged kernel registrations].
  bool staging ABSL_GUARDED_BY(mu) = false;
  std::vector<std::unique_ptr<KernelRegistration>> staged ABSL_GUARDED_BY(mu);
  // Registrations not yet validated; lets lookups skip taking the writer
  // lock in the steady state.
  std::atomic<int> num_unchecked{0};
};

std::string ShortDef(const KernelDef& def) { return def.ShortDebugString(); }

// The attr kinds a constraint's allowed values admit, e.g. {"type",
// "list(type)"} for a TypeConstraint.
Status ConstraintKind(const KernelDef& def,
                      const KernelDef::AttrConstraint& constraint,
                      AttrValue::ValueCase* kind) {
  const auto& list = constraint.allowed_values().list();
  int kinds = 0;
  if (list.type_size() > 0) {
    *kind = AttrValue::kType;
    ++kinds;
  }
  if (list.s_size() > 0) {
    *kind = AttrValue::kS;
    ++kinds;
  }
  if (list.i_size() > 0) {
    *kind = AttrValue::kI;
    ++kinds;
  }
  if (list.b_size() > 0) {
    *kind = AttrValue::kB;
    ++kinds;
  }
  if (kinds == 0) {
    return errors::Unimplemented(
        "KernelDef '", ShortDef(def), "' has constraint on attr '",
        constraint.name(), "' with unsupported type: ",
        SummarizeAttrValue(constraint.allowed_values()));
  }
  if (kinds > 1) {
    return errors::InvalidArgument(
        "KernelDef '", ShortDef(def), "' has constraint on attr '",
        constraint.name(), "' with more than one value type: ",
        SummarizeAttrValue(constraint.allowed_values()));
  }
  return OkStatus();
}

const char* KindName(AttrValue::ValueCase kind) {
  switch (kind) {
    case AttrValue::kType:
      return "type";
    case AttrValue::kS:
      return "string";
    case AttrValue::kI:
      return "int";
    case AttrValue::kB:
      return "bool";
    default:
      return "?";
  }
}

bool FindArg(absl::string_view name,
             const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args) {
  for (const auto& arg : args) {
    if (arg.name() == name) return true;
  }
  return false;
}

// Checks one registration against its op (Note [Lazy kernel validation]).
Status ValidateRegistration(const KernelDef& def, const OpDef& op_def) {
  if (def.device_type().empty()) {
    return errors::InvalidArgument("OpKernel ('", ShortDef(def),
                                   "') has no device type: add .Device(...)");
  }
  for (const auto& constraint : def.constraint()) {
    AttrValue::ValueCase kind = AttrValue::VALUE_NOT_SET;
    MF_RETURN_IF_ERROR(ConstraintKind(def, constraint, &kind));
    const OpDef::AttrDef* attr = FindAttr(constraint.name(), op_def);
    if (attr == nullptr) {
      return errors::InvalidArgument(
          "OpKernel ('", ShortDef(def), "') has a constraint on attr '",
          constraint.name(), "', which op '", op_def.name(), "' does not have");
    }
    const std::string single = KindName(kind);
    if (attr->type() != single &&
        attr->type() != absl::StrCat("list(", single, ")")) {
      return errors::InvalidArgument(
          "OpKernel ('", ShortDef(def), "') has a ",
          kind == AttrValue::kType ? "type" : single, " constraint on attr '",
          constraint.name(), "' of op '", op_def.name(), "', but '",
          constraint.name(), "' has type '", attr->type(), "', not '", single,
          "' or 'list(", single, ")'");
    }
  }
  for (const std::string& arg : def.host_memory_arg()) {
    if (!FindArg(arg, op_def.input_arg()) &&
        !FindArg(arg, op_def.output_arg())) {
      return errors::InvalidArgument(
          "OpKernel ('", ShortDef(def), "'): HostMemory arg '", arg,
          "' not found in OpDef: ", SummarizeOpDef(op_def));
    }
  }
  return OkStatus();
}

// Validates the unchecked registrations of `op_name` against `op_def` (which
// the caller looked up before taking any kernel-registry lock).
void ValidatePending(KernelRegistry* registry, absl::string_view op_name,
                     const OpDef* op_def) {
  if (op_def == nullptr ||
      registry->num_unchecked.load(std::memory_order_acquire) == 0) {
    return;
  }
  absl::MutexLock lock(&registry->mu);
  auto it = registry->by_op.find(op_name);
  if (it == registry->by_op.end()) return;
  for (auto& reg : it->second) {
    if (reg->validity != Validity::kUnchecked) continue;
    reg->error = ValidateRegistration(reg->def, *op_def);
    reg->validity = reg->error.ok() ? Validity::kValid : Validity::kInvalid;
    registry->num_unchecked.fetch_sub(1, std::memory_order_acq_rel);
    if (!reg->error.ok()) {
      MF_LOG(ERROR) << "Invalid kernel registration (" << reg->kernel_class_name
                    << "): " << reg->error.message();
    }
  }
}

bool InList(const AttrValue& allowed, const AttrValue& value,
            AttrValue::ValueCase kind) {
  const auto& list = allowed.list();
  switch (kind) {
    case AttrValue::kType:
      return std::find(list.type().begin(), list.type().end(), value.type()) !=
             list.type().end();
    case AttrValue::kS:
      return std::find(list.s().begin(), list.s().end(), value.s()) !=
             list.s().end();
    case AttrValue::kI:
      return std::find(list.i().begin(), list.i().end(), value.i()) !=
             list.i().end();
    case AttrValue::kB:
      return std::find(list.b().begin(), list.b().end(), value.b()) !=
             list.b().end();
    default:
      return false;
  }
}

// True when `list` has no values of a kind other than `kind` (an empty
// list holds only values of every kind).
bool ListHoldsOnly(const AttrValue::ListValue& list,
                   AttrValue::ValueCase kind) {
  const int others = (kind == AttrValue::kType ? 0 : list.type_size()) +
                     (kind == AttrValue::kS ? 0 : list.s_size()) +
                     (kind == AttrValue::kI ? 0 : list.i_size()) +
                     (kind == AttrValue::kB ? 0 : list.b_size()) +
                     list.f_size() + list.shape_size() + list.tensor_size() +
                     list.func_size();
  return others == 0;
}

template <typename Values, typename Allowed>
bool AllIn(const Values& values, const Allowed& allowed) {
  for (const auto& v : values) {
    if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
      return false;
    }
  }
  return true;
}

bool ListElementsAllowed(const AttrValue& allowed,
                         const AttrValue::ListValue& list,
                         AttrValue::ValueCase kind) {
  const auto& ok = allowed.list();
  switch (kind) {
    case AttrValue::kType:
      return AllIn(list.type(), ok.type());
    case AttrValue::kS:
      return AllIn(list.s(), ok.s());
    case AttrValue::kI:
      return AllIn(list.i(), ok.i());
    case AttrValue::kB:
      return AllIn(list.b(), ok.b());
    default:
      return false;
  }
}

// Whether every constraint of `def` holds for `attrs`. An attr missing from
// the node takes the op's default when `op_def` is known.
Status KernelAttrsMatch(const KernelDef& def, const AttrSlice& attrs,
                        const OpDef* op_def, bool* match) {
  *match = false;
  for (const auto& constraint : def.constraint()) {
    AttrValue::ValueCase kind = AttrValue::VALUE_NOT_SET;
    MF_RETURN_IF_ERROR(ConstraintKind(def, constraint, &kind));
    const AttrValue* value = attrs.Find(constraint.name());
    if (value == nullptr && op_def != nullptr) {
      const OpDef::AttrDef* attr = FindAttr(constraint.name(), *op_def);
      if (attr != nullptr && attr->has_default_value()) {
        value = &attr->default_value();
      }
    }
    if (value == nullptr) {
      return errors::InvalidArgument(
          "OpKernel '", def.op(), "' has constraint on attr '",
          constraint.name(), "' not in NodeDef '", attrs.SummarizeNode(),
          "', KernelDef: '", ShortDef(def), "'");
    }
    // Compares value cases rather than type names: this runs for every
    // candidate kernel of every node, and must not allocate.
    if (value->value_case() == kind) {
      if (!InList(constraint.allowed_values(), *value, kind)) return OkStatus();
    } else if (value->value_case() == AttrValue::kList &&
               ListHoldsOnly(value->list(), kind)) {
      if (!ListElementsAllowed(constraint.allowed_values(), value->list(),
                               kind)) {
        return OkStatus();
      }
    } else {
      const char* single = KindName(kind);
      return errors::InvalidArgument(
          "KernelDef '", ShortDef(def), "' has constraint on attr '",
          constraint.name(), "' that has value '", SummarizeAttrValue(*value),
          "' that does not have type '", single, "' or 'list(", single,
          ")' in NodeDef '", attrs.SummarizeNode(), "'");
    }
  }
  *match = true;
  return OkStatus();
}

const std::string& KernelLabel(const AttrSlice& attrs) {
  static const std::string* empty = new std::string();
  const AttrValue* v = attrs.Find("_kernel");
  if (v == nullptr || v->value_case() != AttrValue::kS) return *empty;
  return v->s();
}

// The registration for (node, device_type), or null with
// *was_attr_mismatch telling whether some registration failed only on
// attrs. `op_def` may be null (op unknown).
Status FindKernelRegistration(const DeviceType& device_type,
                              const NodeDef& node_def, const OpDef* op_def,
                              const KernelRegistration** reg,
                              bool* was_attr_mismatch) {
  *reg = nullptr;
  *was_attr_mismatch = false;
  KernelRegistry* registry = KernelRegistry::Global();
  ValidatePending(registry, node_def.op(), op_def);

  const AttrSlice attrs(node_def);
  const std::string& label = KernelLabel(attrs);
  absl::ReaderMutexLock lock(&registry->mu);
  auto it = registry->by_op.find(node_def.op());
  if (it == registry->by_op.end()) return OkStatus();

  // The device's own registrations first; DEVICE_DEFAULT ones only when
  // none of those match.
  const std::string* devices[] = {&device_type, nullptr};
  const std::string default_device = DEVICE_DEFAULT;
  if (device_type != DEVICE_DEFAULT) devices[1] = &default_device;
  for (const std::string* device : devices) {
    if (device == nullptr || *reg != nullptr) break;
    // A tie matters only at the highest matching priority, wherever in the
    // list the winner appears.
    const KernelRegistration* tied = nullptr;
    for (const auto& candidate : it->second) {
      const KernelDef& def = candidate->def;
      if (def.device_type() != *device || def.label() != label) continue;
      if (candidate->validity == Validity::kInvalid) {
        return errors::InvalidArgument(
            candidate->error.message(), " (registration of ",
            candidate->kernel_class_name, ", found looking up node ",
            FormatNodeDefForError(node_def), ")");
      }
      bool match = false;
      MF_RETURN_IF_ERROR(KernelAttrsMatch(def, attrs, op_def, &match));
      if (!match) {
        *was_attr_mismatch = true;
        continue;
      }
      if (*reg == nullptr || def.priority() > (*reg)->def.priority()) {
        *reg = candidate.get();
        tied = nullptr;
      } else if (def.priority() == (*reg)->def.priority()) {
        tied = candidate.get();
      }
    }
    if (tied != nullptr) {
      const KernelRegistration* first = *reg;
      *reg = nullptr;
      return errors::InvalidArgument(
          "Multiple OpKernel registrations match NodeDef at the same "
          "priority '",
          FormatNodeDefForError(node_def), "': '", ShortDef(first->def),
          "' and '", ShortDef(tied->def), "'");
    }
  }
  return OkStatus();
}

const OpDef* GlobalOpDef(absl::string_view op) {
  const OpRegistrationData* data = OpRegistry::Global()->LookUp(op);
  return data == nullptr ? nullptr : &data->op_def;
}

Status NoKernelError(const DeviceType& device_type, const NodeDef& node_def,
                     bool was_attr_mismatch) {
  Status s = errors::NotFound(
      "No registered '", node_def.op(), "' OpKernel for '", device_type,
      "' devices compatible with node ", FormatNodeDefForError(node_def));
  if (was_attr_mismatch) {
    s = errors::AppendToMessage(
        s, " (OpKernel was found, but attributes didn't match) ",
        "Requested Attributes: ", SummarizeAttrs(node_def));
  }
  return errors::AppendToMessage(
      s, ".  Registered:", KernelsRegisteredForOp(node_def.op()));
}

void FillMemoryTypes(const DeviceType& device_type, const KernelDef* kdef,
                     const NodeDef& node_def, const OpDef& op_def,
                     DataTypeSlice inputs, DataTypeSlice outputs,
                     MemoryTypeVector* in_mem, MemoryTypeVector* out_mem,
                     Status* status) {
  in_mem->assign(inputs.size(), DEVICE_MEMORY);
  out_mem->assign(outputs.size(), DEVICE_MEMORY);
  if (kdef != nullptr && kdef->host_memory_arg_size() > 0) {
    NameRangeMap in_ranges;
    NameRangeMap out_ranges;
    *status =
        NameRangesForNode(AttrSlice(node_def), op_def, &in_ranges, &out_ranges);
    if (!status->ok()) return;
    for (const std::string& arg : kdef->host_memory_arg()) {
      auto mark = [&arg](const NameRangeMap& ranges, MemoryTypeVector* mem) {
        auto it = ranges.find(arg);
        if (it == ranges.end()) return;
        for (int i = it->second.first; i < it->second.second; ++i) {
          (*mem)[i] = HOST_MEMORY;
        }
      };
      mark(in_ranges, in_mem);
      mark(out_ranges, out_mem);
    }
  }
  if (device_type != DEVICE_CPU) {
    // As in TensorFlow: host objects (strings, resource handles, variants)
    // never live in accelerator memory, and neither do int32 tensors, which
    // are almost always shapes, sizes and indices that the host reads.
    auto always_on_host = [](DataType t) {
      t = BaseType(t);
      return t == DT_STRING || t == DT_INT32 || t == DT_RESOURCE ||
             t == DT_VARIANT;
    };
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (always_on_host(inputs[i])) (*in_mem)[i] = HOST_MEMORY;
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (always_on_host(outputs[i])) (*out_mem)[i] = HOST_MEMORY;
    }
  }
}

class FunctionPointerFactory : public kernel_factory::OpKernelFactory {
 public:
  explicit FunctionPointerFactory(
      kernel_factory::OpKernelRegistrar::CreateFn fn)
      : fn_(fn) {}
  OpKernel* Create(OpKernelConstruction* context) override {
    return fn_(context);
  }

 private:
  const kernel_factory::OpKernelRegistrar::CreateFn fn_;
};

// Whether some value is allowed by both constraints.
bool AllowedValuesIntersect(const AttrValue& a, const AttrValue& b) {
  auto any_common = [](const auto& x, const auto& y) {
    for (const auto& v : x) {
      if (std::find(y.begin(), y.end(), v) != y.end()) return true;
    }
    return false;
  };
  const auto& x = a.list();
  const auto& y = b.list();
  return any_common(x.type(), y.type()) || any_common(x.s(), y.s()) ||
         any_common(x.i(), y.i()) || any_common(x.b(), y.b());
}

// Whether some node would match both registrations at the same priority,
// which makes FindKernelRegistration report a tie for it.
bool KernelsTie(const KernelDef& a, const KernelDef& b) {
  if (a.op() != b.op() || a.device_type() != b.device_type() ||
      a.label() != b.label() || a.priority() != b.priority()) {
    return false;
  }
  for (const auto& ca : a.constraint()) {
    for (const auto& cb : b.constraint()) {
      if (ca.name() == cb.name() &&
          !AllowedValuesIntersect(ca.allowed_values(), cb.allowed_values())) {
        return false;
      }
    }
  }
  return true;
}

std::string Describe(const KernelRegistration& reg) {
  return absl::StrCat("OpKernel ('", ShortDef(reg.def), "') (",
                      reg.kernel_class_name, " from '", reg.owner, "')");
}

}  // namespace

namespace kernel_factory {

OpKernelRegistrar::OpKernelRegistrar(const KernelDef* kernel_def,
                                     absl::string_view kernel_class_name,
                                     CreateFn create_fn)
    : OpKernelRegistrar(kernel_def, kernel_class_name,
                        std::make_unique<FunctionPointerFactory>(create_fn)) {}

OpKernelRegistrar::OpKernelRegistrar(const KernelDef* kernel_def,
                                     absl::string_view kernel_class_name,
                                     std::unique_ptr<OpKernelFactory> factory) {
  std::unique_ptr<const KernelDef> owned(kernel_def);
  // A selective build keeps only the kernels of the ops it keeps.
  if (!OpIsSelected(owned->op())) return;
  KernelRegistry::Global()->Add(std::make_unique<KernelRegistration>(
      *owned, kernel_class_name, std::move(factory),
      OpRegistry::CurrentOwner()));
}

}  // namespace kernel_factory

Status FindKernelDef(const DeviceType& device_type, const NodeDef& node_def,
                     const KernelDef** def, std::string* kernel_class_name) {
  const KernelRegistration* reg = nullptr;
  bool was_attr_mismatch = false;
  MF_RETURN_IF_ERROR(FindKernelRegistration(device_type, node_def,
                                            GlobalOpDef(node_def.op()), &reg,
                                            &was_attr_mismatch));
  if (reg == nullptr) {
    return NoKernelError(device_type, node_def, was_attr_mismatch);
  }
  if (def != nullptr) *def = &reg->def;
  if (kernel_class_name != nullptr) *kernel_class_name = reg->kernel_class_name;
  return OkStatus();
}

bool KernelDefAvailable(const DeviceType& device_type,
                        const NodeDef& node_def) {
  const KernelRegistration* reg = nullptr;
  bool was_attr_mismatch = false;
  return FindKernelRegistration(device_type, node_def,
                                GlobalOpDef(node_def.op()), &reg,
                                &was_attr_mismatch)
             .ok() &&
         reg != nullptr;
}

Status SupportedDeviceTypesForNode(
    const std::vector<DeviceType>& prioritized_types, const NodeDef& node_def,
    PrioritizedDeviceTypeVector* device_types) {
  device_types->clear();
  const OpRegistrationData* op_reg = nullptr;
  MF_RETURN_IF_ERROR(OpRegistry::Global()->LookUp(node_def.op(), &op_reg));
  for (const DeviceType& type : prioritized_types) {
    const KernelRegistration* reg = nullptr;
    bool was_attr_mismatch = false;
    MF_RETURN_IF_ERROR(FindKernelRegistration(type, node_def, &op_reg->op_def,
                                              &reg, &was_attr_mismatch));
    if (reg != nullptr) device_types->emplace_back(type, reg->def.priority());
  }
  if (device_types->empty()) {
    MF_RETURN_IF_ERROR(ValidateNodeDef(node_def, op_reg->op_def));
  }
  std::stable_sort(
      device_types->begin(), device_types->end(),
      [](const auto& a, const auto& b) { return a.second > b.second; });
  return OkStatus();
}

Status CreateOpKernel(DeviceType device_type, DeviceBase* device,
                      Allocator* allocator, const NodeDef& node_def,
                      int graph_def_version,
                      std::unique_ptr<OpKernel>* kernel) {
  kernel->reset();
  const OpRegistrationData* op_reg = nullptr;
  Status s = OpRegistry::Global()->LookUp(node_def.op(), &op_reg);
  if (!s.ok()) {
    return errors::AppendToMessage(
        s, " for node: ", FormatNodeDefForError(node_def));
  }
  const OpDef& op_def = op_reg->op_def;
  // The kernel keeps its own copy of the node, with defaults filled in so
  // that GetAttr finds every attr the op declares.
  auto def = std::make_shared<NodeDef>(node_def);
  AddDefaultsToNodeDef(op_def, def.get());
  MF_RETURN_IF_ERROR(ValidateNodeDef(*def, op_def));
  DataTypeVector inputs;
  DataTypeVector outputs;
  MF_RETURN_IF_ERROR(InOutTypesForNode(*def, op_def, &inputs, &outputs));
  return CreateOpKernelForNode(std::move(device_type), device, allocator,
                               std::move(def), &op_def, inputs, outputs,
                               graph_def_version, {}, {}, kernel);
}

Status CreateOpKernelForNode(DeviceType device_type, DeviceBase* device,
                             Allocator* allocator,
                             std::shared_ptr<const NodeDef> def,
                             const OpDef* op_def, DataTypeSlice inputs,
                             DataTypeSlice outputs, int graph_def_version,
                             absl::Span<const PartialTensorShape> input_shapes,
                             absl::Span<const PartialTensorShape> output_shapes,
                             std::unique_ptr<OpKernel>* kernel) {
  kernel->reset();
  const KernelRegistration* reg = nullptr;
  bool was_attr_mismatch = false;
  Status s = FindKernelRegistration(device_type, *def, op_def, &reg,
                                    &was_attr_mismatch);
  if (!s.ok()) {
    return errors::AppendToMessage(s, " when instantiating ", def->op());
  }
  if (reg == nullptr)
    return NoKernelError(device_type, *def, was_attr_mismatch);

  MemoryTypeVector input_memory;
  MemoryTypeVector output_memory;
  FillMemoryTypes(device_type, &reg->def, *def, *op_def, inputs, outputs,
                  &input_memory, &output_memory, &s);
  MF_RETURN_IF_ERROR(s);
  if ((!input_shapes.empty() && input_shapes.size() != inputs.size()) ||
      (!output_shapes.empty() && output_shapes.size() != outputs.size())) {
    return errors::Internal(
        "CreateOpKernel: ", input_shapes.size(), " input and ",
        output_shapes.size(), " output shapes for node ",
        FormatNodeDefForError(*def), " with ", inputs.size(), " inputs and ",
        outputs.size(), " outputs");
  }

  Status status;
  OpKernelConstruction context(device_type, device, allocator, def, op_def,
                               inputs, input_memory, outputs, output_memory,
                               graph_def_version, &status, input_shapes,
                               output_shapes);
  std::unique_ptr<OpKernel> made(reg->factory->Create(&context));
  MF_RETURN_IF_ERROR(status);
  if (made == nullptr) {
    return errors::Internal("Kernel factory ", reg->kernel_class_name,
                            " returned no kernel for node ",
                            FormatNodeDefForError(*def));
  }
  *kernel = std::move(made);
  return OkStatus();
}

std::unique_ptr<OpKernel> CreateOpKernel(
    DeviceType device_type, DeviceBase* device, Allocator* allocator,
    const NodeDef& node_def, int graph_def_version, Status* status) {
  std::unique_ptr<OpKernel> kernel;
  *status = CreateOpKernel(std::move(device_type), device, allocator, node_def,
                           graph_def_version, &kernel);
  return kernel;
}

Status MemoryTypesForNode(const OpRegistryInterface* op_registry,
                          const DeviceType& device_type,
                          const NodeDef& node_def,
                          MemoryTypeVector* input_memory_types,
                          MemoryTypeVector* output_memory_types) {
  const OpDef* op_def = nullptr;
  MF_RETURN_IF_ERROR(op_registry->LookUpOpDef(node_def.op(), &op_def));
  DataTypeVector inputs;
  DataTypeVector outputs;
  MF_RETURN_IF_ERROR(InOutTypesForNode(node_def, *op_def, &inputs, &outputs));
  const KernelRegistration* reg = nullptr;
  bool was_attr_mismatch = false;
  // Without a kernel (or with a broken lookup) every arg takes the default.
  const Status found = FindKernelRegistration(device_type, node_def, op_def,
                                              &reg, &was_attr_mismatch);
  Status s;
  FillMemoryTypes(
      device_type, found.ok() && reg != nullptr ? &reg->def : nullptr, node_def,
      *op_def, inputs, outputs, input_memory_types, output_memory_types, &s);
  return s;
}

KernelList GetFilteredRegisteredKernels(
    const std::function<bool(const KernelDef&)>& predicate) {
  KernelRegistry* registry = KernelRegistry::Global();
  KernelList list;
  absl::ReaderMutexLock lock(&registry->mu);
  for (const KernelRegistration* reg : registry->in_order) {
    if (predicate(reg->def)) *list.add_kernel() = reg->def;
  }
  return list;
}

KernelList GetAllRegisteredKernels() {
  return GetFilteredRegisteredKernels([](const KernelDef&) { return true; });
}

KernelList GetRegisteredKernelsForOp(absl::string_view op_name) {
  KernelRegistry* registry = KernelRegistry::Global();
  KernelList list;
  absl::ReaderMutexLock lock(&registry->mu);
  auto it = registry->by_op.find(op_name);
  if (it == registry->by_op.end()) return list;
  for (const auto& reg : it->second) *list.add_kernel() = reg->def;
  return list;
}

std::string KernelsRegisteredForOp(absl::string_view op_name) {
  const KernelList list = GetRegisteredKernelsForOp(op_name);
  if (list.kernel_size() == 0) return "  <no registered kernels>\n";
  std::string out;
  for (const KernelDef& def : list.kernel()) {
    absl::StrAppend(&out, "  device='", def.device_type(), "'");
    if (!def.label().empty()) {
      absl::StrAppend(&out, "; label='", def.label(), "'");
    }
    for (const auto& constraint : def.constraint()) {
      absl::StrAppend(&out, "; ", constraint.name(), " in ",
                      SummarizeAttrValue(constraint.allowed_values()));
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

Status ValidateKernelRegistrations(const OpRegistryInterface& op_registry) {
  std::vector<std::string> problems;
  KernelRegistry* registry = KernelRegistry::Global();
  std::vector<std::pair<const KernelDef*, std::string>> regs;
  {
    absl::ReaderMutexLock lock(&registry->mu);
    for (const KernelRegistration* reg : registry->in_order) {
      regs.emplace_back(&reg->def, reg->kernel_class_name);
    }
  }
  // Checked outside the lock: LookUp may process pending op registrations.
  for (const auto& [def, class_name] : regs) {
    const OpDef* op_def = nullptr;
    if (!op_registry.LookUpOpDef(def->op(), &op_def).ok()) {
      problems.push_back(absl::StrCat("OpKernel ('", ShortDef(*def), "') (",
                                      class_name,
                                      ") for unknown op: ", def->op()));
      continue;
    }
    const Status s = ValidateRegistration(*def, *op_def);
    if (!s.ok()) {
      problems.push_back(absl::StrCat(s.message(), " (", class_name, ")"));
    }
  }
  if (problems.empty()) return OkStatus();
  return errors::InvalidArgument(problems.size(),
                                 " invalid kernel registration(s):\n  ",
                                 absl::StrJoin(problems, "\n  "));
}

std::vector<Status> KernelRegistrationErrors() {
  KernelRegistry* registry = KernelRegistry::Global();
  std::vector<std::string> ops;
  {
    absl::ReaderMutexLock lock(&registry->mu);
    for (const auto& [op, regs] : registry->by_op) ops.push_back(op);
  }
  for (const std::string& op : ops) {
    ValidatePending(registry, op, GlobalOpDef(op));
  }
  std::vector<Status> errors;
  absl::ReaderMutexLock lock(&registry->mu);
  for (const KernelRegistration* reg : registry->in_order) {
    if (reg->validity == Validity::kInvalid) errors.push_back(reg->error);
  }
  return errors;
}

namespace internal {

void StageKernelRegistrations() {
  KernelRegistry* registry = KernelRegistry::Global();
  absl::MutexLock lock(&registry->mu);
  MF_CHECK(!registry->staging) << "kernel registrations are already staged";
  registry->staging = true;
}

Status CheckStagedKernelRegistrations(const OpDef& op_def) {
  KernelRegistry* registry = KernelRegistry::Global();
  absl::MutexLock lock(&registry->mu);
  std::vector<std::string> problems;
  const auto registered = registry->by_op.find(op_def.name());
  for (size_t i = 0; i < registry->staged.size(); ++i) {
    const KernelRegistration& reg = *registry->staged[i];
    if (reg.def.op() != op_def.name()) continue;
    const Status s = ValidateRegistration(reg.def, op_def);
    if (!s.ok()) {
      problems.push_back(absl::StrCat(s.message(), " (", reg.kernel_class_name,
                                      " from '", reg.owner, "')"));
      continue;
    }
    std::vector<const KernelRegistration*> others;
    if (registered != registry->by_op.end()) {
      for (const auto& other : registered->second)
        others.push_back(other.get());
    }
    for (size_t j = 0; j < i; ++j) others.push_back(registry->staged[j].get());
    for (const KernelRegistration* other : others) {
      if (!KernelsTie(reg.def, other->def)) continue;
      problems.push_back(absl::StrCat(
          Describe(reg), " matches the same nodes at the same priority as ",
          Describe(*other),
          "; give one a label, a priority or narrower constraints"));
    }
  }
  if (problems.empty()) return OkStatus();
  return errors::InvalidArgument(absl::StrJoin(problems, "; "));
}

std::vector<std::string> StagedKernelOps() {
  KernelRegistry* registry = KernelRegistry::Global();
  absl::MutexLock lock(&registry->mu);
  std::vector<std::string> ops;
  for (const auto& reg : registry->staged) {
    if (std::find(ops.begin(), ops.end(), reg->def.op()) == ops.end()) {
      ops.push_back(reg->def.op());
    }
  }
  return ops;
}

KernelList CommitStagedKernelRegistrations() {
  KernelRegistry* registry = KernelRegistry::Global();
  absl::MutexLock lock(&registry->mu);
  KernelList added;
  for (auto& reg : registry->staged) {
    *added.add_kernel() = reg->def;
    registry->AddLocked(std::move(reg));
  }
  registry->staged.clear();
  registry->staging = false;
  return added;
}

void DiscardStagedKernelRegistrations() {
  KernelRegistry* registry = KernelRegistry::Global();
  absl::MutexLock lock(&registry->mu);
  registry->staged.clear();
  registry->staging = false;
}

}  // namespace internal
}  // namespace minflow
