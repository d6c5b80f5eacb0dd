// The C API's attr getters (on operations) and setters (on descriptions).
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/strip.h"
#include "minflow/attr_value.pb.h"
#include "minflow/c/c_api.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/framework/attr_value_util.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/op_def.pb.h"
#include "minflow/tensor.pb.h"
#include "minflow/tensor_shape.pb.h"
#include "src/c/c_api_internal.h"

namespace minflow {
namespace c_api {
namespace {

// The attr's value and the node, after checking the arguments.
Status FindAttr(const char* function, MF_Operation* oper, const char* attr_name,
                const Node** node, const AttrValue** value) {
  if (oper == nullptr) return NullArgument(function, "oper");
  if (attr_name == nullptr) return NullArgument(function, "attr_name");
  *node = ToNode(oper);
  *value = AttrSlice((*node)->def()).Find(attr_name);
  if (*value == nullptr) {
    return errors::NotFound("Operation '", (*node)->name(), "' (op ",
                            (*node)->type_string(), ") has no attr named '",
                            attr_name, "'");
  }
  return OkStatus();
}

// GetNodeAttr for the C getters, with the operation named in errors.
template <typename T>
Status GetAttr(const char* function, MF_Operation* oper, const char* attr_name,
               T* value) {
  const Node* node = nullptr;
  const AttrValue* attr = nullptr;
  MF_RETURN_IF_ERROR(FindAttr(function, oper, attr_name, &node, &attr));
  return errors::Prefix(GetNodeAttr(AttrSlice(node->def()), attr_name, value),
                        function, ": operation '", node->name(), "': ");
}

Status CheckListArgs(const char* function, const void* values, int max_values) {
  if (max_values < 0) {
    return errors::InvalidArgument(
        function, ": max_values must be >= 0, but got ", max_values);
  }
  if (values == nullptr && max_values > 0) {
    return NullArgument(function, "values (with max_values > 0)");
  }
  return OkStatus();
}

// Copies the first `max_values` of a list attr, converted by `convert`.
template <typename T, typename C, typename Convert>
void GetList(const char* function, MF_Operation* oper, const char* attr_name,
             C* values, int max_values, Convert convert, MF_Status* status) {
  Status s = CheckListArgs(function, values, max_values);
  std::vector<T> list;
  if (s.ok()) s = GetAttr(function, oper, attr_name, &list);
  for (int i = 0; s.ok() && i < max_values && i < static_cast<int>(list.size());
       ++i) {
    values[i] = convert(list[i]);
  }
  Set(status, s);
}

template <typename T, typename C>
void GetScalar(const char* function, MF_Operation* oper, const char* attr_name,
               C* value, MF_Status* status) {
  Status s = value == nullptr ? NullArgument(function, "value") : OkStatus();
  T v{};
  if (s.ok()) s = GetAttr(function, oper, attr_name, &v);
  if (s.ok()) *value = static_cast<C>(v);
  Set(status, s);
}

MF_AttrType AttrTypeFromName(absl::string_view type) {
  if (absl::ConsumePrefix(&type, "list(")) absl::ConsumeSuffix(&type, ")");
  if (type == "int") return MF_ATTR_INT;
  if (type == "float") return MF_ATTR_FLOAT;
  if (type == "bool") return MF_ATTR_BOOL;
  if (type == "type") return MF_ATTR_TYPE;
  if (type == "shape") return MF_ATTR_SHAPE;
  if (type == "tensor") return MF_ATTR_TENSOR;
  if (type == "func") return MF_ATTR_FUNC;
  return MF_ATTR_STRING;
}

MF_AttrMetadata Metadata(const Node& node, const char* attr_name,
                         const AttrValue& v) {
  MF_AttrMetadata m{0, -1, MF_ATTR_STRING, -1};
  switch (v.value_case()) {
    case AttrValue::kS:
      m.total_size = static_cast<int64_t>(v.s().size());
      return m;
    case AttrValue::kI:
      m.type = MF_ATTR_INT;
      return m;
    case AttrValue::kF:
      m.type = MF_ATTR_FLOAT;
      return m;
    case AttrValue::kB:
      m.type = MF_ATTR_BOOL;
      return m;
    case AttrValue::kType:
      m.type = MF_ATTR_TYPE;
      return m;
    case AttrValue::kShape:
      m.type = MF_ATTR_SHAPE;
      m.total_size = v.shape().unknown_rank() ? -1 : v.shape().dim_size();
      return m;
    case AttrValue::kTensor:
      m.type = MF_ATTR_TENSOR;
      return m;
    case AttrValue::kFunc:
      m.type = MF_ATTR_FUNC;
      return m;
    case AttrValue::kPlaceholder:
      m.type = MF_ATTR_PLACEHOLDER;
      return m;
    default:
      break;
  }
  // A list: its type from the OpDef (an empty list has no other), else from
  // whichever field holds values.
  const AttrValue::ListValue& l = v.list();
  m.is_list = 1;
  for (const auto& attr : node.op_def().attr()) {
    if (attr.name() == attr_name) m.type = AttrTypeFromName(attr.type());
  }
  const std::pair<int, MF_AttrType> sizes[] = {
      {l.s_size(), MF_ATTR_STRING},      {l.i_size(), MF_ATTR_INT},
      {l.f_size(), MF_ATTR_FLOAT},       {l.b_size(), MF_ATTR_BOOL},
      {l.type_size(), MF_ATTR_TYPE},     {l.shape_size(), MF_ATTR_SHAPE},
      {l.tensor_size(), MF_ATTR_TENSOR}, {l.func_size(), MF_ATTR_FUNC}};
  m.list_size = 0;
  for (const auto& [size, type] : sizes) {
    if (size > 0) {
      m.list_size = size;
      m.type = type;
    }
  }
  if (m.type == MF_ATTR_STRING) {
    m.total_size = 0;
    for (const std::string& s : l.s()) m.total_size += s.size();
  } else if (m.type == MF_ATTR_SHAPE) {
    m.total_size = 0;
    for (const auto& shape : l.shape()) {
      if (!shape.unknown_rank()) m.total_size += shape.dim_size();
    }
  }
  return m;
}

// The description's attr `attr_name`, cleared, or null when there is
// nothing to set (a NULL desc, or a problem already recorded).
AttrValue* NewAttr(MF_OperationDescription* desc, const char* function,
                   const char* attr_name) {
  if (desc == nullptr || !desc->status.ok()) return nullptr;
  if (attr_name == nullptr) {
    desc->status = NullArgument(function, "attr_name");
    return nullptr;
  }
  AttrValue* value = &(*desc->node_def.mutable_attr())[attr_name];
  value->Clear();
  return value;
}

// Records the first problem a setter meets; MF_FinishOperation reports it.
void Fail(MF_OperationDescription* desc, const Status& s) {
  if (desc != nullptr && desc->status.ok() && !s.ok()) {
    desc->status = errors::Prefix(s, "Operation '", desc->node_def.name(),
                                  "' (op ", desc->node_def.op(), "): ");
  }
}

// Checks a (values, num_values) pair handed to a list setter.
bool CheckList(MF_OperationDescription* desc, const char* function,
               const void* values, int num_values,
               const char* values_name = "values") {
  if (num_values < 0) {
    Fail(desc, errors::InvalidArgument(
                   function, ": the count must be >= 0, but got ", num_values));
    return false;
  }
  if (values == nullptr && num_values > 0) {
    Fail(desc,
         errors::InvalidArgument(function, ": ", values_name,
                                 " is NULL with a count of ", num_values));
    return false;
  }
  return true;
}

Status ShapeFromC(const int64_t* dims, int num_dims,
                  PartialTensorShape* shape) {
  if (num_dims < -1) {
    return errors::InvalidArgument(
        "num_dims must be -1 (unknown rank) or >= 0, but got ", num_dims);
  }
  if (num_dims == -1) {
    *shape = PartialTensorShape();
    return OkStatus();
  }
  if (dims == nullptr && num_dims > 0) {
    return errors::InvalidArgument("dims is NULL with num_dims ", num_dims);
  }
  return PartialTensorShape::BuildPartialTensorShape(
      absl::Span<const int64_t>(dims, num_dims), shape);
}

// The int and float list setters.
template <typename T>
void SetSpanAttr(const char* function, MF_OperationDescription* desc,
                 const char* attr_name, const T* values, int num_values) {
  if (!CheckList(desc, function, values, num_values)) return;
  AttrValue* attr = NewAttr(desc, function, attr_name);
  if (attr != nullptr) {
    SetAttrValue(absl::Span<const T>(values, num_values), attr);
  }
}

// MF_SetAttrTensor (one tensor, not a list) and MF_SetAttrTensorList.
void SetTensorAttr(const char* function, MF_OperationDescription* desc,
                   const char* attr_name, MF_Tensor* const* values,
                   int num_values, bool is_list, MF_Status* status) {
  Status s = desc == nullptr ? NullArgument(function, "desc") : OkStatus();
  if (s.ok() && attr_name == nullptr) s = NullArgument(function, "attr_name");
  if (s.ok() && (num_values < 0 || (values == nullptr && num_values > 0))) {
    s = errors::InvalidArgument(
        function, ": values must hold num_values >= 0 tensors, but got ",
        num_values);
  }
  for (int i = 0; s.ok() && i < num_values; ++i) {
    if (values[i] == nullptr) {
      s = is_list
              ? errors::InvalidArgument(function, ": values[", i, "] is NULL")
              : NullArgument(function, "value");
    }
  }
  Fail(desc, s);
  Set(status, s);
  AttrValue* attr = s.ok() ? NewAttr(desc, function, attr_name) : nullptr;
  if (attr == nullptr) return;
  if (!is_list) {
    values[0]->tensor.AsProtoTensorContent(attr->mutable_tensor());
    return;
  }
  auto* list = attr->mutable_list();
  for (int i = 0; i < num_values; ++i) {
    values[i]->tensor.AsProtoTensorContent(list->add_tensor());
  }
}

}  // namespace
}  // namespace c_api
}  // namespace minflow

using minflow::AttrValue;
using minflow::DataType;
using minflow::Status;
namespace c_api = minflow::c_api;
namespace errors = minflow::errors;

extern "C" {

MF_AttrMetadata MF_OperationGetAttrMetadata(MF_Operation* oper,
                                            const char* attr_name,
                                            MF_Status* status) {
  const minflow::Node* node = nullptr;
  const AttrValue* value = nullptr;
  const Status s = c_api::FindAttr("MF_OperationGetAttrMetadata", oper,
                                   attr_name, &node, &value);
  c_api::Set(status, s);
  if (!s.ok()) return MF_AttrMetadata{0, -1, MF_ATTR_STRING, -1};
  return c_api::Metadata(*node, attr_name, *value);
}

void MF_OperationGetAttrString(MF_Operation* oper, const char* attr_name,
                               void* value, size_t max_length,
                               MF_Status* status) {
  const char* fn = "MF_OperationGetAttrString";
  std::string s;
  Status st = c_api::GetAttr(fn, oper, attr_name, &s);
  if (st.ok() && s.size() > max_length) {
    st =
        errors::InvalidArgument(fn, ": attr '", attr_name, "' holds ", s.size(),
                                " bytes, but max_length is ", max_length);
  } else if (st.ok() && value == nullptr && !s.empty()) {
    st = c_api::NullArgument(fn, "value");
  }
  if (st.ok() && !s.empty()) std::memcpy(value, s.data(), s.size());
  c_api::Set(status, st);
}

void MF_OperationGetAttrStringList(MF_Operation* oper, const char* attr_name,
                                   void** values, size_t* lengths,
                                   int max_values, void* storage,
                                   size_t storage_size, MF_Status* status) {
  const char* fn = "MF_OperationGetAttrStringList";
  Status s = c_api::CheckListArgs(fn, values, max_values);
  if (s.ok() && lengths == nullptr && max_values > 0) {
    s = c_api::NullArgument(fn, "lengths");
  }
  std::vector<std::string> list;
  if (s.ok()) s = c_api::GetAttr(fn, oper, attr_name, &list);
  char* next = static_cast<char*>(storage);
  size_t left = storage == nullptr ? 0 : storage_size;
  for (int i = 0; s.ok() && i < max_values && i < static_cast<int>(list.size());
       ++i) {
    if (list[i].size() > left) {
      s = errors::InvalidArgument(fn, ": storage_size ", storage_size,
                                  " is too small for the strings of attr '",
                                  attr_name, "'");
      break;
    }
    if (!list[i].empty()) std::memcpy(next, list[i].data(), list[i].size());
    values[i] = next;
    lengths[i] = list[i].size();
    next += list[i].size();
    left -= list[i].size();
  }
  c_api::Set(status, s);
}

void MF_OperationGetAttrInt(MF_Operation* oper, const char* attr_name,
                            int64_t* value, MF_Status* status) {
  c_api::GetScalar<int64_t>("MF_OperationGetAttrInt", oper, attr_name, value,
                            status);
}

void MF_OperationGetAttrIntList(MF_Operation* oper, const char* attr_name,
                                int64_t* values, int max_values,
                                MF_Status* status) {
  c_api::GetList<int64_t>(
      "MF_OperationGetAttrIntList", oper, attr_name, values, max_values,
      [](int64_t v) { return v; }, status);
}

void MF_OperationGetAttrFloat(MF_Operation* oper, const char* attr_name,
                              float* value, MF_Status* status) {
  c_api::GetScalar<float>("MF_OperationGetAttrFloat", oper, attr_name, value,
                          status);
}

void MF_OperationGetAttrFloatList(MF_Operation* oper, const char* attr_name,
                                  float* values, int max_values,
                                  MF_Status* status) {
  c_api::GetList<float>(
      "MF_OperationGetAttrFloatList", oper, attr_name, values, max_values,
      [](float v) { return v; }, status);
}

void MF_OperationGetAttrBool(MF_Operation* oper, const char* attr_name,
                             unsigned char* value, MF_Status* status) {
  c_api::GetScalar<bool>("MF_OperationGetAttrBool", oper, attr_name, value,
                         status);
}

void MF_OperationGetAttrBoolList(MF_Operation* oper, const char* attr_name,
                                 unsigned char* values, int max_values,
                                 MF_Status* status) {
  c_api::GetList<bool>(
      "MF_OperationGetAttrBoolList", oper, attr_name, values, max_values,
      [](bool v) { return static_cast<unsigned char>(v); }, status);
}

void MF_OperationGetAttrType(MF_Operation* oper, const char* attr_name,
                             MF_DataType* value, MF_Status* status) {
  c_api::GetScalar<DataType>("MF_OperationGetAttrType", oper, attr_name, value,
                             status);
}

void MF_OperationGetAttrTypeList(MF_Operation* oper, const char* attr_name,
                                 MF_DataType* values, int max_values,
                                 MF_Status* status) {
  c_api::GetList<DataType>(
      "MF_OperationGetAttrTypeList", oper, attr_name, values, max_values,
      [](DataType v) { return static_cast<MF_DataType>(v); }, status);
}

void MF_OperationGetAttrShape(MF_Operation* oper, const char* attr_name,
                              int64_t* value, int num_dims, MF_Status* status) {
  const char* fn = "MF_OperationGetAttrShape";
  minflow::PartialTensorShape shape;
  Status s = c_api::GetAttr(fn, oper, attr_name, &shape);
  if (s.ok() && num_dims < shape.dims()) {
    s = errors::InvalidArgument(fn, ": attr '", attr_name, "' has rank ",
                                shape.dims(), ", but num_dims is ", num_dims);
  } else if (s.ok() && value == nullptr && shape.dims() > 0) {
    s = c_api::NullArgument(fn, "value");
  }
  for (int d = 0; s.ok() && d < shape.dims(); ++d) value[d] = shape.dim_size(d);
  c_api::Set(status, s);
}

void MF_OperationGetAttrTensor(MF_Operation* oper, const char* attr_name,
                               MF_Tensor** value, MF_Status* status) {
  const char* fn = "MF_OperationGetAttrTensor";
  Status s = value == nullptr ? c_api::NullArgument(fn, "value") : Status();
  minflow::Tensor tensor;
  if (s.ok()) s = c_api::GetAttr(fn, oper, attr_name, &tensor);
  if (s.ok()) *value = new MF_Tensor{tensor};
  c_api::Set(status, s);
}

void MF_OperationGetAttrValueProto(MF_Operation* oper, const char* attr_name,
                                   MF_Buffer* output_attr_value,
                                   MF_Status* status) {
  const char* fn = "MF_OperationGetAttrValueProto";
  const minflow::Node* node = nullptr;
  const AttrValue* value = nullptr;
  Status s = c_api::FindAttr(fn, oper, attr_name, &node, &value);
  if (s.ok()) s = c_api::MessageToBuffer(fn, *value, output_attr_value);
  c_api::Set(status, s);
}

void MF_SetAttrString(MF_OperationDescription* desc, const char* attr_name,
                      const void* value, size_t length) {
  const char* fn = "MF_SetAttrString";
  if (value == nullptr && length > 0) {
    c_api::Fail(desc, c_api::NullArgument(fn, "value (with length > 0)"));
  }
  AttrValue* attr = c_api::NewAttr(desc, fn, attr_name);
  if (attr != nullptr) attr->set_s(static_cast<const char*>(value), length);
}

void MF_SetAttrStringList(MF_OperationDescription* desc, const char* attr_name,
                          const void* const* values, const size_t* lengths,
                          int num_values) {
  const char* fn = "MF_SetAttrStringList";
  if (!c_api::CheckList(desc, fn, values, num_values)) return;
  if (lengths == nullptr && num_values > 0) {
    c_api::Fail(desc, c_api::NullArgument(fn, "lengths"));
  }
  for (int i = 0; lengths != nullptr && i < num_values; ++i) {
    if (values[i] == nullptr && lengths[i] > 0) {
      c_api::Fail(
          desc, errors::InvalidArgument(fn, ": values[", i,
                                        "] is NULL with length ", lengths[i]));
    }
  }
  AttrValue* attr = c_api::NewAttr(desc, fn, attr_name);
  if (attr == nullptr) return;
  auto* list = attr->mutable_list();
  for (int i = 0; i < num_values; ++i) {
    list->add_s(static_cast<const char*>(values[i]), lengths[i]);
  }
}

void MF_SetAttrInt(MF_OperationDescription* desc, const char* attr_name,
                   int64_t value) {
  AttrValue* attr = c_api::NewAttr(desc, "MF_SetAttrInt", attr_name);
  if (attr != nullptr) attr->set_i(value);
}

void MF_SetAttrIntList(MF_OperationDescription* desc, const char* attr_name,
                       const int64_t* values, int num_values) {
  c_api::SetSpanAttr("MF_SetAttrIntList", desc, attr_name, values, num_values);
}

void MF_SetAttrFloat(MF_OperationDescription* desc, const char* attr_name,
                     float value) {
  AttrValue* attr = c_api::NewAttr(desc, "MF_SetAttrFloat", attr_name);
  if (attr != nullptr) attr->set_f(value);
}

void MF_SetAttrFloatList(MF_OperationDescription* desc, const char* attr_name,
                         const float* values, int num_values) {
  c_api::SetSpanAttr("MF_SetAttrFloatList", desc, attr_name, values,
                     num_values);
}

void MF_SetAttrBool(MF_OperationDescription* desc, const char* attr_name,
                    unsigned char value) {
  AttrValue* attr = c_api::NewAttr(desc, "MF_SetAttrBool", attr_name);
  if (attr != nullptr) attr->set_b(value != 0);
}

void MF_SetAttrBoolList(MF_OperationDescription* desc, const char* attr_name,
                        const unsigned char* values, int num_values) {
  const char* fn = "MF_SetAttrBoolList";
  if (!c_api::CheckList(desc, fn, values, num_values)) return;
  AttrValue* attr = c_api::NewAttr(desc, fn, attr_name);
  if (attr == nullptr) return;
  auto* list = attr->mutable_list();
  for (int i = 0; i < num_values; ++i) list->add_b(values[i] != 0);
}

void MF_SetAttrType(MF_OperationDescription* desc, const char* attr_name,
                    MF_DataType value) {
  DataType dtype;
  const Status s = c_api::ToDataType(value, &dtype);
  if (!s.ok()) {
    c_api::Fail(desc, errors::Prefix(s, "MF_SetAttrType: "));
    return;
  }
  AttrValue* attr = c_api::NewAttr(desc, "MF_SetAttrType", attr_name);
  if (attr != nullptr) attr->set_type(dtype);
}

void MF_SetAttrTypeList(MF_OperationDescription* desc, const char* attr_name,
                        const MF_DataType* values, int num_values) {
  const char* fn = "MF_SetAttrTypeList";
  if (!c_api::CheckList(desc, fn, values, num_values)) return;
  minflow::DataTypeVector types(num_values);
  for (int i = 0; i < num_values; ++i) {
    const Status s = c_api::ToDataType(values[i], &types[i]);
    if (!s.ok()) {
      c_api::Fail(desc, errors::Prefix(s, fn, ": values[", i, "]: "));
      return;
    }
  }
  AttrValue* attr = c_api::NewAttr(desc, fn, attr_name);
  if (attr != nullptr)
    minflow::SetAttrValue(minflow::DataTypeSlice(types), attr);
}

void MF_SetAttrShape(MF_OperationDescription* desc, const char* attr_name,
                     const int64_t* dims, int num_dims) {
  minflow::PartialTensorShape shape;
  const Status s = c_api::ShapeFromC(dims, num_dims, &shape);
  if (!s.ok()) {
    c_api::Fail(desc, errors::Prefix(s, "MF_SetAttrShape: "));
    return;
  }
  AttrValue* attr = c_api::NewAttr(desc, "MF_SetAttrShape", attr_name);
  if (attr != nullptr) minflow::SetAttrValue(shape, attr);
}

void MF_SetAttrShapeList(MF_OperationDescription* desc, const char* attr_name,
                         const int64_t* const* dims, const int* num_dims,
                         int num_shapes) {
  const char* fn = "MF_SetAttrShapeList";
  if (!c_api::CheckList(desc, fn, num_dims, num_shapes, "num_dims") ||
      !c_api::CheckList(desc, fn, dims, num_shapes, "dims")) {
    return;
  }
  std::vector<minflow::PartialTensorShape> shapes(num_shapes);
  for (int i = 0; i < num_shapes; ++i) {
    const Status s = c_api::ShapeFromC(dims[i], num_dims[i], &shapes[i]);
    if (!s.ok()) {
      c_api::Fail(desc, errors::Prefix(s, fn, ": shape ", i, ": "));
      return;
    }
  }
  AttrValue* attr = c_api::NewAttr(desc, fn, attr_name);
  if (attr == nullptr) return;
  minflow::SetAttrValue(absl::Span<const minflow::PartialTensorShape>(shapes),
                        attr);
}

void MF_SetAttrTensor(MF_OperationDescription* desc, const char* attr_name,
                      MF_Tensor* value, MF_Status* status) {
  c_api::SetTensorAttr("MF_SetAttrTensor", desc, attr_name, &value, 1,
                       /*is_list=*/false, status);
}

void MF_SetAttrTensorList(MF_OperationDescription* desc, const char* attr_name,
                          MF_Tensor* const* values, int num_values,
                          MF_Status* status) {
  c_api::SetTensorAttr("MF_SetAttrTensorList", desc, attr_name, values,
                       num_values, /*is_list=*/true, status);
}

void MF_SetAttrFuncName(MF_OperationDescription* desc, const char* attr_name,
                        const char* value, size_t length) {
  const char* fn = "MF_SetAttrFuncName";
  if (value == nullptr) {
    c_api::Fail(desc, c_api::NullArgument(fn, "value"));
  }
  AttrValue* attr = c_api::NewAttr(desc, fn, attr_name);
  if (attr != nullptr && value != nullptr) {
    attr->mutable_func()->set_name(value, length);
  }
}

void MF_SetAttrValueProto(MF_OperationDescription* desc, const char* attr_name,
                          const void* proto, size_t proto_len,
                          MF_Status* status) {
  const char* fn = "MF_SetAttrValueProto";
  Status s = desc == nullptr ? c_api::NullArgument(fn, "desc") : Status();
  if (s.ok() && attr_name == nullptr) s = c_api::NullArgument(fn, "attr_name");
  if (s.ok() && proto == nullptr && proto_len > 0) {
    s = c_api::NullArgument(fn, "proto");
  }
  AttrValue value;
  if (s.ok() && (proto_len > static_cast<size_t>(INT32_MAX) ||
                 !value.ParseFromArray(proto, static_cast<int>(proto_len)))) {
    s = errors::InvalidArgument(fn, ": the bytes for attr '", attr_name,
                                "' are not a serialized AttrValue");
  }
  c_api::Fail(desc, s);
  c_api::Set(status, s);
  AttrValue* attr = s.ok() ? c_api::NewAttr(desc, fn, attr_name) : nullptr;
  if (attr != nullptr) *attr = std::move(value);
}

}  // extern "C"
