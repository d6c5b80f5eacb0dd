/* Callables: a signature prepared once runs by handle with the results
 * MF_SessionRun gives, errors name what is wrong, and MF_TensorGetInfo
 * reads a result in one call. */
#include "tests/c/c_test_util.h"

static void CallableRunsLikeSessionRun(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  const int64_t dims[1] = {3};
  const float c_values[3] = {10, 20, 30};
  MF_Operation* x = MftPlaceholder(g, "x", dims, 1, s);
  MF_Operation* c = MftConst(g, "c", c_values, dims, 1, s);
  MF_Operation* y = MftBinary(g, "AddV2", "y", x, c, s);
  MF_Session* session;
  MF_Output in = MftOut(x, 0), out = MftOut(y, 0);
  MF_Tensor *feed, *by_run = NULL, *by_callable = NULL;
  MF_Tensor* two_outputs[2] = {(MF_Tensor*)1, (MF_Tensor*)1};
  const float x_values[3] = {1, 2, 3};
  int64_t handle, info_dims[4] = {0, 0, 0, 0};
  int num_dims = -1;
  void* data = NULL;
  size_t nbytes = 0;
  int round;

  MFT_CHECK_OK(s);
  session = MF_NewSession(g, NULL, s);
  MFT_CHECK_OK(s);
  feed = MF_AllocateTensor(MF_FLOAT, dims, 1, sizeof x_values, s);
  MFT_CHECK_OK(s);
  memcpy(MF_TensorData(feed), x_values, sizeof x_values);

  handle = MF_SessionMakeCallable(session, &in, 1, &out, 1, NULL, 0, s);
  MFT_CHECK_OK(s);
  MFT_CHECK(handle >= 0);
  MF_SessionRun(session, NULL, &in, &feed, 1, &out, &by_run, 1, NULL, 0, NULL,
                s);
  MFT_CHECK_OK(s);
  for (round = 0; round < 3; ++round) {
    MF_SessionRunCallable(session, handle, &feed, 1, &by_callable, 1, s);
    MFT_CHECK_OK(s);
    MFT_CHECK_EQ_INT(
        MF_TensorGetInfo(by_callable, &num_dims, info_dims, 4, &data, &nbytes),
        MF_FLOAT);
    MFT_CHECK_EQ_INT(num_dims, 1);
    MFT_CHECK_EQ_INT(info_dims[0], 3);
    MFT_CHECK_EQ_INT(nbytes, 3 * sizeof(float));
    MFT_CHECK(data == MF_TensorData(by_callable));
    MFT_CHECK(memcmp(data, MF_TensorData(by_run), nbytes) == 0);
    MFT_CHECK(((const float*)data)[2] == 33);
    MF_DeleteTensor(by_callable);
    by_callable = NULL;
  }

  /* Wrong counts, a missing feed value, an unknown handle: errors, and
   * the output slot stays NULL. */
  /* (output_values holds noutputs slots, as the API asks, even when
   * noutputs is wrong for the callable.) */
  MF_SessionRunCallable(session, handle, &feed, 1, two_outputs, 2, s);
  MFT_CHECK_EQ_INT(MF_GetCode(s), MF_INVALID_ARGUMENT);
  MFT_CHECK(two_outputs[0] == NULL && two_outputs[1] == NULL);
  MF_SessionRunCallable(session, handle, &feed, 0, &by_callable, 1, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "x:0");
  MF_SessionRunCallable(session, handle + 100, &feed, 1, &by_callable, 1, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "No such callable handle");
  MF_SessionReleaseCallable(session, handle, s);
  MFT_CHECK_OK(s);
  MF_SessionRunCallable(session, handle, &feed, 1, &by_callable, 1, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "No such callable handle");
  MF_SessionReleaseCallable(session, handle, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "No such callable handle");

  /* Making one: bad outputs, no fetches, an op added after the session. */
  out = MftOut(y, 7);
  MFT_CHECK_EQ_INT(MF_SessionMakeCallable(session, &in, 1, &out, 1, NULL, 0, s),
                   -1);
  MFT_CHECK_STATUS(s, MF_OUT_OF_RANGE, "MF_SessionMakeCallable");
  MFT_CHECK_EQ_INT(MF_SessionMakeCallable(session, &in, 1, NULL, 0, NULL, 0, s),
                   -1);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "at least one target");
  {
    MF_Operation* late = MftBinary(g, "Mul", "late", x, c, s);
    MFT_CHECK_OK(s);
    out = MftOut(late, 0);
    MFT_CHECK_EQ_INT(
        MF_SessionMakeCallable(session, &in, 1, &out, 1, NULL, 0, s), -1);
    MFT_CHECK(MF_GetCode(s) != MF_OK);
    MFT_CHECK(strstr(MF_Message(s), "late") != NULL);
  }
  MFT_CHECK_EQ_INT(MF_SessionMakeCallable(NULL, &in, 1, &out, 1, NULL, 0, s),
                   -1);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "session");

  /* MF_TensorGetInfo: NULL outputs are skipped; NULL tensor is invalid. */
  MFT_CHECK_EQ_INT(MF_TensorGetInfo(by_run, NULL, NULL, 0, NULL, NULL),
                   MF_FLOAT);
  MFT_CHECK_EQ_INT(MF_TensorGetInfo(NULL, &num_dims, NULL, 0, NULL, NULL),
                   MF_INVALID);

  MF_DeleteTensor(by_run);
  MF_DeleteTensor(feed);
  MF_DeleteSession(session, s);
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

/* MF_SessionRunCallableInto: the result lands in the caller's tensor,
 * whose memory stays where it was; a buffer of the wrong size is an error
 * naming the output, after which the buffer is still a valid tensor. */
static void CallableRunsIntoCallerBuffers(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  const int64_t dims[1] = {3};
  const int64_t two[1] = {2};
  const float c_values[3] = {10, 20, 30};
  const float x_values[3] = {1, 2, 3};
  MF_Operation* x = MftPlaceholder(g, "x", dims, 1, s);
  MF_Operation* c = MftConst(g, "c", c_values, dims, 1, s);
  MF_Operation* y = MftBinary(g, "Mul", "y", x, c, s);
  MF_Output in = MftOut(x, 0), out = MftOut(y, 0);
  MF_Session* session;
  MF_Tensor *feed, *buffer, *small;
  void* storage;
  int64_t handle;
  int round;

  MFT_CHECK_OK(s);
  session = MF_NewSession(g, NULL, s);
  MFT_CHECK_OK(s);
  feed = MF_AllocateTensor(MF_FLOAT, dims, 1, sizeof x_values, s);
  buffer = MF_AllocateTensor(MF_FLOAT, dims, 1, sizeof x_values, s);
  small = MF_AllocateTensor(MF_FLOAT, two, 1, 2 * sizeof(float), s);
  MFT_CHECK_OK(s);
  memcpy(MF_TensorData(feed), x_values, sizeof x_values);
  storage = MF_TensorData(buffer);
  handle = MF_SessionMakeCallable(session, &in, 1, &out, 1, NULL, 0, s);
  MFT_CHECK_OK(s);
  for (round = 0; round < 3; ++round) {
    ((float*)MF_TensorData(feed))[0] = (float)round;
    MF_SessionRunCallableInto(session, handle, &feed, 1, &buffer, 1, s);
    MFT_CHECK_OK(s);
    MFT_CHECK(MF_TensorData(buffer) == storage);
    MFT_CHECK(((const float*)storage)[0] == 10.0f * (float)round);
    MFT_CHECK(((const float*)storage)[2] == 90.0f);
  }
  MF_SessionRunCallableInto(session, handle, &feed, 1, &small, 1, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "fetch 'y:0' must be float with 3");
  MFT_CHECK_EQ_INT(MF_TensorGetInfo(small, NULL, NULL, 0, NULL, NULL),
                   MF_FLOAT);
  MFT_CHECK_EQ_INT(MF_TensorByteSize(small), 2 * sizeof(float));
  MF_SessionRunCallableInto(session, handle, &feed, 1, NULL, 1, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "output_buffers");

  MF_DeleteTensor(small);
  MF_DeleteTensor(buffer);
  MF_DeleteTensor(feed);
  MF_DeleteSession(session, s);
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

int main(void) {
  CallableRunsLikeSessionRun();
  CallableRunsIntoCallerBuffers();
  return 0;
}
