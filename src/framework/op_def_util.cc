#include "minflow/framework/op_def_util.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "minflow/attr_value.pb.h"
#include "minflow/core/logging.h"
#include "minflow/framework/attr_value_util.h"
#include "minflow/op_def.pb.h"

namespace minflow {
namespace internal {
namespace {

// "float" -> DT_FLOAT etc., from the proto enum so that every type TensorFlow
// names (float8_e5m2, int4, ...) is spelled as TensorFlow spells it.
const absl::flat_hash_map<std::string, DataType>& SpellingToType() {
  static const auto* const kMap = [] {
    auto* map = new absl::flat_hash_map<std::string, DataType>;
    const auto* descriptor = DataType_descriptor();
    for (int i = 0; i < descriptor->value_count(); ++i) {
      const int number = descriptor->value(i)->number();
      if (number <= 0 || number >= kDataTypeRefOffset) continue;
      // "DT_FLOAT8_E5M2" -> "float8_e5m2".
      const std::string name =
          absl::AsciiStrToLower(descriptor->value(i)->name());
      (*map)[name.substr(3)] = static_cast<DataType>(number);
    }
    (*map)["float32"] = DT_FLOAT;
    (*map)["float64"] = DT_DOUBLE;
    (*map)["float16"] = DT_HALF;
    return map;
  }();
  return *kMap;
}

}  // namespace

bool DataTypeFromOpSpelling(absl::string_view name, DataType* dtype) {
  const bool is_ref = absl::ConsumeSuffix(&name, "_ref");
  const auto& map = SpellingToType();
  const auto it = map.find(name);
  if (it == map.end()) return false;
  *dtype = is_ref ? MakeRefType(it->second) : it->second;
  return true;
}

std::string OpSpellingOfDataType(DataType dtype) {
  const DataType base = RemoveRefType(dtype);
  if (base == DT_INVALID || !DataType_IsValid(base)) {
    return absl::StrCat("unknown dtype enum (", static_cast<int>(dtype), ")");
  }
  std::string name = absl::AsciiStrToLower(DataType_Name(base)).substr(3);
  return IsRefType(dtype) ? absl::StrCat(name, "_ref") : name;
}

}  // namespace internal

namespace {

using internal::OpSpellingOfDataType;

bool IsLetter(char c) { return absl::ascii_isalpha(c); }
bool IsWordChar(char c) { return absl::ascii_isalnum(c) || c == '_'; }

// A letter, then letters, digits and underscores.
bool IsValidArgOrAttrName(absl::string_view name) {
  if (name.empty() || !IsLetter(name[0])) return false;
  return std::all_of(name.begin(), name.end(), IsWordChar);
}

// CamelCase segments separated by '>' (TensorFlow's namespaced op names),
// or anything after a leading '_' (internal ops such as _Arg, as TF allows).
bool IsValidOpName(absl::string_view name) {
  if (absl::StartsWith(name, "_")) return name.size() > 1;
  for (absl::string_view part : absl::StrSplit(name, '>')) {
    if (part.empty() || !absl::ascii_isupper(part[0]) ||
        !std::all_of(part.begin(), part.end(), IsWordChar)) {
      return false;
    }
  }
  return true;
}

bool HasAttrStyleType(const OpDef::ArgDef& arg) {
  return arg.type() != DT_INVALID || !arg.type_attr().empty() ||
         !arg.type_list_attr().empty();
}

Status AllowedTypeValue(DataType dt, const OpDef::AttrDef& attr) {
  const auto& allowed = attr.allowed_values().list().type();
  if (std::find(allowed.begin(), allowed.end(), dt) != allowed.end()) {
    return OkStatus();
  }
  const std::string allowed_str =
      absl::StrJoin(allowed, ", ", [](std::string* out, int t) {
        out->append(OpSpellingOfDataType(static_cast<DataType>(t)));
      });
  return errors::InvalidArgument(
      "Value for attr '", attr.name(), "' of ", OpSpellingOfDataType(dt),
      " is not in the list of allowed values: ", allowed_str);
}

Status AllowedStringValue(const std::string& str, const OpDef::AttrDef& attr) {
  const auto& allowed = attr.allowed_values().list().s();
  if (std::find(allowed.begin(), allowed.end(), str) != allowed.end()) {
    return OkStatus();
  }
  const std::string allowed_str =
      absl::StrJoin(allowed, ", ", [](std::string* out, const std::string& s) {
        absl::StrAppend(out, "\"", s, "\"");
      });
  return errors::InvalidArgument(
      "Value for attr '", attr.name(), "' of \"", str,
      "\" is not in the list of allowed values: ", allowed_str);
}

int ListLength(const AttrValue& value, absl::string_view type) {
  const AttrValue::ListValue& list = value.list();
  if (type == "list(string)") return list.s_size();
  if (type == "list(int)") return list.i_size();
  if (type == "list(float)") return list.f_size();
  if (type == "list(bool)") return list.b_size();
  if (type == "list(type)") return list.type_size();
  if (type == "list(shape)") return list.shape_size();
  if (type == "list(tensor)") return list.tensor_size();
  if (type == "list(func)") return list.func_size();
  return -1;
}

std::string SerializeDeterministic(const google::protobuf::Message& message) {
  std::string out;
  {
    // The streams trim `out` when destroyed, so they must go first.
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return out;
}

#define MF_VALIDATE(expr, ...)                                     \
  do {                                                             \
    if (!(expr)) {                                                 \
      return errors::InvalidArgument(                              \
          __VA_ARGS__, "; in OpDef: ", op_def.ShortDebugString()); \
    }                                                              \
  } while (0)

Status ValidateArg(const OpDef::ArgDef& arg, const OpDef& op_def, bool output,
                   absl::flat_hash_set<absl::string_view>* names) {
  const std::string suffix =
      absl::StrCat(output ? " for output '" : " for input '", arg.name(), "'");
  MF_VALIDATE(IsValidArgOrAttrName(arg.name()), "Invalid name '", arg.name(),
              "'", suffix,
              ": must start with a letter and contain only letters, digits "
              "and underscores");
  MF_VALIDATE(names->insert(arg.name()).second, "Duplicate name: ", arg.name());
  MF_VALIDATE(HasAttrStyleType(arg), "Missing type", suffix);

  if (!arg.number_attr().empty()) {
    const OpDef::AttrDef* attr = FindAttr(arg.number_attr(), op_def);
    MF_VALIDATE(attr != nullptr, "No attr with name '", arg.number_attr(), "'",
                suffix);
    MF_VALIDATE(attr->type() == "int", "Attr '", attr->name(),
                "' used as length", suffix, " has type ", attr->type(),
                " != int");
    MF_VALIDATE(attr->has_minimum(), "Attr '", attr->name(), "' used as length",
                suffix, " must have minimum");
    MF_VALIDATE(attr->minimum() >= 0, "Attr '", attr->name(),
                "' used as length", suffix, " must have minimum >= 0");
    MF_VALIDATE(arg.type_list_attr().empty(),
                "Can't have both number_attr and type_list_attr", suffix);
    MF_VALIDATE((arg.type() != DT_INVALID ? 1 : 0) +
                        (!arg.type_attr().empty() ? 1 : 0) ==
                    1,
                "Exactly one of type, type_attr must be set", suffix);
  } else {
    const int num_type_fields = (arg.type() != DT_INVALID ? 1 : 0) +
                                (!arg.type_attr().empty() ? 1 : 0) +
                                (!arg.type_list_attr().empty() ? 1 : 0);
    MF_VALIDATE(num_type_fields == 1,
                "Exactly one of type, type_attr, type_list_attr must be set",
                suffix);
  }

  if (!arg.type_attr().empty()) {
    const OpDef::AttrDef* attr = FindAttr(arg.type_attr(), op_def);
    MF_VALIDATE(attr != nullptr, "No attr with name '", arg.type_attr(), "'",
                suffix);
    MF_VALIDATE(attr->type() == "type", "Attr '", attr->name(),
                "' used as type_attr", suffix, " has type ", attr->type(),
                " != type");
  } else if (!arg.type_list_attr().empty()) {
    const OpDef::AttrDef* attr = FindAttr(arg.type_list_attr(), op_def);
    MF_VALIDATE(attr != nullptr, "No attr with name '", arg.type_list_attr(),
                "'", suffix);
    MF_VALIDATE(attr->type() == "list(type)", "Attr '", attr->name(),
                "' used as type_list_attr", suffix, " has type ", attr->type(),
                " != list(type)");
  } else {
    MF_VALIDATE(DataType_IsValid(arg.type()), "Invalid DataType enum ",
                static_cast<int>(arg.type()), suffix);
    // Refs are spelled is_ref + a plain type, never as a *_REF type.
    MF_VALIDATE(!IsRefType(arg.type()), "Illegal use of ref type '",
                OpSpellingOfDataType(arg.type()), "'. Use 'Ref(type)' instead",
                suffix);
  }
  return OkStatus();
}

}  // namespace

Status ValidateAttrValue(const AttrValue& attr_value,
                         const OpDef::AttrDef& attr) {
  Status typed = AttrValueHasType(attr_value, attr.type());
  if (!typed.ok()) {
    return errors::AppendToMessage(typed, " for attr '", attr.name(), "'");
  }

  if (attr.has_minimum()) {
    if (attr.type() == "int") {
      if (attr_value.i() < attr.minimum()) {
        return errors::InvalidArgument(
            "Value for attr '", attr.name(), "' of ", attr_value.i(),
            " must be at least minimum ", attr.minimum());
      }
    } else {
      const int length = ListLength(attr_value, attr.type());
      if (length < attr.minimum()) {
        return errors::InvalidArgument(
            "Length for attr '", attr.name(), "' of ", length,
            " must be at least minimum ", attr.minimum());
      }
    }
  }

  if (attr.has_allowed_values()) {
    if (attr.type() == "type") {
      MF_RETURN_IF_ERROR(AllowedTypeValue(attr_value.type(), attr));
    } else if (attr.type() == "list(type)") {
      for (int dt : attr_value.list().type()) {
        MF_RETURN_IF_ERROR(AllowedTypeValue(static_cast<DataType>(dt), attr));
      }
    } else if (attr.type() == "string") {
      MF_RETURN_IF_ERROR(AllowedStringValue(attr_value.s(), attr));
    } else if (attr.type() == "list(string)") {
      for (const std::string& str : attr_value.list().s()) {
        MF_RETURN_IF_ERROR(AllowedStringValue(str, attr));
      }
    } else {
      return errors::Unimplemented(
          "Support for allowed_values not implemented for type ", attr.type());
    }
  }
  return OkStatus();
}

Status ValidateOpDef(const OpDef& op_def) {
  if (!absl::StartsWith(op_def.name(), "_")) {
    MF_VALIDATE(IsValidOpName(op_def.name()), "Invalid name: ", op_def.name(),
                " (Did you use CamelCase?)");
  }

  absl::flat_hash_set<absl::string_view> names;
  for (const auto& attr : op_def.attr()) {
    MF_VALIDATE(IsValidArgOrAttrName(attr.name()), "Invalid name '",
                attr.name(),
                "' for attr: must start with a letter and contain only "
                "letters, digits and underscores");
    MF_VALIDATE(names.insert(attr.name()).second,
                "Duplicate name: ", attr.name());
    DataType dt;
    MF_VALIDATE(!internal::DataTypeFromOpSpelling(attr.name(), &dt),
                "Attr can't have name ", attr.name(),
                " that matches a data type");

    absl::string_view type(attr.type());
    const bool is_list = absl::ConsumePrefix(&type, "list(");
    bool found = false;
    for (absl::string_view valid : {"string", "int", "float", "bool", "type",
                                    "shape", "tensor", "func"}) {
      if (absl::ConsumePrefix(&type, valid)) {
        found = true;
        break;
      }
    }
    MF_VALIDATE(found, "Unrecognized type '", type, "' in attr '", attr.name(),
                "'");
    if (is_list) {
      MF_VALIDATE(absl::ConsumePrefix(&type, ")"),
                  "'list(' is missing ')' in attr ", attr.name(), "'s type ",
                  attr.type());
    }
    MF_VALIDATE(type.empty(), "Extra '", type, "' at the end of attr ",
                attr.name(), "'s type ", attr.type());

    if (attr.has_minimum()) {
      MF_VALIDATE(attr.type() == "int" || is_list, "Attr '", attr.name(),
                  "' has minimum for unsupported type ", attr.type());
      if (is_list) {
        MF_VALIDATE(attr.minimum() >= 0, "Attr '", attr.name(),
                    "' with list type must have a non-negative minimum, not ",
                    attr.minimum());
      }
    } else {
      MF_VALIDATE(attr.minimum() == 0, "Attr '", attr.name(),
                  "' with has_minimum = false but minimum ", attr.minimum(),
                  " not equal to default of 0");
    }

    if (attr.has_allowed_values()) {
      const std::string list_type =
          is_list ? attr.type() : absl::StrCat("list(", attr.type(), ")");
      Status s = AttrValueHasType(attr.allowed_values(), list_type);
      if (!s.ok()) {
        return errors::AppendToMessage(s, " for attr '", attr.name(),
                                       "' in Op '", op_def.name(), "'");
      }
    }

    // Last, so that ValidateAttrValue sees an attr already known good.
    if (attr.has_default_value()) {
      Status s = ValidateAttrValue(attr.default_value(), attr);
      if (!s.ok()) {
        return errors::AppendToMessage(s, " in Op '", op_def.name(), "'");
      }
    }
  }

  for (const auto& arg : op_def.input_arg()) {
    MF_RETURN_IF_ERROR(ValidateArg(arg, op_def, /*output=*/false, &names));
  }
  for (const auto& arg : op_def.output_arg()) {
    MF_RETURN_IF_ERROR(ValidateArg(arg, op_def, /*output=*/true, &names));
  }
  return OkStatus();
}

#undef MF_VALIDATE

std::vector<std::string> LintOpDef(const OpDef& op_def) {
  absl::flat_hash_set<absl::string_view> used;
  for (const auto* args : {&op_def.input_arg(), &op_def.output_arg()}) {
    for (const auto& arg : *args) {
      used.insert(arg.type_attr());
      used.insert(arg.type_list_attr());
    }
  }
  std::vector<std::string> advice;
  for (const auto& attr : op_def.attr()) {
    if ((attr.type() == "type" || attr.type() == "list(type)") &&
        !attr.has_default_value() && !used.contains(attr.name())) {
      advice.push_back(absl::StrCat(
          "Op ", op_def.name(), ": attr '", attr.name(), ": ", attr.type(),
          "' is not used by any input or output and has no default, so it "
          "can never be inferred; use it in an Input/Output spec or give it "
          "a default"));
    }
  }
  return advice;
}

const OpDef::AttrDef* FindAttr(absl::string_view name, const OpDef& op_def) {
  for (const auto& attr : op_def.attr()) {
    if (attr.name() == name) return &attr;
  }
  return nullptr;
}

OpDef::AttrDef* FindAttrMutable(absl::string_view name, OpDef* op_def) {
  for (auto& attr : *op_def->mutable_attr()) {
    if (attr.name() == name) return &attr;
  }
  return nullptr;
}

const OpDef::ArgDef* FindInputArg(absl::string_view name, const OpDef& op_def) {
  for (const auto& arg : op_def.input_arg()) {
    if (arg.name() == name) return &arg;
  }
  return nullptr;
}

const OpDef::ArgDef* FindOutputArg(absl::string_view name,
                                   const OpDef& op_def) {
  for (const auto& arg : op_def.output_arg()) {
    if (arg.name() == name) return &arg;
  }
  return nullptr;
}

Status CheckOpDeprecation(const OpDef& op_def, int graph_def_version) {
  if (!op_def.has_deprecation()) return OkStatus();
  const OpDeprecation& dep = op_def.deprecation();
  if (graph_def_version >= dep.version()) {
    return errors::Unimplemented(
        "Op ", op_def.name(), " is not available in GraphDef version ",
        graph_def_version, ". It has been removed in version ", dep.version(),
        ". ", dep.explanation(), ".");
  }
  static absl::Mutex mu(absl::kConstInit);
  static auto* const warned = new absl::flat_hash_set<std::string>;
  bool first;
  {
    absl::MutexLock lock(&mu);
    first = warned->insert(op_def.name()).second;
  }
  if (first) {
    MF_LOG(WARNING) << "Op " << op_def.name() << " is deprecated."
                    << " It will cease to work in GraphDef version "
                    << dep.version() << ". " << dep.explanation() << ".";
  }
  return OkStatus();
}

namespace {

std::string SummarizeArgs(
    const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args) {
  std::string ret;
  for (const OpDef::ArgDef& arg : args) {
    if (!ret.empty()) ret.append(", ");
    absl::StrAppend(&ret, arg.name(), ":");
    if (arg.is_ref()) ret.append("Ref(");
    if (!arg.number_attr().empty())
      absl::StrAppend(&ret, arg.number_attr(), "*");
    if (arg.type() != DT_INVALID) {
      ret.append(OpSpellingOfDataType(arg.type()));
    } else if (!arg.type_attr().empty()) {
      ret.append(arg.type_attr());
    } else {
      ret.append(arg.type_list_attr());
    }
    if (arg.is_ref()) ret.append(")");
  }
  return ret;
}

}  // namespace

std::string SummarizeOpDef(const OpDef& op_def) {
  std::string ret = absl::StrCat("Op<name=", op_def.name());
  absl::StrAppend(&ret, "; signature=", SummarizeArgs(op_def.input_arg()),
                  " -> ", SummarizeArgs(op_def.output_arg()));
  for (const auto& attr : op_def.attr()) {
    absl::StrAppend(&ret, "; attr=", attr.name(), ":", attr.type());
    if (attr.has_default_value()) {
      absl::StrAppend(&ret,
                      ",default=", SummarizeAttrValue(attr.default_value()));
    }
    if (attr.has_minimum()) absl::StrAppend(&ret, ",min=", attr.minimum());
    if (attr.has_allowed_values()) {
      absl::StrAppend(&ret,
                      ",allowed=", SummarizeAttrValue(attr.allowed_values()));
    }
  }
  if (op_def.is_commutative()) ret.append("; is_commutative=true");
  if (op_def.is_aggregate()) ret.append("; is_aggregate=true");
  if (op_def.is_stateful()) ret.append("; is_stateful=true");
  if (op_def.allows_uninitialized_input()) {
    ret.append("; allows_uninitialized_input=true");
  }
  if (op_def.is_distributed_communication()) {
    ret.append("; is_distributed_communication=true");
  }
  ret.append(">");
  return ret;
}

namespace {

// True when every element of `sub` appears in `super`.
template <typename Range>
bool IsSubsetOf(const Range& sub, const Range& super) {
  for (const auto& item : sub) {
    if (std::find(super.begin(), super.end(), item) == super.end()) {
      return false;
    }
  }
  return true;
}

bool MoreRestrictive(const OpDef::AttrDef& old_attr,
                     const OpDef::AttrDef& new_attr) {
  if (!new_attr.has_allowed_values()) return false;
  if (!old_attr.has_allowed_values()) return true;
  return !IsSubsetOf(old_attr.allowed_values().list().type(),
                     new_attr.allowed_values().list().type()) ||
         !IsSubsetOf(old_attr.allowed_values().list().s(),
                     new_attr.allowed_values().list().s());
}

std::string AllowedStr(const OpDef::AttrDef& attr) {
  if (!attr.has_allowed_values()) return "no restriction";
  return SummarizeAttrValue(attr.allowed_values());
}

std::string DefaultAttrStr(const OpDef::AttrDef& attr) {
  if (!attr.has_default_value()) return "no default";
  return SummarizeAttrValue(attr.default_value());
}

bool HigherMinimum(const OpDef::AttrDef& old_attr,
                   const OpDef::AttrDef& new_attr) {
  if (!new_attr.has_minimum()) return false;
  if (!old_attr.has_minimum()) return true;
  return new_attr.minimum() > old_attr.minimum();
}

std::string MinStr(const OpDef::AttrDef& attr) {
  if (!attr.has_minimum()) return "no minimum";
  return absl::StrCat(attr.minimum());
}

using AttrMap = absl::flat_hash_map<absl::string_view, const OpDef::AttrDef*>;

AttrMap MakeAttrMap(const OpDef& op_def) {
  AttrMap map;
  for (const auto& attr : op_def.attr()) map.emplace(attr.name(), &attr);
  return map;
}

const OpDef::AttrDef* Lookup(const AttrMap& map, absl::string_view name) {
  const auto it = map.find(name);
  return it == map.end() ? nullptr : it->second;
}

// Default list lengths beyond this are not expanded in signatures (they are
// nonsense, and expanding them would only burn memory).
constexpr int64_t kMaxExpandedDefaultLength = 1000;

// A signature of `args` that comes out the same for the old and the new
// OpDef exactly when graphs built against the old one keep their input or
// output types under the new one. Attrs both OpDefs have stay symbolic ("T",
// "N * T"); attrs only the new OpDef has are replaced by their defaults, so
// a single int32 and "N * int32" with N = 1 by default agree. `names` adds
// each arg's name (outputs are referred to by name in function bodies).
std::string ComputeArgSignature(
    const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args,
    const AttrMap& old_attrs, const AttrMap& new_attrs, std::vector<bool>* ref,
    bool names) {
  std::vector<std::string> entries;
  const auto prefix = [&](const OpDef::ArgDef& arg) {
    return names ? absl::StrCat(arg.name(), ":") : std::string();
  };
  for (const OpDef::ArgDef& arg : args) {
    if (!arg.type_list_attr().empty()) {
      if (Lookup(old_attrs, arg.type_list_attr()) != nullptr) {
        entries.push_back(absl::StrCat(prefix(arg), arg.type_list_attr()));
        ref->push_back(arg.is_ref());
        continue;
      }
      const OpDef::AttrDef* new_attr = Lookup(new_attrs, arg.type_list_attr());
      if (new_attr == nullptr) {
        entries.push_back(absl::StrCat(prefix(arg), "<missing attr ",
                                       arg.type_list_attr(), ">"));
        ref->push_back(arg.is_ref());
        continue;
      }
      for (int t : new_attr->default_value().list().type()) {
        entries.push_back(absl::StrCat(
            prefix(arg), OpSpellingOfDataType(static_cast<DataType>(t))));
        ref->push_back(arg.is_ref());
      }
      continue;
    }

    int64_t num = 1;
    std::string type = prefix(arg);
    if (!arg.number_attr().empty()) {
      if (Lookup(old_attrs, arg.number_attr()) != nullptr) {
        absl::StrAppend(&type, arg.number_attr(), " * ");
      } else if (const OpDef::AttrDef* new_attr =
                     Lookup(new_attrs, arg.number_attr())) {
        num = new_attr->default_value().i();
        if (num < 0 || num > kMaxExpandedDefaultLength) {
          absl::StrAppend(&type, num, " * ");
          num = 1;
        }
      } else {
        absl::StrAppend(&type, "<missing attr ", arg.number_attr(), "> * ");
      }
    }
    if (arg.type() != DT_INVALID) {
      type.append(OpSpellingOfDataType(arg.type()));
    } else if (Lookup(old_attrs, arg.type_attr()) != nullptr) {
      type.append(arg.type_attr());
    } else if (const OpDef::AttrDef* new_attr =
                   Lookup(new_attrs, arg.type_attr())) {
      type.append(OpSpellingOfDataType(new_attr->default_value().type()));
    } else {
      absl::StrAppend(&type, "<missing attr ", arg.type_attr(), ">");
    }
    for (int64_t i = 0; i < num; ++i) {
      entries.push_back(type);
      ref->push_back(arg.is_ref());
    }
  }
  return absl::StrJoin(entries, ", ");
}

}  // namespace

std::vector<std::string> OpDefIncompatibilities(const OpDef& old_op,
                                                const OpDef& new_op) {
  std::vector<std::string> reasons;
  if (old_op.name() != new_op.name()) {
    reasons.push_back(absl::StrCat("Name mismatch '", old_op.name(), "' vs. '",
                                   new_op.name(), "'"));
  }

  const AttrMap old_attrs = MakeAttrMap(old_op);
  const AttrMap new_attrs = MakeAttrMap(new_op);
  for (const auto& old_attr : old_op.attr()) {
    const OpDef::AttrDef* new_attr = Lookup(new_attrs, old_attr.name());
    if (new_attr == nullptr) {
      reasons.push_back(absl::StrCat("Attr '", old_attr.name(), "' removed"));
      continue;
    }
    if (old_attr.type() != new_attr->type()) {
      reasons.push_back(absl::StrCat("Attr '", old_attr.name(),
                                     "' changed type '", old_attr.type(),
                                     "' -> '", new_attr->type(), "'"));
      continue;
    }
    if (MoreRestrictive(old_attr, *new_attr)) {
      reasons.push_back(
          absl::StrCat("Attr '", old_attr.name(),
                       "' has a stricter set of allowed values; from ",
                       AllowedStr(old_attr), " to ", AllowedStr(*new_attr)));
    }
    if (HigherMinimum(old_attr, *new_attr)) {
      reasons.push_back(absl::StrCat(
          "Attr '", old_attr.name(), "' has a higher minimum; from ",
          MinStr(old_attr), " to ", MinStr(*new_attr)));
    }
    if (old_attr.has_default_value() && !new_attr->has_default_value()) {
      reasons.push_back(absl::StrCat(
          "Attr '", old_attr.name(), "' has removed its default; from ",
          DefaultAttrStr(old_attr), " to ", DefaultAttrStr(*new_attr)));
    } else if (old_attr.has_default_value() &&
               !AreAttrValuesEqual(old_attr.default_value(),
                                   new_attr->default_value())) {
      reasons.push_back(absl::StrCat(
          "Attr '", old_attr.name(), "' has changed its default value; from ",
          DefaultAttrStr(old_attr), " to ", DefaultAttrStr(*new_attr)));
    }
  }
  for (const auto& new_attr : new_op.attr()) {
    if (Lookup(old_attrs, new_attr.name()) == nullptr &&
        !new_attr.has_default_value()) {
      reasons.push_back(
          absl::StrCat("Attr '", new_attr.name(), "' added without default"));
    }
  }

  std::vector<bool> old_in_ref, new_in_ref, old_out_ref, new_out_ref;
  const std::string old_in_sig = ComputeArgSignature(
      old_op.input_arg(), old_attrs, new_attrs, &old_in_ref, /*names=*/false);
  const std::string new_in_sig = ComputeArgSignature(
      new_op.input_arg(), old_attrs, new_attrs, &new_in_ref, /*names=*/false);
  if (old_in_sig != new_in_sig) {
    reasons.push_back(absl::StrCat("Input signature mismatch '", old_in_sig,
                                   "' vs. '", new_in_sig, "'"));
  } else {
    for (size_t i = 0; i < old_in_ref.size() && i < new_in_ref.size(); ++i) {
      // Dropping Ref from an input is fine; adding it is not.
      if (!old_in_ref[i] && new_in_ref[i]) {
        reasons.push_back(
            absl::StrCat("Input ", i, " changed from non-ref to ref"));
      }
    }
  }

  const std::string old_out_sig = ComputeArgSignature(
      old_op.output_arg(), old_attrs, new_attrs, &old_out_ref, /*names=*/true);
  const std::string new_out_sig = ComputeArgSignature(
      new_op.output_arg(), old_attrs, new_attrs, &new_out_ref, /*names=*/true);
  if (old_out_sig != new_out_sig) {
    reasons.push_back(absl::StrCat("Output signature mismatch '", old_out_sig,
                                   "' vs. '", new_out_sig, "'"));
  } else {
    for (size_t i = 0; i < old_out_ref.size() && i < new_out_ref.size(); ++i) {
      // Adding Ref to an output is fine; dropping it is not.
      if (old_out_ref[i] && !new_out_ref[i]) {
        reasons.push_back(
            absl::StrCat("Output ", i, " changed from ref to non-ref"));
      }
    }
  }
  return reasons;
}

Status OpDefCompatible(const OpDef& old_op, const OpDef& new_op) {
  const std::vector<std::string> reasons =
      OpDefIncompatibilities(old_op, new_op);
  if (reasons.empty()) return OkStatus();
  return errors::InvalidArgument(
      "Incompatible Op change: ", absl::StrJoin(reasons, "; "),
      "; old: ", SummarizeOpDef(old_op), "; new: ", SummarizeOpDef(new_op));
}

Status OpDefAttrDefaultsUnchanged(const OpDef& old_op, const OpDef& new_op) {
  const AttrMap new_attrs = MakeAttrMap(new_op);
  for (const auto& old_attr : old_op.attr()) {
    const OpDef::AttrDef* new_attr = Lookup(new_attrs, old_attr.name());
    if (new_attr == nullptr || !old_attr.has_default_value()) continue;
    if (!new_attr->has_default_value()) {
      return errors::InvalidArgument(
          "Attr '", old_attr.name(), "' has removed its default; from ",
          DefaultAttrStr(old_attr), " to ", DefaultAttrStr(*new_attr));
    }
    if (!AreAttrValuesEqual(old_attr.default_value(),
                            new_attr->default_value())) {
      return errors::InvalidArgument(
          "Attr '", old_attr.name(), "' has changed its default value; from ",
          DefaultAttrStr(old_attr), " to ", DefaultAttrStr(*new_attr));
    }
  }
  return OkStatus();
}

void RemoveNonDeprecationDescriptionsFromOpDef(OpDef* op_def) {
  for (auto& arg : *op_def->mutable_input_arg()) arg.clear_description();
  for (auto& arg : *op_def->mutable_output_arg()) arg.clear_description();
  for (auto& attr : *op_def->mutable_attr()) attr.clear_description();
  op_def->clear_summary();
  op_def->clear_description();
}

void RemoveDescriptionsFromOpDef(OpDef* op_def) {
  RemoveNonDeprecationDescriptionsFromOpDef(op_def);
  if (op_def->has_deprecation()) {
    op_def->mutable_deprecation()->clear_explanation();
  }
}

void RemoveDescriptionsFromOpList(OpList* op_list) {
  for (auto& op : *op_list->mutable_op()) RemoveDescriptionsFromOpDef(&op);
}

bool AttrDefEqual(const OpDef::AttrDef& a, const OpDef::AttrDef& b) {
  return a.name() == b.name() && a.type() == b.type() &&
         a.description() == b.description() &&
         a.has_minimum() == b.has_minimum() &&
         (!a.has_minimum() || a.minimum() == b.minimum()) &&
         a.has_default_value() == b.has_default_value() &&
         AreAttrValuesEqual(a.default_value(), b.default_value()) &&
         a.has_allowed_values() == b.has_allowed_values() &&
         AreAttrValuesEqual(a.allowed_values(), b.allowed_values());
}

bool OpDefEqual(const OpDef& a, const OpDef& b) {
  if (a.attr_size() != b.attr_size()) return false;
  const AttrMap a_attrs = MakeAttrMap(a);
  if (static_cast<int>(a_attrs.size()) != a.attr_size()) return false;
  for (const auto& attr : b.attr()) {
    const OpDef::AttrDef* other = Lookup(a_attrs, attr.name());
    if (other == nullptr || !AttrDefEqual(*other, attr)) return false;
  }
  std::vector<std::string> a_outputs(a.control_output().begin(),
                                     a.control_output().end());
  std::vector<std::string> b_outputs(b.control_output().begin(),
                                     b.control_output().end());
  std::sort(a_outputs.begin(), a_outputs.end());
  std::sort(b_outputs.begin(), b_outputs.end());
  if (a_outputs != b_outputs) return false;

  OpDef a_rest = a, b_rest = b;
  a_rest.clear_attr();
  a_rest.clear_control_output();
  b_rest.clear_attr();
  b_rest.clear_control_output();
  return SerializeDeterministic(a_rest) == SerializeDeterministic(b_rest);
}

}  // namespace minflow
