#include "tests/testlib/shape_inference_testutil.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "minflow/framework/op.h"

namespace minflow {

ShapeInferenceTestOp::ShapeInferenceTestOp(absl::string_view op_name) {
  node_def.set_name("test");
  node_def.set_op(std::string(op_name));
}

ShapeInferenceTestOp& ShapeInferenceTestOp::ClearAttr(absl::string_view name) {
  node_def.mutable_attr()->erase(std::string(name));
  return *this;
}

ShapeInferenceTestOp& ShapeInferenceTestOp::SetInputTensor(int idx, Tensor t) {
  if (static_cast<int>(input_tensors.size()) <= idx) {
    input_tensors.resize(idx + 1, nullptr);
  }
  owned_tensors_.push_back(std::move(t));
  input_tensors[idx] = &owned_tensors_.back();
  return *this;
}

ShapeInferenceTestOp& ShapeInferenceTestOp::ClearInputTensor(int idx) {
  if (idx < static_cast<int>(input_tensors.size()))
    input_tensors[idx] = nullptr;
  return *this;
}

namespace {

// Splits "a;b" at top level and "[x,y]" into dims; each piece may hold
// alternatives "p|q".
std::vector<std::string> Alternatives(absl::string_view s) {
  return absl::StrSplit(s, '|');
}

bool MatchesOneOf(absl::string_view actual, absl::string_view expected) {
  for (const std::string& alt : Alternatives(expected)) {
    if (alt == actual) return true;
  }
  return false;
}

// Whether `actual` (canonical notation of one output) matches `expected`
// (notation with alternatives).
bool OutputMatches(absl::string_view actual, absl::string_view expected) {
  if (MatchesOneOf(actual, expected)) return true;
  if (!absl::StartsWith(actual, "[") || !absl::StartsWith(expected, "[")) {
    return false;
  }
  absl::string_view a = actual.substr(1, actual.size() - 2);
  absl::string_view e = expected;
  if (!absl::ConsumePrefix(&e, "[") || !absl::ConsumeSuffix(&e, "]")) {
    return false;
  }
  const std::vector<absl::string_view> a_dims =
      a.empty() ? std::vector<absl::string_view>() : absl::StrSplit(a, ',');
  const std::vector<absl::string_view> e_dims =
      e.empty() ? std::vector<absl::string_view>() : absl::StrSplit(e, ',');
  if (a_dims.size() != e_dims.size()) return false;
  for (size_t i = 0; i < a_dims.size(); ++i) {
    if (!MatchesOneOf(a_dims[i], e_dims[i])) return false;
  }
  return true;
}

Status Run(ShapeInferenceTestOp& op, absl::string_view ins,
           shape_inference::NotationRun* run) {
  return shape_inference::RunShapeInferenceFromNotation(
      *OpRegistry::Global(), ins, op.input_tensors, op.graph_def_version,
      &op.node_def, run);
}

}  // namespace

StatusOr<std::string> ShapeInferenceTestutil::Infer(ShapeInferenceTestOp op,
                                                    absl::string_view ins) {
  shape_inference::NotationRun run;
  MF_RETURN_IF_ERROR(Run(op, ins, &run));
  return run.OutputsString();
}

Status ShapeInferenceTestutil::InferShapes(ShapeInferenceTestOp op,
                                           absl::string_view ins,
                                           absl::string_view expected_outs) {
  shape_inference::NotationRun run;
  const Status s = Run(op, ins, &run);
  if (expected_outs == "e") {
    if (s.ok()) {
      return errors::InvalidArgument(
          "Shape inference should have returned an error, but gave ",
          run.OutputsString());
    }
    return s;
  }
  if (!s.ok()) return s;
  const std::vector<std::string> expected =
      expected_outs.empty() ? std::vector<std::string>()
                            : absl::StrSplit(expected_outs, ';');
  bool ok = expected.size() == run.outputs.size();
  for (size_t i = 0; ok && i < expected.size(); ++i) {
    ok = OutputMatches(run.outputs[i], expected[i]);
  }
  if (ok) return OkStatus();
  return errors::InvalidArgument("Expected outputs '", expected_outs,
                                 "' but got '", run.OutputsString(), "'");
}

}  // namespace minflow
