/* The calls language bindings need: MF_LoadLibrary / MF_GetOpList with the
 * Examples>ZeroOut library (path in MINFLOW_ZERO_OUT_LIBRARY), and
 * MF_TensorMaybeMove on owned and shared tensors. */
#include "tests/c/c_test_util.h"

/* Whether `needle` occurs in the `len` bytes at `data`. */
static int Contains(const void* data, size_t len, const char* needle) {
  const char* bytes = (const char*)data;
  size_t n = strlen(needle), i;
  for (i = 0; n <= len && i <= len - n; ++i) {
    if (memcmp(bytes + i, needle, n) == 0) return 1;
  }
  return 0;
}

static void LoadLibraryErrors(void) {
  MF_Status* s = MF_NewStatus();
  MF_Buffer empty;
  MFT_CHECK(MF_LoadLibrary(NULL, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "library_filename");
  MFT_CHECK(MF_LoadLibrary("/no/such/libzero.so", s) == NULL);
  MFT_CHECK_STATUS(s, MF_NOT_FOUND, "/no/such/libzero.so");
  /* A file that is not a shared library. */
  MFT_CHECK(MF_LoadLibrary(MINFLOW_NOT_A_LIBRARY, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "cannot load op library");
  empty = MF_GetOpList(NULL);
  MFT_CHECK(empty.data == NULL && empty.length == 0);
  MF_DeleteLibraryHandle(NULL);
  MF_DeleteStatus(s);
}

static void LoadZeroOutAndRunIt(void) {
  MF_Status* s = MF_NewStatus();
  MF_Library* lib = MF_LoadLibrary(MINFLOW_ZERO_OUT_LIBRARY, s);
  MF_Library* again;
  MF_Buffer ops, ops_again;
  MF_Graph* g;
  MF_Operation *x, *zero;
  MF_OperationDescription* d;
  MF_Session* session;
  MF_Tensor *feed, *out = NULL;
  MF_Output in, fetch;
  const int64_t dims[1] = {4};
  const float values[4] = {1, 2, 3, 4};
  const float* r;

  MFT_CHECK_OK(s);
  MFT_CHECK(lib != NULL);
  ops = MF_GetOpList(lib);
  MFT_CHECK(ops.data != NULL && ops.length > 0);
  MFT_CHECK(ops.data_deallocator == NULL);
  MFT_CHECK(Contains(ops.data, ops.length, "Examples>ZeroOut"));
  MFT_CHECK(Contains(ops.data, ops.length, "preserve_index"));
  /* A second load of the same file gives the same ops. */
  again = MF_LoadLibrary(MINFLOW_ZERO_OUT_LIBRARY, s);
  MFT_CHECK_OK(s);
  ops_again = MF_GetOpList(again);
  MFT_CHECK_EQ_INT(ops_again.length, ops.length);
  MFT_CHECK(memcmp(ops.data, ops_again.data, ops.length) == 0);
  MF_DeleteLibraryHandle(again);
  MF_DeleteLibraryHandle(lib);

  /* The op stays registered after the handles go. */
  g = MF_NewGraph();
  x = MftPlaceholder(g, "x", dims, 1, s);
  MFT_CHECK_OK(s);
  d = MF_NewOperation(g, "Examples>ZeroOut", "zero");
  MF_AddInput(d, MftOut(x, 0));
  MF_SetAttrInt(d, "preserve_index", 2);
  zero = MF_FinishOperation(d, s);
  MFT_CHECK_OK(s);
  session = MF_NewSession(g, NULL, s);
  MFT_CHECK_OK(s);
  feed = MF_AllocateTensor(MF_FLOAT, dims, 1, sizeof values, s);
  MFT_CHECK_OK(s);
  memcpy(MF_TensorData(feed), values, sizeof values);
  in = MftOut(x, 0);
  fetch = MftOut(zero, 0);
  MF_SessionRun(session, NULL, &in, &feed, 1, &fetch, &out, 1, NULL, 0, NULL,
                s);
  MFT_CHECK_OK(s);
  r = (const float*)MF_TensorData(out);
  MFT_CHECK(r[0] == 0 && r[1] == 0 && r[2] == 3 && r[3] == 0);
  MF_DeleteTensor(out);
  MF_DeleteTensor(feed);
  MF_DeleteSession(session, s);
  MFT_CHECK_OK(s);
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

static void MaybeMoveOnlyForSoleOwners(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  const int64_t dims[1] = {2};
  const float values[2] = {1, 2};
  MF_Operation *x, *c, *sum, *id;
  MF_Session* session;
  MF_Tensor *feed, *fresh, *empty, *outs[3] = {NULL, NULL, NULL};
  MF_Output in, fetches[3];
  int64_t zero_dims[1] = {0};

  MFT_CHECK(MF_TensorMaybeMove(NULL) == NULL);
  fresh = MF_AllocateTensor(MF_FLOAT, dims, 1, sizeof values, s);
  MFT_CHECK_OK(s);
  MFT_CHECK(MF_TensorMaybeMove(fresh) == fresh);
  MF_DeleteTensor(fresh);
  empty = MF_AllocateTensor(MF_FLOAT, zero_dims, 1, 0, s);
  MFT_CHECK_OK(s);
  MFT_CHECK(MF_TensorMaybeMove(empty) == NULL);
  MF_DeleteTensor(empty);

  x = MftPlaceholder(g, "x", dims, 1, s);
  MFT_CHECK_OK(s);
  c = MftConst(g, "c", values, dims, 1, s);
  MFT_CHECK_OK(s);
  sum = MftBinary(g, "AddV2", "sum", x, c, s);
  MFT_CHECK_OK(s);
  {
    MF_OperationDescription* d = MF_NewOperation(g, "Identity", "id");
    MF_AddInput(d, MftOut(x, 0));
    id = MF_FinishOperation(d, s);
    MFT_CHECK_OK(s);
  }
  session = MF_NewSession(g, NULL, s);
  MFT_CHECK_OK(s);
  feed = MF_AllocateTensor(MF_FLOAT, dims, 1, sizeof values, s);
  MFT_CHECK_OK(s);
  memcpy(MF_TensorData(feed), values, sizeof values);
  in = MftOut(x, 0);
  fetches[0] = MftOut(sum, 0);
  fetches[1] = MftOut(c, 0);
  fetches[2] = MftOut(id, 0);
  MF_SessionRun(session, NULL, &in, &feed, 1, fetches, outs, 3, NULL, 0, NULL,
                s);
  MFT_CHECK_OK(s);
  /* A computed output is the fetcher's alone; the Const's value is also the
   * session's, and the Identity of a feed shares the fed tensor. */
  MFT_CHECK(MF_TensorMaybeMove(outs[0]) == outs[0]);
  MFT_CHECK(MF_TensorMaybeMove(outs[1]) == NULL);
  MFT_CHECK(MF_TensorMaybeMove(outs[2]) == NULL);
  MF_DeleteTensor(feed);
  MFT_CHECK(MF_TensorMaybeMove(outs[2]) == outs[2]);
  MF_DeleteTensor(outs[0]);
  MF_DeleteTensor(outs[1]);
  MF_DeleteTensor(outs[2]);
  MF_DeleteSession(session, s);
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

int main(void) {
  LoadLibraryErrors();
  LoadZeroOutAndRunIt();
  MaybeMoveOnlyForSoleOwners();
  return 0;
}
