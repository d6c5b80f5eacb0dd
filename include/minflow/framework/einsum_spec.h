// Einsum's equation grammar, once for its shape function and its kernel
// (TensorFlow's einsum_op_util): "ab,bc->ac", labels a-z and A-Z, at most
// one "..." per subscript standing for broadcast dims, 1 or 2 inputs.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "minflow/core/status.h"

namespace minflow {

// A parsed equation. Each subscript keeps its label characters with
// "..." shortened to a single '.'.
struct EinsumEquation {
  std::vector<std::string> inputs;
  std::string output;
};

// Parses `equation` for `num_inputs` operands. InvalidArgument on a missing
// or repeated "->", a wrong operand count, a character that is no label, a
// malformed or repeated ellipsis, a label repeated in the output, or an
// output label that no input has.
Status ParseEinsumEquation(absl::string_view equation, int num_inputs,
                           EinsumEquation* out);

// An equation resolved against its inputs' ranks: every axis carries a
// label id. Letters are ids 0..51; the dims an ellipsis stands for are
// 52 + j, right-aligned over the widest ellipsis (numpy's broadcasting).
struct EinsumLabels {
  static constexpr int kFirstEllipsisLabel = 52;
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;
  int num_labels = kFirstEllipsisLabel;
};

// InvalidArgument when an input's rank does not fit its subscript.
Status ResolveEinsumLabels(const EinsumEquation& equation,
                           absl::Span<const int> input_ranks,
                           EinsumLabels* out);

}  // namespace minflow
