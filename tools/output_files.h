// Where the `minflow` commands write their results (--out-dir, --trace,
// --json, -o): files written whole, and errors that give the OS's reason.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "minflow/core/status.h"

namespace minflow {
namespace tools {

// Creates `dir` and its missing parents (an existing directory is fine).
// PermissionDenied "Cannot create directory 'dir': <reason>" otherwise.
Status CreateOutputDirectory(const std::string& dir);

// Writes `contents` to `path`, replacing it. PermissionDenied "Cannot write
// 'path': <reason>" when it cannot be opened, DataLoss "Error writing" when
// a write fails, both with the OS's reason (strerror).
Status WriteOutputFile(const std::string& path, absl::string_view contents);

}  // namespace tools
}  // namespace minflow
