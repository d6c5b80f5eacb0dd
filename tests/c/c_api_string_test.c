/* MF_STRING tensors: made from bytes (NULs and non-ASCII kept), fed through
 * Identity and StringJoin, held by a Const, read back element by element;
 * bad counts and dtypes are errors. */
#include "tests/c/c_test_util.h"

static MF_Operation* Unary(MF_Graph* g, const char* op_type, const char* name,
                           MF_Output in, MF_Status* s) {
  MF_OperationDescription* d = MF_NewOperation(g, op_type, name);
  MF_AddInput(d, in);
  return MF_FinishOperation(d, s);
}

static void CheckElement(const MF_Tensor* t, int64_t n, int64_t i,
                         const char* bytes, size_t length, MF_Status* s) {
  const void* values[8];
  size_t lengths[8];
  MFT_CHECK(n <= 8);
  MF_TensorGetStrings(t, values, lengths, n, s);
  MFT_CHECK_OK(s);
  MFT_CHECK_EQ_INT(lengths[i], length);
  MFT_CHECK(length == 0 || memcmp(values[i], bytes, length) == 0);
}

static void FeedIdentityAndJoin(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  MF_OperationDescription* d;
  MF_Operation *x, *id, *join, *k;
  const int64_t dims[1] = {3};
  const char nul[] = {'x', '\0', 'y'};
  const char utf8[] = "\xc3\xa9t\xc3\xa9"; /* "ete" with accents */
  const void* values[3];
  size_t lengths[3];
  MF_Tensor *feed, *scalar, *results[3] = {NULL, NULL, NULL};
  MF_Output in, outs[3];
  const char* sep = "+";
  MF_Output list[2];

  values[0] = "ab";
  lengths[0] = 2;
  values[1] = nul;
  lengths[1] = 3;
  values[2] = utf8;
  lengths[2] = strlen(utf8);
  feed = MF_NewStringTensor(dims, 1, values, lengths, 3, s);
  MFT_CHECK_OK(s);
  MFT_CHECK_EQ_INT(MF_TensorType(feed), MF_STRING);
  MFT_CHECK_EQ_INT(MF_TensorElementCount(feed), 3);
  MFT_CHECK(MF_TensorData(feed) == NULL);
  MFT_CHECK_EQ_INT(MF_TensorByteSize(feed), 0);

  values[0] = "k";
  lengths[0] = 1;
  scalar = MF_NewStringTensor(NULL, 0, values, lengths, 1, s);
  MFT_CHECK_OK(s);
  d = MF_NewOperation(g, "Const", "k");
  MF_SetAttrType(d, "dtype", MF_STRING);
  MF_SetAttrTensor(d, "value", scalar, s);
  MFT_CHECK_OK(s);
  k = MF_FinishOperation(d, s);
  MFT_CHECK_OK(s);

  d = MF_NewOperation(g, "Placeholder", "x");
  MF_SetAttrType(d, "dtype", MF_STRING);
  x = MF_FinishOperation(d, s);
  MFT_CHECK_OK(s);
  id = Unary(g, "Identity", "id", MftOut(x, 0), s);
  MFT_CHECK_OK(s);
  d = MF_NewOperation(g, "StringJoin", "join");
  list[0] = MftOut(x, 0);
  list[1] = MftOut(k, 0);
  MF_AddInputList(d, list, 2);
  MF_SetAttrString(d, "separator", sep, 1);
  join = MF_FinishOperation(d, s);
  MFT_CHECK_OK(s);

  {
    MF_Session* session = MF_NewSession(g, NULL, s);
    MFT_CHECK_OK(s);
    in = MftOut(x, 0);
    outs[0] = MftOut(id, 0);
    outs[1] = MftOut(join, 0);
    outs[2] = MftOut(k, 0);
    MF_SessionRun(session, NULL, &in, &feed, 1, outs, results, 3, NULL, 0, NULL,
                  s);
    MFT_CHECK_OK(s);
    MF_DeleteSession(session, s);
  }
  MFT_CHECK_EQ_INT(MF_TensorType(results[0]), MF_STRING);
  MFT_CHECK_EQ_INT(MF_NumDims(results[0]), 1);
  MFT_CHECK_EQ_INT(MF_Dim(results[0], 0), 3);
  CheckElement(results[0], 3, 0, "ab", 2, s);
  CheckElement(results[0], 3, 1, nul, 3, s);
  CheckElement(results[0], 3, 2, utf8, strlen(utf8), s);
  CheckElement(results[1], 3, 0, "ab+k", 4, s);
  CheckElement(results[1], 3, 1, "x\0y+k", 5, s);
  MFT_CHECK_EQ_INT(MF_NumDims(results[2]), 0);
  CheckElement(results[2], 1, 0, "k", 1, s);

  MF_DeleteTensor(results[0]);
  MF_DeleteTensor(results[1]);
  MF_DeleteTensor(results[2]);
  MF_DeleteTensor(scalar);
  MF_DeleteTensor(feed);
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

static void EmptyAndBadArguments(void) {
  MF_Status* s = MF_NewStatus();
  const int64_t empty_dims[2] = {2, 0}, two[1] = {2}, negative[1] = {-1};
  const void* values[2] = {"a", NULL};
  size_t lengths[2] = {1, 1};
  MF_Tensor* t = MF_NewStringTensor(empty_dims, 2, NULL, NULL, 0, s);
  float f = 1;
  MF_Tensor* number;

  MFT_CHECK_OK(s);
  MFT_CHECK_EQ_INT(MF_TensorElementCount(t), 0);
  MF_TensorGetStrings(t, NULL, NULL, 0, s);
  MFT_CHECK_OK(s);
  MF_TensorGetStrings(t, NULL, NULL, 1, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "element count, 0, but got 1");
  MF_DeleteTensor(t);

  MFT_CHECK(MF_NewStringTensor(two, 1, values, lengths, 1, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "num_values must be");
  MFT_CHECK(MF_NewStringTensor(two, 1, values, lengths, 2, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "values[1] is NULL");
  MFT_CHECK(MF_NewStringTensor(two, 1, NULL, NULL, 2, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "values and lengths");
  MFT_CHECK(MF_NewStringTensor(negative, 1, NULL, NULL, 0, s) == NULL);
  MFT_CHECK_EQ_INT(MF_GetCode(s), MF_INVALID_ARGUMENT);
  MFT_CHECK(MF_NewStringTensor(NULL, -1, NULL, NULL, 0, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "num_dims");
  /* MF_AllocateTensor still refuses strings: they are not a flat buffer. */
  MFT_CHECK(MF_AllocateTensor(MF_STRING, two, 1, 16, s) == NULL);
  MFT_CHECK_EQ_INT(MF_GetCode(s), MF_INVALID_ARGUMENT);

  number = MF_AllocateTensor(MF_FLOAT, NULL, 0, sizeof f, s);
  MFT_CHECK_OK(s);
  MF_TensorGetStrings(number, values, lengths, 1, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "must be MF_STRING, but got float");
  MF_TensorGetStrings(NULL, values, lengths, 1, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "t");
  MF_DeleteTensor(number);
  MF_DeleteStatus(s);
}

int main(void) {
  FeedIdentityAndJoin();
  EmptyAndBadArguments();
  return 0;
}
