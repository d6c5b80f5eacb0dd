// OpBuilder: adds one op to a Scope's graph (TensorFlow's NodeBuilder as
// the generated op classes use it). The generated wrappers in
// minflow/cc/ops/ call it; users rarely need it, except for an op that has
// no wrapper.
//
//   OpBuilder b(scope, "MatMul");
//   b.Input(a).Input(c).Attr("transpose_a", true);
//   Operation op = b.Finish();
//   Output product = b.GetOutput("product");
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "minflow/cc/framework/ops.h"
#include "minflow/cc/framework/scope.h"

namespace minflow {

class AttrValue;
class NameAttrList;

// Collects an op's inputs and attrs, then Finish adds the node: type attrs
// are inferred from the inputs, defaults added, the NodeDef validated
// against the OpDef, the node connected (with the scope's control
// dependencies and device) and its shapes inferred. Any error, or an
// error already in the scope, is recorded in the scope's status and makes
// Finish return a null Operation. Use once.
class OpBuilder {
 public:
  // The op is named from the scope (WithOpName) or after `op_type`.
  OpBuilder(const Scope& scope, absl::string_view op_type);
  ~OpBuilder();
  OpBuilder(const OpBuilder&) = delete;
  OpBuilder& operator=(const OpBuilder&) = delete;

  // The next input argument: one tensor, or a list.
  OpBuilder& Input(const ::minflow::Input& input);
  OpBuilder& Input(const InputList& inputs);

  OpBuilder& Attr(absl::string_view name, bool value);
  OpBuilder& Attr(absl::string_view name, int64_t value);
  OpBuilder& Attr(absl::string_view name, float value);
  OpBuilder& Attr(absl::string_view name, absl::string_view value);
  OpBuilder& Attr(absl::string_view name, DataType value);
  OpBuilder& Attr(absl::string_view name, const PartialTensorShape& value);
  OpBuilder& Attr(absl::string_view name, const Tensor& value);
  OpBuilder& Attr(absl::string_view name, const NameAttrList& value);
  OpBuilder& Attr(absl::string_view name, absl::Span<const int64_t> value);
  OpBuilder& Attr(absl::string_view name, absl::Span<const float> value);
  OpBuilder& Attr(absl::string_view name, absl::Span<const DataType> value);
  OpBuilder& Attr(absl::string_view name, absl::Span<const std::string> value);
  OpBuilder& Attr(absl::string_view name,
                  absl::Span<const PartialTensorShape> value);
  OpBuilder& Attr(absl::string_view name, absl::Span<const Tensor> value);
  OpBuilder& Attr(absl::string_view name, const std::vector<bool>& value);
  OpBuilder& Attr(absl::string_view name,
                  const std::vector<NameAttrList>& value);
  // Any attr, as its proto.
  OpBuilder& RawAttr(absl::string_view name, const AttrValue& value);

  // Adds the node; a null Operation on any error (see the class comment).
  Operation Finish();

  // After a successful Finish: the outputs of output argument `arg_name`
  // (one for a single tensor, any number for a list). Null Outputs (empty
  // list) after a failure.
  ::minflow::Output GetOutput(absl::string_view arg_name) const;
  OutputList GetOutputList(absl::string_view arg_name) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace minflow
