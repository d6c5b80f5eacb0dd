/* Bad input to session options, session creation and MF_SessionRun: each
 * call returns an error status with the right code and a clear message, and
 * the session keeps working afterwards. */
#include "tests/c/c_test_util.h"

static void OptionErrors(void) {
  MF_Status* s = MF_NewStatus();
  MF_SessionOptions* opts = MF_NewSessionOptions();
  const unsigned char garbage[3] = {0xff, 0xff, 0xff};
  MF_SetConfig(opts, garbage, sizeof(garbage), s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "not a serialized ConfigProto");
  MF_SetConfig(NULL, NULL, 0, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "options must not be NULL");
  MF_SetConfig(opts, NULL, 0, s); /* empty bytes: the default config */
  MFT_CHECK_OK(s);
  MF_SetNumThreads(opts, -1, 2, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "intra_op_threads -1");
  MFT_CHECK(MF_NewSession(NULL, opts, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "graph must not be NULL");
  MF_CloseSession(NULL, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "session must not be NULL");
  MF_DeleteSession(NULL, s);
  MF_DeleteSessionOptions(opts);
  MF_DeleteStatus(s);
}

static void RunErrors(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  MF_Graph* other = MF_NewGraph();
  const int64_t dims[1] = {2};
  const float v[2] = {1, 2};
  MF_Operation* x = MftPlaceholder(g, "x", dims, 1, s);
  MF_Operation* c = MftConst(g, "c", v, dims, 1, s);
  MF_Operation* y = MftBinary(g, "AddV2", "y", x, c, s);
  MF_Operation* foreign = MftConst(other, "f", v, dims, 1, s);
  MF_Operation* late;
  MF_Session* session = MF_NewSession(g, NULL, s);
  MF_Tensor *ints, *floats, *wrong_shape, *out = NULL;
  MF_Output feed = MftOut(x, 0), fetch = MftOut(y, 0), bad;
  MF_Buffer* buf;
  MFT_CHECK_OK(s);
  ints = MF_AllocateTensor(MF_INT32, dims, 1, 8, s);
  floats = MF_AllocateTensor(MF_FLOAT, dims, 1, 8, s);
  memcpy(MF_TensorData(floats), v, sizeof(v));
  {
    const int64_t three[1] = {3};
    wrong_shape = MF_AllocateTensor(MF_FLOAT, three, 1, 12, s);
  }
  MFT_CHECK_OK(s);

  MF_SessionRun(session, NULL, NULL, NULL, 0, &fetch, &out, 1, NULL, 0, NULL,
                s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "must feed a value");
  MFT_CHECK(out == NULL);
  MF_SessionRun(session, NULL, &feed, &ints, 1, &fetch, &out, 1, NULL, 0, NULL,
                s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "must be float, but got int32");
  MF_SessionRun(session, NULL, &feed, &wrong_shape, 1, &fetch, &out, 1, NULL, 0,
                NULL, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "not compatible with the shape");
  bad = MftOut(y, 4);
  MF_SessionRun(session, NULL, &feed, &floats, 1, &bad, &out, 1, NULL, 0, NULL,
                s);
  MFT_CHECK_STATUS(s, MF_OUT_OF_RANGE, "outputs[0] names output 4 of 'y'");
  bad = MftOut(foreign, 0);
  MF_SessionRun(session, NULL, &feed, &floats, 1, &bad, &out, 1, NULL, 0, NULL,
                s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "an operation of another graph");
  MF_SessionRun(session, NULL, &feed, NULL, 1, &fetch, &out, 1, NULL, 0, NULL,
                s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "input_values must not be NULL");
  MF_SessionRun(session, NULL, &feed, &floats, -1, &fetch, &out, 1, NULL, 0,
                NULL, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "must be >= 0, but got -1");
  MF_SessionRun(session, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "at least one target");
  MF_SessionRun(NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "session must not be NULL");
  buf = MF_NewBufferFromString("\xff\xff", 2);
  MF_SessionRun(session, buf, &feed, &floats, 1, &fetch, &out, 1, NULL, 0, NULL,
                s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "not a serialized RunOptions");
  MF_SessionRun(session, NULL, &feed, &floats, 1, &fetch, &out, 1, NULL, 0, buf,
                s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "run_metadata must be an empty");
  MF_DeleteBuffer(buf);

  /* An operation added after the session was made is not part of it. */
  late = MftBinary(g, "AddV2", "late", y, c, s);
  MFT_CHECK_OK(s);
  bad = MftOut(late, 0);
  MF_SessionRun(session, NULL, &feed, &floats, 1, &bad, &out, 1, NULL, 0, NULL,
                s);
  MFT_CHECK(MF_GetCode(s) != MF_OK && strstr(MF_Message(s), "late") != NULL);

  /* After all that, the session still runs. */
  MF_SessionRun(session, NULL, &feed, &floats, 1, &fetch, &out, 1, NULL, 0,
                NULL, s);
  MFT_CHECK_OK(s);
  MFT_CHECK(((const float*)MF_TensorData(out))[1] == 4.0f);
  MF_DeleteTensor(out);
  MF_DeleteTensor(ints);
  MF_DeleteTensor(floats);
  MF_DeleteTensor(wrong_shape);
  MF_DeleteSession(session, s);
  MFT_CHECK_OK(s);
  MF_DeleteGraph(g);
  MF_DeleteGraph(other);
  MF_DeleteStatus(s);
}

/* Errors of session creation (a bad config) and of the first run
 * (placement: a device that does not exist). */
static void CreateAndPlacementErrors(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  MF_SessionOptions* opts = MF_NewSessionOptions();
  /* ConfigProto{inter_op_parallelism_threads: -1}: field 5, varint. */
  const unsigned char config[11] = {0x28, 0xff, 0xff, 0xff, 0xff, 0xff,
                                    0xff, 0xff, 0xff, 0xff, 0x01};
  MF_OperationDescription* d = MF_NewOperation(g, "NoOp", "n");
  const MF_Operation* target;
  MF_Session* session;
  MF_SetDevice(d, "/device:TPU:7");
  target = MF_FinishOperation(d, s);
  MFT_CHECK_OK(s);

  MF_SetConfig(opts, config, sizeof(config), s);
  MFT_CHECK_OK(s);
  MFT_CHECK(MF_NewSession(g, opts, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "inter_op_parallelism_threads");

  session = MF_NewSession(g, NULL, s);
  MFT_CHECK_OK(s);
  MF_SessionRun(session, NULL, NULL, NULL, 0, NULL, NULL, 0, &target, 1, NULL,
                s);
  MFT_CHECK(MF_GetCode(s) != MF_OK);
  MFT_CHECK(strstr(MF_Message(s), "TPU") != NULL);
  MF_DeleteSession(session, NULL);
  MF_DeleteSessionOptions(opts);
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

int main(void) {
  OptionErrors();
  RunErrors();
  CreateAndPlacementErrors();
  printf("c_api_session_errors_test: OK\n");
  return 0;
}
