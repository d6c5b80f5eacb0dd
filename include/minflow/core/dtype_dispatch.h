// Calls a generic function with the C++ type of a runtime DataType, for code
// that must handle every dtype (tensor copies, proto conversion, printing).
#pragma once

#include "minflow/core/types.h"

namespace minflow {

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls fn(TypeTag<T>{}) for the element type of `dtype` and returns true,
// or returns false for a dtype without a C++ element type (resource,
// variant, invalid values).
template <typename Fn>
bool VisitDataType(DataType dtype, Fn&& fn) {
  switch (dtype) {
#define MF_VISIT_CASE(ENUM)                             \
  case ENUM:                                            \
    fn(TypeTag<typename EnumToDataType<ENUM>::Type>{}); \
    return true;
    MF_VISIT_CASE(DT_FLOAT)
    MF_VISIT_CASE(DT_DOUBLE)
    MF_VISIT_CASE(DT_INT32)
    MF_VISIT_CASE(DT_UINT32)
    MF_VISIT_CASE(DT_UINT16)
    MF_VISIT_CASE(DT_UINT8)
    MF_VISIT_CASE(DT_INT16)
    MF_VISIT_CASE(DT_INT8)
    MF_VISIT_CASE(DT_STRING)
    MF_VISIT_CASE(DT_COMPLEX64)
    MF_VISIT_CASE(DT_COMPLEX128)
    MF_VISIT_CASE(DT_INT64)
    MF_VISIT_CASE(DT_UINT64)
    MF_VISIT_CASE(DT_BOOL)
    MF_VISIT_CASE(DT_QINT8)
    MF_VISIT_CASE(DT_QUINT8)
    MF_VISIT_CASE(DT_QINT16)
    MF_VISIT_CASE(DT_QUINT16)
    MF_VISIT_CASE(DT_QINT32)
    MF_VISIT_CASE(DT_BFLOAT16)
    MF_VISIT_CASE(DT_HALF)
#undef MF_VISIT_CASE
    default:
      return false;
  }
}

}  // namespace minflow
