#include "minflow/cc/framework/grad_op_registry.h"

#include <string>

#include "minflow/core/logging.h"

namespace minflow {
namespace ops {

GradOpRegistry* GradOpRegistry::Global() {
  static auto* registry = new GradOpRegistry;
  return registry;
}

bool GradOpRegistry::Register(absl::string_view op, GradFunc func) {
  absl::MutexLock lock(&mu_);
  const bool inserted = registry_.emplace(std::string(op), func).second;
  if (!inserted) {
    MF_LOG(ERROR) << "A gradient for op " << op
                  << " is already registered; the new one is ignored";
  }
  return inserted;
}

Status GradOpRegistry::Lookup(absl::string_view op, GradFunc* func) const {
  absl::MutexLock lock(&mu_);
  auto it = registry_.find(op);
  if (it == registry_.end()) {
    return errors::NotFound(
        "No gradient defined for op: ", op,
        ". Register one with REGISTER_GRADIENT_OP, or declare that it has "
        "none with REGISTER_NO_GRADIENT_OP.");
  }
  *func = it->second;
  return OkStatus();
}

}  // namespace ops

Output NoGradient() { return Output(nullptr, -1); }

}  // namespace minflow
