// "Did you mean ...?": the names in a list that are close to a name that was
// not found (an op type, a node), for error messages.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace minflow {

// Up to five of `candidates` close to `name`, nearest first: the same
// letters ignoring case, or a few edits away (more for longer names).
std::vector<std::string> CloseNames(
    absl::string_view name, absl::Span<const absl::string_view> candidates);

// " Did you mean 'a', 'b'?" for CloseNames(name, candidates), or "" when
// none is close; meant to be appended to a "not found" message.
std::string DidYouMean(absl::string_view name,
                       absl::Span<const absl::string_view> candidates);

}  // namespace minflow
