/* MF_Status: the outcome of a C API call, an error code and a message.
 * Plain C (C89 and later; C++ through extern "C"). */
#ifndef MINFLOW_C_MF_STATUS_H_
#define MINFLOW_C_MF_STATUS_H_

#include "minflow/c/c_api_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Canonical error codes; the values are TensorFlow's (and gRPC's). */
typedef enum MF_Code {
  MF_OK = 0,
  MF_CANCELLED = 1,
  MF_UNKNOWN = 2,
  MF_INVALID_ARGUMENT = 3,
  MF_DEADLINE_EXCEEDED = 4,
  MF_NOT_FOUND = 5,
  MF_ALREADY_EXISTS = 6,
  MF_PERMISSION_DENIED = 7,
  MF_RESOURCE_EXHAUSTED = 8,
  MF_FAILED_PRECONDITION = 9,
  MF_ABORTED = 10,
  MF_OUT_OF_RANGE = 11,
  MF_UNIMPLEMENTED = 12,
  MF_INTERNAL = 13,
  MF_UNAVAILABLE = 14,
  MF_DATA_LOSS = 15,
  MF_UNAUTHENTICATED = 16
} MF_Code;

/* The outcome of a call: a code and a message. A new status is MF_OK. */
typedef struct MF_Status MF_Status;

MF_CAPI_EXPORT extern MF_Status* MF_NewStatus(void);
MF_CAPI_EXPORT extern void MF_DeleteStatus(MF_Status* s);
/* Sets the code and a copy of `msg` (NULL means ""); MF_OK clears it. */
MF_CAPI_EXPORT extern void MF_SetStatus(MF_Status* s, MF_Code code,
                                        const char* msg);
/* MF_INVALID_ARGUMENT for a NULL status. */
MF_CAPI_EXPORT extern MF_Code MF_GetCode(const MF_Status* s);
/* "" when OK; valid until the status next changes or is deleted. */
MF_CAPI_EXPORT extern const char* MF_Message(const MF_Status* s);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MINFLOW_C_MF_STATUS_H_ */
