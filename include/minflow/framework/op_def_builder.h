// OpDefBuilder: the language of REGISTER_OP. Spec strings such as
// "T: {float, int32} = DT_INT32" or "x: N * T" become an OpDef proto, kept
// together with the op's shape function in an OpRegistrationData.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "minflow/core/status.h"
// OpRegistrationData holds an OpDef by value, so the proto is needed here.
#include "minflow/op_def.pb.h"

namespace minflow {

namespace shape_inference {
class InferenceContext;
}  // namespace shape_inference

// Computes an op's output shapes from what is known of its inputs (see
// minflow/framework/shape_inference.h). TensorFlow's name and signature.
using OpShapeInferenceFn =
    std::function<Status(shape_inference::InferenceContext* c)>;
using ShapeInferenceFn = OpShapeInferenceFn;

// Everything the registry knows about one op.
struct OpRegistrationData {
  OpRegistrationData() = default;
  explicit OpRegistrationData(const OpDef& def) : op_def(def) {}
  OpRegistrationData(const OpDef& def, const OpShapeInferenceFn& fn,
                     bool is_function = false)
      : op_def(def), shape_inference_fn(fn), is_function_op(is_function) {}

  OpDef op_def;
  // May be empty: shape inference then leaves every output unknown.
  OpShapeInferenceFn shape_inference_fn;
  // True for ops that stand for functions of a FunctionDefLibrary.
  bool is_function_op = false;
  // Who registered the op: "minflow" for built-ins, or the path of the
  // plugin library that was loading (filled in by the OpRegistry).
  std::string owner;
};

// Collects an op's specs and turns them into an OpDef on Finalize(). Each
// setter returns *this so calls chain; errors (bad specs, a setter called
// twice) are all reported by Finalize(), never earlier. A value type, not
// thread-safe; Finalize() is const and may run any number of times.
//
// Spec grammar (TensorFlow's; see the guide "Create an op"):
//   Attr("<name>: <type>[ >= <min>][ = <default>]")
//     <name>: a letter, then letters, digits, '_'.
//     <type>: string | int | float | bool | type | shape | tensor | func,
//             list(<type>), {'a', 'b'} (a string enum), {int32, float, ...}
//             (a restricted type; numbertype, realnumbertype, quantizedtype
//             may appear among the types), or one of those three shortcuts.
//     >= <min>: for int (the least value) and list(...) (the least length).
//     <default>: the AttrValue in protobuf text syntax: 'foo', 0, 1.0, true,
//             DT_INT32, { dim { size: 1 } }, { dtype: DT_INT32 int_val: 5 },
//             [], [2, 3]. A default must satisfy the attr's constraints.
//   Input("<name>: <io-type>"), Output("<name>: <io-type>")
//     <name>: a lowercase letter, then lowercase letters, digits, '_'.
//     <io-type>: a type (float, int32, ...), a `type` attr (T), a
//             `list(type)` attr, <int attr> * <type or type attr> (N * T),
//             or Ref(<any of those>).
//   An `int` attr used as a length and a `list(type)` attr used as an
//   input/output get a minimum of 1 unless they declare one. A `resource`
//   input or output makes the op stateful.
class OpDefBuilder {
 public:
  // `op_name` must be CamelCase (checked when the op is registered).
  explicit OpDefBuilder(std::string op_name);

  OpDefBuilder& Attr(std::string spec);
  OpDefBuilder& Input(std::string spec);
  OpDefBuilder& Output(std::string spec);
  // A named control output (for ops that stand for functions).
  OpDefBuilder& ControlOutput(std::string name);

  OpDefBuilder& SetIsCommutative();
  OpDefBuilder& SetIsAggregate();
  OpDefBuilder& SetIsStateful();
  OpDefBuilder& SetAllowsUninitializedInput();
  OpDefBuilder& SetIsDistributedCommunication();

  // Marks the op as removed from GraphDef `version` on; graphs of an older
  // version still load, with a warning.
  OpDefBuilder& Deprecated(int version, std::string explanation);

  // Documentation: the first line is the summary, the following paragraph
  // the description, and "<name>: text" lines (continued by indented lines)
  // describe an input, output or attr.
  OpDefBuilder& Doc(std::string text);

  OpDefBuilder& SetShapeFn(OpShapeInferenceFn fn);

  // Parses the specs into `*op_reg_data` (replacing its op_def and
  // shape_inference_fn). InvalidArgument listing every problem, each naming
  // the spec and the op, e.g. "Trouble parsing '<name>:' from Attr(\"9:int\")
  // for Op Foo". The result is not yet checked by ValidateOpDef; the
  // registry does that.
  Status Finalize(OpRegistrationData* op_reg_data) const;

  const std::string& op_name() const { return op_reg_data_.op_def.name(); }

 private:
  OpDef* op_def() { return &op_reg_data_.op_def; }

  OpRegistrationData op_reg_data_;
  std::vector<std::string> attrs_;
  std::vector<std::string> inputs_;
  std::vector<std::string> outputs_;
  std::vector<std::string> control_outputs_;
  std::string doc_;
  bool has_doc_ = false;
  std::vector<std::string> errors_;
};

}  // namespace minflow
