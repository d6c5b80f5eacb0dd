// Reading a whole file: the one reader behind graph files, SavedModels,
// checkpoint indexes, NPY files and OpLists.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "minflow/core/status.h"

namespace minflow {

// Reads all of `path` into *contents (replacing it). NotFound "Cannot open
// <what> '<path>': <reason>" when it cannot be opened; DataLoss "Error
// reading <what> '<path>': <reason>" when a read fails; the reason is the
// OS's (strerror), `what` says what the file is for ("graph file"; may be
// empty). A file that is not regular (a directory, a device) is read as
// the OS reads it: callers that care check first.
Status ReadFileToString(const std::string& path, std::string* contents,
                        absl::string_view what = "");

}  // namespace minflow
