/* Bad input to statuses, tensors, buffers, imports, attr getters and
 * operation building: each call returns an error status with the right
 * code and a clear message, and the process (and the graph) carry on. */
#include <stdint.h>

#include "tests/c/c_test_util.h"

static int g_freed = 0;
static void CountFree(void* data, size_t len, void* arg) {
  (void)data;
  (void)len;
  (void)arg;
  ++g_freed;
}

static void StatusAndTensorErrors(void) {
  MF_Status* s = MF_NewStatus();
  const int64_t dims[2] = {2, 3};
  const int64_t negative[2] = {2, -3};
  float data[6 + 16];
  MF_Tensor* t;

  MFT_CHECK_EQ_INT(MF_GetCode(NULL), MF_INVALID_ARGUMENT);
  MFT_CHECK(strlen(MF_Message(NULL)) > 0);
  MF_SetStatus(s, (MF_Code)77, "odd");
  MFT_CHECK_STATUS(s, MF_UNKNOWN, "odd");
  MF_SetStatus(s, MF_OK, NULL);
  MFT_CHECK_OK(s);
  MFT_CHECK_STREQ(MF_Message(s), "");

  MFT_CHECK(MF_AllocateTensor(MF_FLOAT, dims, 2, 5, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "len must be 24 bytes");
  MFT_CHECK(MF_AllocateTensor(MF_FLOAT, negative, 2, 24, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "-3");
  MFT_CHECK(MF_AllocateTensor(MF_FLOAT, NULL, 2, 24, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "dims (with num_dims > 0)");
  MFT_CHECK(MF_AllocateTensor(MF_FLOAT, dims, -1, 24, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "num_dims must be >= 0");
  MFT_CHECK(MF_AllocateTensor((MF_DataType)999, dims, 2, 24, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT,
                   "MF_DataType 999 is not a valid element type");
  MFT_CHECK(MF_AllocateTensor(MF_INVALID, dims, 2, 24, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "MF_DataType 0");
  MFT_CHECK(MF_AllocateTensor(MF_STRING, dims, 2, 24, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "string tensors cannot be made");
  MFT_CHECK(MF_NewTensor(MF_FLOAT, dims, 2, NULL, 24, NULL, NULL, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "data (with len > 0)");
  /* On failure the deallocator is not called: the data is still ours. */
  MFT_CHECK(MF_NewTensor(MF_INT32, dims, 2, data, 4, CountFree, NULL, s) ==
            NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "6 elements of int32");
  MFT_CHECK_EQ_INT(g_freed, 0);
  MFT_CHECK(MF_AllocateTensor(MF_FLOAT, dims, 2, 5, NULL) == NULL);

  /* Unaligned memory is copied and released at once. */
  t = MF_NewTensor(MF_FLOAT, dims, 2, (char*)data + 4, 24, CountFree, NULL, s);
  MFT_CHECK_OK(s);
  MFT_CHECK_EQ_INT(g_freed, 1);
  MFT_CHECK_EQ_INT(MF_Dim(t, 2), -1);
  MFT_CHECK_EQ_INT(MF_Dim(t, -1), -1);
  MF_DeleteTensor(t);
  MFT_CHECK_EQ_INT(MF_Dim(NULL, 0), -1);
  MFT_CHECK(MF_TensorData(NULL) == NULL);
  MFT_CHECK_EQ_INT(MF_TensorType(NULL), MF_INVALID);
  MFT_CHECK_EQ_INT(MF_DataTypeSize((MF_DataType)-4), 0);
  MF_DeleteTensor(NULL);

  MFT_CHECK(MF_NewBufferFromString(NULL, 5) == NULL);
  MF_DeleteBuffer(NULL);
  MF_DeleteStatus(s);
}

static void ImportAndGetterErrors(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  MF_Buffer* buf;
  MF_ImportGraphDefOptions* opts = MF_NewImportGraphDefOptions();
  const char unknown_op[] = "node { name: 'a' op: 'NoSuchOp' }";
  const char good[] = "node { name: 'a' op: 'NoOp' }";
  const unsigned char garbage[4] = {0x01, 0xff, 0x02, 0x00};
  MF_Operation* a;
  int64_t i = 0;
  char small[2];

  buf = MF_NewBufferFromString(garbage, sizeof(garbage));
  MF_GraphImportGraphDef(g, buf, NULL, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "Could not parse the GraphDef");
  MF_DeleteBuffer(buf);
  buf = MF_NewBufferFromString(unknown_op, sizeof(unknown_op) - 1);
  MF_GraphImportGraphDef(g, buf, NULL, s);
  MFT_CHECK_STATUS(s, MF_NOT_FOUND, "NoSuchOp");
  MF_DeleteBuffer(buf);
  MF_GraphImportGraphDef(g, NULL, NULL, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "graph_def must not be NULL");
  MFT_CHECK_EQ_INT(MF_GraphNumOperations(g), 0);

  buf = MF_NewBufferFromString(good, sizeof(good) - 1);
  MF_ImportGraphDefOptionsSetPrefix(opts, "bad prefix ");
  MF_GraphImportGraphDef(g, buf, opts, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "import prefix 'bad prefix '");
  MF_GraphImportGraphDef(g, buf, NULL, s);
  MFT_CHECK_OK(s);
  MF_GraphImportGraphDef(g, buf, NULL, s); /* again: a duplicate name */
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "used by more than one node");
  MFT_CHECK_EQ_INT(MF_GraphNumOperations(g), 1);
  MF_DeleteBuffer(buf);

  /* Export needs an empty buffer; lookups of nothing return NULL. */
  buf = MF_NewBufferFromString("x", 1);
  MF_GraphToGraphDef(g, buf, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "must be empty");
  MF_DeleteBuffer(buf);
  MF_GraphToGraphDef(g, NULL, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "output buffer must not be NULL");
  MF_GraphToGraphDef(NULL, NULL, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "graph must not be NULL");
  buf = MF_NewBuffer();
  MF_GraphGetOpDef(g, "NoSuchOp", buf, s);
  MFT_CHECK_STATUS(s, MF_NOT_FOUND, "NoSuchOp");
  MF_DeleteBuffer(buf);
  MFT_CHECK(MF_GraphOperationByName(g, "missing") == NULL);
  MFT_CHECK(MF_GraphOperationByName(NULL, "a") == NULL);
  MFT_CHECK(MF_GraphOperationByName(g, NULL) == NULL);
  MFT_CHECK(MF_GraphNextOperation(g, NULL) == NULL);
  MFT_CHECK(MF_OperationName(NULL) == NULL);
  MFT_CHECK_EQ_INT(MF_OperationNumInputs(NULL), -1);

  a = MF_GraphOperationByName(g, "a");
  MFT_CHECK_EQ_INT(MF_OperationOutputType(MftOut(a, 0)), MF_INVALID);
  MFT_CHECK(MF_OperationInput((MF_Input){a, 0}).oper == NULL);
  MFT_CHECK_EQ_INT(MF_OperationOutputNumConsumers(MftOut(a, 3)), -1);
  MFT_CHECK_EQ_INT(MF_GraphGetTensorNumDims(g, MftOut(a, 0), s), -1);
  MFT_CHECK_STATUS(s, MF_OUT_OF_RANGE, "has 0 outputs, but got index 0");
  MF_OperationGetAttrInt(a, "nope", &i, s);
  MFT_CHECK_STATUS(s, MF_NOT_FOUND, "has no attr named 'nope'");
  MF_OperationGetAttrInt(NULL, "nope", &i, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "oper must not be NULL");
  MF_OperationGetAttrString(a, NULL, small, sizeof(small), s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "attr_name must not be NULL");
  MF_DeleteImportGraphDefOptions(opts);
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

static void BuildErrors(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  MF_Graph* other = MF_NewGraph();
  const int64_t d23[2] = {2, 3}, bad_dims[1] = {-5};
  const float v[6] = {1, 2, 3, 4, 5, 6};
  MF_Operation* a = MftConst(g, "a", v, d23, 2, s);
  MF_Operation* foreign = MftConst(other, "f", v, d23, 2, s);
  MF_OperationDescription* d;
  MF_Output list[1];
  char small[2];
  MFT_CHECK_OK(s);

  MFT_CHECK(MF_NewOperation(NULL, "NoOp", "n") == NULL);
  MFT_CHECK(MF_FinishOperation(NULL, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "desc is NULL");
  MF_FinishOperation(MF_NewOperation(g, "NoSuchOp", "n"), s);
  MFT_CHECK_STATUS(s, MF_NOT_FOUND, "Op type not registered 'NoSuchOp'");
  MF_FinishOperation(MF_NewOperation(g, "NoOp", "bad name!"), s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "is not valid");
  MF_FinishOperation(MF_NewOperation(g, "NoOp", "a"), s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "used by more than one node");

  d = MF_NewOperation(g, "AddV2", "missing"); /* one input of two */
  MF_AddInput(d, MftOut(a, 0));
  MF_FinishOperation(d, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "expects 2 input args (x, y)");
  d = MF_NewOperation(g, "AddV2", "foreign");
  MF_AddInput(d, MftOut(a, 0));
  MF_AddInput(d, MftOut(foreign, 0));
  MF_FinishOperation(d, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "an operation of another graph");
  d = MF_NewOperation(g, "AddV2", "range");
  MF_AddInput(d, MftOut(a, 0));
  MF_AddInput(d, MftOut(a, 1));
  MF_FinishOperation(d, s);
  MFT_CHECK_STATUS(s, MF_OUT_OF_RANGE, "names output 1 of 'a'");
  d = MF_NewOperation(g, "AddN", "not_a_list");
  MF_AddInput(d, MftOut(a, 0));
  MF_FinishOperation(d, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "is a list: use MF_AddInputList");
  d = MF_NewOperation(g, "AddN", "bad_list");
  MF_AddInputList(d, NULL, 2);
  MF_FinishOperation(d, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "num_inputs 2");
  d = MF_NewOperation(g, "AddN", "null_input");
  list[0] = MftOut(NULL, 0);
  MF_AddInputList(d, list, 1);
  MF_FinishOperation(d, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "Input arg 'inputs'[0]");
  d = MF_NewOperation(g, "Identity", "null_control");
  MF_AddInput(d, MftOut(a, 0));
  MF_AddControlInput(d, NULL);
  MF_FinishOperation(d, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "A control input of operation");

  /* Attrs: a bad dtype, bad dims, a missing attr, a wrong type. */
  d = MF_NewOperation(g, "Placeholder", "p");
  MF_SetAttrType(d, "dtype", (MF_DataType)999);
  MF_FinishOperation(d, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "MF_DataType 999");
  d = MF_NewOperation(g, "Placeholder", "p");
  MF_SetAttrType(d, "dtype", MF_FLOAT);
  MF_SetAttrShape(d, "shape", bad_dims, 1);
  MF_FinishOperation(d, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "-5");
  MF_FinishOperation(MF_NewOperation(g, "Placeholder", "p"), s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "dtype");
  d = MF_NewOperation(g, "Placeholder", "p");
  MF_SetAttrInt(d, "dtype", 3);
  MF_FinishOperation(d, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "dtype");
  d = MF_NewOperation(g, "Placeholder", "p");
  MF_SetAttrTensor(d, "dtype", NULL, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "value must not be NULL");
  MF_FinishOperation(d, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "value must not be NULL");
  MF_SetAttrInt(NULL, "x", 1); /* no description: nothing happens */
  d = MF_NewOperation(g, "NoOp", "lists");
  MF_SetAttrIntList(d, "_il", NULL, 4);
  MF_SetAttrFloat(d, "_f", 1); /* later setters keep the first problem */
  MF_FinishOperation(d, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "values is NULL with a count of 4");
  d = MF_NewOperation(g, "NoOp", "lists");
  MF_SetAttrShapeList(d, "_shl", NULL, NULL, -2);
  MF_FinishOperation(d, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "count must be >= 0, but got -2");
  d = MF_NewOperation(g, "NoOp", "lists");
  MF_SetAttrString(d, NULL, "x", 1);
  MF_FinishOperation(d, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "attr_name must not be NULL");
  d = MF_NewOperation(g, "NoOp", "lists");
  MF_SetAttrValueProto(d, "_vp", "\xff\xff", 2, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "not a serialized AttrValue");
  MF_FinishOperation(d, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "not a serialized AttrValue");

  /* Dtypes of inputs disagree; shapes disagree (caught at finish). */
  {
    const int64_t one[1] = {6};
    MF_Tensor* t = MF_AllocateTensor(MF_INT32, one, 1, 24, s);
    MF_Operation* ints;
    memset(MF_TensorData(t), 0, 24);
    d = MF_NewOperation(g, "Const", "ints");
    MF_SetAttrType(d, "dtype", MF_INT32);
    MF_SetAttrTensor(d, "value", t, s);
    MF_DeleteTensor(t);
    ints = MF_FinishOperation(d, s);
    MFT_CHECK_OK(s);
    MftBinary(g, "AddV2", "mixed", a, ints, s);
    MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "'T'");
  }
  MftBinary(g, "MatMul", "mm", a, a, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "Dimensions must be equal");
  MFT_CHECK(strstr(MF_Message(s), "mm") != NULL);
  /* Nothing was left behind: "mm" can still be made, correctly. */
  {
    MF_OperationDescription* t = MF_NewOperation(g, "MatMul", "mm");
    MF_AddInput(t, MftOut(a, 0));
    MF_AddInput(t, MftOut(a, 0));
    MF_SetAttrBool(t, "transpose_b", 1);
    MFT_CHECK(MF_FinishOperation(t, s) != NULL);
    MFT_CHECK_OK(s);
  }
  MFT_CHECK_EQ_INT(MF_GraphNumOperations(g), 3);

  /* Getters of the wrong type or too small a destination. */
  MF_OperationGetAttrString(a, "dtype", small, sizeof(small), s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "type 'type' when 'string'");
  MF_DeleteGraph(g);
  MF_DeleteGraph(other);
  MF_DeleteStatus(s);
}

int main(void) {
  StatusAndTensorErrors();
  ImportAndGetterErrors();
  BuildErrors();
  printf("c_api_build_errors_test: OK\n");
  return 0;
}
