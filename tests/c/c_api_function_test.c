/* Graph to function: a function cut out of a graph, copied into another
 * graph's library and called by name and through PartitionedCall, gives
 * what the original subgraph gives; FunctionDefs round-trip as bytes; bad
 * boundaries, outputs and names are errors naming the operation. */
#include "tests/c/c_test_util.h"

/* Whether `needle` occurs in the `len` bytes at `data`. */
static int Contains(const void* data, size_t len, const char* needle) {
  size_t n = strlen(needle), i;
  for (i = 0; i + n <= len; ++i) {
    if (memcmp((const char*)data + i, needle, n) == 0) return 1;
  }
  return 0;
}

/* y = x * x + [10, 20] on a float[2] placeholder x. */
typedef struct Body {
  MF_Graph* g;
  MF_Operation *x, *c, *m, *y;
} Body;

static Body MakeBody(MF_Status* s) {
  Body b;
  const int64_t dims[1] = {2};
  const float c_values[2] = {10, 20};
  b.g = MF_NewGraph();
  b.x = MftPlaceholder(b.g, "x", dims, 1, s);
  MFT_CHECK_OK(s);
  b.c = MftConst(b.g, "c", c_values, dims, 1, s);
  MFT_CHECK_OK(s);
  b.m = MftBinary(b.g, "Mul", "scope/m", b.x, b.x, s);
  MFT_CHECK_OK(s);
  b.y = MftBinary(b.g, "AddV2", "y", b.m, b.c, s);
  MFT_CHECK_OK(s);
  return b;
}

/* Runs `out` of `g` with `in` fed [3, 4]; writes the two floats. */
static void RunFed(MF_Graph* g, MF_Output in, MF_Output out, float* result,
                   MF_Status* s) {
  const int64_t dims[1] = {2};
  const float values[2] = {3, 4};
  MF_Session* session = MF_NewSession(g, NULL, s);
  MF_Tensor* feed;
  MF_Tensor* value = NULL;
  MFT_CHECK_OK(s);
  feed = MF_AllocateTensor(MF_FLOAT, dims, 1, sizeof values, s);
  MFT_CHECK_OK(s);
  memcpy(MF_TensorData(feed), values, sizeof values);
  MF_SessionRun(session, NULL, &in, &feed, 1, &out, &value, 1, NULL, 0, NULL,
                s);
  MFT_CHECK_OK(s);
  MFT_CHECK_EQ_INT(MF_TensorByteSize(value), 2 * sizeof(float));
  memcpy(result, MF_TensorData(value), 2 * sizeof(float));
  MF_DeleteTensor(value);
  MF_DeleteTensor(feed);
  MF_DeleteSession(session, s);
  MFT_CHECK_OK(s);
}

static MF_Function* MakeFunction(const Body* b, const char* name,
                                 MF_Status* s) {
  MF_Output in = MftOut(b->x, 0), out = MftOut(b->y, 0);
  const char* names[1] = {"out"};
  return MF_GraphToFunction(b->g, name, 0, -1, NULL, 1, &in, 1, &out, names,
                            NULL, "x * x + c", s);
}

static void CallByNameAndPartitionedCallMatchTheSubgraph(void) {
  MF_Status* s = MF_NewStatus();
  Body b = MakeBody(s);
  MF_Function* f = MakeFunction(&b, "square_plus", s);
  MF_Graph* h = MF_NewGraph();
  MF_Operation *a, *call, *pcall;
  MF_OperationDescription* d;
  MF_Buffer* fdef = MF_NewBuffer();
  const int64_t dims[1] = {2};
  const MF_DataType tout[1] = {MF_FLOAT};
  float expected[2], by_name[2], by_pcall[2];
  int64_t shape[1] = {0};

  MFT_CHECK_OK(s);
  MFT_CHECK_STREQ(MF_FunctionName(f), "square_plus");
  MF_FunctionToFunctionDef(f, fdef, s);
  MFT_CHECK_OK(s);
  /* TensorFlow's naming: Mul's output arg is z; the arg is x. */
  MFT_CHECK(Contains(fdef->data, fdef->length, "scope/m:z:0"));
  MFT_CHECK(Contains(fdef->data, fdef->length, "y:z:0"));
  MFT_CHECK(Contains(fdef->data, fdef->length, "x * x + c"));

  MF_GraphCopyFunction(h, f, NULL, s);
  MFT_CHECK_OK(s);
  MFT_CHECK_EQ_INT(MF_GraphNumFunctions(h), 1);
  MF_GraphCopyFunction(h, f, NULL, s); /* the same definition again: fine */
  MFT_CHECK_OK(s);
  MFT_CHECK_EQ_INT(MF_GraphNumFunctions(h), 1);

  a = MftPlaceholder(h, "a", dims, 1, s);
  MFT_CHECK_OK(s);
  d = MF_NewOperation(h, "square_plus", "call");
  MF_AddInput(d, MftOut(a, 0));
  call = MF_FinishOperation(d, s);
  MFT_CHECK_OK(s);
  MFT_CHECK_EQ_INT(MF_OperationNumOutputs(call), 1);
  /* The refiner looks into the body: the call's output is float[2]. */
  MFT_CHECK_EQ_INT(MF_GraphGetTensorNumDims(h, MftOut(call, 0), s), 1);
  MF_GraphGetTensorShape(h, MftOut(call, 0), shape, 1, s);
  MFT_CHECK_OK(s);
  MFT_CHECK_EQ_INT(shape[0], 2);

  d = MF_NewOperation(h, "PartitionedCall", "pcall");
  MF_AddInputList(d, &(MF_Output){a, 0}, 1);
  MF_SetAttrTypeList(d, "Tout", tout, 1);
  MF_SetAttrFuncName(d, "f", "square_plus", strlen("square_plus"));
  pcall = MF_FinishOperation(d, s);
  MFT_CHECK_OK(s);

  RunFed(b.g, MftOut(b.x, 0), MftOut(b.y, 0), expected, s);
  RunFed(h, MftOut(a, 0), MftOut(call, 0), by_name, s);
  RunFed(h, MftOut(a, 0), MftOut(pcall, 0), by_pcall, s);
  MFT_CHECK(expected[0] == 19 && expected[1] == 36);
  MFT_CHECK(by_name[0] == expected[0] && by_name[1] == expected[1]);
  MFT_CHECK(by_pcall[0] == expected[0] && by_pcall[1] == expected[1]);

  MF_DeleteBuffer(fdef);
  MF_DeleteFunction(f);
  MF_DeleteGraph(h);
  MF_DeleteGraph(b.g);
  MF_DeleteStatus(s);
}

static void FunctionDefRoundTrips(void) {
  MF_Status* s = MF_NewStatus();
  Body b = MakeBody(s);
  MF_Function* f = MakeFunction(&b, "square_plus", s);
  MF_Function* back;
  MF_Buffer* bytes = MF_NewBuffer();
  MF_Buffer* again = MF_NewBuffer();
  MF_Graph* h = MF_NewGraph();
  MF_Output in = MftOut(b.x, 0), out = MftOut(b.y, 0);
  MF_Function *hashed1, *hashed2;

  MFT_CHECK_OK(s);
  MF_FunctionToFunctionDef(f, bytes, s);
  MFT_CHECK_OK(s);
  back = MF_FunctionImportFunctionDef(bytes->data, bytes->length, s);
  MFT_CHECK_OK(s);
  MFT_CHECK_STREQ(MF_FunctionName(back), "square_plus");
  MF_FunctionToFunctionDef(back, again, s);
  MFT_CHECK_OK(s);
  MFT_CHECK(again->length == bytes->length &&
            memcmp(again->data, bytes->data, bytes->length) == 0);
  MFT_CHECK(MF_FunctionImportFunctionDef("\xff\xff\xff", 3, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "not a binary FunctionDef");

  /* A hashed name is stable and still a valid function name. */
  hashed1 = MF_GraphToFunction(b.g, "f", 1, -1, NULL, 1, &in, 1, &out, NULL,
                               NULL, NULL, s);
  MFT_CHECK_OK(s);
  hashed2 = MF_GraphToFunction(b.g, "f", 1, -1, NULL, 1, &in, 1, &out, NULL,
                               NULL, NULL, s);
  MFT_CHECK_OK(s);
  MFT_CHECK(strncmp(MF_FunctionName(hashed1), "f_", 2) == 0);
  MFT_CHECK_STREQ(MF_FunctionName(hashed1), MF_FunctionName(hashed2));
  MF_GraphCopyFunction(h, hashed1, NULL, s);
  MFT_CHECK_OK(s);

  /* With a gradient: both join the library. */
  MF_GraphCopyFunction(h, f, back, s);
  MFT_CHECK_OK(s);
  MFT_CHECK_EQ_INT(MF_GraphNumFunctions(h), 2);

  MF_DeleteFunction(hashed1);
  MF_DeleteFunction(hashed2);
  MF_DeleteBuffer(again);
  MF_DeleteBuffer(bytes);
  MF_DeleteFunction(back);
  MF_DeleteFunction(f);
  MF_DeleteGraph(h);
  MF_DeleteGraph(b.g);
  MF_DeleteStatus(s);
}

static void BadBoundariesNameTheOperation(void) {
  MF_Status* s = MF_NewStatus();
  Body b = MakeBody(s);
  MF_Output x = MftOut(b.x, 0), c = MftOut(b.c, 0), y = MftOut(b.y, 0),
            m = MftOut(b.m, 0);
  MF_Output two[2];
  const MF_Operation* only_y[1];
  const MF_Operation* m_and_c[2];
  const char* same[2] = {"out", "out"};
  MF_Function* f;
  MF_Graph* h = MF_NewGraph();

  /* An input that is not a Placeholder's output. */
  f = MF_GraphToFunction(b.g, "f", 0, -1, NULL, 1, &c, 1, &y, NULL, NULL, NULL,
                         s);
  MFT_CHECK(f == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "operation 'c' (op Const)");

  /* A body operation reading a tensor from outside the body. */
  only_y[0] = b.y;
  f = MF_GraphToFunction(b.g, "f", 0, 1, only_y, 1, &x, 1, &y, NULL, NULL, NULL,
                         s);
  MFT_CHECK(f == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "operation 'y' (op AddV2) reads");
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "scope/m:0");

  /* An output whose operation is not in the body. */
  m_and_c[0] = b.m;
  m_and_c[1] = b.c;
  f = MF_GraphToFunction(b.g, "f", 0, 2, m_and_c, 1, &x, 1, &y, NULL, NULL,
                         NULL, s);
  MFT_CHECK(f == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT,
                   "operation 'y' (op AddV2) is not in the function's body");

  /* Two outputs under one name. */
  two[0] = y;
  two[1] = m;
  f = MF_GraphToFunction(b.g, "f", 0, -1, NULL, 1, &x, 2, two, same, NULL, NULL,
                         s);
  MFT_CHECK(f == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "output name 'out' is used twice");

  /* A Placeholder in the body that is not an input. */
  f = MF_GraphToFunction(b.g, "f", 0, -1, NULL, 0, NULL, 1, &y, NULL, NULL,
                         NULL, s);
  MFT_CHECK(f == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "operation 'x' (op Placeholder)");

  /* An output index out of range. */
  two[0] = MftOut(b.y, 3);
  f = MF_GraphToFunction(b.g, "f", 0, -1, NULL, 1, &x, 1, two, NULL, NULL, NULL,
                         s);
  MFT_CHECK(f == NULL);
  MFT_CHECK_STATUS(s, MF_OUT_OF_RANGE, "operation 'y' (op AddV2)");

  /* A function under an op's name, and two functions under one name. */
  f = MF_GraphToFunction(b.g, "MatMul", 0, -1, NULL, 1, &x, 1, &y, NULL, NULL,
                         NULL, s);
  MFT_CHECK_OK(s);
  MF_GraphCopyFunction(h, f, NULL, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "MatMul");
  MFT_CHECK_EQ_INT(MF_GraphNumFunctions(h), 0);
  MF_DeleteFunction(f);
  f = MF_GraphToFunction(b.g, "g", 0, -1, NULL, 1, &x, 1, &y, NULL, NULL, NULL,
                         s);
  MFT_CHECK_OK(s);
  MF_GraphCopyFunction(h, f, NULL, s);
  MFT_CHECK_OK(s);
  MF_DeleteFunction(f);
  f = MF_GraphToFunction(b.g, "g", 0, -1, NULL, 1, &x, 1, &m, NULL, NULL, NULL,
                         s);
  MFT_CHECK_OK(s);
  MF_GraphCopyFunction(h, f, NULL, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "'g'");
  MF_DeleteFunction(f);

  /* NULL arguments. */
  MFT_CHECK(MF_GraphToFunction(NULL, "f", 0, -1, NULL, 0, NULL, 0, NULL, NULL,
                               NULL, NULL, s) == NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "fn_body");
  MF_GraphCopyFunction(h, NULL, NULL, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "func");
  MFT_CHECK(MF_FunctionName(NULL) == NULL);
  MF_DeleteFunction(NULL);

  MF_DeleteGraph(h);
  MF_DeleteGraph(b.g);
  MF_DeleteStatus(s);
}

int main(void) {
  CallByNameAndPartitionedCallMatchTheSubgraph();
  FunctionDefRoundTrips();
  BadBoundariesNameTheOperation();
  return 0;
}
