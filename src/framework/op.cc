#include "minflow/framework/op.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "google/protobuf/text_format.h"
#include "minflow/core/close_names.h"
#include "minflow/core/logging.h"
#include "minflow/framework/op_def_util.h"
#include "minflow/framework/selective_registration.h"
#include "minflow/op_def.pb.h"

namespace minflow {
namespace {

constexpr char kDefaultOwner[] = "minflow";

// The innermost ScopedOwner's owner; empty means kDefaultOwner.
// Thread-local because a plugin's static initialisers run on the thread
// that loads it.
std::string& TlsOwner() {
  thread_local std::string owner;
  return owner;
}

using RegistrationMap =
    absl::flat_hash_map<std::string, std::unique_ptr<OpRegistrationData>>;

// Runs one registration's factory into `data` and checks the result: a valid
// OpDef whose name is neither in `registered` nor in `batch` (ops accepted
// earlier in the same ProcessRegistrations() call). Sets *valid to that
// verdict; the watcher, if any, has the last word. A failure is prefixed
// with the op and its owner. An op a selective build leaves out is OK and
// not valid: nothing registers, nothing fails.
Status CheckRegistration(const OpRegistry::OpRegistrationDataFactory& factory,
                         const std::string& owner,
                         const RegistrationMap& registered,
                         const RegistrationMap& batch,
                         const OpRegistry::Watcher& watcher,
                         OpRegistrationData* data, bool* valid) {
  Status s = factory(data);
  const std::string name = data->op_def.name();
  // A selective build leaves out what its graphs do not need, silently.
  if (s.ok() && !OpIsSelected(name)) {
    *valid = false;
    return OkStatus();
  }
  if (s.ok()) s = ValidateOpDef(data->op_def);
  if (s.ok()) {
    for (const RegistrationMap* map : {&registered, &batch}) {
      const auto it = map->find(name);
      if (it == map->end()) continue;
      s = errors::AlreadyExists(
          "Op with name ", name, " is already registered by '",
          it->second->owner, "'; a second registration came from '", owner,
          "'");
      break;
    }
  }
  *valid = s.ok();
  if (watcher) s = watcher(s, data->op_def);
  if (!s.ok()) {
    s = errors::Prefix(s, "Registration of op '", name, "' from '", owner,
                       "' failed: ");
  }
  return s;
}

}  // namespace

OpRegistryInterface::~OpRegistryInterface() = default;

Status OpRegistryInterface::LookUpOpDef(absl::string_view op_type_name,
                                        const OpDef** op_def) const {
  *op_def = nullptr;
  const OpRegistrationData* op_reg_data = nullptr;
  MF_RETURN_IF_ERROR(LookUp(op_type_name, &op_reg_data));
  *op_def = &op_reg_data->op_def;
  return OkStatus();
}

OpRegistry::ScopedOwner::ScopedOwner(std::string owner)
    : previous_(TlsOwner()) {
  TlsOwner() = std::move(owner);
}

OpRegistry::ScopedOwner::~ScopedOwner() { TlsOwner() = std::move(previous_); }

std::string OpRegistry::CurrentOwner() {
  const std::string& owner = TlsOwner();
  return owner.empty() ? kDefaultOwner : owner;
}

OpRegistry::OpRegistry() = default;
OpRegistry::~OpRegistry() = default;

OpRegistry* OpRegistry::Global() {
  // Leaked on purpose: static destructors of other objects may still look
  // ops up at exit.
  static OpRegistry* const global = new OpRegistry;
  return global;
}

void OpRegistry::Register(const OpRegistrationDataFactory& op_data_factory) {
  absl::MutexLock lock(&mu_);
  deferred_.push_back({op_data_factory, CurrentOwner()});
  // Once the registry is in use, later registrations (ops defined in a
  // test body, say) are processed at once so errors show up immediately.
  if (started_ && !deferring_) CallDeferred().IgnoreError();
  UpdatePending();
}

void OpRegistry::UpdatePending() const {
  pending_.store(!started_ || (!deferring_ && !deferred_.empty()),
                 std::memory_order_release);
}

void OpRegistry::ProcessPendingIfAny() const {
  if (!pending_.load(std::memory_order_acquire)) return;
  absl::MutexLock lock(&mu_);
  started_ = true;
  if (!deferring_) CallDeferred().IgnoreError();
  UpdatePending();
}

Status OpRegistry::CallDeferred() const {
  Status first_error;
  std::vector<Deferred> queue;
  queue.swap(deferred_);
  for (const Deferred& deferred : queue) {
    Status s = RegisterAlreadyLocked(deferred);
    if (!s.ok() && first_error.ok()) first_error = s;
  }
  return first_error;
}

Status OpRegistry::RegisterAlreadyLocked(const Deferred& deferred) const {
  static const RegistrationMap* const no_batch = new RegistrationMap;
  auto op_reg_data = std::make_unique<OpRegistrationData>();
  bool valid = false;
  const Status s =
      CheckRegistration(deferred.factory, deferred.owner, registry_, *no_batch,
                        watcher_, op_reg_data.get(), &valid);
  const std::string name = op_reg_data->op_def.name();
  if (!s.ok()) {
    MF_LOG(ERROR) << s.message();
    errors_.push_back({name, deferred.owner, s});
    return s;
  }
  // A failure the watcher excused (say, a library loaded twice) still
  // registers nothing.
  if (!valid) return OkStatus();
  op_reg_data->owner = deferred.owner;
  registry_.emplace(name, std::move(op_reg_data));
  return OkStatus();
}

std::string OpRegistry::NotRegisteredMessage(
    absl::string_view op_type_name) const {
  std::vector<absl::string_view> names;
  names.reserve(registry_.size());
  for (const auto& entry : registry_) names.push_back(entry.first);
  std::string message =
      absl::StrCat("Op type not registered '", op_type_name,
                   "' in this process.", DidYouMean(op_type_name, names));
  absl::StrAppend(&message,
                  " Make sure the op is registered in the binary running "
                  "this graph; if it comes from a custom-op library, load "
                  "that plugin library before using the op.");
  return message;
}

Status OpRegistry::LookUp(absl::string_view op_type_name,
                          const OpRegistrationData** op_reg_data) const {
  ProcessPendingIfAny();
  absl::ReaderMutexLock lock(&mu_);
  const auto it = registry_.find(op_type_name);
  if (it != registry_.end()) {
    *op_reg_data = it->second.get();
    return OkStatus();
  }
  *op_reg_data = nullptr;
  return errors::NotFound(NotRegisteredMessage(op_type_name));
}

const OpRegistrationData* OpRegistry::LookUp(
    absl::string_view op_type_name) const {
  ProcessPendingIfAny();
  absl::ReaderMutexLock lock(&mu_);
  const auto it = registry_.find(op_type_name);
  return it == registry_.end() ? nullptr : it->second.get();
}

std::vector<const OpRegistrationData*> OpRegistry::GetRegistrations() const {
  ProcessPendingIfAny();
  std::vector<const OpRegistrationData*> out;
  {
    absl::ReaderMutexLock lock(&mu_);
    out.reserve(registry_.size());
    for (const auto& entry : registry_) out.push_back(entry.second.get());
  }
  std::sort(out.begin(), out.end(),
            [](const OpRegistrationData* a, const OpRegistrationData* b) {
              return a->op_def.name() < b->op_def.name();
            });
  return out;
}

void OpRegistry::GetRegisteredOps(std::vector<OpDef>* op_defs) const {
  for (const OpRegistrationData* data : GetRegistrations()) {
    op_defs->push_back(data->op_def);
  }
}

OpList OpRegistry::GetRegisteredOps() const {
  OpList ops;
  Export(/*include_internal=*/true, &ops);
  return ops;
}

void OpRegistry::Export(bool include_internal, OpList* ops) const {
  ops->Clear();
  for (const OpRegistrationData* data : GetRegistrations()) {
    if (include_internal || !absl::StartsWith(data->op_def.name(), "_")) {
      *ops->add_op() = data->op_def;
    }
  }
}

std::string OpRegistry::ExportText(bool include_internal) const {
  OpList ops;
  Export(include_internal, &ops);
  std::string text;
  google::protobuf::TextFormat::PrintToString(ops, &text);
  return text;
}

std::string OpRegistry::DebugString(bool include_internal) const {
  OpList ops;
  Export(include_internal, &ops);
  std::string out;
  for (const OpDef& op : ops.op())
    absl::StrAppend(&out, SummarizeOpDef(op), "\n");
  return out;
}

std::vector<OpRegistrationError> OpRegistry::registration_errors() const {
  ProcessPendingIfAny();
  absl::ReaderMutexLock lock(&mu_);
  return errors_;
}

Status OpRegistry::SetWatcher(const Watcher& watcher) {
  absl::MutexLock lock(&mu_);
  if (watcher_ != nullptr && watcher != nullptr) {
    return errors::AlreadyExists(
        "Cannot set a new op registry watcher while one is installed");
  }
  watcher_ = watcher;
  return OkStatus();
}

void OpRegistry::DeferRegistrations() {
  absl::MutexLock lock(&mu_);
  // What was queued before is processed now; only later registrations wait.
  if (started_ && !deferring_) CallDeferred().IgnoreError();
  deferring_ = true;
  UpdatePending();
}

Status OpRegistry::ProcessRegistrations() const {
  absl::MutexLock lock(&mu_);
  started_ = true;
  deferring_ = false;
  std::vector<Deferred> queue;
  queue.swap(deferred_);
  // One batch, all or nothing: a plugin library that registers one bad op
  // must leave none of its ops behind. Every failure is still recorded.
  RegistrationMap batch;
  Status first_error;
  for (const Deferred& deferred : queue) {
    auto op_reg_data = std::make_unique<OpRegistrationData>();
    bool valid = false;
    const Status s =
        CheckRegistration(deferred.factory, deferred.owner, registry_, batch,
                          watcher_, op_reg_data.get(), &valid);
    const std::string name = op_reg_data->op_def.name();
    if (!s.ok()) {
      MF_LOG(ERROR) << s.message();
      errors_.push_back({name, deferred.owner, s});
      if (first_error.ok()) first_error = s;
      continue;
    }
    if (!valid) continue;
    op_reg_data->owner = deferred.owner;
    batch.emplace(name, std::move(op_reg_data));
  }
  if (first_error.ok()) {
    for (auto& entry : batch) registry_.insert(std::move(entry));
  }
  UpdatePending();
  return first_error;
}

void OpRegistry::ClearDeferredRegistrations() {
  absl::MutexLock lock(&mu_);
  deferred_.clear();
  UpdatePending();
}

OpListOpRegistry::OpListOpRegistry(const OpList* op_list) {
  index_.reserve(op_list->op_size());
  for (const OpDef& op_def : op_list->op()) {
    auto data = std::make_unique<OpRegistrationData>(op_def);
    data->owner = "op list";
    index_.emplace(op_def.name(), std::move(data));
  }
}

OpListOpRegistry::~OpListOpRegistry() = default;

Status OpListOpRegistry::LookUp(absl::string_view op_type_name,
                                const OpRegistrationData** op_reg_data) const {
  *op_reg_data = LookUp(op_type_name);
  if (*op_reg_data == nullptr) {
    return errors::NotFound("Op type not registered '", op_type_name,
                            "' in the op list.");
  }
  return OkStatus();
}

const OpRegistrationData* OpListOpRegistry::LookUp(
    absl::string_view op_type_name) const {
  const auto it = index_.find(op_type_name);
  return it == index_.end() ? nullptr : it->second.get();
}

namespace register_op {

OpDefBuilderReceiver::OpDefBuilderReceiver(const OpDefBuilder& builder) {
  OpRegistry::Global()->Register(
      [builder](OpRegistrationData* op_reg_data) -> Status {
        return builder.Finalize(op_reg_data);
      });
}

}  // namespace register_op
}  // namespace minflow
