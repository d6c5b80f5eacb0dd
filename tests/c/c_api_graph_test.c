/* Imports GraphDefs (text and binary, with a prefix), iterates and inspects
 * operations, reads attrs of every kind, exports and re-imports, and reads
 * the registered op list. */
#include "tests/c/c_test_util.h"

static const char kGraph[] =
    "node { name: 'x' op: 'Placeholder'"
    "  attr { key: 'dtype' value { type: DT_FLOAT } }"
    "  attr { key: 'shape' value { shape { dim { size: 1 } dim { size: 4 }"
    "    dim { size: 4 } dim { size: 1 } } } } }\n"
    "node { name: 'k' op: 'Const'"
    "  attr { key: 'dtype' value { type: DT_FLOAT } }"
    "  attr { key: 'value' value { tensor { dtype: DT_FLOAT"
    "    tensor_shape { dim { size: 2 } dim { size: 2 } dim { size: 1 }"
    "    dim { size: 1 } } float_val: 0.5 } } } }\n"
    "node { name: 'conv' op: 'Conv2D' input: 'x' input: 'k'"
    "  attr { key: 'T' value { type: DT_FLOAT } }"
    "  attr { key: 'strides' value { list { i: [1, 2, 2, 1] } } }"
    "  attr { key: 'padding' value { s: 'VALID' } } }\n";

/* Whether `needle` occurs in the `len` bytes at `data`. */
static int Contains(const void* data, size_t len, const char* needle) {
  size_t n = strlen(needle), i;
  for (i = 0; i + n <= len; ++i) {
    if (memcmp((const char*)data + i, needle, n) == 0) return 1;
  }
  return 0;
}

static void ImportIterateAndReadAttrs(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  MF_Buffer* def = MF_NewBufferFromString(kGraph, sizeof(kGraph) - 1);
  MF_ImportGraphDefOptions* opts = MF_NewImportGraphDefOptions();
  MF_Operation *op, *conv, *k;
  size_t pos = 0;
  int count = 0;
  MF_AttrMetadata meta;
  int64_t strides[4] = {0, 0, 0, 0}, shape[4] = {0, 0, 0, 0};
  char padding[8] = {0};
  MF_Tensor* value = NULL;

  MF_ImportGraphDefOptionsSetPrefix(opts, "imported/");
  MF_GraphImportGraphDef(g, def, opts, s);
  MFT_CHECK_OK(s);
  while ((op = MF_GraphNextOperation(g, &pos)) != NULL) {
    MFT_CHECK(strncmp(MF_OperationName(op), "imported/", 9) == 0);
    ++count;
  }
  MFT_CHECK_EQ_INT(count, 3);
  MFT_CHECK_EQ_INT(MF_GraphNumOperations(g), 3);
  MFT_CHECK(MF_GraphOperationByName(g, "conv") == NULL);
  conv = MF_GraphOperationByName(g, "imported/conv");
  k = MF_GraphOperationByName(g, "imported/k");
  MFT_CHECK(conv != NULL && k != NULL);
  MFT_CHECK_STREQ(MF_OperationOpType(conv), "Conv2D");
  MFT_CHECK_EQ_INT(MF_OperationNumInputs(conv), 2);
  MFT_CHECK_EQ_INT(MF_OperationNumOutputs(conv), 1);
  MFT_CHECK_EQ_INT(MF_OperationOutputType(MftOut(conv, 0)), MF_FLOAT);
  MFT_CHECK(MF_OperationInput((MF_Input){conv, 1}).oper == k);
  {
    MF_Input consumer;
    MFT_CHECK_EQ_INT(MF_OperationOutputConsumers(MftOut(k, 0), &consumer, 1),
                     1);
    MFT_CHECK(consumer.oper == conv && consumer.index == 1);
  }

  /* Shapes were inferred at import: VALID 2x2 stride 2 on 4x4 -> 2x2. */
  MF_GraphGetTensorShape(g, MftOut(conv, 0), shape, 4, s);
  MFT_CHECK_OK(s);
  MFT_CHECK(shape[0] == 1 && shape[1] == 2 && shape[2] == 2 && shape[3] == 1);

  meta = MF_OperationGetAttrMetadata(conv, "strides", s);
  MFT_CHECK_OK(s);
  MFT_CHECK(meta.is_list && meta.list_size == 4 && meta.type == MF_ATTR_INT);
  MF_OperationGetAttrIntList(conv, "strides", strides, 4, s);
  MFT_CHECK_OK(s);
  MFT_CHECK(strides[0] == 1 && strides[1] == 2 && strides[3] == 1);
  meta = MF_OperationGetAttrMetadata(conv, "padding", s);
  MFT_CHECK(meta.type == MF_ATTR_STRING && meta.total_size == 5);
  MF_OperationGetAttrString(conv, "padding", padding, sizeof(padding), s);
  MFT_CHECK_OK(s);
  MFT_CHECK_STREQ(padding, "VALID");
  {
    /* A default the importer added. */
    unsigned char use_cudnn = 0;
    MF_OperationGetAttrBool(conv, "use_cudnn_on_gpu", &use_cudnn, s);
    MFT_CHECK_OK(s);
    MFT_CHECK_EQ_INT(use_cudnn, 1);
  }
  MF_OperationGetAttrShape(MF_GraphOperationByName(g, "imported/x"), "shape",
                           shape, 4, s);
  MFT_CHECK_OK(s);
  MFT_CHECK(shape[1] == 4 && shape[2] == 4);
  MF_OperationGetAttrTensor(k, "value", &value, s);
  MFT_CHECK_OK(s);
  MFT_CHECK_EQ_INT(MF_TensorElementCount(value), 4);
  MFT_CHECK(((const float*)MF_TensorData(value))[3] == 0.5f);
  MF_DeleteTensor(value);
  {
    MF_Buffer* attr = MF_NewBuffer();
    MF_OperationGetAttrValueProto(conv, "padding", attr, s);
    MFT_CHECK_OK(s);
    MFT_CHECK(Contains(attr->data, attr->length, "VALID"));
    MF_DeleteBuffer(attr);
  }

  MF_DeleteImportGraphDefOptions(opts);
  MF_DeleteBuffer(def);
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

/* A graph built through the C API, exported as a binary GraphDef and
 * imported twice into another graph (the second time under a prefix), runs
 * the same. */
static void ExportAndReimport(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  MF_Graph* g2 = MF_NewGraph();
  MF_Buffer* def = MF_NewBuffer();
  MF_ImportGraphDefOptions* opts = MF_NewImportGraphDefOptions();
  const float v[2] = {1.5f, 2.5f};
  const int64_t dims[1] = {2};
  MF_Operation* c = MftConst(g, "c", v, dims, 1, s);
  MF_Session* session;
  MF_Output fetches[2];
  MF_Tensor* out[2];
  MftBinary(g, "AddV2", "twice", c, c, s);
  MFT_CHECK_OK(s);

  MF_GraphToGraphDef(g, def, s);
  MFT_CHECK_OK(s);
  MFT_CHECK(Contains(def->data, def->length, "twice"));
  MF_GraphImportGraphDef(g2, def, NULL, s);
  MFT_CHECK_OK(s);
  MF_ImportGraphDefOptionsSetPrefix(opts, "copy/");
  MF_ImportGraphDefOptionsSetDefaultDevice(opts, "/device:CPU:0");
  MF_GraphImportGraphDef(g2, def, opts, s);
  MFT_CHECK_OK(s);
  MFT_CHECK_EQ_INT(MF_GraphNumOperations(g2), 4);
  MFT_CHECK_STREQ(MF_OperationDevice(MF_GraphOperationByName(g2, "copy/c")),
                  "/device:CPU:0");
  MFT_CHECK_STREQ(MF_OperationDevice(MF_GraphOperationByName(g2, "c")), "");

  session = MF_NewSession(g2, NULL, s);
  MFT_CHECK_OK(s);
  fetches[0] = MftOut(MF_GraphOperationByName(g2, "twice"), 0);
  fetches[1] = MftOut(MF_GraphOperationByName(g2, "copy/twice"), 0);
  MF_SessionRun(session, NULL, NULL, NULL, 0, fetches, out, 2, NULL, 0, NULL,
                s);
  MFT_CHECK_OK(s);
  MFT_CHECK(((const float*)MF_TensorData(out[0]))[1] == 5.0f);
  MFT_CHECK(((const float*)MF_TensorData(out[1]))[0] == 3.0f);
  MF_DeleteTensor(out[0]);
  MF_DeleteTensor(out[1]);
  MF_DeleteSession(session, s);
  MF_DeleteImportGraphDefOptions(opts);
  MF_DeleteBuffer(def);
  MF_DeleteGraph(g);
  MF_DeleteGraph(g2);
  MF_DeleteStatus(s);
}

static void OpListAndOpDef(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  MF_Buffer* ops = MF_GetAllOpList();
  MF_Buffer* op_def = MF_NewBuffer();
  MFT_CHECK(ops != NULL && ops->length > 0);
  MFT_CHECK(Contains(ops->data, ops->length, "MatMul"));
  MFT_CHECK(Contains(ops->data, ops->length, "Conv2D"));
  MF_GraphGetOpDef(g, "MatMul", op_def, s);
  MFT_CHECK_OK(s);
  MFT_CHECK(Contains(op_def->data, op_def->length, "transpose_a"));
  MFT_CHECK(MF_DataTypeSize(MF_DOUBLE) == 8);
  MFT_CHECK(strlen(MF_Version()) > 0);
  MF_DeleteBuffer(op_def);
  MF_DeleteBuffer(ops);
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

/* Every setter and getter, on '_'-prefixed attrs (allowed on any node). */
static void AttrRoundTrip(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  MF_OperationDescription* d = MF_NewOperation(g, "NoOp", "n");
  const void* strings[2] = {"ab", "c"};
  const size_t lengths[2] = {2, 1};
  const int64_t ints[3] = {1, 2, 3}, dims[2] = {2, -1};
  const int64_t* shapes[2];
  const int ranks[2] = {2, -1};
  const float floats[2] = {0.5f, 2.0f};
  const unsigned char bools[2] = {1, 0};
  const MF_DataType types[2] = {MF_FLOAT, MF_BOOL};
  const unsigned char int_five[2] = {0x18, 0x05}; /* AttrValue{i: 5} */
  const int64_t scalar_dims[1] = {1};
  MF_Tensor* t = MF_AllocateTensor(MF_INT32, scalar_dims, 1, 4, s);
  MF_Tensor* tensors[2];
  MF_Operation* n;
  MF_AttrMetadata m;
  char buf[8] = {0}, storage[3];
  void* values[2];
  size_t lens[2];
  int64_t i64[3] = {0, 0, 0};
  float f[2] = {0, 0};
  unsigned char b[2] = {0, 0};
  MF_DataType ts[2] = {MF_INVALID, MF_INVALID};
  MF_Tensor* back = NULL;

  *(int*)MF_TensorData(t) = 42;
  tensors[0] = tensors[1] = t;
  shapes[0] = dims;
  shapes[1] = NULL;
  MF_SetAttrString(d, "_s", "hello", 5);
  MF_SetAttrStringList(d, "_sl", strings, lengths, 2);
  MF_SetAttrInt(d, "_i", 7);
  MF_SetAttrIntList(d, "_il", ints, 3);
  MF_SetAttrFloat(d, "_f", 1.5f);
  MF_SetAttrFloatList(d, "_fl", floats, 2);
  MF_SetAttrBool(d, "_b", 1);
  MF_SetAttrBoolList(d, "_bl", bools, 2);
  MF_SetAttrType(d, "_t", MF_INT64);
  MF_SetAttrTypeList(d, "_tl", types, 2);
  MF_SetAttrShape(d, "_shape", dims, 2);
  MF_SetAttrShape(d, "_unknown", NULL, -1);
  MF_SetAttrShapeList(d, "_shl", shapes, ranks, 2);
  MF_SetAttrTensor(d, "_tensor", t, s);
  MFT_CHECK_OK(s);
  MF_SetAttrTensorList(d, "_tensors", tensors, 2, s);
  MFT_CHECK_OK(s);
  MF_SetAttrValueProto(d, "_vp", int_five, sizeof(int_five), s);
  MFT_CHECK_OK(s);
  MF_DeleteTensor(t);
  n = MF_FinishOperation(d, s);
  MFT_CHECK_OK(s);

  MF_OperationGetAttrString(n, "_s", buf, sizeof(buf), s);
  MFT_CHECK(MF_GetCode(s) == MF_OK && memcmp(buf, "hello", 5) == 0);
  m = MF_OperationGetAttrMetadata(n, "_sl", s);
  MFT_CHECK(m.is_list && m.list_size == 2 && m.total_size == 3);
  MF_OperationGetAttrStringList(n, "_sl", values, lens, 2, storage, 3, s);
  MFT_CHECK_OK(s);
  MFT_CHECK(lens[0] == 2 && lens[1] == 1 && memcmp(values[1], "c", 1) == 0);
  MF_OperationGetAttrStringList(n, "_sl", values, lens, 2, storage, 2, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "too small");
  MF_OperationGetAttrInt(n, "_i", i64, s);
  MFT_CHECK(MF_GetCode(s) == MF_OK && i64[0] == 7);
  MF_OperationGetAttrIntList(n, "_il", i64, 2, s); /* the first two */
  MFT_CHECK(MF_GetCode(s) == MF_OK && i64[1] == 2 && i64[2] == 0);
  MF_OperationGetAttrFloat(n, "_f", f, s);
  MFT_CHECK(MF_GetCode(s) == MF_OK && f[0] == 1.5f);
  MF_OperationGetAttrFloatList(n, "_fl", f, 2, s);
  MFT_CHECK(MF_GetCode(s) == MF_OK && f[0] == 0.5f && f[1] == 2.0f);
  MF_OperationGetAttrBool(n, "_b", b, s);
  MFT_CHECK(MF_GetCode(s) == MF_OK && b[0] == 1);
  MF_OperationGetAttrBoolList(n, "_bl", b, 2, s);
  MFT_CHECK(MF_GetCode(s) == MF_OK && b[0] == 1 && b[1] == 0);
  MF_OperationGetAttrType(n, "_t", ts, s);
  MFT_CHECK(MF_GetCode(s) == MF_OK && ts[0] == MF_INT64);
  MF_OperationGetAttrTypeList(n, "_tl", ts, 2, s);
  MFT_CHECK(MF_GetCode(s) == MF_OK && ts[0] == MF_FLOAT && ts[1] == MF_BOOL);
  m = MF_OperationGetAttrMetadata(n, "_shape", s);
  MFT_CHECK(m.type == MF_ATTR_SHAPE && m.total_size == 2);
  MF_OperationGetAttrShape(n, "_shape", i64, 3, s);
  MFT_CHECK(MF_GetCode(s) == MF_OK && i64[0] == 2 && i64[1] == -1);
  MF_OperationGetAttrShape(n, "_shape", i64, 1, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "has rank 2, but num_dims is 1");
  MFT_CHECK_EQ_INT(MF_OperationGetAttrMetadata(n, "_unknown", s).total_size,
                   -1);
  m = MF_OperationGetAttrMetadata(n, "_shl", s);
  MFT_CHECK(m.is_list && m.list_size == 2 && m.type == MF_ATTR_SHAPE);
  MF_OperationGetAttrTensor(n, "_tensor", &back, s);
  MFT_CHECK_OK(s);
  MFT_CHECK(*(const int*)MF_TensorData(back) == 42);
  MF_DeleteTensor(back);
  m = MF_OperationGetAttrMetadata(n, "_tensors", s);
  MFT_CHECK(m.is_list && m.list_size == 2 && m.type == MF_ATTR_TENSOR);
  MF_OperationGetAttrInt(n, "_vp", i64, s);
  MFT_CHECK(MF_GetCode(s) == MF_OK && i64[0] == 5);
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

/* Adds `op_type` named `name` on input 0 of `input`; NULL on error. */
static MF_Operation* AddUnary(MF_Graph* g, const char* op_type,
                              const char* name, MF_Operation* input,
                              MF_Status* s) {
  MF_OperationDescription* desc = MF_NewOperation(g, op_type, name);
  MF_Output in;
  in.oper = input;
  in.index = 0;
  MF_AddInput(desc, in);
  return MF_FinishOperation(desc, s);
}

/* Whether output 0 of `op` has the inferred shape [1,2,2,1]. */
static int IsConvShape(MF_Graph* g, MF_Operation* op, MF_Status* s) {
  int64_t dims[4] = {0, 0, 0, 0};
  MF_Output out;
  out.oper = op;
  out.index = 0;
  if (MF_GraphGetTensorNumDims(g, out, s) != 4) return 0;
  MF_GraphGetTensorShape(g, out, dims, 4, s);
  return MF_GetCode(s) == MF_OK && dims[0] == 1 && dims[1] == 2 &&
         dims[2] == 2 && dims[3] == 1;
}

/* Operations added one at a time get their shapes from the graph's kept
 * refiner (Note [C API graphs]): after an import, on top of each other,
 * after a failed operation, and after a second import. */
static void ShapesOfOperationsAddedAfterImports(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  MF_Buffer* def = MF_NewBufferFromString(kGraph, sizeof(kGraph) - 1);
  MF_ImportGraphDefOptions* opts = MF_NewImportGraphDefOptions();
  MF_Operation *op, *bad;
  char name[32];
  int i;

  MF_ImportGraphDefOptionsSetPrefix(opts, "a/");
  MF_GraphImportGraphDef(g, def, opts, s);
  MFT_CHECK_OK(s);
  op = AddUnary(g, "Identity", "id", MF_GraphOperationByName(g, "a/conv"), s);
  MFT_CHECK_OK(s);
  MFT_CHECK(IsConvShape(g, op, s));
  for (i = 0; i < 100; ++i) {
    snprintf(name, sizeof(name), "neg%d", i);
    op = AddUnary(g, "Neg", name, op, s);
    MFT_CHECK_OK(s);
  }
  MFT_CHECK(IsConvShape(g, op, s));

  /* Rank 4 into MatMul: refused, and the graph goes on as before. */
  {
    MF_OperationDescription* desc = MF_NewOperation(g, "MatMul", "bad");
    MF_Output in;
    in.oper = op;
    in.index = 0;
    MF_AddInput(desc, in);
    MF_AddInput(desc, in);
    bad = MF_FinishOperation(desc, s);
    MFT_CHECK(bad == NULL && MF_GetCode(s) == MF_INVALID_ARGUMENT);
    MFT_CHECK(strstr(MF_Message(s), "bad") != NULL);
    MFT_CHECK(MF_GraphOperationByName(g, "bad") == NULL);
  }
  op = AddUnary(g, "Relu", "relu", op, s);
  MFT_CHECK_OK(s);
  MFT_CHECK(IsConvShape(g, op, s));

  MF_ImportGraphDefOptionsSetPrefix(opts, "b/");
  MF_GraphImportGraphDef(g, def, opts, s);
  MFT_CHECK_OK(s);
  op = AddUnary(g, "Sigmoid", "after_b", MF_GraphOperationByName(g, "b/conv"),
                s);
  MFT_CHECK_OK(s);
  MFT_CHECK(IsConvShape(g, op, s));
  MFT_CHECK(IsConvShape(g, MF_GraphOperationByName(g, "relu"), s));

  MF_DeleteImportGraphDefOptions(opts);
  MF_DeleteBuffer(def);
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

int main(void) {
  ImportIterateAndReadAttrs();
  ExportAndReimport();
  OpListAndOpDef();
  AttrRoundTrip();
  ShapesOfOperationsAddedAfterImports();
  printf("c_api_graph_test: OK\n");
  return 0;
}
