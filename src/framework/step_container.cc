#include "minflow/framework/step_container.h"

#include "absl/strings/str_cat.h"

namespace minflow {

ScopedStepContainer::~ScopedStepContainer() {
  if (!name_.empty() && cleanup_) cleanup_(name_);
}

const std::string& ScopedStepContainer::name() const {
  absl::call_once(once_,
                  [this] { name_ = absl::StrCat("__per_step_", step_id_); });
  return name_;
}

}  // namespace minflow
