/* MF_DataType: tensor element types, numbered as TensorFlow's DataType.
 * Plain C (C89 and later; C++ through extern "C"). */
#ifndef MINFLOW_C_MF_DATATYPE_H_
#define MINFLOW_C_MF_DATATYPE_H_

#include <stddef.h>

#include "minflow/c/c_api_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types; the values are TensorFlow's DataType numbers. */
typedef enum MF_DataType {
  MF_INVALID = 0,
  MF_FLOAT = 1,
  MF_DOUBLE = 2,
  MF_INT32 = 3,
  MF_UINT8 = 4,
  MF_INT16 = 5,
  MF_INT8 = 6,
  MF_STRING = 7,
  MF_COMPLEX64 = 8,
  MF_INT64 = 9,
  MF_BOOL = 10,
  MF_QINT8 = 11,
  MF_QUINT8 = 12,
  MF_QINT32 = 13,
  MF_BFLOAT16 = 14,
  MF_QINT16 = 15,
  MF_QUINT16 = 16,
  MF_UINT16 = 17,
  MF_COMPLEX128 = 18,
  MF_HALF = 19,
  MF_RESOURCE = 20,
  MF_VARIANT = 21,
  MF_UINT32 = 22,
  MF_UINT64 = 23
} MF_DataType;

/* Bytes per element; 0 for types without a fixed size (MF_STRING,
 * MF_RESOURCE, MF_VARIANT) and for invalid values. */
MF_CAPI_EXPORT extern size_t MF_DataTypeSize(MF_DataType dt);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MINFLOW_C_MF_DATATYPE_H_ */
