#include "minflow/framework/attr_value_util.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "minflow/attr_value.pb.h"
#include "minflow/core/proto_limits.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/framework/op_def_util.h"
#include "minflow/tensor.pb.h"
#include "minflow/tensor_shape.pb.h"

namespace minflow {
namespace {

// Tensors above this size are not decoded to compare or hash them (the
// TensorProto shorthand lets a few bytes describe a huge tensor).
constexpr int64_t kMaxAttrValueTensorByteSize = int64_t{32} << 20;
// Summaries decode at most this much of a tensor.
constexpr int64_t kMaxSummarizedTensorBytes = int64_t{1} << 16;

// Element count of `proto`'s shape, or -1 when the shape is not fully known
// or not valid.
int64_t NumElementsOf(const TensorProto& proto) {
  PartialTensorShape shape;
  if (!PartialTensorShape::BuildPartialTensorShape(proto.tensor_shape(), &shape)
           .ok()) {
    return -1;
  }
  return shape.num_elements();
}

int64_t TensorByteSize(const TensorProto& proto) {
  const int64_t n = NumElementsOf(proto);
  if (n < 0) return -1;
  const int64_t elem = std::max(DataTypeSize(proto.dtype()), 1);
  if (n > std::numeric_limits<int64_t>::max() / elem) return -1;
  return n * elem;
}

bool SerializedEqual(const google::protobuf::Message& a,
                     const google::protobuf::Message& b) {
  std::string sa, sb;
  {
    google::protobuf::io::StringOutputStream stream(&sa);
    google::protobuf::io::CodedOutputStream out(&stream);
    out.SetSerializationDeterministic(true);
    a.SerializeToCodedStream(&out);
  }
  {
    google::protobuf::io::StringOutputStream stream(&sb);
    google::protobuf::io::CodedOutputStream out(&stream);
    out.SetSerializationDeterministic(true);
    b.SerializeToCodedStream(&out);
  }
  return sa == sb;
}

bool AreTensorProtosEqual(const TensorProto& a, const TensorProto& b) {
  if (a.dtype() != b.dtype()) return false;
  const int64_t a_bytes = TensorByteSize(a);
  if (a_bytes != TensorByteSize(b)) return false;
  if (SerializedEqual(a, b)) return true;
  if (a_bytes < 0 || a_bytes > kMaxAttrValueTensorByteSize) {
    // Too large (or of unknown size) to decode: equal only when written
    // identically, which was checked above.
    return false;
  }
  TensorProtoOptions options;
  options.max_bytes = kMaxAttrValueTensorByteSize;
  Tensor ta, tb;
  if (!TensorFromProto(a, &ta, options).ok() ||
      !TensorFromProto(b, &tb, options).ok()) {
    return false;
  }
  TensorProto ca, cb;
  ta.AsProtoTensorContent(&ca);
  tb.AsProtoTensorContent(&cb);
  return SerializedEqual(ca, cb);
}

std::string SummarizeString(const std::string& str) {
  const std::string escaped = absl::CEscape(str);
  constexpr size_t kMaxStringSummarySize = 80;
  if (escaped.size() < kMaxStringSummarySize) {
    return absl::StrCat("\"", escaped, "\"");
  }
  absl::string_view view(escaped);
  return absl::StrCat("\"", view.substr(0, 10), "...",
                      view.substr(view.size() - 10), "\"");
}

std::string SummarizeShape(const TensorShapeProto& proto) {
  PartialTensorShape shape;
  if (!PartialTensorShape::BuildPartialTensorShape(proto, &shape).ok()) {
    return "<invalid shape>";
  }
  return shape.DebugString();
}

std::string SummarizeTensor(const TensorProto& proto) {
  const int64_t bytes = TensorByteSize(proto);
  if (bytes > kMaxSummarizedTensorBytes) {
    return absl::StrCat("Tensor<type: ", DataTypeString(proto.dtype()),
                        " shape: ", SummarizeShape(proto.tensor_shape()),
                        " values: ...>");
  }
  TensorProtoOptions options;
  options.max_bytes = kMaxSummarizedTensorBytes;
  Tensor t;
  if (bytes < 0 || !TensorFromProto(proto, &t, options).ok()) {
    return absl::StrCat("<Invalid TensorProto: ", proto.ShortDebugString(),
                        ">");
  }
  return t.DebugString();
}

std::string SummarizeFunc(const NameAttrList& func) {
  std::vector<std::string> entries;
  entries.reserve(func.attr().size());
  for (const auto& [name, value] : func.attr()) {
    entries.push_back(absl::StrCat(name, "=", SummarizeAttrValue(value)));
  }
  std::sort(entries.begin(), entries.end());
  return absl::StrCat(func.name(), "[", absl::StrJoin(entries, ", "), "]");
}

std::string SummarizeList(const AttrValue::ListValue& list) {
  std::vector<std::string> pieces;
  if (list.s_size() > 0) {
    for (const std::string& s : list.s()) pieces.push_back(SummarizeString(s));
  } else if (list.i_size() > 0) {
    for (int64_t i : list.i()) pieces.push_back(absl::StrCat(i));
  } else if (list.f_size() > 0) {
    for (float f : list.f()) pieces.push_back(absl::StrCat(f));
  } else if (list.b_size() > 0) {
    for (bool b : list.b()) pieces.push_back(b ? "true" : "false");
  } else if (list.type_size() > 0) {
    for (int t : list.type()) {
      pieces.push_back(DataType_IsValid(t)
                           ? DataType_Name(static_cast<DataType>(t))
                           : absl::StrCat("<invalid DataType ", t, ">"));
    }
  } else if (list.shape_size() > 0) {
    for (const auto& s : list.shape()) pieces.push_back(SummarizeShape(s));
  } else if (list.tensor_size() > 0) {
    for (const auto& t : list.tensor()) pieces.push_back(SummarizeTensor(t));
  } else if (list.func_size() > 0) {
    for (const auto& f : list.func()) pieces.push_back(SummarizeFunc(f));
  }
  constexpr size_t kMaxListSummarySize = 30;
  if (pieces.size() >= kMaxListSummarySize) {
    const size_t total = pieces.size();
    pieces.erase(pieces.begin() + 5, pieces.end() - 6);
    pieces[5] = absl::StrCat("...(", total - 10, " more)...");
  }
  return absl::StrCat("[", absl::StrJoin(pieces, ", "), "]");
}

// Collects the text parser's complaints so they can be reported.
class TextErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (!errors_.empty()) errors_.append("; ");
    absl::StrAppend(&errors_, message);
  }
  void AddWarning(int line, int column, const std::string& message) override {}
  const std::string& errors() const { return errors_; }

 private:
  std::string errors_;
};

// Maps an attr type such as "list(int)" to its AttrValue field name ("i").
bool AttrTypeToField(absl::string_view type, bool* is_list,
                     std::string* field) {
  *is_list = absl::ConsumePrefix(&type, "list(");
  if (*is_list && !absl::ConsumeSuffix(&type, ")")) return false;
  static constexpr std::pair<const char*, const char*> kFields[] = {
      {"string", "s"},      {"int", "i"},     {"float", "f"},
      {"bool", "b"},        {"type", "type"}, {"shape", "shape"},
      {"tensor", "tensor"}, {"func", "func"},
  };
  for (const auto& [name, field_name] : kFields) {
    if (type == name) {
      *field = field_name;
      return true;
    }
  }
  if (!*is_list && type == "placeholder") {
    *field = "placeholder";
    return true;
  }
  return false;
}

}  // namespace

std::string SummarizeAttrValue(const AttrValue& attr_value) {
  switch (attr_value.value_case()) {
    case AttrValue::kS:
      return SummarizeString(attr_value.s());
    case AttrValue::kI:
      return absl::StrCat(attr_value.i());
    case AttrValue::kF:
      return absl::StrCat(attr_value.f());
    case AttrValue::kB:
      return attr_value.b() ? "true" : "false";
    case AttrValue::kType:
      return DataType_IsValid(attr_value.type())
                 ? DataType_Name(attr_value.type())
                 : absl::StrCat("<invalid DataType ",
                                static_cast<int>(attr_value.type()), ">");
    case AttrValue::kShape:
      return SummarizeShape(attr_value.shape());
    case AttrValue::kTensor:
      return SummarizeTensor(attr_value.tensor());
    case AttrValue::kList:
      return SummarizeList(attr_value.list());
    case AttrValue::kFunc:
      return SummarizeFunc(attr_value.func());
    case AttrValue::kPlaceholder:
      return absl::StrCat("$", attr_value.placeholder());
    case AttrValue::VALUE_NOT_SET:
      break;
  }
  return "<Unknown AttrValue type>";
}

namespace {

// The part of AttrValueHasType that only asks which field is set.
Status ValueFieldMatchesType(const AttrValue& attr_value,
                             absl::string_view type) {
  int num_set = 0;
  const bool has_list = attr_value.value_case() == AttrValue::kList;
  const AttrValue::ListValue& list = attr_value.list();

  // One check per field: a populated list field must match "list(<name>)",
  // a set scalar field must match "<name>".
  const auto check = [&](int list_size, AttrValue::ValueCase scalar_case,
                         const char* name) -> Status {
    if (has_list) {
      if (list_size > 0) {
        if (type != absl::StrCat("list(", name, ")")) {
          return errors::InvalidArgument("AttrValue had value with type 'list(",
                                         name, ")' when '", type, "' expected");
        }
        ++num_set;
      }
    } else if (attr_value.value_case() == scalar_case) {
      if (type != name) {
        return errors::InvalidArgument("AttrValue had value with type '", name,
                                       "' when '", type, "' expected");
      }
      ++num_set;
    }
    return OkStatus();
  };
  MF_RETURN_IF_ERROR(check(list.s_size(), AttrValue::kS, "string"));
  MF_RETURN_IF_ERROR(check(list.i_size(), AttrValue::kI, "int"));
  MF_RETURN_IF_ERROR(check(list.f_size(), AttrValue::kF, "float"));
  MF_RETURN_IF_ERROR(check(list.b_size(), AttrValue::kB, "bool"));
  MF_RETURN_IF_ERROR(check(list.type_size(), AttrValue::kType, "type"));
  MF_RETURN_IF_ERROR(check(list.shape_size(), AttrValue::kShape, "shape"));
  MF_RETURN_IF_ERROR(check(list.tensor_size(), AttrValue::kTensor, "tensor"));
  MF_RETURN_IF_ERROR(check(list.func_size(), AttrValue::kFunc, "func"));

  if (attr_value.value_case() == AttrValue::kPlaceholder) {
    return errors::InvalidArgument(
        "AttrValue had value with unexpected type 'placeholder'");
  }
  const bool want_list = absl::StartsWith(type, "list(");
  if (want_list && !has_list) {
    // An unset value stands for an empty list (proto3 cannot tell them
    // apart in old GraphDefs); a scalar where a list is wanted is an error.
    if (num_set > 0 || attr_value.value_case() != AttrValue::VALUE_NOT_SET) {
      return errors::InvalidArgument(
          "AttrValue missing value with expected type '", type, "'");
    }
    ++num_set;
  }
  if (num_set == 0 && !want_list) {
    return errors::InvalidArgument(
        "AttrValue missing value with expected type '", type, "'");
  }
  return OkStatus();
}

}  // namespace

Status AttrValueHasType(const AttrValue& attr_value, absl::string_view type) {
  MF_RETURN_IF_ERROR(ValueFieldMatchesType(attr_value, type));
  const AttrValue::ListValue& list = attr_value.list();
  const auto check_dtype = [](int value) -> Status {
    if (!DataType_IsValid(value)) {
      return errors::InvalidArgument("AttrValue has invalid DataType enum: ",
                                     value);
    }
    const DataType dtype = static_cast<DataType>(value);
    if (IsRefType(dtype)) {
      return errors::InvalidArgument(
          "AttrValue must not have reference type value of ",
          internal::OpSpellingOfDataType(dtype));
    }
    if (dtype == DT_INVALID) {
      return errors::InvalidArgument("AttrValue has invalid DataType");
    }
    return OkStatus();
  };
  if (type == "type") {
    MF_RETURN_IF_ERROR(check_dtype(attr_value.type()));
  } else if (type == "list(type)") {
    for (int value : list.type()) MF_RETURN_IF_ERROR(check_dtype(value));
  }
  return OkStatus();
}

Status ParseAttrValueOrError(absl::string_view type, absl::string_view text,
                             AttrValue* out) {
  const auto fail = [&](absl::string_view why) {
    return errors::InvalidArgument("Could not parse '", text,
                                   "' as a value of type '", type, "'",
                                   why.empty() ? "" : ": ", why);
  };
  bool is_list = false;
  std::string field;
  if (!AttrTypeToField(type, &is_list, &field)) {
    return errors::InvalidArgument("Unknown attr type '", type, "'");
  }

  std::string to_parse;
  if (is_list) {
    // The text parser would take "i: 7" as a one-element list; only the
    // bracketed form is a list value here.
    absl::string_view cleaned = absl::StripAsciiWhitespace(text);
    if (cleaned.size() < 2 || cleaned.front() != '[' || cleaned.back() != ']') {
      return fail("a list value must be written as [...]");
    }
    cleaned.remove_prefix(1);
    cleaned.remove_suffix(1);
    if (absl::StripAsciiWhitespace(cleaned).empty()) {
      out->Clear();
      out->mutable_list();
      return OkStatus();
    }
    to_parse = absl::StrCat("list { ", field, ": ", text, " }");
  } else {
    to_parse = absl::StrCat(field, ": ", text);
  }

  google::protobuf::TextFormat::Parser parser;
  TextErrorCollector collector;
  parser.RecordErrorsTo(&collector);
  // TensorProto can nest through variant_val: a default value must not
  // exhaust the stack.
  parser.SetRecursionLimit(kProtoRecursionLimit);
  out->Clear();
  if (!parser.ParseFromString(to_parse, out)) {
    return fail(collector.errors());
  }
  // The text may have set another field after ours ("1 s: 'x'"); only a
  // value of exactly the requested type is accepted.
  if (field != "placeholder") {
    Status typed = ValueFieldMatchesType(*out, type);
    if (!typed.ok()) return fail(typed.message());
  }
  return OkStatus();
}

bool ParseAttrValue(absl::string_view type, absl::string_view text,
                    AttrValue* out) {
  return ParseAttrValueOrError(type, text, out).ok();
}

bool AreAttrValuesEqual(const AttrValue& a, const AttrValue& b,
                        bool allow_false_negatives) {
  if (a.value_case() != b.value_case()) return false;
  switch (a.value_case()) {
    case AttrValue::kType:
      return a.type() == b.type();
    case AttrValue::kTensor:
      return AreTensorProtosEqual(a.tensor(), b.tensor());
    case AttrValue::kFunc: {
      const NameAttrList& af = a.func();
      const NameAttrList& bf = b.func();
      if (af.name() != bf.name() || af.attr().size() != bf.attr().size()) {
        return false;
      }
      for (const auto& [name, value] : af.attr()) {
        const auto it = bf.attr().find(name);
        if (it == bf.attr().end() ||
            !AreAttrValuesEqual(value, it->second, allow_false_negatives)) {
          return false;
        }
      }
      return true;
    }
    case AttrValue::kList: {
      const AttrValue::ListValue& al = a.list();
      const AttrValue::ListValue& bl = b.list();
      if (al.tensor_size() != bl.tensor_size() ||
          al.func_size() != bl.func_size()) {
        return false;
      }
      for (int i = 0; i < al.tensor_size(); ++i) {
        if (!AreTensorProtosEqual(al.tensor(i), bl.tensor(i))) {
          return false;
        }
      }
      for (int i = 0; i < al.func_size(); ++i) {
        AttrValue fa, fb;
        *fa.mutable_func() = al.func(i);
        *fb.mutable_func() = bl.func(i);
        if (!AreAttrValuesEqual(fa, fb, allow_false_negatives)) return false;
      }
      AttrValue::ListValue rest_a = al, rest_b = bl;
      rest_a.clear_tensor();
      rest_a.clear_func();
      rest_b.clear_tensor();
      rest_b.clear_func();
      return SerializedEqual(rest_a, rest_b);
    }
    default:
      // Every other field has one deterministic encoding.
      return SerializedEqual(a, b);
  }
}

void SetAttrValue(const AttrValue& value, AttrValue* out) { *out = value; }
void SetAttrValue(const std::string& value, AttrValue* out) {
  out->set_s(value);
}
void SetAttrValue(const char* value, AttrValue* out) { out->set_s(value); }
void SetAttrValue(absl::string_view value, AttrValue* out) {
  out->set_s(value.data(), value.size());
}
void SetAttrValue(int64_t value, AttrValue* out) { out->set_i(value); }
void SetAttrValue(int32_t value, AttrValue* out) { out->set_i(value); }
void SetAttrValue(float value, AttrValue* out) { out->set_f(value); }
void SetAttrValue(double value, AttrValue* out) {
  out->set_f(static_cast<float>(value));
}
void SetAttrValue(bool value, AttrValue* out) { out->set_b(value); }
void SetAttrValue(DataType value, AttrValue* out) { out->set_type(value); }
void SetAttrValue(const TensorShape& value, AttrValue* out) {
  value.AsProto(out->mutable_shape());
}
void SetAttrValue(const PartialTensorShape& value, AttrValue* out) {
  value.AsProto(out->mutable_shape());
}
void SetAttrValue(const TensorShapeProto& value, AttrValue* out) {
  *out->mutable_shape() = value;
}
void SetAttrValue(const Tensor& value, AttrValue* out) {
  if (value.NumElements() > 1) {
    value.AsProtoTensorContent(out->mutable_tensor());
  } else {
    value.AsProtoField(out->mutable_tensor());
  }
}
void SetAttrValue(const TensorProto& value, AttrValue* out) {
  *out->mutable_tensor() = value;
}
void SetAttrValue(const NameAttrList& value, AttrValue* out) {
  *out->mutable_func() = value;
}

void SetAttrValue(absl::Span<const std::string> value, AttrValue* out) {
  out->mutable_list()->Clear();
  for (const auto& v : value) out->mutable_list()->add_s(v);
}
void SetAttrValue(absl::Span<const char* const> value, AttrValue* out) {
  out->mutable_list()->Clear();
  for (const char* v : value) out->mutable_list()->add_s(v);
}
void SetAttrValue(absl::Span<const absl::string_view> value, AttrValue* out) {
  out->mutable_list()->Clear();
  for (absl::string_view v : value) {
    out->mutable_list()->add_s(v.data(), v.size());
  }
}
void SetAttrValue(absl::Span<const int64_t> value, AttrValue* out) {
  out->mutable_list()->Clear();
  for (int64_t v : value) out->mutable_list()->add_i(v);
}
void SetAttrValue(absl::Span<const int32_t> value, AttrValue* out) {
  out->mutable_list()->Clear();
  for (int32_t v : value) out->mutable_list()->add_i(v);
}
void SetAttrValue(absl::Span<const float> value, AttrValue* out) {
  out->mutable_list()->Clear();
  for (float v : value) out->mutable_list()->add_f(v);
}
void SetAttrValue(absl::Span<const double> value, AttrValue* out) {
  out->mutable_list()->Clear();
  for (double v : value) out->mutable_list()->add_f(static_cast<float>(v));
}
void SetAttrValue(const std::vector<bool>& value, AttrValue* out) {
  out->mutable_list()->Clear();
  for (bool v : value) out->mutable_list()->add_b(v);
}
void SetAttrValue(std::initializer_list<bool> value, AttrValue* out) {
  out->mutable_list()->Clear();
  for (bool v : value) out->mutable_list()->add_b(v);
}
void SetAttrValue(absl::Span<const DataType> value, AttrValue* out) {
  out->mutable_list()->Clear();
  for (DataType v : value) out->mutable_list()->add_type(v);
}
void SetAttrValue(absl::Span<const TensorShape> value, AttrValue* out) {
  out->mutable_list()->Clear();
  for (const auto& v : value) v.AsProto(out->mutable_list()->add_shape());
}
void SetAttrValue(absl::Span<const PartialTensorShape> value, AttrValue* out) {
  out->mutable_list()->Clear();
  for (const auto& v : value) v.AsProto(out->mutable_list()->add_shape());
}
void SetAttrValue(absl::Span<const TensorShapeProto> value, AttrValue* out) {
  out->mutable_list()->Clear();
  for (const auto& v : value) *out->mutable_list()->add_shape() = v;
}
void SetAttrValue(absl::Span<const Tensor> value, AttrValue* out) {
  out->mutable_list()->Clear();
  for (const auto& v : value) {
    if (v.NumElements() > 1) {
      v.AsProtoTensorContent(out->mutable_list()->add_tensor());
    } else {
      v.AsProtoField(out->mutable_list()->add_tensor());
    }
  }
}
void SetAttrValue(absl::Span<const TensorProto> value, AttrValue* out) {
  out->mutable_list()->Clear();
  for (const auto& v : value) *out->mutable_list()->add_tensor() = v;
}
void SetAttrValue(absl::Span<const NameAttrList> value, AttrValue* out) {
  out->mutable_list()->Clear();
  for (const auto& v : value) *out->mutable_list()->add_func() = v;
}

}  // namespace minflow
