#include "minflow/framework/selective_registration.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"

namespace minflow {
namespace {

// Written once, before any registration runs (static initialisation), and
// only read afterwards: no lock needed.
absl::flat_hash_set<std::string>*& Allowlist() {
  static absl::flat_hash_set<std::string>* allowlist = nullptr;
  return allowlist;
}

}  // namespace

void SetSelectedOps(std::vector<std::string> ops) {
  auto* allowlist = new absl::flat_hash_set<std::string>(
      std::make_move_iterator(ops.begin()), std::make_move_iterator(ops.end()));
  delete Allowlist();
  Allowlist() = allowlist;
}

bool OpIsSelected(absl::string_view op) {
  const auto* allowlist = Allowlist();
  return allowlist == nullptr || (!op.empty() && op[0] == '_') ||
         allowlist->contains(op);
}

std::vector<std::string> SelectedOps() {
  std::vector<std::string> ops;
  if (Allowlist() == nullptr) return ops;
  ops.assign(Allowlist()->begin(), Allowlist()->end());
  std::sort(ops.begin(), ops.end());
  return ops;
}

}  // namespace minflow
