#include "minflow/framework/node_name.h"

#include "absl/strings/ascii.h"

namespace minflow {

bool IsValidNodeName(absl::string_view name, bool allow_leading_underscore) {
  if (name.empty()) return false;
  const char first = name[0];
  if (!absl::ascii_isalnum(first) && first != '.' &&
      !(allow_leading_underscore && first == '_')) {
    return false;
  }
  for (char c : name.substr(1)) {
    if (!absl::ascii_isalnum(c) && c != '_' && c != '.' && c != '/' &&
        c != '>' && c != '-') {
      return false;
    }
  }
  return true;
}

}  // namespace minflow
