#include "minflow/framework/op_def_builder.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "minflow/attr_value.pb.h"
#include "minflow/core/types.h"
#include "minflow/framework/attr_value_util.h"
#include "minflow/framework/op_def_util.h"

namespace minflow {
namespace {

// Note [Spec parsing]
// The specs are parsed with a few consume-style helpers over string_view:
// each either consumes what it recognises (and any whitespace after it) and
// returns true, or leaves the input untouched and returns false. Error texts
// match TensorFlow's op_def_builder word for word where TensorFlow reports
// the same problem, because users search for them.

void SkipSpace(absl::string_view* sp) {
  *sp = absl::StripLeadingAsciiWhitespace(*sp);
}

bool IsWordChar(char c) { return absl::ascii_isalnum(c) || c == '_'; }
bool IsLowerWordChar(char c) {
  return absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '_';
}

// Consumes a name whose first character satisfies `first` and the rest
// `rest`, then whitespace. Stores the name in *out.
template <typename First, typename Rest>
bool ConsumeName(absl::string_view* sp, First first, Rest rest,
                 absl::string_view* out) {
  if (sp->empty() || !first((*sp)[0])) return false;
  size_t n = 1;
  while (n < sp->size() && rest((*sp)[n])) ++n;
  *out = sp->substr(0, n);
  sp->remove_prefix(n);
  SkipSpace(sp);
  return true;
}

// "<name> :" with optional whitespace around the colon.
template <typename First, typename Rest>
bool ConsumeNameColon(absl::string_view* sp, First first, Rest rest,
                      absl::string_view* out) {
  absl::string_view rest_sp = *sp;
  absl::string_view name;
  if (!ConsumeName(&rest_sp, first, rest, &name)) return false;
  if (!absl::ConsumePrefix(&rest_sp, ":")) return false;
  SkipSpace(&rest_sp);
  *out = name;
  *sp = rest_sp;
  return true;
}

// `literal`, optional whitespace, '(' and whitespace: "list(" and "Ref(".
bool ConsumeCall(absl::string_view* sp, absl::string_view literal) {
  absl::string_view rest = *sp;
  if (!absl::ConsumePrefix(&rest, literal)) return false;
  SkipSpace(&rest);
  if (!absl::ConsumePrefix(&rest, "(")) return false;
  SkipSpace(&rest);
  *sp = rest;
  return true;
}

// A quoted string in `quote`s, backslash escapes allowed inside; *out gets
// the text between the quotes, still escaped.
bool ConsumeQuotedString(char quote, absl::string_view* sp,
                         absl::string_view* out) {
  if (sp->empty() || (*sp)[0] != quote) return false;
  size_t i = 1;
  while (i < sp->size() && (*sp)[i] != quote) {
    if ((*sp)[i] == '\\') ++i;  // skip the escaped character
    ++i;
  }
  if (i >= sp->size()) return false;
  *out = sp->substr(1, i - 1);
  sp->remove_prefix(i + 1);
  SkipSpace(sp);
  return true;
}

// A run of lowercase letters, digits and '_' (a type name inside {...}).
bool ConsumeAttrType(absl::string_view* sp, absl::string_view* out) {
  return ConsumeName(sp, IsLowerWordChar, IsLowerWordChar, out);
}

// An optionally negative decimal integer that fits in int64.
bool ConsumeAttrNumber(absl::string_view* sp, int64_t* out) {
  absl::string_view rest = *sp;
  SkipSpace(&rest);
  size_t n = 0;
  if (n < rest.size() && rest[n] == '-') ++n;
  const size_t digits_start = n;
  while (n < rest.size() && absl::ascii_isdigit(rest[n])) ++n;
  if (n == digits_start) return false;
  int64_t value = 0;
  if (!absl::SimpleAtoi(rest.substr(0, n), &value)) return false;
  rest.remove_prefix(n);
  SkipSpace(&rest);
  *out = value;
  *sp = rest;
  return true;
}

// Appends the types a shortcut stands for; false if `name` is none.
bool ProcessCompoundType(absl::string_view name, AttrValue* allowed) {
  DataTypeSlice types;
  if (name == "numbertype" || name == "numerictype") {
    types = NumberTypes();
  } else if (name == "realnumbertype" || name == "realnumerictype") {
    types = RealNumberTypes();
  } else if (name == "quantizedtype") {
    types = QuantizedTypes();
  } else {
    return false;
  }
  for (DataType dt : types) allowed->mutable_list()->add_type(dt);
  return true;
}

bool ConsumeCompoundType(absl::string_view* sp, absl::string_view* out) {
  for (absl::string_view name : {"numbertype", "numerictype", "quantizedtype",
                                 "realnumbertype", "realnumerictype"}) {
    if (absl::StartsWith(*sp, name)) {
      *out = sp->substr(0, name.size());
      sp->remove_prefix(name.size());
      return true;
    }
  }
  return false;
}

// True when `name` already names an attr, input or output of `op_def`.
bool NameTaken(absl::string_view name, const OpDef& op_def) {
  return FindAttr(name, op_def) != nullptr ||
         FindInputArg(name, op_def) != nullptr ||
         FindOutputArg(name, op_def) != nullptr;
}

std::string AttrError(absl::string_view orig, absl::string_view op_name) {
  return absl::StrCat(" from Attr(\"", orig, "\") for Op ", op_name);
}

#define MF_VERIFY(expr, ...)                                           \
  do {                                                                 \
    if (!(expr)) {                                                     \
      errors->push_back(                                               \
          absl::StrCat(__VA_ARGS__, AttrError(orig, op_def->name()))); \
      return;                                                          \
    }                                                                  \
  } while (0)

void FinalizeAttr(absl::string_view spec, OpDef* op_def,
                  std::vector<std::string>* errors) {
  const absl::string_view orig = spec;
  absl::string_view name;
  MF_VERIFY(ConsumeNameColon(&spec, absl::ascii_isalpha, IsWordChar, &name),
            "Trouble parsing '<name>:'");
  MF_VERIFY(!NameTaken(name, *op_def), "Duplicate name '", name, "'");
  OpDef::AttrDef* attr = op_def->add_attr();
  attr->set_name(name.data(), name.size());

  const bool is_list = ConsumeCall(&spec, "list");
  std::string type;
  absl::string_view type_string;
  static constexpr absl::string_view kPlainTypes[] = {
      "string", "int", "float", "bool", "type", "shape", "tensor", "func"};
  for (absl::string_view plain : kPlainTypes) {
    if (absl::ConsumePrefix(&spec, plain)) {
      type = std::string(plain);
      break;
    }
  }
  if (!type.empty()) {
    // A plain type.
  } else if (ConsumeCompoundType(&spec, &type_string)) {
    type = "type";
    ProcessCompoundType(type_string, attr->mutable_allowed_values());
  } else if (absl::ConsumePrefix(&spec, "{")) {
    // "{'a', 'b'}" (a string enum) or "{int32, numbertype}" (a type set).
    AttrValue* allowed = attr->mutable_allowed_values();
    SkipSpace(&spec);
    if (absl::StartsWith(spec, "\"") || absl::StartsWith(spec, "'")) {
      type = "string";
      while (true) {
        absl::string_view escaped;
        MF_VERIFY(ConsumeQuotedString('"', &spec, &escaped) ||
                      ConsumeQuotedString('\'', &spec, &escaped),
                  "Trouble parsing allowed string at '", spec, "'");
        std::string unescaped;
        std::string error;
        MF_VERIFY(absl::CUnescape(escaped, &unescaped, &error),
                  "Trouble unescaping \"", escaped, "\", got error: ", error);
        allowed->mutable_list()->add_s(unescaped);
        if (absl::ConsumePrefix(&spec, ",")) {
          SkipSpace(&spec);
          if (absl::ConsumePrefix(&spec, "}")) break;  // "..., }" is fine
        } else {
          MF_VERIFY(absl::ConsumePrefix(&spec, "}"),
                    "Expected , or } after strings in list, not: '", spec, "'");
          break;
        }
      }
    } else {
      type = "type";
      while (true) {
        MF_VERIFY(ConsumeAttrType(&spec, &type_string),
                  "Trouble parsing type string at '", spec, "'");
        if (!ProcessCompoundType(type_string, allowed)) {
          DataType dt;
          MF_VERIFY(internal::DataTypeFromOpSpelling(type_string, &dt),
                    "Unrecognized type string '", type_string, "'");
          allowed->mutable_list()->add_type(dt);
        }
        if (absl::ConsumePrefix(&spec, ",")) {
          SkipSpace(&spec);
          if (absl::ConsumePrefix(&spec, "}")) break;  // "..., }" is fine
        } else {
          MF_VERIFY(absl::ConsumePrefix(&spec, "}"),
                    "Expected , or } after types in list, not: '", spec, "'");
          break;
        }
      }
    }
  } else {
    MF_VERIFY(false, "Trouble parsing type string at '", spec, "'");
  }
  SkipSpace(&spec);

  if (is_list) {
    MF_VERIFY(absl::ConsumePrefix(&spec, ")"),
              "Expected ) to close 'list(', not: '", spec, "'");
    SkipSpace(&spec);
    attr->set_type(absl::StrCat("list(", type, ")"));
  } else {
    attr->set_type(type);
  }

  if ((is_list || type == "int") && absl::ConsumePrefix(&spec, ">=")) {
    int64_t min_limit = 0;
    MF_VERIFY(ConsumeAttrNumber(&spec, &min_limit),
              "Could not parse integer lower limit after '>=', found '", spec,
              "' instead");
    attr->set_has_minimum(true);
    attr->set_minimum(min_limit);
  }

  if (absl::ConsumePrefix(&spec, "=")) {
    SkipSpace(&spec);
    MF_VERIFY(ParseAttrValue(attr->type(), spec, attr->mutable_default_value()),
              "Could not parse default value '", spec, "'");
    // TensorFlow finds a default that breaks its own constraint only when
    // the op is registered; here the message can name the spec.
    const Status valid = ValidateAttrValue(attr->default_value(), *attr);
    MF_VERIFY(
        valid.ok(), "Default value ", SummarizeAttrValue(attr->default_value()),
        " does not satisfy the attr's own constraints: ", valid.message());
  } else {
    MF_VERIFY(spec.empty(), "Extra '", spec, "' unparsed at the end");
  }
}

#undef MF_VERIFY

std::string InOutError(bool is_output, absl::string_view orig,
                       absl::string_view op_name) {
  return absl::StrCat(" from ", is_output ? "Output" : "Input", "(\"", orig,
                      "\") for Op ", op_name);
}

#define MF_VERIFY(expr, ...)                                          \
  do {                                                                \
    if (!(expr)) {                                                    \
      errors->push_back(absl::StrCat(                                 \
          __VA_ARGS__, InOutError(is_output, orig, op_def->name()))); \
      return;                                                         \
    }                                                                 \
  } while (0)

void FinalizeInputOrOutput(absl::string_view spec, bool is_output,
                           OpDef* op_def, std::vector<std::string>* errors) {
  const absl::string_view orig = spec;
  absl::string_view name;
  MF_VERIFY(
      ConsumeNameColon(&spec, absl::ascii_islower, IsLowerWordChar, &name),
      "Trouble parsing 'name:'");
  MF_VERIFY(!NameTaken(name, *op_def), "Duplicate name '", name, "'");
  OpDef::ArgDef* arg =
      is_output ? op_def->add_output_arg() : op_def->add_input_arg();
  arg->set_name(name.data(), name.size());

  if (ConsumeCall(&spec, "Ref")) arg->set_is_ref(true);

  // "<type or attr>" or "<number attr> * <type or attr>".
  absl::string_view first, type_or_attr;
  MF_VERIFY(ConsumeName(&spec, absl::ascii_isalpha, IsWordChar, &first),
            "Trouble parsing either a type or an attr name at '", spec, "'");
  type_or_attr = first;
  absl::string_view after_star = spec;
  if (absl::ConsumePrefix(&after_star, "*")) {
    SkipSpace(&after_star);
    absl::string_view second;
    if (ConsumeName(&after_star, absl::ascii_isalpha, IsWordChar, &second)) {
      spec = after_star;
      arg->set_number_attr(first.data(), first.size());
      type_or_attr = second;
    }
  }
  DataType dt;
  if (internal::DataTypeFromOpSpelling(type_or_attr, &dt)) {
    arg->set_type(dt);
  } else {
    const OpDef::AttrDef* attr = FindAttr(type_or_attr, *op_def);
    MF_VERIFY(attr != nullptr, "Reference to unknown attr '", type_or_attr,
              "'");
    if (attr->type() == "type") {
      arg->set_type_attr(type_or_attr.data(), type_or_attr.size());
    } else {
      MF_VERIFY(attr->type() == "list(type)", "Reference to attr '",
                type_or_attr, "' with type ", attr->type(),
                " that isn't type or list(type)");
      arg->set_type_list_attr(type_or_attr.data(), type_or_attr.size());
    }
  }

  if (arg->is_ref()) {
    MF_VERIFY(absl::ConsumePrefix(&spec, ")"),
              "Did not find closing ')' for 'Ref(', instead found: '", spec,
              "'");
    SkipSpace(&spec);
  }
  MF_VERIFY(spec.empty(), "Extra '", spec, "' unparsed at the end");

  if (!arg->number_attr().empty()) {
    OpDef::AttrDef* attr = FindAttrMutable(arg->number_attr(), op_def);
    MF_VERIFY(attr != nullptr, "Reference to unknown attr '",
              arg->number_attr(), "'");
    MF_VERIFY(attr->type() == "int", "Length attr '", arg->number_attr(),
              "' has type ", attr->type(), ", not int");
    MF_VERIFY(arg->type_list_attr().empty(), "Attr '", arg->type_list_attr(),
              "' of type list(type) cannot be repeated with '",
              arg->number_attr(), " *'");
    // Lists are at least one long unless the attr says otherwise.
    if (!attr->has_minimum()) {
      attr->set_has_minimum(true);
      attr->set_minimum(1);
    }
  } else if (!arg->type_list_attr().empty()) {
    OpDef::AttrDef* attr = FindAttrMutable(arg->type_list_attr(), op_def);
    if (attr != nullptr && !attr->has_minimum()) {
      attr->set_has_minimum(true);
      attr->set_minimum(1);
    }
  }

  // An op that takes or makes a resource handle almost surely touches a
  // resource manager, so it must not be constant-folded or deduplicated.
  if (arg->type() == DT_RESOURCE) op_def->set_is_stateful(true);
}

#undef MF_VERIFY

bool IsDocNameColon(absl::string_view line) {
  absl::string_view name;
  return ConsumeNameColon(&line, absl::ascii_isalpha, IsWordChar, &name);
}

size_t LeadingSpaces(absl::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return i;
}

void FinalizeDoc(const std::string& text, OpDef* op_def,
                 std::vector<std::string>* errors) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  for (std::string& line : lines) absl::StripTrailingAsciiWhitespace(&line);

  size_t l = 0;
  while (l < lines.size() && lines[l].empty()) ++l;
  if (l < lines.size()) op_def->set_summary(lines[l++]);
  while (l < lines.size() && lines[l].empty()) ++l;

  // The description runs until the first "<name>:" line.
  const size_t start = l;
  while (l < lines.size() && !IsDocNameColon(lines[l])) ++l;
  size_t end = l;
  while (end > start && lines[end - 1].empty()) --end;
  const std::string description =
      absl::StrJoin(lines.begin() + start, lines.begin() + end, "\n");
  if (!description.empty()) op_def->set_description(description);

  // Each "<name>: text" entry, continued by the lines up to the next entry;
  // continuation lines lose their common indentation.
  while (l < lines.size()) {
    absl::string_view first_line = lines[l];
    absl::string_view name;
    ConsumeNameColon(&first_line, absl::ascii_isalpha, IsWordChar, &name);
    std::vector<absl::string_view> entry = {first_line};
    for (++l; l < lines.size() && !IsDocNameColon(lines[l]); ++l) {
      entry.push_back(lines[l]);
    }
    while (!entry.empty() && entry.back().empty()) entry.pop_back();
    size_t min_indent = std::string::npos;
    for (size_t i = 1; i < entry.size(); ++i) {
      if (!entry[i].empty())
        min_indent = std::min(min_indent, LeadingSpaces(entry[i]));
    }
    for (size_t i = 1; i < entry.size(); ++i) {
      if (!entry[i].empty()) entry[i].remove_prefix(min_indent);
    }
    const std::string complete = absl::StrJoin(entry, "\n");

    bool found = false;
    for (auto& arg : *op_def->mutable_input_arg()) {
      if (!found && arg.name() == name) {
        arg.set_description(complete);
        found = true;
      }
    }
    for (auto& arg : *op_def->mutable_output_arg()) {
      if (!found && arg.name() == name) {
        arg.set_description(complete);
        found = true;
      }
    }
    for (auto& attr : *op_def->mutable_attr()) {
      if (!found && attr.name() == name) {
        attr.set_description(complete);
        found = true;
      }
    }
    if (!found) {
      errors->push_back(absl::StrCat("No matching input/output/attr for name '",
                                     name, "' from Doc() for Op ",
                                     op_def->name()));
      return;
    }
  }
}

void FinalizeControlOutput(absl::string_view name, OpDef* op_def,
                           std::vector<std::string>* errors) {
  absl::string_view rest = name;
  absl::string_view parsed;
  if (!ConsumeName(&rest, absl::ascii_isalpha, IsWordChar, &parsed) ||
      !rest.empty()) {
    errors->push_back(
        absl::StrCat("Trouble parsing 'name' from ControlOutput(\"", name,
                     "\") for Op ", op_def->name()));
    return;
  }
  for (const std::string& existing : op_def->control_output()) {
    if (existing == parsed) {
      errors->push_back(absl::StrCat("Duplicate name '", parsed,
                                     "' from ControlOutput(\"", name,
                                     "\") for Op ", op_def->name()));
      return;
    }
  }
  op_def->add_control_output(parsed.data(), parsed.size());
}

}  // namespace

OpDefBuilder::OpDefBuilder(std::string op_name) {
  op_def()->set_name(std::move(op_name));
}

OpDefBuilder& OpDefBuilder::Attr(std::string spec) {
  attrs_.push_back(std::move(spec));
  return *this;
}

OpDefBuilder& OpDefBuilder::Input(std::string spec) {
  inputs_.push_back(std::move(spec));
  return *this;
}

OpDefBuilder& OpDefBuilder::Output(std::string spec) {
  outputs_.push_back(std::move(spec));
  return *this;
}

OpDefBuilder& OpDefBuilder::ControlOutput(std::string name) {
  control_outputs_.push_back(std::move(name));
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsCommutative() {
  op_def()->set_is_commutative(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsAggregate() {
  op_def()->set_is_aggregate(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsStateful() {
  op_def()->set_is_stateful(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetAllowsUninitializedInput() {
  op_def()->set_allows_uninitialized_input(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetIsDistributedCommunication() {
  op_def()->set_is_distributed_communication(true);
  return *this;
}

OpDefBuilder& OpDefBuilder::Deprecated(int version, std::string explanation) {
  if (op_def()->has_deprecation()) {
    errors_.push_back(
        absl::StrCat("Deprecated called twice for Op ", op_def()->name()));
  } else {
    OpDeprecation* deprecation = op_def()->mutable_deprecation();
    deprecation->set_version(version);
    deprecation->set_explanation(std::move(explanation));
  }
  return *this;
}

OpDefBuilder& OpDefBuilder::Doc(std::string text) {
  if (has_doc_) {
    errors_.push_back(
        absl::StrCat("Extra call to Doc() for Op ", op_def()->name()));
  } else {
    has_doc_ = true;
    doc_ = std::move(text);
  }
  return *this;
}

OpDefBuilder& OpDefBuilder::SetShapeFn(OpShapeInferenceFn fn) {
  if (op_reg_data_.shape_inference_fn != nullptr) {
    errors_.push_back(
        absl::StrCat("SetShapeFn called twice for Op ", op_def()->name()));
  } else {
    op_reg_data_.shape_inference_fn = std::move(fn);
  }
  return *this;
}

Status OpDefBuilder::Finalize(OpRegistrationData* op_reg_data) const {
  std::vector<std::string> errors = errors_;
  *op_reg_data = op_reg_data_;
  OpDef* op_def = &op_reg_data->op_def;
  // Attrs first, so that inputs and outputs can refer to them whatever the
  // order of the calls.
  for (const std::string& attr : attrs_) FinalizeAttr(attr, op_def, &errors);
  for (const std::string& input : inputs_) {
    FinalizeInputOrOutput(input, /*is_output=*/false, op_def, &errors);
  }
  for (const std::string& output : outputs_) {
    FinalizeInputOrOutput(output, /*is_output=*/true, op_def, &errors);
  }
  for (const std::string& name : control_outputs_) {
    FinalizeControlOutput(name, op_def, &errors);
  }
  FinalizeDoc(doc_, op_def, &errors);

  if (errors.empty()) return OkStatus();
  return errors::InvalidArgument(absl::StrJoin(errors, "\n"));
}

}  // namespace minflow
