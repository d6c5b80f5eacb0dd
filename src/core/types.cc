#include "minflow/core/types.h"

#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace minflow {
namespace {

struct TypeInfo {
  DataType dtype;
  const char* name;
  int size;
};

// Every value type minflow names; ref types derive from these.
constexpr TypeInfo kTypeInfo[] = {
    {DT_FLOAT, "float", 4},     {DT_DOUBLE, "double", 8},
    {DT_INT32, "int32", 4},     {DT_UINT8, "uint8", 1},
    {DT_INT16, "int16", 2},     {DT_INT8, "int8", 1},
    {DT_STRING, "string", 0},   {DT_COMPLEX64, "complex64", 8},
    {DT_INT64, "int64", 8},     {DT_BOOL, "bool", 1},
    {DT_QINT8, "qint8", 1},     {DT_QUINT8, "quint8", 1},
    {DT_QINT32, "qint32", 4},   {DT_BFLOAT16, "bfloat16", 2},
    {DT_QINT16, "qint16", 2},   {DT_QUINT16, "quint16", 2},
    {DT_UINT16, "uint16", 2},   {DT_COMPLEX128, "complex128", 16},
    {DT_HALF, "half", 2},       {DT_RESOURCE, "resource", 0},
    {DT_VARIANT, "variant", 0}, {DT_UINT32, "uint32", 4},
    {DT_UINT64, "uint64", 8},
};

const TypeInfo* FindInfo(DataType dtype) {
  for (const TypeInfo& info : kTypeInfo) {
    if (info.dtype == dtype) return &info;
  }
  return nullptr;
}

}  // namespace

std::string DataTypeString(DataType dtype) {
  const bool is_ref = IsRefType(dtype);
  const TypeInfo* info = FindInfo(RemoveRefType(dtype));
  if (info == nullptr) {
    return absl::StrCat("unknown dtype enum (", static_cast<int>(dtype), ")");
  }
  return is_ref ? absl::StrCat(info->name, "_ref") : info->name;
}

bool DataTypeFromString(absl::string_view name, DataType* dtype) {
  bool is_ref = false;
  if (absl::ConsumeSuffix(&name, "_ref") ||
      absl::ConsumeSuffix(&name, "_REF")) {
    is_ref = true;
  }
  std::string lower = absl::AsciiStrToLower(name);
  absl::string_view bare = lower;
  absl::ConsumePrefix(&bare, "dt_");
  if (bare == "float32") bare = "float";
  if (bare == "float64") bare = "double";
  if (bare == "float16") bare = "half";
  for (const TypeInfo& info : kTypeInfo) {
    if (bare == info.name) {
      *dtype = is_ref ? MakeRefType(info.dtype) : info.dtype;
      return true;
    }
  }
  return false;
}

std::string DataTypeSliceString(DataTypeSlice types) {
  return absl::StrJoin(types, ", ", [](std::string* out, DataType t) {
    out->append(DataTypeString(t));
  });
}

int DataTypeSize(DataType dtype) {
  const TypeInfo* info = FindInfo(dtype);
  return info == nullptr ? 0 : info->size;
}

bool DataTypeIsValid(DataType dtype) {
  return FindInfo(RemoveRefType(dtype)) != nullptr;
}

bool DataTypeCanUseMemcpy(DataType dtype) { return DataTypeSize(dtype) > 0; }

bool DataTypeIsFloating(DataType dtype) {
  switch (dtype) {
    case DT_HALF:
    case DT_BFLOAT16:
    case DT_FLOAT:
    case DT_DOUBLE:
      return true;
    default:
      return false;
  }
}

bool DataTypeIsInteger(DataType dtype) {
  switch (dtype) {
    case DT_INT8:
    case DT_UINT8:
    case DT_INT16:
    case DT_UINT16:
    case DT_INT32:
    case DT_UINT32:
    case DT_INT64:
    case DT_UINT64:
      return true;
    default:
      return false;
  }
}

bool DataTypeIsUnsigned(DataType dtype) {
  switch (dtype) {
    case DT_UINT8:
    case DT_UINT16:
    case DT_UINT32:
    case DT_UINT64:
      return true;
    default:
      return false;
  }
}

bool DataTypeIsComplex(DataType dtype) {
  return dtype == DT_COMPLEX64 || dtype == DT_COMPLEX128;
}

bool DataTypeIsQuantized(DataType dtype) {
  switch (dtype) {
    case DT_QINT8:
    case DT_QUINT8:
    case DT_QINT16:
    case DT_QUINT16:
    case DT_QINT32:
      return true;
    default:
      return false;
  }
}

DataTypeSlice AllTypes() {
  static constexpr DataType kTypes[] = {
      DT_FLOAT,  DT_DOUBLE,    DT_INT32,   DT_UINT8,   DT_INT16,  DT_INT8,
      DT_STRING, DT_COMPLEX64, DT_INT64,   DT_BOOL,    DT_QINT8,  DT_QUINT8,
      DT_QINT32, DT_BFLOAT16,  DT_QINT16,  DT_QUINT16, DT_UINT16, DT_COMPLEX128,
      DT_HALF,   DT_RESOURCE,  DT_VARIANT, DT_UINT32,  DT_UINT64};
  return kTypes;
}

DataTypeSlice NumberTypes() {
  static constexpr DataType kTypes[] = {
      DT_FLOAT,      DT_DOUBLE,    DT_INT32,  DT_UINT8,   DT_INT16,
      DT_INT8,       DT_COMPLEX64, DT_INT64,  DT_QINT8,   DT_QUINT8,
      DT_QINT32,     DT_BFLOAT16,  DT_QINT16, DT_QUINT16, DT_UINT16,
      DT_COMPLEX128, DT_HALF,      DT_UINT32, DT_UINT64};
  return kTypes;
}

DataTypeSlice RealNumberTypes() {
  static constexpr DataType kTypes[] = {
      DT_FLOAT, DT_DOUBLE,   DT_INT32,  DT_UINT8, DT_INT16,  DT_INT8,
      DT_INT64, DT_BFLOAT16, DT_UINT16, DT_HALF,  DT_UINT32, DT_UINT64};
  return kTypes;
}

DataTypeSlice QuantizedTypes() {
  static constexpr DataType kTypes[] = {DT_QINT8, DT_QUINT8, DT_QINT32,
                                        DT_QINT16, DT_QUINT16};
  return kTypes;
}

DataTypeSlice RealAndQuantizedTypes() {
  static constexpr DataType kTypes[] = {
      DT_FLOAT,   DT_DOUBLE, DT_INT32,  DT_UINT8,  DT_INT16,    DT_INT8,
      DT_INT64,   DT_QINT8,  DT_QUINT8, DT_QINT32, DT_BFLOAT16, DT_QINT16,
      DT_QUINT16, DT_UINT16, DT_HALF,   DT_UINT32, DT_UINT64};
  return kTypes;
}

DataTypeSlice IntegralTypes() {
  static constexpr DataType kTypes[] = {DT_INT32,  DT_UINT8, DT_INT16,
                                        DT_INT8,   DT_INT64, DT_UINT16,
                                        DT_UINT32, DT_UINT64};
  return kTypes;
}

DataTypeSlice FloatingTypes() {
  static constexpr DataType kTypes[] = {DT_FLOAT, DT_DOUBLE, DT_BFLOAT16,
                                        DT_HALF};
  return kTypes;
}

}  // namespace minflow
