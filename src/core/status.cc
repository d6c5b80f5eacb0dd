#include "minflow/core/status.h"

namespace minflow {
namespace errors {

std::string FormatNodeNameForError(absl::string_view node_name) {
  return absl::StrCat("{{node ", node_name, "}}");
}

Status AttachNodeContext(const Status& s, absl::string_view node_name,
                         absl::string_view op) {
  if (s.ok()) return s;
  return Status(s.code(), absl::StrCat(s.message(), "\n\t [[",
                                       FormatNodeNameForError(node_name), " = ",
                                       op, "]]"));
}

}  // namespace errors
}  // namespace minflow
