// TensorFlow's node-name syntax, [A-Za-z0-9.][A-Za-z0-9_./>-]*, checked in
// one place for graphs and for function bodies.
#pragma once

#include "absl/strings/string_view.h"

namespace minflow {

// Function bodies and their args may also start with '_' (TensorFlow's
// exporters name args and nodes that way).
bool IsValidNodeName(absl::string_view name,
                     bool allow_leading_underscore = false);

}  // namespace minflow
