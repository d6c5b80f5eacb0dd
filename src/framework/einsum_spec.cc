#include "minflow/framework/einsum_spec.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"

namespace minflow {
namespace {

int LetterLabel(char c) {
  return c >= 'a' && c <= 'z' ? c - 'a' : 26 + (c - 'A');
}

bool IsLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Shortens "..." to '.', checking the characters.
Status CanonicalSubscript(absl::string_view s, absl::string_view equation,
                          std::string* out) {
  out->clear();
  bool seen_ellipsis = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (IsLetter(s[i])) {
      out->push_back(s[i]);
      continue;
    }
    if (s[i] == '.') {
      if (s.substr(i, 3) != "..." || seen_ellipsis) {
        return errors::InvalidArgument("Invalid ellipsis in einsum subscript '",
                                       s, "' of equation: ", equation);
      }
      seen_ellipsis = true;
      out->push_back('.');
      i += 2;
      continue;
    }
    return errors::InvalidArgument("Invalid character '", std::string(1, s[i]),
                                   "' in einsum equation: ", equation);
  }
  return OkStatus();
}

}  // namespace

Status ParseEinsumEquation(absl::string_view equation, int num_inputs,
                           EinsumEquation* out) {
  std::vector<absl::string_view> sides = absl::StrSplit(equation, "->");
  if (sides.size() != 2) {
    return errors::InvalidArgument(
        "Expecting exactly one '->' in einsum equation: ", equation);
  }
  std::vector<absl::string_view> inputs = absl::StrSplit(sides[0], ',');
  if (inputs.size() != 1 && inputs.size() != 2) {
    return errors::InvalidArgument(
        "Expecting 1 or 2 input subscripts in equation '", equation,
        "' but got: ", inputs.size());
  }
  if (static_cast<int>(inputs.size()) != num_inputs) {
    return errors::InvalidArgument("Expected ", inputs.size(),
                                   " inputs for equation ", equation,
                                   " but got: ", num_inputs);
  }
  out->inputs.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    MF_RETURN_IF_ERROR(
        CanonicalSubscript(inputs[i], equation, &out->inputs[i]));
  }
  MF_RETURN_IF_ERROR(CanonicalSubscript(sides[1], equation, &out->output));
  for (size_t i = 0; i < out->output.size(); ++i) {
    const char c = out->output[i];
    if (out->output.find(c, i + 1) != std::string::npos) {
      return errors::InvalidArgument(
          "Output subscript contains repeated label '", std::string(1, c),
          "' in einsum equation: ", equation);
    }
    if (c == '.') continue;
    const bool found = std::any_of(
        out->inputs.begin(), out->inputs.end(),
        [c](const std::string& s) { return s.find(c) != std::string::npos; });
    if (!found) {
      return errors::InvalidArgument("Output subscript label '",
                                     std::string(1, c),
                                     "' appears in no input subscript of "
                                     "einsum equation: ",
                                     equation);
    }
  }
  return OkStatus();
}

Status ResolveEinsumLabels(const EinsumEquation& equation,
                           absl::Span<const int> input_ranks,
                           EinsumLabels* out) {
  const int n = static_cast<int>(equation.inputs.size());
  std::vector<int> ellipsis_rank(n, 0);
  int max_ellipsis = 0;
  for (int i = 0; i < n; ++i) {
    const std::string& s = equation.inputs[i];
    const bool has_ellipsis = s.find('.') != std::string::npos;
    const int named = static_cast<int>(s.size()) - (has_ellipsis ? 1 : 0);
    const int rank = input_ranks[i];
    if (has_ellipsis ? rank < named : rank != named) {
      return errors::InvalidArgument("Expected input ", i, " to have rank ",
                                     has_ellipsis ? "at least " : "", named,
                                     " but got: ", rank);
    }
    ellipsis_rank[i] = rank - named;
    max_ellipsis = std::max(max_ellipsis, ellipsis_rank[i]);
  }
  auto expand = [&](const std::string& s, int ellipsis, std::vector<int>* v) {
    v->clear();
    for (char c : s) {
      if (c != '.') {
        v->push_back(LetterLabel(c));
        continue;
      }
      for (int j = max_ellipsis - ellipsis; j < max_ellipsis; ++j) {
        v->push_back(EinsumLabels::kFirstEllipsisLabel + j);
      }
    }
  };
  out->inputs.resize(n);
  for (int i = 0; i < n; ++i) {
    expand(equation.inputs[i], ellipsis_rank[i], &out->inputs[i]);
  }
  expand(equation.output, max_ellipsis, &out->output);
  out->num_labels = EinsumLabels::kFirstEllipsisLabel + max_ellipsis;
  return OkStatus();
}

}  // namespace minflow
