#include "cc/framework/cc_op_gen.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "minflow/attr_value.pb.h"
#include "minflow/core/types.h"
#include "minflow/op_def.pb.h"
#include "minflow/tensor_shape.pb.h"
#include "minflow/types.pb.h"

namespace minflow {
namespace cc_op_gen {
namespace {

// C++ keywords and the names the generated code itself uses: an arg or
// attr with one of these names gets a trailing '_'.
const std::set<std::string>& ReservedNames() {
  static const auto* names = new std::set<std::string>{
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
      "bool", "break", "case", "catch", "char", "char16_t", "char32_t", "class",
      "compl", "const", "constexpr", "const_cast", "continue", "decltype",
      "default", "delete", "do", "double", "dynamic_cast", "else", "enum",
      "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
      "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept",
      "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private",
      "protected", "public", "register", "reinterpret_cast", "return", "short",
      "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
      "switch", "template", "this", "thread_local", "throw", "true", "try",
      "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual",
      "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
      // The generated code's own names.
      "scope", "attrs", "operation", "mf_builder"};
  return *names;
}

std::string Identifier(const std::string& name) {
  return ReservedNames().count(name) > 0 ? name + "_" : name;
}

// "transpose_a" -> "TransposeA", TensorFlow's setter names.
std::string CamelCase(const std::string& name) {
  std::string out;
  bool upper = true;
  for (char c : name) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? absl::ascii_toupper(static_cast<unsigned char>(c)) : c;
    upper = false;
  }
  return out;
}

// How an attr type appears in C++: the parameter a setter or constructor
// takes, the member that Attrs keeps, and the expression passing the
// member (or parameter) to OpBuilder::Attr.
struct AttrCpp {
  std::string param;
  std::string member;
  std::string pass_prefix, pass_suffix;  // around the value passed
};

StatusOr<AttrCpp> CppForAttr(const OpDef& op, const OpDef_AttrDef& attr) {
  const std::string& t = attr.type();
  auto plain = [](std::string type) -> AttrCpp { return {type, type, "", ""}; };
  auto span = [](std::string element) -> AttrCpp {
    return {absl::StrCat("absl::Span<const ", element, ">"),
            absl::StrCat("std::vector<", element, ">"), "absl::MakeConstSpan(",
            ")"};
  };
  if (t == "string")
    return AttrCpp{"absl::string_view", "std::string", "absl::string_view(",
                   ")"};
  if (t == "int") return plain("int64_t");
  if (t == "float") return plain("float");
  if (t == "bool") return plain("bool");
  if (t == "type") return plain("::minflow::DataType");
  if (t == "shape")
    return AttrCpp{"const ::minflow::PartialTensorShape&",
                   "::minflow::PartialTensorShape", "", ""};
  if (t == "tensor")
    return AttrCpp{"const ::minflow::Tensor&", "::minflow::Tensor", "", ""};
  if (t == "func") return AttrCpp{"const ::minflow::NameAttrList&", "", "", ""};
  if (t == "list(string)") return span("std::string");
  if (t == "list(int)") return span("int64_t");
  if (t == "list(float)") return span("float");
  if (t == "list(type)") return span("::minflow::DataType");
  if (t == "list(shape)") return span("::minflow::PartialTensorShape");
  if (t == "list(tensor)") return span("::minflow::Tensor");
  if (t == "list(bool)")
    return AttrCpp{"const std::vector<bool>&", "std::vector<bool>", "", ""};
  if (t == "list(func)")
    return AttrCpp{"const std::vector<::minflow::NameAttrList>&", "", "", ""};
  return errors::InvalidArgument("Op ", op.name(), ": attr '", attr.name(),
                                 "' has type '", t,
                                 "', which the C++ wrappers cannot express");
}

std::string FloatLiteral(float v) {
  if (std::isnan(v)) return "std::numeric_limits<float>::quiet_NaN()";
  if (std::isinf(v)) {
    return v > 0 ? "std::numeric_limits<float>::infinity()"
                 : "-std::numeric_limits<float>::infinity()";
  }
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.9g", v);
  std::string s = buffer;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + "f";
}

std::string IntLiteral(int64_t v) {
  if (v == INT64_MIN) return "(-9223372036854775807LL - 1)";
  return absl::StrCat(v);
}

std::string ShapeLiteral(const TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "::minflow::PartialTensorShape()";
  std::vector<std::string> dims;
  for (const auto& d : shape.dim()) dims.push_back(IntLiteral(d.size()));
  return absl::StrCat(
      "::minflow::PartialTensorShape(absl::Span<const int64_t>({",
      absl::StrJoin(dims, ", "), "}))");
}

std::string TypeLiteral(int type) {
  return absl::StrCat("::minflow::",
                      DataType_Name(static_cast<DataType>(type)));
}

// The C++ initializer of an Attrs member from the OpDef's default.
StatusOr<std::string> DefaultLiteral(const OpDef& op,
                                     const OpDef_AttrDef& attr) {
  const AttrValue& v = attr.default_value();
  const std::string& t = attr.type();
  auto list = [](const std::vector<std::string>& items) {
    return absl::StrCat("{", absl::StrJoin(items, ", "), "}");
  };
  std::vector<std::string> items;
  if (t == "string") return absl::StrCat("\"", absl::CEscape(v.s()), "\"");
  if (t == "int") return IntLiteral(v.i());
  if (t == "float") return FloatLiteral(v.f());
  if (t == "bool") return std::string(v.b() ? "true" : "false");
  if (t == "type") return TypeLiteral(v.type());
  if (t == "shape") return ShapeLiteral(v.shape());
  if (t == "list(string)") {
    for (const auto& s : v.list().s()) {
      items.push_back(absl::StrCat("\"", absl::CEscape(s), "\""));
    }
    return list(items);
  }
  if (t == "list(int)") {
    for (int64_t i : v.list().i()) items.push_back(IntLiteral(i));
    return list(items);
  }
  if (t == "list(float)") {
    for (float f : v.list().f()) items.push_back(FloatLiteral(f));
    return list(items);
  }
  if (t == "list(bool)") {
    for (bool b : v.list().b()) items.push_back(b ? "true" : "false");
    return list(items);
  }
  if (t == "list(type)") {
    for (int type : v.list().type()) items.push_back(TypeLiteral(type));
    return list(items);
  }
  if (t == "list(shape)") {
    for (const auto& s : v.list().shape()) items.push_back(ShapeLiteral(s));
    return list(items);
  }
  // A default tensor or function would need its proto in the header.
  return errors::InvalidArgument(
      "Op ", op.name(), ": attr '", attr.name(), "' of type '", t,
      "' has a default, which the C++ wrappers cannot express");
}

// "Defaults to ..." in the doc comment: the member's initializer, without
// the namespace.
std::string DefaultForDoc(const OpDef& op, const OpDef_AttrDef& attr) {
  StatusOr<std::string> literal = DefaultLiteral(op, attr);
  if (!literal.ok()) return "the OpDef's default";
  return absl::StrReplaceAll(*literal, {{"::minflow::", ""}});
}

// Lines of `text` as `///` comment lines, indented by `indent`. A trailing
// backslash would continue a `//` comment onto the next line: dropped.
void AppendDoc(absl::string_view text, const std::string& indent,
               std::string* out) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::string l(absl::StripTrailingAsciiWhitespace(line));
    while (!l.empty() && l.back() == '\\') l.pop_back();
    absl::StrAppend(out, indent, l.empty() ? "///" : "/// ", l, "\n");
  }
}

struct Arg {
  std::string name;  // C++ identifier
  std::string arg;   // the OpDef's name
  bool is_list = false;
  std::string description;
};

struct AttrInfo {
  const OpDef_AttrDef* def;
  std::string name;  // C++ identifier
  AttrCpp cpp;
};

struct OpCode {
  std::string decl;
  std::string defn;
};

// What an arg holds, for the doc comment when the OpDef says nothing:
// "T", "int32", "N * T", "Tout".
std::string ArgTypeForDoc(const OpDef_ArgDef& arg) {
  std::string type = !arg.type_attr().empty() ? arg.type_attr()
                     : !arg.type_list_attr().empty()
                         ? arg.type_list_attr()
                         : DataTypeString(arg.type());
  if (!arg.number_attr().empty()) type = arg.number_attr() + " * " + type;
  return arg.is_ref() ? "Ref(" + type + ")" : type;
}

bool IsList(const OpDef_ArgDef& arg) {
  return !arg.number_attr().empty() || !arg.type_list_attr().empty();
}

StatusOr<OpCode> GenerateOp(const OpDef& op) {
  // "Examples>ZeroOut" (a namespaced op, as custom-op libraries name
  // theirs) is class ZeroOut in namespace ops::Examples.
  std::vector<std::string> namespaces = absl::StrSplit(op.name(), '>');
  const std::string cls = namespaces.back();
  namespaces.pop_back();
  std::set<std::string> inferred;
  std::vector<Arg> inputs, outputs;
  for (const auto& a : op.input_arg()) {
    if (!a.type_attr().empty()) inferred.insert(a.type_attr());
    if (!a.number_attr().empty()) inferred.insert(a.number_attr());
    if (!a.type_list_attr().empty()) inferred.insert(a.type_list_attr());
    inputs.push_back(
        {Identifier(a.name()), a.name(), IsList(a),
         a.description().empty() ? ArgTypeForDoc(a) : a.description()});
  }
  for (const auto& a : op.output_arg()) {
    outputs.push_back(
        {Identifier(a.name()), a.name(), IsList(a),
         a.description().empty() ? ArgTypeForDoc(a) : a.description()});
  }
  std::vector<AttrInfo> required, optional;
  for (const auto& attr : op.attr()) {
    if (inferred.count(attr.name()) > 0) continue;
    MF_ASSIGN_OR_RETURN(AttrCpp cpp, CppForAttr(op, attr));
    AttrInfo info{&attr, Identifier(attr.name()), cpp};
    if (attr.has_default_value()) {
      if (cpp.member.empty()) {
        return errors::InvalidArgument(
            "Op ", op.name(), ": attr '", attr.name(), "' of type '",
            attr.type(),
            "' has a default, which the C++ wrappers cannot express");
      }
      optional.push_back(info);
    } else {
      required.push_back(info);
    }
  }

  // The constructor's parameters after the scope.
  std::vector<std::string> params, param_names;
  for (const Arg& in : inputs) {
    params.push_back(absl::StrCat(
        in.is_list ? "::minflow::InputList " : "::minflow::Input ", in.name));
    param_names.push_back(in.name);
  }
  for (const AttrInfo& a : required) {
    params.push_back(absl::StrCat(a.cpp.param, " ", a.name));
    param_names.push_back(a.name);
  }
  const std::string scope_param = "const ::minflow::Scope& scope";
  const std::string plain_params =
      params.empty()
          ? scope_param
          : absl::StrCat(scope_param, ", ", absl::StrJoin(params, ", "));
  const std::string attrs_params =
      absl::StrCat(plain_params, ", const ", cls, "::Attrs& attrs");

  // The doc comment.
  std::string doc;
  AppendDoc(
      op.summary().empty() ? absl::StrCat("The ", cls, " op.") : op.summary(),
      "", &doc);
  if (!op.description().empty()) {
    doc += "///\n";
    AppendDoc(op.description(), "", &doc);
  }
  doc += "///\n/// Arguments:\n/// * scope: A Scope object\n";
  for (const Arg& in : inputs) {
    AppendDoc(absl::StrCat("* ", in.name, ":",
                           in.description.empty() ? "" : " ", in.description),
              "", &doc);
  }
  for (const AttrInfo& a : required) {
    AppendDoc(absl::StrCat("* ", a.name, ": ",
                           a.def->description().empty() ? a.def->type()
                                                        : a.def->description()),
              "", &doc);
  }
  if (!optional.empty()) {
    doc += "///\n/// Optional attributes (see `Attrs`):\n";
    for (const AttrInfo& a : optional) {
      AppendDoc(
          absl::StrCat(
              "* ", CamelCase(a.def->name()), ": ",
              a.def->description().empty() ? "" : a.def->description() + " ",
              "Defaults to ", DefaultForDoc(op, *a.def), "."),
          "", &doc);
    }
  }
  if (!outputs.empty()) {
    doc += "///\n/// Returns:\n";
    for (const Arg& out : outputs) {
      AppendDoc(absl::StrCat("* `", out.is_list ? "OutputList" : "Output", "` ",
                             out.name, out.description.empty() ? "" : ": ",
                             out.description),
                "", &doc);
    }
  }

  std::string decl = doc;
  absl::StrAppend(&decl, "class ", cls, " {\n public:\n");
  std::set<std::string> setter_names;
  if (!optional.empty()) {
    absl::StrAppend(&decl, "  /// Optional attribute setters for ", cls,
                    ".\n  struct Attrs {\n");
    for (const AttrInfo& a : optional) {
      std::string setter = CamelCase(a.def->name());
      if (setter == cls || setter == "Attrs") setter += "_";
      setter_names.insert(setter);
      const std::string member = a.def->name() + "_";
      if (!a.def->description().empty()) {
        AppendDoc(a.def->description(), "    ", &decl);
        decl += "    ///\n";
      }
      absl::StrAppend(&decl, "    /// Defaults to ", DefaultForDoc(op, *a.def),
                      ".\n");
      const bool is_span = absl::StartsWith(a.cpp.param, "absl::Span");
      const bool is_string = a.def->type() == "string";
      absl::StrAppend(&decl, "    ABSL_MUST_USE_RESULT Attrs ", setter, "(",
                      a.cpp.param, " x) const {\n      Attrs ret = *this;\n");
      if (is_span) {
        absl::StrAppend(&decl, "      ret.", member,
                        ".assign(x.begin(), x.end());\n");
      } else if (is_string) {
        absl::StrAppend(&decl, "      ret.", member, " = std::string(x);\n");
      } else {
        absl::StrAppend(&decl, "      ret.", member, " = x;\n");
      }
      absl::StrAppend(&decl, "      return ret;\n    }\n");
    }
    decl += "\n";
    for (const AttrInfo& a : optional) {
      MF_ASSIGN_OR_RETURN(std::string init, DefaultLiteral(op, *a.def));
      absl::StrAppend(&decl, "    ", a.cpp.member, " ", a.def->name(),
                      "_ = ", init, ";\n");
    }
    decl += "  };\n";
  }
  absl::StrAppend(&decl, "  ", cls, "(", plain_params, ");\n");
  if (!optional.empty()) {
    absl::StrAppend(&decl, "  ", cls, "(", attrs_params, ");\n");
  }
  if (outputs.size() == 1 && !outputs[0].is_list) {
    const std::string& o = outputs[0].name;
    absl::StrAppend(&decl, "  operator ::minflow::Output() const { return ", o,
                    "; }\n  operator ::minflow::Input() const { return ", o,
                    "; }\n  ::minflow::Node* node() const { return ", o,
                    ".node(); }\n");
  } else if (outputs.size() == 1) {
    const std::string& o = outputs[0].name;
    absl::StrAppend(&decl,
                    "  ::minflow::Output operator[](size_t index) const { "
                    "return ",
                    o,
                    "[index]; }\n  operator ::minflow::InputList() const { "
                    "return ",
                    o, "; }\n");
  } else if (outputs.empty()) {
    absl::StrAppend(&decl,
                    "  operator ::minflow::Operation() const { return "
                    "operation; }\n");
  }
  if (!optional.empty()) {
    decl += "\n";
    for (const AttrInfo& a : optional) {
      std::string setter = CamelCase(a.def->name());
      if (setter == cls || setter == "Attrs") setter += "_";
      absl::StrAppend(&decl, "  static Attrs ", setter, "(", a.cpp.param,
                      " x) {\n    return Attrs().", setter, "(x);\n  }\n");
    }
  }
  decl += "\n  ::minflow::Operation operation;\n";
  for (const Arg& out : outputs) {
    absl::StrAppend(
        &decl, "  ",
        out.is_list ? "::minflow::OutputList " : "::minflow::Output ", out.name,
        ";\n");
  }
  decl += "};\n\n";

  // The definitions.
  std::string defn;
  if (!optional.empty()) {
    absl::StrAppend(&defn, cls, "::", cls, "(", plain_params, ")\n    : ", cls,
                    "(scope", param_names.empty() ? "" : ", ",
                    absl::StrJoin(param_names, ", "), ", ", cls,
                    "::Attrs()) {}\n\n");
    absl::StrAppend(&defn, cls, "::", cls, "(", attrs_params, ") {\n");
  } else {
    absl::StrAppend(&defn, cls, "::", cls, "(", plain_params, ") {\n");
  }
  absl::StrAppend(&defn, "  if (!scope.ok()) return;\n",
                  "  ::minflow::OpBuilder mf_builder(scope, \"", op.name(),
                  "\");\n");
  for (const Arg& in : inputs) {
    absl::StrAppend(&defn, "  mf_builder.Input(", in.name, ");\n");
  }
  for (const AttrInfo& a : required) {
    absl::StrAppend(&defn, "  mf_builder.Attr(\"", a.def->name(), "\", ",
                    a.cpp.pass_prefix, a.name, a.cpp.pass_suffix, ");\n");
  }
  for (const AttrInfo& a : optional) {
    absl::StrAppend(&defn, "  mf_builder.Attr(\"", a.def->name(), "\", ",
                    a.cpp.pass_prefix, "attrs.", a.def->name(), "_",
                    a.cpp.pass_suffix, ");\n");
  }
  defn += "  this->operation = mf_builder.Finish();\n";
  for (const Arg& out : outputs) {
    absl::StrAppend(&defn, "  this->", out.name, " = mf_builder.",
                    out.is_list ? "GetOutputList" : "GetOutput", "(\"", out.arg,
                    "\");\n");
  }
  defn += "}\n\n";
  for (auto ns = namespaces.rbegin(); ns != namespaces.rend(); ++ns) {
    decl = absl::StrCat("namespace ", *ns, " {\n\n", decl, "}  // namespace ",
                        *ns, "\n\n");
    defn = absl::StrCat("namespace ", *ns, " {\n\n", defn, "}  // namespace ",
                        *ns, "\n\n");
  }
  return OpCode{std::move(decl), std::move(defn)};
}

constexpr char kBanner[] =
    "// Generated by minflow_cc_op_gen from the op registry: do not edit.\n";

}  // namespace

bool ShouldGenerate(const OpDef& op_def) {
  return !absl::StartsWith(op_def.name(), "_") && op_def.name() != "Const";
}

StatusOr<Files> Generate(const OpList& ops, const Options& options) {
  if (options.num_sources < 1) {
    return errors::InvalidArgument("num_sources must be at least 1, but got ",
                                   options.num_sources);
  }
  std::vector<const OpDef*> selected;
  for (const OpDef& op : ops.op()) {
    if (ShouldGenerate(op)) selected.push_back(&op);
  }
  std::sort(
      selected.begin(), selected.end(),
      [](const OpDef* a, const OpDef* b) { return a->name() < b->name(); });

  Files files;
  files.header =
      absl::StrCat(kBanner,
                   "// One class per op: see README, \"C++ graph API\".\n"
                   "#pragma once\n\n"
                   "#include <cstddef>\n#include <cstdint>\n#include <limits>\n"
                   "#include <string>\n#include <vector>\n\n"
                   "#include \"absl/base/attributes.h\"\n"
                   "#include \"absl/strings/string_view.h\"\n"
                   "#include \"absl/types/span.h\"\n"
                   "#include \"minflow/cc/framework/ops.h\"\n"
                   "#include \"minflow/cc/framework/scope.h\"\n"
                   "#include \"minflow/cc/ops/const_op.h\"\n"
                   "#include \"minflow/core/tensor.h\"\n"
                   "#include \"minflow/core/tensor_shape.h\"\n"
                   "#include \"minflow/core/types.h\"\n\n"
                   "namespace minflow {\n\nclass NameAttrList;\nclass Node;\n\n"
                   "namespace ops {\n\n");
  std::string source_head =
      absl::StrCat(kBanner, "#include \"", options.header_include, "\"\n\n",
                   "#include \"minflow/attr_value.pb.h\"\n"
                   "#include \"minflow/cc/framework/op_builder.h\"\n\n"
                   "namespace minflow {\nnamespace ops {\n\n");
  files.sources.assign(options.num_sources, source_head);
  const size_t n = selected.size();
  for (size_t i = 0; i < n; ++i) {
    MF_ASSIGN_OR_RETURN(OpCode code, GenerateOp(*selected[i]));
    files.header += code.decl;
    files.sources[i * options.num_sources / std::max<size_t>(n, 1)] +=
        code.defn;
  }
  files.header += "}  // namespace ops\n}  // namespace minflow\n";
  for (std::string& source : files.sources) {
    source += "}  // namespace ops\n}  // namespace minflow\n";
  }
  return files;
}

}  // namespace cc_op_gen
}  // namespace minflow
