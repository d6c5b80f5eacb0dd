// TensorFlow's compact shape notation ("[2,?];?;[]" for inputs, "in0",
// "[d0_1,3,?]" for outputs) and a one-op shape-inference run over it: the
// code path shared by `minflow infer-op`, the INFER_OK/INFER_ERROR tests and
// the infer-op fuzzer.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/framework/shape_inference.h"

namespace minflow {

class NodeDef;
class OpDef;
class OpRegistryInterface;
class Tensor;

namespace shape_inference {

// The GraphDef version one-op runs assume (TensorFlow 2.21's, as the
// importer's kGraphDefVersion).
inline constexpr int kNotationGraphDefVersion = 2100;

// One shape: "?" (unknown rank), "[]" (scalar), "[2,?,3]" (dims >= 0 or ?).
// Spaces are ignored. InvalidArgument for anything else, negative dims or
// ranks beyond kMaxTensorRank.
Status ParseShapeNotation(absl::string_view text, PartialTensorShape* shape);
// Shapes separated by ';'; "" is the empty list.
Status ParseShapeListNotation(absl::string_view text,
                              std::vector<PartialTensorShape>* shapes);

// Output `idx` of `c` relative to `inputs` (the handles the inputs had when
// the context was made): "inI" when it is input I's very shape object, "?"
// for an unknown rank, else "[...]" whose dims are "dI_J" when they are
// input I's dim J object, else the value or "?".
std::string OutputNotation(InferenceContext* c,
                           absl::Span<const ShapeHandle> inputs, int idx);

// Prepares `node_def` (op and whatever attrs the caller set) for a lone
// shape-function run with `num_inputs` inputs: adds OpDef defaults, and sets
// the length attr of the one variable-length input list whose length is not
// yet set (`N` of ConcatV2, the `list(type)` of IdentityN, filled with the
// attr's first allowed type or float) from `num_inputs`. Other attrs stay
// unset; a shape function that reads one fails naming it. Sets the node's
// inputs to placeholder names for error messages.
void CompleteNodeDefForInference(const OpDef& op_def, int num_inputs,
                                 NodeDef* node_def);

// What one run produced: the context (for callers that inspect handles),
// the input handles it started with, and each output's notation.
struct NotationRun {
  NodeDef* node_def = nullptr;  // owned by the caller
  std::unique_ptr<InferenceContext> context;
  std::vector<ShapeHandle> inputs;
  std::vector<std::string> outputs;
  // The outputs joined by ';'.
  std::string OutputsString() const;
};

// Completes `*node_def` (see CompleteNodeDefForInference), builds a context
// from the input shapes in `input_spec` and the constant inputs in
// `input_tensors` (indexed by input, null or missing for unknown values; the
// tensors must outlive `run`), and runs the op's shape function from
// `registry`. Errors: NotFound for an unknown op; InvalidArgument for bad
// notation, a wrong input count or a value whose shape disagrees with its
// input; and whatever the shape function returns, with node context.
Status RunShapeInferenceFromNotation(
    const OpRegistryInterface& registry, absl::string_view input_spec,
    absl::Span<const Tensor* const> input_tensors, int graph_def_version,
    NodeDef* node_def, NotationRun* run);

// One `minflow infer-op` request, as text.
struct InferOpRequest {
  std::string op;
  // "name=value" in TensorFlow's attr text syntax, with conveniences:
  // unquoted strings (padding=SAME), dtype names (T=float), shapes in the
  // notation (shape=[2,?]) and tensor literals for `tensor` attrs.
  std::vector<std::string> attrs;
  std::string inputs;  // "[2,?];?;[]"
  // "I=<literal>" (see tensor_literal.h): the value of input I.
  std::vector<std::string> tensors;
};

// Parses `attr` ("name=value") against `op_def` into `*node_def`.
// InvalidArgument for a missing '=', an attr the op does not have (listing
// those it has) or a value that does not parse as the attr's type.
Status AddAttrFromText(const OpDef& op_def, absl::string_view attr,
                       NodeDef* node_def);

// Runs `request` and sets *outputs to the outputs in notation joined by
// ';'. Errors: those of AddAttrFromText, bad tensor literals or indices,
// and those of RunShapeInferenceFromNotation.
Status RunInferOpRequest(const OpRegistryInterface& registry,
                         const InferOpRequest& request, std::string* outputs);

}  // namespace shape_inference
}  // namespace minflow
