// Model files that are not GraphDefs (a SavedModel, a TensorFlow Lite or an
// ONNX model), recognised by their bytes, so that loading one says what it
// is instead of "Could not parse the GraphDef".
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "minflow/core/status.h"

namespace minflow {
namespace internal {

// InvalidArgument naming the format of `bytes` and what minflow takes
// instead when they are a SavedModel (saved_model.pb or .pbtxt), a
// TensorFlow Lite model or an ONNX model; OkStatus otherwise. Cheap for a
// GraphDef: its bytes are scanned only when they start as those formats do.
Status RejectForeignModelBytes(absl::string_view bytes);

// For a path that is a directory: InvalidArgument for a SavedModel
// directory (one holding saved_model.pb or saved_model.pbtxt), NotFound
// "Cannot open graph file '<path>': it is a directory" for any other.
Status RejectDirectory(const std::string& path);

}  // namespace internal
}  // namespace minflow
