// DataType traits: C++ type <-> DataType enum, names, sizes, ref types, and
// the type sets that attr constraints such as `numbertype` stand for.
#pragma once

#include <complex>
#include <cstdint>
#include <string>

#include "Eigen/Core"
#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "minflow/types.pb.h"

namespace minflow {

using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;
using complex64 = std::complex<float>;
using complex128 = std::complex<double>;
// TensorFlow's string element type; minflow stores std::string.
using tstring = std::string;

// Quantized element types are storage only: minflow has no quantized math.
#define MF_DECLARE_QUANTIZED(Name, Storage)                               \
  struct Name {                                                           \
    Storage value;                                                        \
    friend bool operator==(Name a, Name b) { return a.value == b.value; } \
    friend bool operator!=(Name a, Name b) { return a.value != b.value; } \
  };
MF_DECLARE_QUANTIZED(qint8, int8_t)
MF_DECLARE_QUANTIZED(quint8, uint8_t)
MF_DECLARE_QUANTIZED(qint16, int16_t)
MF_DECLARE_QUANTIZED(quint16, uint16_t)
MF_DECLARE_QUANTIZED(qint32, int32_t)
#undef MF_DECLARE_QUANTIZED

// The element types of DT_RESOURCE and DT_VARIANT tensors
// (core/resource_handle.h, core/variant.h).
class ResourceHandle;
class Variant;

// DT_FLOAT_REF == DT_FLOAT + kDataTypeRefOffset, as in TensorFlow.
inline constexpr int kDataTypeRefOffset = 100;

using DataTypeVector = absl::InlinedVector<DataType, 4>;
using DataTypeSlice = absl::Span<const DataType>;

// "float", "int32", "float_ref", ...: TensorFlow's spelling.
std::string DataTypeString(DataType dtype);
// Accepts "float", "int32", "float_ref" and the enum names ("DT_FLOAT").
bool DataTypeFromString(absl::string_view name, DataType* dtype);
std::string DataTypeSliceString(DataTypeSlice types);

inline bool IsRefType(DataType dtype) {
  return static_cast<int>(dtype) > kDataTypeRefOffset;
}
inline DataType MakeRefType(DataType dtype) {
  return IsRefType(dtype) ? dtype
                          : static_cast<DataType>(dtype + kDataTypeRefOffset);
}
inline DataType RemoveRefType(DataType dtype) {
  return IsRefType(dtype) ? static_cast<DataType>(dtype - kDataTypeRefOffset)
                          : dtype;
}
inline DataType BaseType(DataType dtype) { return RemoveRefType(dtype); }

// Bytes per element; 0 for types without a fixed size (string, resource,
// variant) and for invalid values.
int DataTypeSize(DataType dtype);
// True when `dtype` (not a ref) is a valid, non-invalid enum value.
bool DataTypeIsValid(DataType dtype);
// True for types minflow can hold in a Tensor.
bool DataTypeCanUseMemcpy(DataType dtype);
bool DataTypeIsFloating(DataType dtype);
bool DataTypeIsInteger(DataType dtype);
bool DataTypeIsUnsigned(DataType dtype);
bool DataTypeIsComplex(DataType dtype);
bool DataTypeIsQuantized(DataType dtype);

// The type sets behind the attr shortcuts, in enum order as TensorFlow lists
// them when it expands a constraint.
DataTypeSlice AllTypes();
DataTypeSlice NumberTypes();      // `numbertype`
DataTypeSlice RealNumberTypes();  // `realnumbertype`
DataTypeSlice QuantizedTypes();   // `quantizedtype`
DataTypeSlice RealAndQuantizedTypes();
DataTypeSlice IntegralTypes();
DataTypeSlice FloatingTypes();

// C++ type -> enum.
template <typename T>
struct DataTypeToEnum {
  static_assert(sizeof(T) == 0, "no DataType for this C++ type");
};
// enum -> C++ type.
template <DataType DT>
struct EnumToDataType {};

#define MF_MATCH_TYPE_AND_ENUM(TYPE, ENUM)                     \
  template <>                                                  \
  struct DataTypeToEnum<TYPE> {                                \
    static constexpr DataType v() { return ENUM; }             \
    static constexpr DataType ref() {                          \
      return static_cast<DataType>(ENUM + kDataTypeRefOffset); \
    }                                                          \
    static constexpr DataType value = ENUM;                    \
  };                                                           \
  template <>                                                  \
  struct EnumToDataType<ENUM> {                                \
    using Type = TYPE;                                         \
  }

MF_MATCH_TYPE_AND_ENUM(float, DT_FLOAT);
MF_MATCH_TYPE_AND_ENUM(double, DT_DOUBLE);
MF_MATCH_TYPE_AND_ENUM(int32_t, DT_INT32);
MF_MATCH_TYPE_AND_ENUM(uint32_t, DT_UINT32);
MF_MATCH_TYPE_AND_ENUM(uint16_t, DT_UINT16);
MF_MATCH_TYPE_AND_ENUM(uint8_t, DT_UINT8);
MF_MATCH_TYPE_AND_ENUM(int16_t, DT_INT16);
MF_MATCH_TYPE_AND_ENUM(int8_t, DT_INT8);
MF_MATCH_TYPE_AND_ENUM(std::string, DT_STRING);
MF_MATCH_TYPE_AND_ENUM(complex64, DT_COMPLEX64);
MF_MATCH_TYPE_AND_ENUM(complex128, DT_COMPLEX128);
MF_MATCH_TYPE_AND_ENUM(int64_t, DT_INT64);
MF_MATCH_TYPE_AND_ENUM(uint64_t, DT_UINT64);
MF_MATCH_TYPE_AND_ENUM(bool, DT_BOOL);
MF_MATCH_TYPE_AND_ENUM(qint8, DT_QINT8);
MF_MATCH_TYPE_AND_ENUM(quint8, DT_QUINT8);
MF_MATCH_TYPE_AND_ENUM(qint16, DT_QINT16);
MF_MATCH_TYPE_AND_ENUM(quint16, DT_QUINT16);
MF_MATCH_TYPE_AND_ENUM(qint32, DT_QINT32);
MF_MATCH_TYPE_AND_ENUM(bfloat16, DT_BFLOAT16);
MF_MATCH_TYPE_AND_ENUM(half, DT_HALF);
MF_MATCH_TYPE_AND_ENUM(ResourceHandle, DT_RESOURCE);
MF_MATCH_TYPE_AND_ENUM(Variant, DT_VARIANT);

#undef MF_MATCH_TYPE_AND_ENUM

// Device names, as TensorFlow spells them.
using DeviceType = std::string;
inline constexpr char DEVICE_CPU[] = "CPU";
inline constexpr char DEVICE_GPU[] = "GPU";
inline constexpr char DEVICE_DEFAULT[] = "DEFAULT";

}  // namespace minflow
