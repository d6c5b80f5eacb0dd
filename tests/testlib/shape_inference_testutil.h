// TensorFlow's shape-function test language:
//   ShapeInferenceTestOp op("MatMul");
//   op.Attr("transpose_a", true);
//   INFER_OK(op, "[2,?];[?,3]", "[d0_1,d1_1]");
//   INFER_ERROR("must be rank 2", op, "[1];?");
// Inputs: shapes separated by ';' ("?" unknown rank, "[]" scalar, "[2,?]").
// Expected outputs, separated by ';': "inI" (the very same shape object as
// input I), "?" (unknown rank) or "[...]" whose dims are "dI_J" (the very
// same dim object as input I's dim J), a number or "?" (a new unknown dim).
// Alternatives are written "in0|in1", "d0_0|d1_0". A dim that is an input's
// object must be written as dI_J: "2" does not match d0_0 even when input 0
// has 2 there. Attrs not set take their defaults; the length attr of a
// variable-length input (N) follows from the inputs.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/shape_notation.h"
#include "minflow/node_def.pb.h"

namespace minflow {

// An op under test: its NodeDef (op and attrs) and constant input values.
// Not thread-safe; keeps the tensors it is given.
struct ShapeInferenceTestOp {
  explicit ShapeInferenceTestOp(absl::string_view op_name);

  // Sets attr `name` (anything SetAttrValue takes).
  template <typename T>
  ShapeInferenceTestOp& Attr(absl::string_view name, const T& value) {
    AddNodeAttr(name, value, &node_def);
    return *this;
  }
  // Removes attr `name` (to test a function that reads a missing attr).
  ShapeInferenceTestOp& ClearAttr(absl::string_view name);
  // Input `idx` has the constant value `t` (kept by this object).
  ShapeInferenceTestOp& SetInputTensor(int idx, Tensor t);
  // Input `idx`'s value is unknown again.
  ShapeInferenceTestOp& ClearInputTensor(int idx);

  NodeDef node_def;
  // Values by input index (null: unknown); may be set directly as in TF.
  std::vector<const Tensor*> input_tensors;
  int graph_def_version = shape_inference::kNotationGraphDefVersion;

 private:
  std::deque<Tensor> owned_tensors_;
};

class ShapeInferenceTestutil {
 public:
  // Runs `op`'s shape function on `ins` and compares with `expected_outs`.
  // OK when they match; otherwise an error describing the difference (or
  // the shape function's own error). `expected_outs` "e" expects an error.
  static Status InferShapes(ShapeInferenceTestOp op, absl::string_view ins,
                            absl::string_view expected_outs);
  // The outputs in notation, or the error (for `minflow infer-op`-style
  // assertions and debugging).
  static StatusOr<std::string> Infer(ShapeInferenceTestOp op,
                                     absl::string_view ins);
};

}  // namespace minflow

#define INFER_OK(op, i, o)                                                  \
  EXPECT_EQ("", std::string(::minflow::ShapeInferenceTestutil::InferShapes( \
                                (op), (i), (o))                             \
                                .message()))                                \
      << "for inputs " << (i)

#define INFER_ERROR(error_substring, op, i)                                \
  do {                                                                     \
    const ::minflow::Status _mf_infer_status =                             \
        ::minflow::ShapeInferenceTestutil::InferShapes((op), (i), "e");    \
    const std::string _mf_infer_message(_mf_infer_status.message());       \
    const std::string _mf_infer_substring = (error_substring);             \
    EXPECT_FALSE(_mf_infer_status.ok()) << "for inputs " << (i);           \
    EXPECT_TRUE(absl::StrContains(_mf_infer_message, _mf_infer_substring)) \
        << "for inputs " << (i) << ": expected an error containing '"      \
        << _mf_infer_substring << "', got '" << _mf_infer_message << "'";  \
  } while (0)
