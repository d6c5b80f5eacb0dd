/* A tiny assertion kit for the C API tests: each check prints file:line and
 * what failed, then exits with status 1, so ctest reports the test failed.
 * Plus graph-building helpers shared by the tests. */
#ifndef MINFLOW_TESTS_C_C_TEST_UTIL_H_
#define MINFLOW_TESTS_C_C_TEST_UTIL_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minflow/c/c_api.h"

#define MFT_FAIL(...)                               \
  do {                                              \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__);                   \
    fprintf(stderr, "\n");                          \
    exit(1);                                        \
  } while (0)

#define MFT_CHECK(cond)                               \
  do {                                                \
    if (!(cond)) MFT_FAIL("check failed: %s", #cond); \
  } while (0)

#define MFT_CHECK_EQ_INT(a, b)                                           \
  do {                                                                   \
    long long mft_a_ = (long long)(a), mft_b_ = (long long)(b);          \
    if (mft_a_ != mft_b_) {                                              \
      MFT_FAIL("%s == %s failed: %lld vs %lld", #a, #b, mft_a_, mft_b_); \
    }                                                                    \
  } while (0)

#define MFT_CHECK_STREQ(a, b)                                 \
  do {                                                        \
    const char* mft_a_ = (a);                                 \
    const char* mft_b_ = (b);                                 \
    if (mft_a_ == NULL || strcmp(mft_a_, mft_b_) != 0) {      \
      MFT_FAIL("%s == \"%s\" failed: got \"%s\"", #a, mft_b_, \
               mft_a_ ? mft_a_ : "(null)");                   \
    }                                                         \
  } while (0)

#define MFT_CHECK_OK(status)                                            \
  do {                                                                  \
    if (MF_GetCode(status) != MF_OK) {                                  \
      MFT_FAIL("expected OK, got code %d: %s", (int)MF_GetCode(status), \
               MF_Message(status));                                     \
    }                                                                   \
  } while (0)

/* The status holds `code` and its message contains `substr`. */
#define MFT_CHECK_STATUS(status, code, substr)                               \
  do {                                                                       \
    if (MF_GetCode(status) != (code) ||                                      \
        strstr(MF_Message(status), (substr)) == NULL) {                      \
      MFT_FAIL("expected code %d with \"%s\", got code %d: %s", (int)(code), \
               (substr), (int)MF_GetCode(status), MF_Message(status));       \
    }                                                                        \
  } while (0)

/* A float Placeholder of shape `dims` (num_dims -1: unknown rank). */
static inline MF_Operation* MftPlaceholder(MF_Graph* g, const char* name,
                                           const int64_t* dims, int num_dims,
                                           MF_Status* s) {
  MF_OperationDescription* d = MF_NewOperation(g, "Placeholder", name);
  MF_SetAttrType(d, "dtype", MF_FLOAT);
  MF_SetAttrShape(d, "shape", dims, num_dims);
  return MF_FinishOperation(d, s);
}

/* A float Const holding `values` with shape `dims`. */
static inline MF_Operation* MftConst(MF_Graph* g, const char* name,
                                     const float* values, const int64_t* dims,
                                     int num_dims, MF_Status* s) {
  size_t n = 1;
  int i;
  MF_Tensor* t;
  MF_OperationDescription* d;
  MF_Operation* op;
  for (i = 0; i < num_dims; ++i) n *= (size_t)dims[i];
  t = MF_AllocateTensor(MF_FLOAT, dims, num_dims, n * sizeof(float), s);
  if (t == NULL) return NULL;
  memcpy(MF_TensorData(t), values, n * sizeof(float));
  d = MF_NewOperation(g, "Const", name);
  MF_SetAttrType(d, "dtype", MF_FLOAT);
  MF_SetAttrTensor(d, "value", t, s);
  MF_DeleteTensor(t);
  op = MF_FinishOperation(d, s);
  return op;
}

/* A binary op (AddV2, MatMul, ...) of two outputs; T is inferred. */
static inline MF_Operation* MftBinary(MF_Graph* g, const char* op_type,
                                      const char* name, MF_Operation* a,
                                      MF_Operation* b, MF_Status* s) {
  MF_OperationDescription* d = MF_NewOperation(g, op_type, name);
  MF_Output in_a, in_b;
  in_a.oper = a;
  in_a.index = 0;
  in_b.oper = b;
  in_b.index = 0;
  MF_AddInput(d, in_a);
  MF_AddInput(d, in_b);
  return MF_FinishOperation(d, s);
}

static inline MF_Output MftOut(MF_Operation* oper, int index) {
  MF_Output out;
  out.oper = oper;
  out.index = index;
  return out;
}

#endif /* MINFLOW_TESTS_C_C_TEST_UTIL_H_ */
