/* Builds y = x * w + b through the C API (Placeholder, Const, MatMul,
 * AddV2, AddN with an input list, control inputs, device and colocation),
 * checks inferred attrs and shapes, and runs it in a session. */
#include <math.h>

#include "tests/c/c_test_util.h"

static int g_freed = 0;
static void CountFree(void* data, size_t len, void* arg) {
  (void)len;
  (void)arg;
  free(data);
  ++g_freed;
}

static void BuildAndRun(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  const int64_t dims[2] = {2, 2};
  const float w_values[4] = {1, 2, 3, 4};
  const float b_values[4] = {10, 20, 30, 40};
  MF_Operation *x, *w, *b, *mm, *add, *sum, *noop;
  MF_OperationDescription* d;
  MF_Output list[3];
  int64_t shape[2] = {0, 0};
  MF_Tensor *feed, *outputs[2] = {NULL, NULL};
  MF_Output fetches[2];
  MF_Output feeds[1];
  MF_SessionOptions* opts;
  MF_Session* session;
  MF_DataType t_attr = MF_INVALID;
  float* in;
  const float* out;

  x = MftPlaceholder(g, "x", dims, 2, s);
  MFT_CHECK_OK(s);
  w = MftConst(g, "w", w_values, dims, 2, s);
  MFT_CHECK_OK(s);
  b = MftConst(g, "b", b_values, dims, 2, s);
  MFT_CHECK_OK(s);
  mm = MftBinary(g, "MatMul", "mm", x, w, s);
  MFT_CHECK_OK(s);
  add = MftBinary(g, "AddV2", "y", mm, b, s);
  MFT_CHECK_OK(s);

  /* T was inferred from the inputs; shapes were refined at finish. */
  MF_OperationGetAttrType(add, "T", &t_attr, s);
  MFT_CHECK_OK(s);
  MFT_CHECK_EQ_INT(t_attr, MF_FLOAT);
  MFT_CHECK_EQ_INT(MF_GraphGetTensorNumDims(g, MftOut(add, 0), s), 2);
  MF_GraphGetTensorShape(g, MftOut(add, 0), shape, 2, s);
  MFT_CHECK_OK(s);
  MFT_CHECK(shape[0] == 2 && shape[1] == 2);

  /* AddN over a list: N and T inferred. With a device, colocation and a
   * control input. */
  noop = MF_FinishOperation(MF_NewOperation(g, "NoOp", "before"), s);
  MFT_CHECK_OK(s);
  d = MF_NewOperation(g, "AddN", "sum");
  list[0] = MftOut(add, 0);
  list[1] = MftOut(b, 0);
  list[2] = MftOut(w, 0);
  MF_AddInputList(d, list, 3);
  MF_AddControlInput(d, noop);
  MF_SetDevice(d, "/device:CPU:0");
  MF_ColocateWith(d, add);
  sum = MF_FinishOperation(d, s);
  MFT_CHECK_OK(s);
  MFT_CHECK_STREQ(MF_OperationDevice(sum), "/device:CPU:0");
  MFT_CHECK_EQ_INT(MF_OperationNumInputs(sum), 3);
  MFT_CHECK_EQ_INT(MF_OperationNumControlInputs(sum), 1);
  {
    int64_t n = 0;
    MF_OperationGetAttrInt(sum, "N", &n, s);
    MFT_CHECK_OK(s);
    MFT_CHECK_EQ_INT(n, 3);
  }
  MFT_CHECK(MF_OperationInput((MF_Input){sum, 1}).oper == b);
  MFT_CHECK_EQ_INT(MF_OperationOutputNumConsumers(MftOut(add, 0)), 1);

  /* Run: feed x = [[1, 0], [0, 1]] from caller memory with a deallocator. */
  opts = MF_NewSessionOptions();
  MF_SetNumThreads(opts, 1, 1, s);
  MFT_CHECK_OK(s);
  session = MF_NewSession(g, opts, s);
  MFT_CHECK_OK(s);
  MF_DeleteSessionOptions(opts);
  in = (float*)aligned_alloc(64, 64); /* size: a multiple of 64 */
  in[0] = 1;
  in[1] = 0;
  in[2] = 0;
  in[3] = 1;
  feed = MF_NewTensor(MF_FLOAT, dims, 2, in, 4 * sizeof(float), CountFree, NULL,
                      s);
  MFT_CHECK_OK(s);
  feeds[0] = MftOut(x, 0);
  fetches[0] = MftOut(add, 0);
  fetches[1] = MftOut(sum, 0);
  MF_SessionRun(session, NULL, feeds, &feed, 1, fetches, outputs, 2, NULL, 0,
                NULL, s);
  MFT_CHECK_OK(s);
  MFT_CHECK_EQ_INT(MF_TensorType(outputs[0]), MF_FLOAT);
  MFT_CHECK_EQ_INT(MF_NumDims(outputs[0]), 2);
  MFT_CHECK_EQ_INT(MF_Dim(outputs[0], 1), 2);
  MFT_CHECK_EQ_INT(MF_TensorByteSize(outputs[0]), 4 * sizeof(float));
  out = (const float*)MF_TensorData(outputs[0]);
  MFT_CHECK(out[0] == 11 && out[1] == 22 && out[2] == 33 && out[3] == 44);
  out = (const float*)MF_TensorData(outputs[1]);
  /* y + b + w */
  MFT_CHECK(fabsf(out[0] - 22) < 1e-6f && fabsf(out[3] - 88) < 1e-6f);
  MF_DeleteTensor(outputs[0]);
  MF_DeleteTensor(outputs[1]);

  /* A target-only run, then close: later runs are cancelled. */
  MF_SessionRun(session, NULL, NULL, NULL, 0, NULL, NULL, 0,
                (const MF_Operation* const*)&noop, 1, NULL, s);
  MFT_CHECK_OK(s);
  MF_DeleteTensor(feed);
  MFT_CHECK_EQ_INT(g_freed, 1); /* nothing else holds the feed's memory */
  MF_CloseSession(session, s);
  MFT_CHECK_OK(s);
  MF_SessionRun(session, NULL, NULL, NULL, 0, NULL, NULL, 0,
                (const MF_Operation* const*)&noop, 1, NULL, s);
  MFT_CHECK_EQ_INT(MF_GetCode(s), MF_CANCELLED);

  /* The graph may go first: it lives until the session is deleted. */
  MF_DeleteGraph(g);
  MF_DeleteSession(session, s);
  MFT_CHECK_OK(s);
  MF_DeleteStatus(s);
}

/* Run metadata and run options travel as serialized protos. A RunOptions
 * with trace_level FULL_TRACE (field 1, value 3) is the bytes 08 03. */
static void RunWithMetadata(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  const float one = 1;
  MF_Operation* c = MftConst(g, "c", &one, NULL, 0, s);
  MF_Operation* y = MftBinary(g, "AddV2", "y", c, c, s);
  MF_Session* session = MF_NewSession(g, NULL, s);
  const unsigned char trace[2] = {0x08, 0x03};
  MF_Buffer* options = MF_NewBufferFromString(trace, sizeof(trace));
  MF_Buffer* metadata = MF_NewBuffer();
  MF_Output fetch = MftOut(y, 0);
  MF_Tensor* out = NULL;
  MFT_CHECK_OK(s);
  MF_SessionRun(session, options, NULL, NULL, 0, &fetch, &out, 1, NULL, 0,
                metadata, s);
  MFT_CHECK_OK(s);
  MFT_CHECK(*(const float*)MF_TensorData(out) == 2);
  MFT_CHECK(metadata->length > 0); /* step stats of the traced run */
  MF_DeleteTensor(out);
  MF_DeleteBuffer(options);
  MF_DeleteBuffer(metadata);
  MF_DeleteSession(session, s);
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

int main(void) {
  BuildAndRun();
  RunWithMetadata();
  printf("c_api_session_test: OK\n");
  return 0;
}
