// Tensor names as users and NodeDefs write them: "node" (port 0),
// "node:port", and in NodeDef inputs "^node" (a control input). The one
// parser every entry point uses (the importer, feeds and fetches, the CLI).
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "minflow/core/status.h"

namespace minflow {

// The port of a control edge on both ends, and of a "^node" input.
inline constexpr int kControlSlot = -1;

// A parsed name that owns its node name.
struct TensorId {
  std::string node;
  int port = 0;
  // "node:port".
  std::string ToString() const;
};

// A parsed name viewing the string it was parsed from.
struct TensorIdView {
  absl::string_view node;
  int port = 0;  // kControlSlot for "^node"
  bool IsControl() const { return port == kControlSlot; }
};

// One entry of NodeDef.input: "x", "x:1" or "^x". InvalidArgument naming the
// input for "", "^", ":1", "x:", "x:-1", "x:y".
Status ParseNodeInput(absl::string_view input, TensorIdView* id);

// A feed or fetch: "x" or "x:1" (a control input "^x" is refused).
// InvalidArgument naming the name otherwise.
Status ParseTensorName(absl::string_view name, TensorId* id);

}  // namespace minflow
