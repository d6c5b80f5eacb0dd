// ScopedStepContainer: where one step's resources live (TensorArrays, as
// in TensorFlow): a container of the device's ResourceMgr named for the
// step, removed when the step ends, so per-step state never outlives it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "absl/base/call_once.h"

namespace minflow {

// Thread-safe. The executor makes one per step; kernels call name() and
// create their resources in that container. The container is named (and
// cleaned up) only if some kernel asked for it.
class ScopedStepContainer {
 public:
  // `cleanup(name)` removes the container from every ResourceMgr the step
  // used; it runs at destruction, once, if name() was called.
  ScopedStepContainer(int64_t step_id,
                      std::function<void(const std::string&)> cleanup)
      : step_id_(step_id), cleanup_(std::move(cleanup)) {}
  ~ScopedStepContainer();
  ScopedStepContainer(const ScopedStepContainer&) = delete;
  ScopedStepContainer& operator=(const ScopedStepContainer&) = delete;

  // "__per_step_<id>".
  const std::string& name() const;
  int64_t step_id() const { return step_id_; }

 private:
  const int64_t step_id_;
  std::function<void(const std::string&)> cleanup_;
  mutable absl::once_flag once_;
  mutable std::string name_;
};

}  // namespace minflow
