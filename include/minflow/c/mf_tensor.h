/* MF_Tensor: a dense tensor made by or handed to C code. Ownership rules
 * are on each function. Plain C (C89 and later; C++ through extern "C"). */
#ifndef MINFLOW_C_MF_TENSOR_H_
#define MINFLOW_C_MF_TENSOR_H_

#include <stddef.h>
#include <stdint.h>

#include "minflow/c/c_api_macros.h"
#include "minflow/c/mf_datatype.h"
#include "minflow/c/mf_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A dense tensor: dtype, dims and a refcounted buffer. MF_STRING tensors
 * are made with MF_NewStringTensor and read with MF_TensorGetStrings (their
 * elements are not a flat buffer); resource and variant tensors cannot be
 * made through this API. MF_TensorData returns NULL for all three. */
typedef struct MF_Tensor MF_Tensor;

/* Wraps `data` (`len` bytes, which must equal the dims' element count times
 * MF_DataTypeSize(dtype)); `dims` may be NULL when num_dims is 0. On success
 * the tensor owns `data` and calls deallocator(data, len, deallocator_arg)
 * once nothing uses it any more (possibly after MF_DeleteTensor, when a
 * session output shares the buffer); a NULL deallocator means the caller
 * keeps `data` alive for that long. `data` not aligned to 64 bytes is
 * copied and released at once, as is the `data` of an empty tensor. On failure
 * (NULL returned, status set) nothing is called: `data` still belongs to the
 * caller. */
MF_CAPI_EXPORT extern MF_Tensor* MF_NewTensor(
    MF_DataType dtype, const int64_t* dims, int num_dims, void* data,
    size_t len, void (*deallocator)(void* data, size_t len, void* arg),
    void* deallocator_arg, MF_Status* status);
/* A tensor with uninitialized memory of `len` bytes (which must match the
 * dims as above), to fill through MF_TensorData. */
MF_CAPI_EXPORT extern MF_Tensor* MF_AllocateTensor(MF_DataType dtype,
                                                   const int64_t* dims,
                                                   int num_dims, size_t len,
                                                   MF_Status* status);
MF_CAPI_EXPORT extern void MF_DeleteTensor(MF_Tensor* t);
/* MF_INVALID for NULL. */
MF_CAPI_EXPORT extern MF_DataType MF_TensorType(const MF_Tensor* t);
/* -1 for NULL. */
MF_CAPI_EXPORT extern int MF_NumDims(const MF_Tensor* t);
/* The size of dimension `dim_index`; -1 for NULL or an index out of range. */
MF_CAPI_EXPORT extern int64_t MF_Dim(const MF_Tensor* t, int dim_index);
/* -1 for NULL. */
MF_CAPI_EXPORT extern int64_t MF_TensorElementCount(const MF_Tensor* t);
/* Bytes of element data; 0 for NULL and for MF_STRING. */
MF_CAPI_EXPORT extern size_t MF_TensorByteSize(const MF_Tensor* t);
/* The elements, row-major; writable. NULL for NULL, for empty tensors and
 * for types without a fixed size. */
MF_CAPI_EXPORT extern void* MF_TensorData(const MF_Tensor* t);

/* An MF_STRING tensor of shape `dims` whose element i is a copy of the
 * `lengths[i]` bytes at `values[i]` (any bytes: NULs and non-UTF-8 are
 * kept). `num_values` must be the dims' element count; `values` and
 * `lengths` may be NULL when it is 0. NULL with the status set otherwise. */
MF_CAPI_EXPORT extern MF_Tensor* MF_NewStringTensor(
    const int64_t* dims, int num_dims, const void* const* values,
    const size_t* lengths, int64_t num_values, MF_Status* status);
/* For an MF_STRING tensor of `num_values` elements (MF_TensorElementCount):
 * writes the address and length of element i into values[i], lengths[i],
 * row-major. The addresses point into the tensor and stay valid until it is
 * deleted. InvalidArgument for another dtype or another count. */
MF_CAPI_EXPORT extern void MF_TensorGetStrings(const MF_Tensor* t,
                                               const void** values,
                                               size_t* lengths,
                                               int64_t num_values,
                                               MF_Status* status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MINFLOW_C_MF_TENSOR_H_ */
