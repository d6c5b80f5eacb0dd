// Selective registration: a library built to serve known graphs registers
// only the ops those graphs need, and only their kernels (TensorFlow's
// selective registration, here without recompiling: see
// minflow_add_selective_library in cmake/MinflowSelective.cmake and
// `minflow ops required`). Ops whose names start with '_' (the runtime's
// own, such as _Arg and _Retval) are always kept.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace minflow {

// Installs the allowlist. It must be in place before the first REGISTER_OP
// or REGISTER_KERNEL_BUILDER runs, so the generated source calls it from a
// static initializer of the highest priority.
void SetSelectedOps(std::vector<std::string> ops);

// True when no allowlist is installed (the normal build), when `op` is on
// it, or when `op` is internal.
bool OpIsSelected(absl::string_view op);

// The installed allowlist, sorted; empty in a normal build.
std::vector<std::string> SelectedOps();

}  // namespace minflow
