#include "minflow/core/close_names.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace minflow {
namespace {

// Edit distance, giving up (returning limit + 1) once it must exceed `limit`.
int BoundedEditDistance(absl::string_view a, absl::string_view b, int limit) {
  const int n = static_cast<int>(a.size());
  const int m = static_cast<int>(b.size());
  if (std::abs(n - m) > limit) return limit + 1;
  std::vector<int> prev(m + 1), cur(m + 1);
  for (int j = 0; j <= m; ++j) prev[j] = j;
  for (int i = 1; i <= n; ++i) {
    cur[0] = i;
    int row_min = cur[0];
    for (int j = 1; j <= m; ++j) {
      const int substitute = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, substitute});
      row_min = std::min(row_min, cur[j]);
    }
    if (row_min > limit) return limit + 1;
    std::swap(prev, cur);
  }
  return prev[m];
}

}  // namespace

std::vector<std::string> CloseNames(
    absl::string_view name, absl::Span<const absl::string_view> candidates) {
  const std::string lower = absl::AsciiStrToLower(name);
  const int limit =
      std::min(3, std::max(1, static_cast<int>(lower.size()) / 4));
  std::vector<std::pair<int, absl::string_view>> scored;
  for (absl::string_view candidate : candidates) {
    const int d =
        BoundedEditDistance(lower, absl::AsciiStrToLower(candidate), limit);
    if (d <= limit) scored.emplace_back(d, candidate);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < 5; ++i) {
    out.emplace_back(scored[i].second);
  }
  return out;
}

std::string DidYouMean(absl::string_view name,
                       absl::Span<const absl::string_view> candidates) {
  const std::vector<std::string> close = CloseNames(name, candidates);
  if (close.empty()) return "";
  return absl::StrCat(" Did you mean '", absl::StrJoin(close, "', '"), "'?");
}

}  // namespace minflow
