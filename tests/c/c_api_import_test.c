/* GraphDef import with TensorFlow's input mappings and return elements:
 * a mapped placeholder changes what the imported graph computes, results
 * hold the requested outputs and operations and the keys that match no
 * node, and bad requests fail the import leaving the graph unchanged. */
#include "tests/c/c_test_util.h"

/* y = x + x on a float[2] placeholder x. */
static const char kGraph[] =
    "node { name: 'x' op: 'Placeholder'"
    "  attr { key: 'dtype' value { type: DT_FLOAT } }"
    "  attr { key: 'shape' value { shape { dim { size: 2 } } } } }\n"
    "node { name: 'y' op: 'AddV2' input: 'x' input: 'x'"
    "  attr { key: 'T' value { type: DT_FLOAT } } }\n";

static MF_Buffer* GraphBytes(void) {
  return MF_NewBufferFromString(kGraph, sizeof(kGraph) - 1);
}

/* Fetches `out` (float[2]) without feeds. */
static void Fetch(MF_Graph* g, MF_Output out, float* values, MF_Status* s) {
  MF_Session* session = MF_NewSession(g, NULL, s);
  MF_Tensor* t = NULL;
  MFT_CHECK_OK(s);
  MF_SessionRun(session, NULL, NULL, NULL, 0, &out, &t, 1, NULL, 0, NULL, s);
  MFT_CHECK_OK(s);
  MFT_CHECK_EQ_INT(MF_TensorByteSize(t), 2 * sizeof(float));
  memcpy(values, MF_TensorData(t), 2 * sizeof(float));
  MF_DeleteTensor(t);
  MF_DeleteSession(session, s);
}

static void MappedPlaceholderChangesTheResult(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  const int64_t dims[1] = {2};
  const float c_values[2] = {1, 2};
  MF_Operation* c = MftConst(g, "c", c_values, dims, 1, s);
  MF_Buffer* def = GraphBytes();
  MF_ImportGraphDefOptions* opts = MF_NewImportGraphDefOptions();
  MF_ImportGraphDefResults* results;
  MF_Output* outputs = NULL;
  MF_Operation** opers = NULL;
  const char** missing_names = NULL;
  int* missing_indexes = NULL;
  int n = -1;
  float y[2];

  MFT_CHECK_OK(s);
  MF_ImportGraphDefOptionsSetPrefix(opts, "imp/");
  MF_ImportGraphDefOptionsAddInputMapping(opts, "x", 0, MftOut(c, 0));
  MF_ImportGraphDefOptionsAddInputMapping(opts, "nope", 1, MftOut(c, 0));
  MF_ImportGraphDefOptionsAddReturnOutput(opts, "y", 0);
  MF_ImportGraphDefOptionsAddReturnOutput(opts, "x", 0);
  MF_ImportGraphDefOptionsAddReturnOperation(opts, "y");
  MFT_CHECK_EQ_INT(MF_ImportGraphDefOptionsNumReturnOutputs(opts), 2);
  MFT_CHECK_EQ_INT(MF_ImportGraphDefOptionsNumReturnOperations(opts), 1);
  results = MF_GraphImportGraphDefWithResults(g, def, opts, s);
  MFT_CHECK_OK(s);
  MFT_CHECK(results != NULL);

  MF_ImportGraphDefResultsReturnOutputs(results, &n, &outputs);
  MFT_CHECK_EQ_INT(n, 2);
  MFT_CHECK_STREQ(MF_OperationName(outputs[0].oper), "imp/y");
  MFT_CHECK(outputs[1].oper == c && outputs[1].index == 0); /* mapped */
  MF_ImportGraphDefResultsReturnOperations(results, &n, &opers);
  MFT_CHECK_EQ_INT(n, 1);
  MFT_CHECK(opers[0] == outputs[0].oper);
  MF_ImportGraphDefResultsMissingUnusedInputMappings(
      results, &n, &missing_names, &missing_indexes);
  MFT_CHECK_EQ_INT(n, 1);
  MFT_CHECK_STREQ(missing_names[0], "nope");
  MFT_CHECK_EQ_INT(missing_indexes[0], 1);

  /* imp/y reads c, not imp/x: it runs without a feed. */
  MFT_CHECK(MF_OperationInput((MF_Input){opers[0], 0}).oper == c);
  MFT_CHECK(MF_OperationInput((MF_Input){opers[0], 1}).oper == c);
  MFT_CHECK(MF_GraphOperationByName(g, "imp/x") != NULL);
  Fetch(g, outputs[0], y, s);
  MFT_CHECK(y[0] == 2 && y[1] == 4);
  MF_DeleteImportGraphDefResults(results);

  /* Without a prefix, and through MF_GraphImportGraphDef. */
  MF_DeleteImportGraphDefOptions(opts);
  opts = MF_NewImportGraphDefOptions();
  MF_ImportGraphDefOptionsAddInputMapping(opts, "x", 0, MftOut(c, 0));
  MF_GraphImportGraphDef(g, def, opts, s);
  MFT_CHECK_OK(s);
  Fetch(g, MftOut(MF_GraphOperationByName(g, "y"), 0), y, s);
  MFT_CHECK(y[0] == 2 && y[1] == 4);

  MF_DeleteImportGraphDefOptions(opts);
  MF_DeleteBuffer(def);
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

static void BadRequestsLeaveTheGraphUnchanged(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  MF_Graph* other = MF_NewGraph();
  const int64_t dims[1] = {2};
  const float c_values[2] = {1, 2};
  MF_Operation* c = MftConst(g, "c", c_values, dims, 1, s);
  MF_Operation* elsewhere = MftConst(other, "c", c_values, dims, 1, s);
  MF_Operation* i;
  MF_Buffer* def = GraphBytes();
  MF_ImportGraphDefOptions* opts;
  MF_OperationDescription* d;
  MF_Tensor* seven;

  MFT_CHECK_OK(s);
  seven = MF_AllocateTensor(MF_INT32, NULL, 0, sizeof(int), s);
  MFT_CHECK_OK(s);
  *(int*)MF_TensorData(seven) = 7;
  d = MF_NewOperation(g, "Const", "i");
  MF_SetAttrType(d, "dtype", MF_INT32);
  MF_SetAttrTensor(d, "value", seven, s);
  i = MF_FinishOperation(d, s);
  MFT_CHECK_OK(s);
  MF_DeleteTensor(seven);

  /* A return output that names no node of the GraphDef. */
  opts = MF_NewImportGraphDefOptions();
  MF_ImportGraphDefOptionsAddReturnOutput(opts, "zz", 0);
  MFT_CHECK(MF_GraphImportGraphDefWithResults(g, def, opts, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT,
                   "Requested return tensor 'zz:0' not found in graph def");
  MFT_CHECK_EQ_INT(MF_GraphNumOperations(g), 2);
  MF_DeleteImportGraphDefOptions(opts);

  /* A return operation that names no node, and an output out of range. */
  opts = MF_NewImportGraphDefOptions();
  MF_ImportGraphDefOptionsAddReturnOperation(opts, "zz");
  MFT_CHECK(MF_GraphImportGraphDefWithResults(g, def, opts, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "return node 'zz'");
  MF_DeleteImportGraphDefOptions(opts);
  opts = MF_NewImportGraphDefOptions();
  MF_ImportGraphDefOptionsAddReturnOutput(opts, "y", 5);
  MFT_CHECK(MF_GraphImportGraphDefWithResults(g, def, opts, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "Invalid return output 5");
  MFT_CHECK_EQ_INT(MF_GraphNumOperations(g), 2);
  MFT_CHECK(MF_GraphOperationByName(g, "y") == NULL);
  /* ... and the functions the GraphDef brought go too. */
  {
    static const char kWithLibrary[] =
        "node { name: 'z' op: 'Placeholder'"
        "  attr { key: 'dtype' value { type: DT_FLOAT } } }\n"
        "library { function { signature { name: 'ident'"
        "  input_arg { name: 'a' type: DT_FLOAT }"
        "  output_arg { name: 'b' type: DT_FLOAT } }"
        "  ret { key: 'b' value: 'a' } } }\n";
    MF_Buffer* lib_def =
        MF_NewBufferFromString(kWithLibrary, sizeof(kWithLibrary) - 1);
    MF_ImportGraphDefOptions* bad = MF_NewImportGraphDefOptions();
    MF_ImportGraphDefOptionsAddReturnOutput(bad, "z", 1);
    MFT_CHECK(MF_GraphImportGraphDefWithResults(g, lib_def, bad, s) == NULL);
    MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "Invalid return output 1");
    MFT_CHECK_EQ_INT(MF_GraphNumFunctions(g), 0);
    MFT_CHECK(MF_GraphOperationByName(g, "z") == NULL);
    MF_GraphImportGraphDef(g, lib_def, NULL, s); /* and it is fine alone */
    MFT_CHECK_OK(s);
    MFT_CHECK_EQ_INT(MF_GraphNumFunctions(g), 1);
    MF_DeleteImportGraphDefOptions(bad);
    MF_DeleteBuffer(lib_def);
  }
  MF_DeleteImportGraphDefOptions(opts);

  /* A mapping to an operation of another graph, or a missing output. */
  opts = MF_NewImportGraphDefOptions();
  MF_ImportGraphDefOptionsAddInputMapping(opts, "x", 0, MftOut(elsewhere, 0));
  MF_GraphImportGraphDef(g, def, opts, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "input mapping of 'x:0'");
  MF_ImportGraphDefOptionsAddInputMapping(opts, "x", 0, MftOut(c, 4));
  MF_GraphImportGraphDef(g, def, opts, s);
  MFT_CHECK_STATUS(s, MF_OUT_OF_RANGE, "input mapping of 'x:0'");
  MF_DeleteImportGraphDefOptions(opts);

  /* A mapping of the wrong dtype fails at the edge, naming the node. */
  opts = MF_NewImportGraphDefOptions();
  MF_ImportGraphDefOptionsSetPrefix(opts, "p/");
  MF_ImportGraphDefOptionsAddInputMapping(opts, "x", 0, MftOut(i, 0));
  MF_GraphImportGraphDef(g, def, opts, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "int32");
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "p/y");
  MFT_CHECK_EQ_INT(MF_GraphNumOperations(g), 3);
  MF_DeleteImportGraphDefOptions(opts);

  /* NULL arguments. */
  MFT_CHECK(MF_GraphImportGraphDefWithResults(NULL, def, NULL, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "graph");
  MFT_CHECK_EQ_INT(MF_ImportGraphDefOptionsNumReturnOutputs(NULL), -1);
  MF_DeleteImportGraphDefResults(NULL);

  MF_DeleteBuffer(def);
  MF_DeleteGraph(other);
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

int main(void) {
  MappedPlaceholderChangesTheResult();
  BadRequestsLeaveTheGraphUnchanged();
  return 0;
}
