#include "minflow/framework/node_def_util.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/framework/op_def_util.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"

namespace minflow {
namespace {

// Note [List lengths]
// A list length comes from an `int` attr, so a NodeDef of a few bytes can
// ask for billions of inputs or outputs. TensorFlow only refuses lengths
// past int32; materialising such a type vector would exhaust memory, so
// minflow also refuses lengths above kMaxListLength, far beyond any real op,
// and ValidateNodeDef counts inputs before building any type vector.
constexpr int64_t kMaxListLength = int64_t{1} << 24;

const AttrValueMap& EmptyAttrValueMap() {
  static const AttrValueMap* const kEmpty = new AttrValueMap;
  return *kEmpty;
}

std::string SummarizeAttrsHelper(AttrSlice attrs, absl::string_view device) {
  std::vector<std::pair<absl::string_view, const AttrValue*>> sorted;
  sorted.reserve(attrs.size());
  for (const auto& [name, value] : attrs) sorted.emplace_back(name, &value);
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> pieces;
  pieces.reserve(sorted.size() + 1);
  for (const auto& [name, value] : sorted) {
    pieces.push_back(absl::StrCat(name, "=", SummarizeAttrValue(*value)));
  }
  // The device reads as one more attr, named "_device".
  if (!device.empty())
    pieces.push_back(absl::StrCat("_device=\"", device, "\""));
  return absl::StrJoin(pieces, ", ");
}

// Finds `attr_name` and checks that it holds attr type `type`; errors name
// the attr and, for a NodeDef, the node.
Status FindTyped(const AttrSlice& attrs, absl::string_view attr_name,
                 absl::string_view type, const AttrValue** value) {
  MF_RETURN_IF_ERROR(attrs.Find(attr_name, value));
  Status s = AttrValueHasType(**value, type);
  if (s.ok()) return s;
  s = errors::AppendToMessage(s, " for attr '", attr_name, "'");
  if (attrs.node_def() != nullptr) s = AttachDef(s, *attrs.node_def());
  return s;
}

Status ToInt32(absl::string_view attr_name, int64_t v, int32_t* out) {
  if (v < std::numeric_limits<int32_t>::min() ||
      v > std::numeric_limits<int32_t>::max()) {
    return errors::InvalidArgument("Attr ", attr_name, " has value ", v,
                                   " out of range for an int32");
  }
  *out = static_cast<int32_t>(v);
  return OkStatus();
}

Status ToTensorShape(absl::string_view attr_name, const TensorShapeProto& v,
                     TensorShape* out) {
  Status s = TensorShape::BuildTensorShape(v, out);
  if (!s.ok()) return errors::AppendToMessage(s, " for attr '", attr_name, "'");
  return s;
}

Status ToPartialTensorShape(absl::string_view attr_name,
                            const TensorShapeProto& v,
                            PartialTensorShape* out) {
  Status s = PartialTensorShape::BuildPartialTensorShape(v, out);
  if (!s.ok()) return errors::AppendToMessage(s, " for attr '", attr_name, "'");
  return s;
}

Status ToTensor(absl::string_view attr_name, const TensorProto& v,
                Tensor* out) {
  Status s = TensorFromProto(v, out);
  if (!s.ok()) {
    return errors::InvalidArgument("Attr ", attr_name,
                                   " has a value that can't be converted to "
                                   "a Tensor: ",
                                   s.message());
  }
  return s;
}

// The number of tensors `arg` stands for, from the attrs.
Status ArgLength(const AttrSlice& attrs, const OpDef::ArgDef& arg,
                 int64_t* length) {
  if (!arg.number_attr().empty()) {
    MF_RETURN_IF_ERROR(GetNodeAttr(attrs, arg.number_attr(), length));
    if (*length < 0) {
      return errors::InvalidArgument("Value for number_attr() ", *length,
                                     " < 0");
    }
    if (*length > kMaxListLength) {
      return errors::InvalidArgument(
          "Attr '", arg.number_attr(), "' asks for ", *length, " tensors for '",
          arg.name(), "', more than the limit of ", kMaxListLength);
    }
  } else if (!arg.type_list_attr().empty()) {
    const AttrValue* value;
    MF_RETURN_IF_ERROR(
        FindTyped(attrs, arg.type_list_attr(), "list(type)", &value));
    *length = value->list().type_size();
  } else if (!arg.type_attr().empty() || arg.type() != DT_INVALID) {
    *length = 1;
  } else {
    return errors::InvalidArgument("No type fields in ",
                                   arg.ShortDebugString());
  }
  return OkStatus();
}

Status AddArgToSig(const AttrSlice& attrs, const OpDef::ArgDef& arg,
                   DataTypeVector* sig) {
  const size_t original_size = sig->size();
  if (!arg.number_attr().empty()) {
    int64_t repeats = 0;
    MF_RETURN_IF_ERROR(ArgLength(attrs, arg, &repeats));
    DataType dtype;
    if (!arg.type_attr().empty()) {
      MF_RETURN_IF_ERROR(GetNodeAttr(attrs, arg.type_attr(), &dtype));
    } else if (arg.type() != DT_INVALID) {
      dtype = arg.type();
    } else {
      return errors::InvalidArgument("Missing type or type_attr field in ",
                                     arg.ShortDebugString());
    }
    sig->insert(sig->end(), repeats, dtype);
  } else if (!arg.type_attr().empty()) {
    DataType dtype;
    MF_RETURN_IF_ERROR(GetNodeAttr(attrs, arg.type_attr(), &dtype));
    sig->push_back(dtype);
  } else if (!arg.type_list_attr().empty()) {
    const AttrValue* value;
    MF_RETURN_IF_ERROR(
        FindTyped(attrs, arg.type_list_attr(), "list(type)", &value));
    for (int dtype : value->list().type()) {
      sig->push_back(static_cast<DataType>(dtype));
    }
  } else if (arg.type() != DT_INVALID) {
    sig->push_back(arg.type());
  } else {
    return errors::InvalidArgument("No type fields in ",
                                   arg.ShortDebugString());
  }
  if (arg.is_ref()) {
    for (size_t i = original_size; i < sig->size(); ++i) {
      if (IsRefType((*sig)[i])) {
        return errors::InvalidArgument(
            "Requested reference to a reference type: ",
            arg.ShortDebugString());
      }
      (*sig)[i] = MakeRefType((*sig)[i]);
    }
  }
  return OkStatus();
}

Status AddArgsToSig(
    const AttrSlice& attrs,
    const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args,
    DataTypeVector* sig) {
  for (const auto& arg : args) MF_RETURN_IF_ERROR(AddArgToSig(attrs, arg, sig));
  return OkStatus();
}

Status CountArgs(const AttrSlice& attrs,
                 const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args,
                 int64_t* count) {
  *count = 0;
  for (const auto& arg : args) {
    int64_t length = 0;
    MF_RETURN_IF_ERROR(ArgLength(attrs, arg, &length));
    *count += length;
  }
  return OkStatus();
}

Status NameRangesHelper(
    const AttrSlice& attrs,
    const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args,
    NameRangeMap* result) {
  int64_t start = 0;
  result->reserve(result->size() + args.size());  // one allocation
  for (const auto& arg : args) {
    int64_t length = 0;
    MF_RETURN_IF_ERROR(ArgLength(attrs, arg, &length));
    if (start + length > std::numeric_limits<int>::max()) {
      return errors::InvalidArgument("Too many tensors for arg '", arg.name(),
                                     "'");
    }
    (*result)[arg.name()] = {static_cast<int>(start),
                             static_cast<int>(start + length)};
    start += length;
  }
  return OkStatus();
}

}  // namespace

AttrSlice::AttrSlice() : ndef_(nullptr), attrs_(&EmptyAttrValueMap()) {}

AttrSlice::AttrSlice(const NodeDef& node_def)
    : ndef_(&node_def), attrs_(&node_def.attr()) {}

AttrSlice::AttrSlice(const AttrValueMap* a) : ndef_(nullptr), attrs_(a) {}

const AttrValue* AttrSlice::Find(absl::string_view attr_name) const {
  // Nodes have a handful of attrs: a scan beats building a std::string key.
  if (attrs_->size() <= 16) {
    for (const auto& [name, value] : *attrs_) {
      if (name == attr_name) return &value;
    }
    return nullptr;
  }
  const auto it = attrs_->find(std::string(attr_name));
  return it == attrs_->end() ? nullptr : &it->second;
}

Status AttrSlice::Find(absl::string_view attr_name,
                       const AttrValue** attr_value) const {
  *attr_value = Find(attr_name);
  if (*attr_value != nullptr) return OkStatus();
  Status s = errors::NotFound("No attr named '", attr_name, "' in NodeDef:");
  // Internal attrs are often legitimately absent; skip the formatting.
  if (!absl::StartsWith(attr_name, "_") && ndef_ != nullptr) {
    s = AttachDef(s, *ndef_);
  }
  return s;
}

bool AttrSlice::EqualAttrs(AttrSlice other) const {
  if (size() != other.size()) return false;
  for (const auto& [name, value] : *other.attrs_) {
    const AttrValue* mine = Find(name);
    if (mine == nullptr || !AreAttrValuesEqual(*mine, value)) return false;
  }
  return true;
}

std::string AttrSlice::SummarizeNode() const {
  return ndef_ != nullptr
             ? SummarizeNodeDef(*ndef_)
             : absl::StrCat("[", SummarizeAttrsHelper(*this, ""), "]");
}

std::string AttrSlice::DebugString() const {
  std::vector<std::string> pieces;
  pieces.reserve(size());
  for (const auto& [name, value] : *this) {
    pieces.push_back(absl::StrCat(name, "=", SummarizeAttrValue(value)));
  }
  return absl::StrJoin(pieces, ", ");
}

std::string SummarizeNodeDef(const NodeDef& node_def,
                             int max_inputs_in_summary) {
  std::string ret = absl::StrCat(
      errors::FormatNodeNameForError(node_def.name()), " = ", node_def.op(),
      "[", SummarizeAttrsHelper(node_def, node_def.device()), "](");
  int shown = 0;
  for (const std::string& input : node_def.input()) {
    if (shown > 0) ret.append(", ");
    if (max_inputs_in_summary >= 0 && shown == max_inputs_in_summary) {
      ret.append("...");
      break;
    }
    ret.append(input);
    ++shown;
  }
  ret.append(")");
  return ret;
}

std::string SummarizeAttrs(const NodeDef& node_def) {
  return SummarizeAttrsHelper(node_def, node_def.device());
}

std::string FormatNodeDefForError(const NodeDef& node_def) {
  const auto& originals =
      node_def.experimental_debug_info().original_node_names();
  if (originals.empty()) return errors::FormatNodeNameForError(node_def.name());
  return absl::StrJoin(originals, ", ",
                       [](std::string* out, const std::string& name) {
                         out->append(errors::FormatNodeNameForError(name));
                       });
}

Status AttachDef(const Status& status, const NodeDef& node_def) {
  return errors::AppendToMessage(status, " [[", FormatNodeDefForError(node_def),
                                 "]]");
}

// Scalars.
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::string* value) {
  const AttrValue* v;
  MF_RETURN_IF_ERROR(FindTyped(attrs, attr_name, "string", &v));
  *value = v->s();
  return OkStatus();
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   int64_t* value) {
  const AttrValue* v;
  MF_RETURN_IF_ERROR(FindTyped(attrs, attr_name, "int", &v));
  *value = v->i();
  return OkStatus();
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   int32_t* value) {
  const AttrValue* v;
  MF_RETURN_IF_ERROR(FindTyped(attrs, attr_name, "int", &v));
  return ToInt32(attr_name, v->i(), value);
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   float* value) {
  const AttrValue* v;
  MF_RETURN_IF_ERROR(FindTyped(attrs, attr_name, "float", &v));
  *value = v->f();
  return OkStatus();
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   bool* value) {
  const AttrValue* v;
  MF_RETURN_IF_ERROR(FindTyped(attrs, attr_name, "bool", &v));
  *value = v->b();
  return OkStatus();
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   DataType* value) {
  const AttrValue* v;
  MF_RETURN_IF_ERROR(FindTyped(attrs, attr_name, "type", &v));
  *value = v->type();
  return OkStatus();
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   TensorShapeProto* value) {
  const AttrValue* v;
  MF_RETURN_IF_ERROR(FindTyped(attrs, attr_name, "shape", &v));
  *value = v->shape();
  return OkStatus();
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   TensorShape* value) {
  const AttrValue* v;
  MF_RETURN_IF_ERROR(FindTyped(attrs, attr_name, "shape", &v));
  return ToTensorShape(attr_name, v->shape(), value);
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   PartialTensorShape* value) {
  const AttrValue* v;
  MF_RETURN_IF_ERROR(FindTyped(attrs, attr_name, "shape", &v));
  return ToPartialTensorShape(attr_name, v->shape(), value);
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   TensorProto* value) {
  const AttrValue* v;
  MF_RETURN_IF_ERROR(FindTyped(attrs, attr_name, "tensor", &v));
  *value = v->tensor();
  return OkStatus();
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   Tensor* value) {
  const AttrValue* v;
  MF_RETURN_IF_ERROR(FindTyped(attrs, attr_name, "tensor", &v));
  return ToTensor(attr_name, v->tensor(), value);
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   NameAttrList* value) {
  const AttrValue* v;
  MF_RETURN_IF_ERROR(FindTyped(attrs, attr_name, "func", &v));
  *value = v->func();
  return OkStatus();
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   const TensorProto** value) {
  const AttrValue* v;
  MF_RETURN_IF_ERROR(FindTyped(attrs, attr_name, "tensor", &v));
  *value = &v->tensor();
  return OkStatus();
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   const NameAttrList** value) {
  const AttrValue* v;
  MF_RETURN_IF_ERROR(FindTyped(attrs, attr_name, "func", &v));
  *value = &v->func();
  return OkStatus();
}

// Lists: each converts the elements of one ListValue field.
namespace {

template <typename T, typename Field, typename Convert>
Status GetList(const AttrSlice& attrs, absl::string_view attr_name,
               absl::string_view type, Field field, Convert convert,
               std::vector<T>* value) {
  const AttrValue* v;
  MF_RETURN_IF_ERROR(FindTyped(attrs, attr_name, type, &v));
  const auto& items = field(v->list());
  value->reserve(value->size() + items.size());
  for (const auto& item : items) {
    T converted;
    MF_RETURN_IF_ERROR(convert(item, &converted));
    value->push_back(std::move(converted));
  }
  return OkStatus();
}

template <typename T>
Status Copy(const T& in, T* out) {
  *out = in;
  return OkStatus();
}

}  // namespace

Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<std::string>* value) {
  return GetList(
      attrs, attr_name, "list(string)",
      [](const AttrValue::ListValue& l) -> const auto& { return l.s(); },
      Copy<std::string>, value);
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<int64_t>* value) {
  return GetList(
      attrs, attr_name, "list(int)",
      [](const AttrValue::ListValue& l) -> const auto& { return l.i(); },
      Copy<int64_t>, value);
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<int32_t>* value) {
  return GetList(
      attrs, attr_name, "list(int)",
      [](const AttrValue::ListValue& l) -> const auto& { return l.i(); },
      [attr_name](int64_t v, int32_t* out) {
        return ToInt32(attr_name, v, out);
      },
      value);
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<float>* value) {
  return GetList(
      attrs, attr_name, "list(float)",
      [](const AttrValue::ListValue& l) -> const auto& { return l.f(); },
      Copy<float>, value);
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<bool>* value) {
  const AttrValue* v;
  MF_RETURN_IF_ERROR(FindTyped(attrs, attr_name, "list(bool)", &v));
  for (bool b : v->list().b()) value->push_back(b);
  return OkStatus();
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<DataType>* value) {
  const AttrValue* v;
  MF_RETURN_IF_ERROR(FindTyped(attrs, attr_name, "list(type)", &v));
  for (int t : v->list().type()) value->push_back(static_cast<DataType>(t));
  return OkStatus();
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   DataTypeVector* value) {
  const AttrValue* v;
  MF_RETURN_IF_ERROR(FindTyped(attrs, attr_name, "list(type)", &v));
  for (int t : v->list().type()) value->push_back(static_cast<DataType>(t));
  return OkStatus();
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<TensorShapeProto>* value) {
  return GetList(
      attrs, attr_name, "list(shape)",
      [](const AttrValue::ListValue& l) -> const auto& { return l.shape(); },
      Copy<TensorShapeProto>, value);
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<TensorShape>* value) {
  return GetList(
      attrs, attr_name, "list(shape)",
      [](const AttrValue::ListValue& l) -> const auto& { return l.shape(); },
      [attr_name](const TensorShapeProto& v, TensorShape* out) {
        return ToTensorShape(attr_name, v, out);
      },
      value);
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<PartialTensorShape>* value) {
  return GetList(
      attrs, attr_name, "list(shape)",
      [](const AttrValue::ListValue& l) -> const auto& { return l.shape(); },
      [attr_name](const TensorShapeProto& v, PartialTensorShape* out) {
        return ToPartialTensorShape(attr_name, v, out);
      },
      value);
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<TensorProto>* value) {
  return GetList(
      attrs, attr_name, "list(tensor)",
      [](const AttrValue::ListValue& l) -> const auto& { return l.tensor(); },
      Copy<TensorProto>, value);
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<Tensor>* value) {
  return GetList(
      attrs, attr_name, "list(tensor)",
      [](const AttrValue::ListValue& l) -> const auto& { return l.tensor(); },
      [attr_name](const TensorProto& v, Tensor* out) {
        return ToTensor(attr_name, v, out);
      },
      value);
}
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<NameAttrList>* value) {
  return GetList(
      attrs, attr_name, "list(func)",
      [](const AttrValue::ListValue& l) -> const auto& { return l.func(); },
      Copy<NameAttrList>, value);
}

// TryGetNodeAttr: GetNodeAttr into a scratch value, committed on success.
namespace {
template <typename T>
bool TryGet(const AttrSlice& attrs, absl::string_view attr_name, T* value) {
  if (attrs.Find(attr_name) == nullptr) return false;
  T scratch{};
  if (!GetNodeAttr(attrs, attr_name, &scratch).ok()) return false;
  *value = std::move(scratch);
  return true;
}
}  // namespace

bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    std::string* value) {
  return TryGet(attrs, attr_name, value);
}
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    int64_t* value) {
  return TryGet(attrs, attr_name, value);
}
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    int32_t* value) {
  return TryGet(attrs, attr_name, value);
}
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    float* value) {
  return TryGet(attrs, attr_name, value);
}
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    bool* value) {
  return TryGet(attrs, attr_name, value);
}
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    DataType* value) {
  return TryGet(attrs, attr_name, value);
}
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    TensorShape* value) {
  return TryGet(attrs, attr_name, value);
}
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    const TensorProto** value) {
  return TryGet(attrs, attr_name, value);
}
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    const NameAttrList** value) {
  return TryGet(attrs, attr_name, value);
}
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    std::vector<std::string>* value) {
  return TryGet(attrs, attr_name, value);
}
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    std::vector<int64_t>* value) {
  return TryGet(attrs, attr_name, value);
}
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    std::vector<int32_t>* value) {
  return TryGet(attrs, attr_name, value);
}
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    std::vector<DataType>* value) {
  return TryGet(attrs, attr_name, value);
}

const std::string& GetNodeAttrString(const AttrSlice& attrs,
                                     absl::string_view attr_name) {
  static const std::string* const kEmpty = new std::string;
  const AttrValue* v = attrs.Find(attr_name);
  if (v == nullptr || !AttrValueHasType(*v, "string").ok()) return *kEmpty;
  return v->s();
}

bool HasNodeAttr(const NodeDef& node_def, absl::string_view attr_name) {
  return AttrSlice(node_def).Find(attr_name) != nullptr;
}

void AddNodeAttr(absl::string_view name, const AttrValue& value,
                 NodeDef* node_def) {
  (*node_def->mutable_attr())[std::string(name)] = value;
}

void AddDefaultsToNodeDef(const OpDef& op_def, NodeDef* node_def) {
  for (const auto& attr_def : op_def.attr()) {
    if (attr_def.has_default_value() &&
        AttrSlice(*node_def).Find(attr_def.name()) == nullptr) {
      AddNodeAttr(attr_def.name(), attr_def.default_value(), node_def);
    }
  }
}

namespace {

// True when ValidateNodeDefInDetail would find nothing wrong. Checks the
// same things without its allocations (a map of the op's attrs, sorted
// names): importing a graph validates every node, and nearly all are fine.
// Anything doubtful answers false, and the detailed pass decides and words
// the error.
bool NodeDefIsPlainlyValid(const NodeDef& node_def, const OpDef& op_def) {
  if (node_def.op() != op_def.name()) return false;
  bool seen_control = false;
  int64_t num_inputs = 0;
  for (const std::string& input : node_def.input()) {
    if (!input.empty() && input[0] == '^') {
      if (input.find(':') != std::string::npos) return false;
      seen_control = true;
    } else if (seen_control) {
      return false;
    } else {
      ++num_inputs;
    }
  }
  int matched = 0;
  for (const auto& [name, value] : node_def.attr()) {
    if (!name.empty() && name[0] == '_') continue;
    const OpDef::AttrDef* attr_def = nullptr;
    for (const OpDef::AttrDef& candidate : op_def.attr()) {
      if (candidate.name() == name) {
        if (attr_def != nullptr) return false;  // duplicate in the OpDef
        attr_def = &candidate;
      }
    }
    if (attr_def == nullptr) return false;
    if (value.placeholder().empty() &&
        !ValidateAttrValue(value, *attr_def).ok()) {
      return false;
    }
    ++matched;
  }
  if (matched != op_def.attr_size()) return false;  // missing attrs
  const AttrSlice attrs(node_def);
  int64_t expected_inputs = 0;
  int64_t expected_outputs = 0;
  if (!CountArgs(attrs, op_def.input_arg(), &expected_inputs).ok() ||
      !CountArgs(attrs, op_def.output_arg(), &expected_outputs).ok()) {
    return false;
  }
  if (num_inputs != expected_inputs) return false;
  DataTypeVector inputs, outputs;
  return InOutTypesForNode(node_def, op_def, &inputs, &outputs).ok();
}

Status ValidateNodeDefInDetail(const NodeDef& node_def, const OpDef& op_def);

}  // namespace

Status ValidateNodeDef(const NodeDef& node_def, const OpDef& op_def) {
  if (NodeDefIsPlainlyValid(node_def, op_def)) return OkStatus();
  return ValidateNodeDefInDetail(node_def, op_def);
}

namespace {

Status ValidateNodeDefInDetail(const NodeDef& node_def, const OpDef& op_def) {
  if (node_def.op() != op_def.name()) {
    return errors::InvalidArgument(
        "NodeDef op '", node_def.op(), "' does not match ",
        SummarizeOpDef(op_def), "; NodeDef: ", FormatNodeDefForError(node_def));
  }

  bool seen_control = false;
  int64_t num_inputs = 0;
  for (const std::string& input : node_def.input()) {
    if (absl::StartsWith(input, "^")) {
      seen_control = true;
      if (input.find(':') != std::string::npos) {
        return errors::InvalidArgument("Control input '", input,
                                       "' must not have ':' in NodeDef: ",
                                       FormatNodeDefForError(node_def));
      }
    } else if (seen_control) {
      return errors::InvalidArgument("Non-control input '", input,
                                     "' after control input in NodeDef: ",
                                     FormatNodeDefForError(node_def));
    } else {
      ++num_inputs;
    }
  }

  absl::flat_hash_map<absl::string_view, const OpDef::AttrDef*> op_attrs;
  for (const auto& attr : op_def.attr()) {
    if (!op_attrs.emplace(attr.name(), &attr).second) {
      return errors::InvalidArgument("OpDef has duplicate attr name '",
                                     attr.name(),
                                     "': ", SummarizeOpDef(op_def));
    }
  }
  // Visit the node's attrs in name order so that the first error reported
  // does not depend on the map's order.
  std::vector<absl::string_view> names;
  names.reserve(node_def.attr().size());
  for (const auto& [name, value] : node_def.attr()) names.push_back(name);
  std::sort(names.begin(), names.end());
  const AttrSlice attrs(node_def);
  for (absl::string_view name : names) {
    if (absl::StartsWith(name, "_")) continue;  // minflow's own attrs
    const auto it = op_attrs.find(name);
    if (it == op_attrs.end()) {
      return errors::InvalidArgument(
          "NodeDef mentions attr '", name, "' not in ", SummarizeOpDef(op_def),
          "; NodeDef: ", FormatNodeDefForError(node_def),
          ". (Check whether your GraphDef-interpreting binary is up to date "
          "with your GraphDef-generating binary.)");
    }
    const AttrValue& value = *attrs.Find(name);
    // Placeholders stand for function attrs, checked at instantiation.
    if (value.placeholder().empty()) {
      Status s = ValidateAttrValue(value, *it->second);
      if (!s.ok()) {
        return errors::AppendToMessage(
            s, "; NodeDef: ", FormatNodeDefForError(node_def), "; ",
            SummarizeOpDef(op_def));
      }
    }
    op_attrs.erase(it);
  }
  if (!op_attrs.empty()) {
    std::vector<absl::string_view> missing;
    for (const auto& entry : op_attrs) missing.push_back(entry.first);
    std::sort(missing.begin(), missing.end());
    return errors::InvalidArgument(
        "NodeDef missing attr", missing.size() == 1 ? " '" : "s '",
        absl::StrJoin(missing, "', '"), "' from ", SummarizeOpDef(op_def),
        "; NodeDef: ", FormatNodeDefForError(node_def));
  }

  // Count before building any type vector; see Note [List lengths].
  int64_t expected_inputs = 0;
  int64_t expected_outputs = 0;
  Status s = CountArgs(attrs, op_def.input_arg(), &expected_inputs);
  if (s.ok()) s = CountArgs(attrs, op_def.output_arg(), &expected_outputs);
  if (!s.ok()) {
    return errors::AppendToMessage(
        s, "; NodeDef: ", FormatNodeDefForError(node_def), "; ",
        SummarizeOpDef(op_def));
  }
  if (num_inputs != expected_inputs) {
    std::string expected;
    DataTypeVector types;
    if (expected_inputs <= 1024 &&
        AddArgsToSig(attrs, op_def.input_arg(), &types).ok()) {
      expected = absl::StrCat(
          "'",
          absl::StrJoin(types, ", ",
                        [](std::string* out, DataType t) {
                          out->append(internal::OpSpellingOfDataType(t));
                        }),
          "'");
    } else {
      expected = absl::StrCat(expected_inputs, " inputs");
    }
    return errors::InvalidArgument(
        "NodeDef expected inputs ", expected, " do not match ", num_inputs,
        " inputs specified; ", SummarizeOpDef(op_def),
        "; NodeDef: ", FormatNodeDefForError(node_def));
  }
  // Type attrs of every arg hold real, non-ref types by now (checked as
  // attr values above), so building the types cannot fail except for a
  // malformed OpDef; check that too.
  DataTypeVector inputs, outputs;
  return InOutTypesForNode(node_def, op_def, &inputs, &outputs);
}

}  // namespace

Status InOutTypesForNode(const NodeDef& node_def, const OpDef& op_def,
                         DataTypeVector* inputs, DataTypeVector* outputs) {
  MF_RETURN_IF_ERROR(InputTypesForNode(node_def, op_def, inputs));
  return OutputTypesForNode(node_def, op_def, outputs);
}

Status InputTypesForNode(const NodeDef& node_def, const OpDef& op_def,
                         DataTypeVector* inputs) {
  return AddArgsToSig(node_def, op_def.input_arg(), inputs);
}

Status OutputTypesForNode(const NodeDef& node_def, const OpDef& op_def,
                          DataTypeVector* outputs) {
  return AddArgsToSig(node_def, op_def.output_arg(), outputs);
}

Status OutputTypesForNode(const AttrSlice& attrs, const OpDef& op_def,
                          DataTypeVector* outputs) {
  return AddArgsToSig(attrs, op_def.output_arg(), outputs);
}

Status InputTypeForNode(const NodeDef& node_def, const OpDef& op_def,
                        int input_port, DataType* input_type) {
  DataTypeVector types;
  for (const auto& arg : op_def.input_arg()) {
    MF_RETURN_IF_ERROR(AddArgToSig(node_def, arg, &types));
    if (input_port >= 0 && static_cast<size_t>(input_port) < types.size()) {
      *input_type = types[input_port];
      return OkStatus();
    }
  }
  return errors::InvalidArgument("Input ", input_port, " not found for node ",
                                 node_def.name());
}

Status OutputTypeForNode(const NodeDef& node_def, const OpDef& op_def,
                         int output_port, DataType* output_type) {
  DataTypeVector types;
  for (const auto& arg : op_def.output_arg()) {
    MF_RETURN_IF_ERROR(AddArgToSig(node_def, arg, &types));
    if (output_port >= 0 && static_cast<size_t>(output_port) < types.size()) {
      *output_type = types[output_port];
      return OkStatus();
    }
  }
  return errors::InvalidArgument("Output ", output_port, " not found for node ",
                                 node_def.name());
}

Status NumOutputsForNode(const NodeDef& node_def, const OpDef& op_def,
                         int* num_outputs) {
  int64_t count = 0;
  MF_RETURN_IF_ERROR(CountArgs(node_def, op_def.output_arg(), &count));
  if (count > std::numeric_limits<int>::max()) {
    return errors::InvalidArgument("Too many outputs for node ",
                                   node_def.name());
  }
  *num_outputs = static_cast<int>(count);
  return OkStatus();
}

Status NameRangesForNode(const AttrSlice& attrs, const OpDef& op_def,
                         NameRangeMap* inputs, NameRangeMap* outputs) {
  if (inputs != nullptr) {
    MF_RETURN_IF_ERROR(NameRangesHelper(attrs, op_def.input_arg(), inputs));
  }
  if (outputs != nullptr) {
    MF_RETURN_IF_ERROR(NameRangesHelper(attrs, op_def.output_arg(), outputs));
  }
  return OkStatus();
}

namespace {

// Sets attr `name` to `value`, or checks that the value already set agrees.
Status SetOrCheckAttr(absl::string_view name, const AttrValue& value,
                      const OpDef& op_def, const OpDef::ArgDef& arg,
                      NodeDef* node_def) {
  const AttrValue* existing = AttrSlice(*node_def).Find(name);
  if (existing == nullptr) {
    AddNodeAttr(name, value, node_def);
    return OkStatus();
  }
  if (!AreAttrValuesEqual(*existing, value)) {
    return errors::InvalidArgument(
        "Inconsistent values for attr '", name, "' ",
        SummarizeAttrValue(*existing), " vs. ", SummarizeAttrValue(value),
        " (from the types of input '", arg.name(), "') for Op ", op_def.name());
  }
  return OkStatus();
}

Status InferFromArg(const OpDef& op_def, const OpDef::ArgDef& arg,
                    const DataTypeVector& types, NodeDef* node_def) {
  const auto fail = [&](auto&&... args) {
    return errors::InvalidArgument("Input '", arg.name(), "' of Op ",
                                   op_def.name(), " ", args...);
  };
  DataTypeVector base;
  base.reserve(types.size());
  for (DataType t : types) {
    if (arg.is_ref() && !IsRefType(t)) {
      return fail("needs a reference input, but got ",
                  internal::OpSpellingOfDataType(t));
    }
    base.push_back(RemoveRefType(t));
  }
  const auto one_type = [&](DataType want) -> Status {
    for (DataType t : base) {
      if (t != want) {
        return fail("must be ", internal::OpSpellingOfDataType(want),
                    ", but got ", internal::OpSpellingOfDataType(t));
      }
    }
    return OkStatus();
  };

  if (!arg.number_attr().empty()) {
    AttrValue n;
    n.set_i(static_cast<int64_t>(base.size()));
    MF_RETURN_IF_ERROR(
        SetOrCheckAttr(arg.number_attr(), n, op_def, arg, node_def));
    if (!arg.type_attr().empty()) {
      if (base.empty()) return OkStatus();  // nothing says what T is
      for (DataType t : base) {
        if (t != base[0]) {
          return fail("must have tensors of one type, but got ",
                      internal::OpSpellingOfDataType(base[0]), " and ",
                      internal::OpSpellingOfDataType(t));
        }
      }
      AttrValue t;
      t.set_type(base[0]);
      return SetOrCheckAttr(arg.type_attr(), t, op_def, arg, node_def);
    }
    return one_type(arg.type());
  }
  if (!arg.type_list_attr().empty()) {
    AttrValue list;
    SetAttrValue(absl::Span<const DataType>(base), &list);
    return SetOrCheckAttr(arg.type_list_attr(), list, op_def, arg, node_def);
  }
  if (base.size() != 1) {
    return fail("takes one tensor, but got ", base.size());
  }
  if (!arg.type_attr().empty()) {
    AttrValue t;
    t.set_type(base[0]);
    return SetOrCheckAttr(arg.type_attr(), t, op_def, arg, node_def);
  }
  return one_type(arg.type());
}

}  // namespace

Status InferAttrsFromInputTypes(const OpDef& op_def,
                                absl::Span<const DataTypeVector> arg_types,
                                NodeDef* node_def) {
  if (static_cast<int>(arg_types.size()) != op_def.input_arg_size()) {
    return errors::InvalidArgument(
        "Op ", op_def.name(), " has ", op_def.input_arg_size(),
        " input args, but types for ", arg_types.size(), " were given");
  }
  for (int i = 0; i < op_def.input_arg_size(); ++i) {
    MF_RETURN_IF_ERROR(
        InferFromArg(op_def, op_def.input_arg(i), arg_types[i], node_def));
  }
  return OkStatus();
}

Status InferAttrsFromFlatInputTypes(const OpDef& op_def,
                                    DataTypeSlice input_types,
                                    NodeDef* node_def) {
  // Each arg's length is known (1, or from an attr already set) or is a
  // multiple of one unknown length attr.
  const AttrSlice attrs(*node_def);
  std::vector<int64_t> lengths(op_def.input_arg_size(), -1);
  std::vector<std::string> unknown;  // distinct unknown length attrs
  int64_t known_total = 0;
  int64_t unknown_count = 0;  // args of unknown length
  for (int i = 0; i < op_def.input_arg_size(); ++i) {
    const OpDef::ArgDef& arg = op_def.input_arg(i);
    const std::string& length_attr =
        !arg.number_attr().empty() ? arg.number_attr() : arg.type_list_attr();
    if (length_attr.empty() || attrs.Find(length_attr) != nullptr) {
      MF_RETURN_IF_ERROR(ArgLength(attrs, arg, &lengths[i]));
      known_total += lengths[i];
      continue;
    }
    if (std::find(unknown.begin(), unknown.end(), length_attr) ==
        unknown.end()) {
      unknown.push_back(length_attr);
    }
    ++unknown_count;
  }
  const int64_t remaining =
      static_cast<int64_t>(input_types.size()) - known_total;
  if (unknown.size() > 1) {
    return errors::InvalidArgument(
        "Cannot tell how ", input_types.size(), " input types split among ",
        "the lists of Op ", op_def.name(), " whose lengths are set by attrs '",
        absl::StrJoin(unknown, "', '"), "'; set all but one of them first");
  }
  if (remaining < 0 || (unknown.empty() && remaining != 0) ||
      (!unknown.empty() && remaining % unknown_count != 0)) {
    return errors::InvalidArgument(
        "Op ", op_def.name(), " cannot take ", input_types.size(),
        " inputs here (", known_total, " are needed by its fixed-size args)");
  }
  std::vector<DataTypeVector> per_arg(op_def.input_arg_size());
  size_t next = 0;
  for (int i = 0; i < op_def.input_arg_size(); ++i) {
    const int64_t n = lengths[i] >= 0 ? lengths[i] : remaining / unknown_count;
    per_arg[i].assign(input_types.begin() + next,
                      input_types.begin() + next + n);
    next += n;
  }
  return InferAttrsFromInputTypes(op_def, per_arg, node_def);
}

}  // namespace minflow
