/* Loads TensorFlow Serving's half_plus_two SavedModel (TF 1) through the C
 * API, finds the signature's tensors with MF_GraphOperationByName, runs
 * them, and checks the errors of a bad directory, tags and arguments. */
#include "tests/c/c_test_util.h"

static const char* const kServe[1] = {"serve"};

static void LoadsAndRuns(const char* dir) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  MF_Buffer* meta_graph = MF_NewBuffer();
  MF_Session* session;
  MF_Output feed, fetch;
  MF_Tensor *input, *output = NULL;
  const int64_t dims[2] = {3, 1};
  float* in;
  const float* out;

  session = MF_LoadSessionFromSavedModel(NULL, NULL, dir, kServe, 1, g,
                                         meta_graph, s);
  MFT_CHECK_OK(s);
  MFT_CHECK(session != NULL);
  /* A binary MetaGraphDef came back. */
  MFT_CHECK(meta_graph->data != NULL && meta_graph->length > 100);

  feed.oper = MF_GraphOperationByName(g, "x");
  feed.index = 0;
  fetch.oper = MF_GraphOperationByName(g, "y");
  fetch.index = 0;
  MFT_CHECK(feed.oper != NULL && fetch.oper != NULL);

  input = MF_AllocateTensor(MF_FLOAT, dims, 2, 3 * sizeof(float), s);
  MFT_CHECK_OK(s);
  in = (float*)MF_TensorData(input);
  in[0] = 1;
  in[1] = 2;
  in[2] = 3;
  MF_SessionRun(session, NULL, &feed, &input, 1, &fetch, &output, 1, NULL, 0,
                NULL, s);
  MFT_CHECK_OK(s);
  out = (const float*)MF_TensorData(output);
  MFT_CHECK(out[0] == 2.5f && out[1] == 3.0f && out[2] == 3.5f);

  /* The graph now holds the MetaGraph's graph: a second load into it is
   * refused. */
  MFT_CHECK(MF_LoadSessionFromSavedModel(NULL, NULL, dir, kServe, 1, g, NULL,
                                         s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "graph must be empty");

  MF_DeleteTensor(input);
  MF_DeleteTensor(output);
  MF_DeleteSession(session, s);
  MFT_CHECK_OK(s);
  MF_DeleteGraph(g);
  MF_DeleteBuffer(meta_graph);
  MF_DeleteStatus(s);
}

static void Errors(const char* dir) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  const char* const train[1] = {"train"};

  MFT_CHECK(MF_LoadSessionFromSavedModel(NULL, NULL, dir, train, 1, g, NULL,
                                         s) == NULL);
  MFT_CHECK_STATUS(s, MF_NOT_FOUND, "available tags '[serve]'");
  MFT_CHECK(MF_GraphOperationByName(g, "x") == NULL);

  MFT_CHECK(MF_LoadSessionFromSavedModel(NULL, NULL, "/nonexistent/model",
                                         kServe, 1, g, NULL, s) == NULL);
  MFT_CHECK_STATUS(s, MF_NOT_FOUND, "/nonexistent/model");

  MFT_CHECK(MF_LoadSessionFromSavedModel(NULL, NULL, NULL, kServe, 1, g, NULL,
                                         s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "export_dir");
  MFT_CHECK(MF_LoadSessionFromSavedModel(NULL, NULL, dir, kServe, 1, NULL, NULL,
                                         s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "graph");

  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

int main(void) {
  LoadsAndRuns(MINFLOW_HALF_PLUS_TWO);
  Errors(MINFLOW_HALF_PLUS_TWO);
  return 0;
}
