#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace testing {

std::string StatusToString(const Status& s) {
  if (s.ok()) return "OK";
  return absl::StrCat(absl::StatusCodeToString(s.code()), ": ", s.message());
}

}  // namespace testing
}  // namespace minflow
