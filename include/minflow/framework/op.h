// The op registry: every op minflow knows, built-in or from a plugin,
// declared once with REGISTER_OP and looked up by name.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "minflow/core/status.h"
#include "minflow/framework/op_def_builder.h"

namespace minflow {

class OpList;

// Anything that maps op names to registrations: the global OpRegistry, an
// OpListOpRegistry over an OpList, later a function library.
class OpRegistryInterface {
 public:
  virtual ~OpRegistryInterface();

  // Sets *op_reg_data and returns OK, or returns NotFound (the registration
  // pointer is then nullptr). Returned pointers stay valid as long as the
  // registry.
  virtual Status LookUp(absl::string_view op_type_name,
                        const OpRegistrationData** op_reg_data) const = 0;

  // LookUp, keeping only the OpDef.
  Status LookUpOpDef(absl::string_view op_type_name,
                     const OpDef** op_def) const;
};

// A registration that failed: the op never becomes usable, and the reason
// stays here for the program (and `minflow` at start-up) to report.
struct OpRegistrationError {
  std::string op_name;  // may be empty when the spec was too broken to name
  std::string owner;    // "minflow", or the plugin library being loaded
  Status status;        // names the op and the offending spec
};

// Note [Op registration]
// REGISTER_OP runs at static-initialisation time, before main() and in no
// particular order, so it only queues a factory (and who registered it: see
// ScopedOwner). The queue is processed on the first lookup or listing:
// each factory builds its OpRegistrationData, which must pass
// ValidateOpDef and must not reuse a registered name; failures are kept in
// registration_errors() and logged, and the op is left out. A plugin loader
// (LoadOpLibrary) brackets a library with DeferRegistrations(), ScopedOwner
// and ProcessRegistrations() (all or none) and a Watcher to learn its ops.
//
// Thread-safe: every method may be called concurrently. Registrations are
// never removed, so pointers handed out by LookUp stay valid.
class OpRegistry : public OpRegistryInterface {
 public:
  using OpRegistrationDataFactory = std::function<Status(OpRegistrationData*)>;
  // Called for each registration as it is processed, with the registration's
  // status (OK, or why it failed) and its OpDef; what it returns replaces
  // that status, so a watcher may veto an op or excuse a failure. Runs with
  // the registry locked: it must not call back into the registry.
  using Watcher = std::function<Status(const Status&, const OpDef&)>;

  OpRegistry();
  ~OpRegistry() override;
  OpRegistry(const OpRegistry&) = delete;
  OpRegistry& operator=(const OpRegistry&) = delete;

  // The process-wide registry that REGISTER_OP fills.
  static OpRegistry* Global();

  // Adds a registration with the current owner (see ScopedOwner): queued
  // until the registry is first read or while deferring, processed at once
  // otherwise.
  void Register(const OpRegistrationDataFactory& op_data_factory);

  // NotFound when `op_type_name` is not registered: "Op type not registered
  // 'Foo' in this process.", followed by close registered names, if any, and
  // a hint to load the plugin library that defines the op.
  Status LookUp(absl::string_view op_type_name,
                const OpRegistrationData** op_reg_data) const override;
  // nullptr when not registered.
  const OpRegistrationData* LookUp(absl::string_view op_type_name) const;

  // Every registered OpDef, sorted by name.
  void GetRegisteredOps(std::vector<OpDef>* op_defs) const;
  OpList GetRegisteredOps() const;
  // Every registration, sorted by op name.
  std::vector<const OpRegistrationData*> GetRegistrations() const;
  // The registered ops sorted by name into `*ops`; ops whose names start
  // with '_' only when `include_internal`.
  void Export(bool include_internal, OpList* ops) const;
  // Export() in protobuf text format: the content of an ops.pbtxt.
  std::string ExportText(bool include_internal) const;
  // One SummarizeOpDef() line per op, sorted by name.
  std::string DebugString(bool include_internal) const;

  // Every registration that failed so far (after processing the queue).
  std::vector<OpRegistrationError> registration_errors() const;

  // Installs `watcher` (or removes it when null). AlreadyExists if one is
  // installed and `watcher` is not null.
  Status SetWatcher(const Watcher& watcher);
  // Queues registrations, even after the first lookup, until
  // ProcessRegistrations() is called.
  void DeferRegistrations();
  // Processes the queue now, as one batch, and stops deferring: if any fails
  // (as changed by the watcher), none registers. Returns the first failure.
  Status ProcessRegistrations() const;
  // Drops queued registrations unprocessed (a plugin that failed to load).
  void ClearDeferredRegistrations();

  // Registrations made on this thread while a ScopedOwner lives are
  // attributed to `owner`, e.g. the path of the library being loaded.
  // Scopes nest; the default owner is "minflow".
  class ScopedOwner {
   public:
    explicit ScopedOwner(std::string owner);
    ~ScopedOwner();
    ScopedOwner(const ScopedOwner&) = delete;
    ScopedOwner& operator=(const ScopedOwner&) = delete;

   private:
    std::string previous_;
  };
  // The owner recorded for registrations made now on this thread.
  static std::string CurrentOwner();

 private:
  struct Deferred {
    OpRegistrationDataFactory factory;
    std::string owner;
  };

  // Registers everything in deferred_; returns the first failure.
  Status CallDeferred() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Status RegisterAlreadyLocked(const Deferred& deferred) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Called by every reader: marks the registry in use and processes the
  // queue unless deferring.
  void ProcessPendingIfAny() const ABSL_LOCKS_EXCLUDED(mu_);
  void UpdatePending() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string NotRegisteredMessage(absl::string_view op_type_name) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  // Whether a reader has work to do (read without the lock, so that a
  // lookup in the steady state only takes the reader lock).
  mutable std::atomic<bool> pending_{true};
  // False until the first reader: static initialisers only queue.
  mutable bool started_ ABSL_GUARDED_BY(mu_) = false;
  // Between DeferRegistrations() and ProcessRegistrations().
  mutable bool deferring_ ABSL_GUARDED_BY(mu_) = false;
  mutable std::vector<Deferred> deferred_ ABSL_GUARDED_BY(mu_);
  mutable absl::flat_hash_map<std::string, std::unique_ptr<OpRegistrationData>>
      registry_ ABSL_GUARDED_BY(mu_);
  mutable std::vector<OpRegistrationError> errors_ ABSL_GUARDED_BY(mu_);
  Watcher watcher_ ABSL_GUARDED_BY(mu_);
};

// A read-only registry over the OpDefs of an OpList (no shape functions),
// e.g. TensorFlow's ops.pbtxt. Not a copy: `op_list` must outlive it.
class OpListOpRegistry : public OpRegistryInterface {
 public:
  explicit OpListOpRegistry(const OpList* op_list);
  ~OpListOpRegistry() override;
  OpListOpRegistry(const OpListOpRegistry&) = delete;
  OpListOpRegistry& operator=(const OpListOpRegistry&) = delete;

  Status LookUp(absl::string_view op_type_name,
                const OpRegistrationData** op_reg_data) const override;
  const OpRegistrationData* LookUp(absl::string_view op_type_name) const;

 private:
  absl::flat_hash_map<std::string, std::unique_ptr<OpRegistrationData>> index_;
};

namespace register_op {

// REGISTER_OP's static object: queues the builder's registration with the
// global registry when constructed.
class OpDefBuilderReceiver {
 public:
  // NOLINTNEXTLINE(google-explicit-constructor): REGISTER_OP assigns to it.
  OpDefBuilderReceiver(const OpDefBuilder& builder);
};

}  // namespace register_op
}  // namespace minflow

// REGISTER_OP("Name").Input(...).Output(...).Attr(...).SetShapeFn(...);
// at namespace scope declares an op in the global registry (see
// OpDefBuilder for the spec language and Note [Op registration] for when
// errors surface).
#define REGISTER_OP(name) MF_REGISTER_OP_UNIQ_HELPER(__COUNTER__, name)
#define MF_REGISTER_OP_UNIQ_HELPER(ctr, name) MF_REGISTER_OP_UNIQ(ctr, name)
#define MF_REGISTER_OP_UNIQ(ctr, name)                                    \
  static ::minflow::register_op::OpDefBuilderReceiver mf_register_op##ctr \
      ABSL_ATTRIBUTE_UNUSED = ::minflow::OpDefBuilder(name)
