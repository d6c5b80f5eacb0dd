// OpDef checks: validation of an op's declaration and of attr values against
// it, lookups inside an OpDef, summaries, and the backwards-compatibility
// rules that decide whether a new OpDef can replace an old one.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "minflow/core/status.h"
#include "minflow/core/types.h"

namespace minflow {

class AttrValue;
class OpDef;
class OpDef_ArgDef;
class OpDef_AttrDef;
class OpList;

// Checks everything the registry requires of an OpDef: a CamelCase name (or
// one starting with '_' for internal ops), unique arg and attr names made of
// letters, digits and underscores, known attr types, minimums only on ints
// and lists, allowed values and defaults of the attr's type that respect the
// attr's own constraints, and inputs/outputs typed by exactly one of a
// concrete type, a `type` attr or a `list(type)` attr (plus an `int` attr
// with a minimum for `N * T`). InvalidArgument naming the problem and the
// op; OK otherwise.
Status ValidateOpDef(const OpDef& op_def);

// Checks `attr_value` against `attr`'s type, minimum and allowed values.
// Requires `attr` itself to be valid. InvalidArgument in TensorFlow's words,
// e.g. "Value for attr 'T' of bool is not in the list of allowed values:
// float, int32".
Status ValidateAttrValue(const AttrValue& attr_value,
                         const OpDef_AttrDef& attr);

// Advice that is not an error for TensorFlow (so never fails ValidateOpDef;
// VarHandleOp, for one, has such an attr), but is usually a mistake in a new
// registration: a `type` or `list(type)` attr without a default that no
// input or output uses, so it can never be inferred and every caller must
// set it by hand. Each entry names the op and the attr.
std::vector<std::string> LintOpDef(const OpDef& op_def);

// nullptr when absent. The pointers stay valid while `op_def` is unchanged.
const OpDef_AttrDef* FindAttr(absl::string_view name, const OpDef& op_def);
OpDef_AttrDef* FindAttrMutable(absl::string_view name, OpDef* op_def);
const OpDef_ArgDef* FindInputArg(absl::string_view name, const OpDef& op_def);
const OpDef_ArgDef* FindOutputArg(absl::string_view name, const OpDef& op_def);

// Unimplemented when `graph_def_version` is at or past the op's deprecation
// version; OK otherwise (a still-usable deprecated op logs one warning per
// op name per process).
Status CheckOpDeprecation(const OpDef& op_def, int graph_def_version);

// One line for messages: "Op<name=Add; signature=x:T, y:T -> z:T;
// attr=T:type,allowed=[DT_FLOAT, DT_INT32]>".
std::string SummarizeOpDef(const OpDef& op_def);

// Whether graphs written against `old_op` still import and mean the same
// under `new_op`. Safe changes (TensorFlow's rules): a new attr with a
// default; fewer constraints (wider allowed values, lower minimum); a
// concrete type turned into a type attr whose default is that type; a single
// input/output turned into a list whose default length and type keep the
// old signature; a new list input/output whose default is empty; renaming
// an input (inputs are positional in a NodeDef); dropping Ref from an input
// or adding it to an output; adding a default to an attr. Everything else
// is incompatible, including a removed attr, an attr added without default,
// a changed attr type, stricter allowed values or a higher minimum, a
// changed or removed default, added, removed, reordered or retyped
// inputs/outputs, a renamed output, and a list of one type turned into a
// list of any types. Returns OK or InvalidArgument starting "Incompatible Op
// change: " and listing every reason found, then both summaries. Never
// fails on malformed OpDefs other than by reporting them incompatible.
Status OpDefCompatible(const OpDef& old_op, const OpDef& new_op);
// The reasons OpDefCompatible would give, one per entry; empty when
// compatible.
std::vector<std::string> OpDefIncompatibilities(const OpDef& old_op,
                                                const OpDef& new_op);

// InvalidArgument when an attr of `old_op` kept by `new_op` lost or changed
// its default (adding a default is fine).
Status OpDefAttrDefaultsUnchanged(const OpDef& old_op, const OpDef& new_op);

// Clears the documentation (summaries and descriptions); the variant keeps
// the deprecation explanation.
void RemoveNonDeprecationDescriptionsFromOpDef(OpDef* op_def);
void RemoveDescriptionsFromOpDef(OpDef* op_def);
void RemoveDescriptionsFromOpList(OpList* op_list);

// True when the two OpDefs are the same, ignoring the order of attrs and of
// control outputs.
bool OpDefEqual(const OpDef& a, const OpDef& b);
bool AttrDefEqual(const OpDef_AttrDef& a, const OpDef_AttrDef& b);

namespace internal {

// TensorFlow's spelling of an element type in op specs: "float", "int32",
// "float32" (aliases float32/float64/float16), "float_ref", ... Case
// sensitive, unlike DataTypeFromString, so "Float" can name an attr.
bool DataTypeFromOpSpelling(absl::string_view name, DataType* dtype);
// The spelling above for messages ("float", "int4", "float_ref").
std::string OpSpellingOfDataType(DataType dtype);

}  // namespace internal
}  // namespace minflow
