/* MF_AddGradients, MF_AddGradientsWithPrefix and MF_RegisterGradientFunction:
 * values of built gradients run in a session, names, and the error paths
 * (each leaving the graph as it was, and runnable). */
#include <math.h>

#include "tests/c/c_test_util.h"

static const int64_t kDims3[1] = {3};

/* A float [3] tensor holding `v`. */
static MF_Tensor* Vec3(const float* v, MF_Status* s) {
  MF_Tensor* t = MF_AllocateTensor(MF_FLOAT, kDims3, 1, 3 * sizeof(float), s);
  MFT_CHECK_OK(s);
  memcpy(MF_TensorData(t), v, 3 * sizeof(float));
  return t;
}

/* Runs `fetches` (n <= 4 float [3] outputs) with `feeds` (nf of them, each
 * fed `values[i]`) and checks each against `want[i]`. */
static void RunAndCheck(MF_Graph* g, const MF_Output* feeds,
                        const float (*values)[3], int nf,
                        const MF_Output* fetches, const float (*want)[3],
                        int n) {
  MF_Status* s = MF_NewStatus();
  MF_Session* session = MF_NewSession(g, NULL, s);
  MF_Tensor* in[4] = {NULL, NULL, NULL, NULL};
  MF_Tensor* out[4] = {NULL, NULL, NULL, NULL};
  int i, j;
  MFT_CHECK_OK(s);
  for (i = 0; i < nf; ++i) in[i] = Vec3(values[i], s);
  MF_SessionRun(session, NULL, feeds, in, nf, fetches, out, n, NULL, 0, NULL,
                s);
  MFT_CHECK_OK(s);
  for (i = 0; i < n; ++i) {
    const float* got = (const float*)MF_TensorData(out[i]);
    MFT_CHECK_EQ_INT(MF_TensorElementCount(out[i]), 3);
    for (j = 0; j < 3; ++j) {
      if (fabsf(got[j] - want[i][j]) > 1e-5f) {
        MFT_FAIL("fetch %d element %d: got %g, want %g", i, j, got[j],
                 want[i][j]);
      }
    }
    MF_DeleteTensor(out[i]);
  }
  for (i = 0; i < nf; ++i) MF_DeleteTensor(in[i]);
  MF_CloseSession(session, s);
  MF_DeleteSession(session, s);
  MF_DeleteStatus(s);
}

/* y = x*x + 3x with x a float [3] placeholder; returns y. */
static MF_Operation* Polynomial(MF_Graph* g, MF_Operation** x, MF_Status* s) {
  const float three[3] = {3, 3, 3};
  MF_Operation *sq, *lin, *c3;
  *x = MftPlaceholder(g, "x", kDims3, 1, s);
  MFT_CHECK_OK(s);
  c3 = MftConst(g, "three", three, kDims3, 1, s);
  sq = MftBinary(g, "Mul", "square", *x, *x, s);
  lin = MftBinary(g, "Mul", "linear", c3, *x, s);
  MFT_CHECK_OK(s);
  return MftBinary(g, "AddV2", "y", sq, lin, s);
}

static int StartsWith(const char* s, const char* prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* dy/dx of x*x + 3x is 2x + 3, named under "gradients". */
static void PolynomialGradient(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  MF_Operation* x;
  MF_Output y, xo, dy;
  const float feed[1][3] = {{1, 2, -0.5f}};
  const float want[1][3] = {{5, 7, 2}};
  int before;
  y = MftOut(Polynomial(g, &x, s), 0);
  MFT_CHECK_OK(s);
  xo = MftOut(x, 0);
  before = MF_GraphNumOperations(g);
  MF_AddGradients(g, &y, 1, &xo, 1, NULL, s, &dy);
  MFT_CHECK_OK(s);
  MFT_CHECK(dy.oper != NULL);
  MFT_CHECK(MF_GraphNumOperations(g) > before);
  MFT_CHECK(StartsWith(MF_OperationName(dy.oper), "gradients"));
  MFT_CHECK_EQ_INT(MF_OperationOutputType(dy), MF_FLOAT);
  MFT_CHECK_EQ_INT(MF_GraphGetTensorNumDims(g, dy, s), 1);
  RunAndCheck(g, &xo, feed, 1, &dy, want, 1);

  /* A second call gets names of its own (no clash) and the same values. */
  MF_AddGradients(g, &y, 1, &xo, 1, NULL, s, &dy);
  MFT_CHECK_OK(s);
  RunAndCheck(g, &xo, feed, 1, &dy, want, 1);
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

/* ys {a*b, a+b}, xs {a, b, c}: d/da = b + 1, d/db = a + 1, and c, which
 * no y uses, gets {NULL, -1}. With dx = {2, 1}: d/da = 2b + 1. */
static void MultipleYsAndXsAndDx(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  const float two[3] = {2, 2, 2}, ones[3] = {1, 1, 1};
  MF_Operation *a = MftPlaceholder(g, "a", kDims3, 1, s),
               *b = MftPlaceholder(g, "b", kDims3, 1, s),
               *c = MftPlaceholder(g, "c", kDims3, 1, s);
  MF_Output ys[2], xs[3], dys[3], feeds[2], dx[2];
  const float values[2][3] = {{1, 2, 3}, {10, 20, 30}};
  const float want[2][3] = {{11, 21, 31}, {2, 3, 4}};
  const float want_dx[2][3] = {{21, 41, 61}, {3, 5, 7}};
  MFT_CHECK_OK(s);
  ys[0] = MftOut(MftBinary(g, "Mul", "prod", a, b, s), 0);
  ys[1] = MftOut(MftBinary(g, "AddV2", "sum", a, b, s), 0);
  MFT_CHECK_OK(s);
  xs[0] = MftOut(a, 0);
  xs[1] = MftOut(b, 0);
  xs[2] = MftOut(c, 0);
  dys[2] = MftOut(a, 7); /* must be overwritten */
  MF_AddGradients(g, ys, 2, xs, 3, NULL, s, dys);
  MFT_CHECK_OK(s);
  MFT_CHECK(dys[0].oper != NULL && dys[1].oper != NULL);
  MFT_CHECK(dys[2].oper == NULL);
  MFT_CHECK_EQ_INT(dys[2].index, -1);
  feeds[0] = xs[0];
  feeds[1] = xs[1];
  RunAndCheck(g, feeds, values, 2, dys, want, 2);

  dx[0] = MftOut(MftConst(g, "two", two, kDims3, 1, s), 0);
  dx[1] = MftOut(MftConst(g, "ones", ones, kDims3, 1, s), 0);
  MFT_CHECK_OK(s);
  MF_AddGradients(g, ys, 2, xs, 2, dx, s, dys);
  MFT_CHECK_OK(s);
  RunAndCheck(g, feeds, values, 2, dys, want_dx, 2);
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

/* Every op MF_AddGradientsWithPrefix adds is under "<prefix>/"; a prefix
 * that names an op, or a scope of one, is refused. */
static void Prefix(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  MF_Operation *x, *op;
  MF_Output y, xo, dy;
  const float feed[1][3] = {{0, 1, 2}};
  const float want[1][3] = {{3, 5, 7}};
  size_t pos;
  int before, added = 0, index = 0;
  y = MftOut(Polynomial(g, &x, s), 0);
  MFT_CHECK_OK(s);
  xo = MftOut(x, 0);
  before = MF_GraphNumOperations(g);
  MF_AddGradientsWithPrefix(g, "train/grads", &y, 1, &xo, 1, NULL, s, &dy);
  MFT_CHECK_OK(s);
  for (pos = 0; (op = MF_GraphNextOperation(g, &pos)) != NULL; ++index) {
    if (index < before) continue;
    ++added;
    if (!StartsWith(MF_OperationName(op), "train/grads/")) {
      MFT_FAIL("op %s is not under the prefix", MF_OperationName(op));
    }
  }
  MFT_CHECK(added > 0);
  MFT_CHECK(StartsWith(MF_OperationName(dy.oper), "train/grads/"));
  RunAndCheck(g, &xo, feed, 1, &dy, want, 1);

  before = MF_GraphNumOperations(g);
  MF_AddGradientsWithPrefix(g, "train/grads", &y, 1, &xo, 1, NULL, s, &dy);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT,
                   "prefix [train/grads] conflicts with existing node");
  MF_AddGradientsWithPrefix(g, "train", &y, 1, &xo, 1, NULL, s, &dy);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "prefix [train] conflicts");
  MF_AddGradientsWithPrefix(g, "square", &y, 1, &xo, 1, NULL, s, &dy);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "named [square]");
  MFT_CHECK_EQ_INT(MF_GraphNumOperations(g), before);
  /* A prefix that only shares the start of a name is fine. */
  MF_AddGradientsWithPrefix(g, "squ", &y, 1, &xo, 1, NULL, s, &dy);
  MFT_CHECK_OK(s);
  MFT_CHECK(StartsWith(MF_OperationName(dy.oper), "squ/"));
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

/* x -> MedianPool2D (which has no gradient) -> y. */
static MF_Operation* MedianPool(MF_Graph* g, MF_Operation* x, MF_Status* s) {
  static const int64_t ones[4] = {1, 1, 1, 1};
  MF_OperationDescription* d = MF_NewOperation(g, "MedianPool2D", "median");
  MF_AddInput(d, MftOut(x, 0));
  MF_SetAttrIntList(d, "ksize", ones, 4);
  MF_SetAttrIntList(d, "strides", ones, 4);
  MF_SetAttrString(d, "padding", "VALID", 5);
  return MF_FinishOperation(d, s);
}

/* Checks that a failed call left `g` with `num_ops` operations and that
 * y = x*x + 3x still runs. */
static void CheckUnchangedAndRunnable(MF_Graph* g, int num_ops, MF_Output x,
                                      MF_Output y) {
  const float feed[1][3] = {{1, 2, 3}};
  const float want[1][3] = {{4, 10, 18}};
  MFT_CHECK_EQ_INT(MF_GraphNumOperations(g), num_ops);
  RunAndCheck(g, &x, feed, 1, &y, want, 1);
}

static void Errors(void) {
  static const int64_t nhwc[4] = {1, 1, 3, 1};
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  MF_Graph* other = MF_NewGraph();
  MF_Operation *x, *x4, *median, *enter, *exit_op;
  MF_Output y, xo, bad, dy, median_out, loop_out;
  MF_OperationDescription* d;
  int before;
  y = MftOut(Polynomial(g, &x, s), 0);
  xo = MftOut(x, 0);
  x4 = MftPlaceholder(g, "x4", nhwc, 4, s);
  MFT_CHECK_OK(s);
  median = MedianPool(g, x4, s);
  MFT_CHECK_OK(s);
  median_out = MftOut(MftBinary(g, "Mul", "median_sq", median, median, s), 0);
  MFT_CHECK_OK(s);
  d = MF_NewOperation(g, "Enter", "enter");
  MF_AddInput(d, xo);
  MF_SetAttrString(d, "frame_name", "loop", 4);
  enter = MF_FinishOperation(d, s);
  MFT_CHECK_OK(s);
  d = MF_NewOperation(g, "Exit", "exit");
  MF_AddInput(d, MftOut(enter, 0));
  exit_op = MF_FinishOperation(d, s);
  MFT_CHECK_OK(s);
  loop_out = MftOut(exit_op, 0);
  before = MF_GraphNumOperations(g);

  /* An op with no gradient on the path: NotFound naming it. Mul's gradient
   * was built before MedianPool2D was reached, and is removed again. */
  bad = MftOut(x4, 0);
  MF_AddGradients(g, &median_out, 1, &bad, 1, NULL, s, &dy);
  MFT_CHECK_STATUS(s, MF_NOT_FOUND, "MedianPool2D");
  MFT_CHECK_STATUS(s, MF_NOT_FOUND, "'median'");
  CheckUnchangedAndRunnable(g, before, xo, y);

  /* A loop on the path. */
  MF_AddGradients(g, &loop_out, 1, &xo, 1, NULL, s, &dy);
  MFT_CHECK_STATUS(s, MF_UNIMPLEMENTED, "enter");
  CheckUnchangedAndRunnable(g, before, xo, y);

  /* Bad outputs. */
  bad = MftOut(x, 1);
  MF_AddGradients(g, &y, 1, &bad, 1, NULL, s, &dy);
  MFT_CHECK_STATUS(s, MF_OUT_OF_RANGE, "x[0] names output 1 of 'x'");
  bad = MftOut(y.oper, -1);
  MF_AddGradients(g, &bad, 1, &xo, 1, NULL, s, &dy);
  MFT_CHECK_STATUS(s, MF_OUT_OF_RANGE, "y[0] names output -1");
  bad = MftOut(NULL, 0);
  MF_AddGradients(g, &y, 1, &bad, 1, NULL, s, &dy);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "x[0].oper is NULL");
  bad = MftOut(MftPlaceholder(other, "elsewhere", kDims3, 1, s), 0);
  MFT_CHECK_OK(s);
  MF_AddGradients(g, &y, 1, &bad, 1, NULL, s, &dy);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "another graph");
  MF_AddGradients(g, &y, 1, &xo, 1, &bad, s, &dy);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "dx[0].oper is an operation");
  /* dx of the wrong dtype. */
  bad = MftOut(MftPlaceholder(g, "shape", NULL, -1, s), 0);
  MFT_CHECK_OK(s);
  ++before;
  {
    MF_OperationDescription* cast = MF_NewOperation(g, "Cast", "as_int");
    MF_AddInput(cast, bad);
    MF_SetAttrType(cast, "DstT", MF_INT32);
    bad = MftOut(MF_FinishOperation(cast, s), 0);
    MFT_CHECK_OK(s);
    ++before;
  }
  MF_AddGradients(g, &y, 1, &xo, 1, &bad, s, &dy);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "dtype");
  MF_AddGradients(g, &y, -1, &xo, 1, NULL, s, &dy);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "ny and nx must be >= 0");
  MF_AddGradients(g, &y, 1, &xo, 1, NULL, s, NULL);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "dy");
  MF_AddGradients(NULL, &y, 1, &xo, 1, NULL, s, &dy);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "g");
  CheckUnchangedAndRunnable(g, before, xo, y);
  MF_DeleteGraph(other);
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

/* A C gradient function for MedianPool2D with ksize 1 (an identity): the
 * gradient is -grad, or an error, as `context` says. */
typedef struct NegGradContext {
  int calls;
  int fail;
  int num_outputs, num_inputs;
  char name_scope[128];
} NegGradContext;

static void NegGrad(void* context, MF_Graph* graph, MF_Operation* oper,
                    const char* name_scope, const MF_Output* output_grads,
                    int num_outputs, MF_Output* input_grads, int num_inputs,
                    MF_Status* status) {
  NegGradContext* ctx = (NegGradContext*)context;
  char name[160];
  MF_OperationDescription* d;
  ++ctx->calls;
  ctx->num_outputs = num_outputs;
  ctx->num_inputs = num_inputs;
  strncpy(ctx->name_scope, name_scope, sizeof(ctx->name_scope) - 1);
  MFT_CHECK_STREQ(MF_OperationOpType(oper), "MedianPool2D");
  MFT_CHECK(input_grads[0].oper == NULL);
  /* An op added, then the failure: MF_AddGradients must remove it. */
  snprintf(name, sizeof(name), "%s/neg", name_scope);
  d = MF_NewOperation(graph, "Neg", name);
  MF_AddInput(d, output_grads[0]);
  input_grads[0] = MftOut(MF_FinishOperation(d, status), 0);
  if (ctx->fail) MF_SetStatus(status, MF_ABORTED, "neg grad refused");
}

static void RegisteredCGradient(void) {
  static const int64_t nhwc[4] = {1, 1, 3, 1};
  static NegGradContext ctx;
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  MF_Operation *x4, *median;
  MF_Output y, xo, dy;
  MF_Tensor *in, *out = NULL;
  MF_Session* session;
  const float values[3] = {1, 2, 3};
  int before;

  /* Refused registrations. */
  MF_RegisterGradientFunction("Mul", NegGrad, &ctx, s);
  MFT_CHECK_STATUS(s, MF_ALREADY_EXISTS, "already has a registered gradient");
  MF_RegisterGradientFunction("Shape", NegGrad, &ctx, s);
  MFT_CHECK_STATUS(s, MF_ALREADY_EXISTS, "declared to have no gradient");
  MF_RegisterGradientFunction("", NegGrad, &ctx, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "op_type");
  MF_RegisterGradientFunction("MedianPool2D", NULL, &ctx, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "fn");

  MF_RegisterGradientFunction("MedianPool2D", NegGrad, &ctx, s);
  MFT_CHECK_OK(s);
  MF_RegisterGradientFunction("MedianPool2D", NegGrad, &ctx, s);
  MFT_CHECK_STATUS(s, MF_ALREADY_EXISTS, "MedianPool2D");

  x4 = MftPlaceholder(g, "x4", nhwc, 4, s);
  MFT_CHECK_OK(s);
  median = MedianPool(g, x4, s);
  MFT_CHECK_OK(s);
  y = MftOut(MftBinary(g, "Mul", "y", median, median, s), 0);
  MFT_CHECK_OK(s);
  xo = MftOut(x4, 0);
  before = MF_GraphNumOperations(g);

  ctx.fail = 1;
  MF_AddGradients(g, &y, 1, &xo, 1, NULL, s, &dy);
  MFT_CHECK_STATUS(s, MF_ABORTED, "neg grad refused");
  MFT_CHECK_STATUS(s, MF_ABORTED, "'median'");
  MFT_CHECK_EQ_INT(ctx.calls, 1);
  MFT_CHECK_EQ_INT(MF_GraphNumOperations(g), before);

  ctx.fail = 0;
  MF_AddGradients(g, &y, 1, &xo, 1, NULL, s, &dy);
  MFT_CHECK_OK(s);
  MFT_CHECK_EQ_INT(ctx.calls, 2);
  MFT_CHECK_EQ_INT(ctx.num_outputs, 1);
  MFT_CHECK_EQ_INT(ctx.num_inputs, 1);
  MFT_CHECK(StartsWith(ctx.name_scope, "gradients"));
  MFT_CHECK(strstr(ctx.name_scope, "median_grad") != NULL);
  /* d(m*m)/dx through the "identity" with gradient -grad: -2x. */
  session = MF_NewSession(g, NULL, s);
  MFT_CHECK_OK(s);
  in = MF_AllocateTensor(MF_FLOAT, nhwc, 4, sizeof(values), s);
  memcpy(MF_TensorData(in), values, sizeof(values));
  MF_SessionRun(session, NULL, &xo, &in, 1, &dy, &out, 1, NULL, 0, NULL, s);
  MFT_CHECK_OK(s);
  {
    const float* got = (const float*)MF_TensorData(out);
    MFT_CHECK(got[0] == -2.0f && got[1] == -4.0f && got[2] == -6.0f);
  }
  MF_DeleteTensor(in);
  MF_DeleteTensor(out);
  MF_CloseSession(session, s);
  MF_DeleteSession(session, s);
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

/* A gradient a custom-op library registers in C++ (REGISTER_GRADIENT_OP,
 * tests/cc/framework/grad_op_library.cc) is the one MF_AddGradients uses:
 * the registry is one per process. */
static void GradientFromAnOpLibrary(void) {
  MF_Status* s = MF_NewStatus();
  MF_Graph* g = MF_NewGraph();
  MF_Library* lib = MF_LoadLibrary(MINFLOW_GRAD_OP_LIBRARY, s);
  MF_Operation *x, *triple;
  MF_OperationDescription* d;
  MF_Output y, xo, dy;
  const float feed[1][3] = {{1, 2, 3}};
  const float want[1][3] = {{3, 3, 3}};
  MFT_CHECK_OK(s);
  x = MftPlaceholder(g, "x", kDims3, 1, s);
  MFT_CHECK_OK(s);
  xo = MftOut(x, 0);
  d = MF_NewOperation(g, "GradLibTest>Triple", "triple");
  MF_AddInput(d, xo);
  triple = MF_FinishOperation(d, s);
  MFT_CHECK_OK(s);
  y = MftOut(triple, 0);
  MF_AddGradients(g, &y, 1, &xo, 1, NULL, s, &dy);
  MFT_CHECK_OK(s);
  MFT_CHECK_STREQ(MF_OperationOpType(dy.oper), "GradLibTest>Triple");
  RunAndCheck(g, &xo, feed, 1, &dy, want, 1);
  MF_DeleteLibraryHandle(lib);
  MF_DeleteGraph(g);
  MF_DeleteStatus(s);
}

/* MF_RegisterNoGradient: a declaration like REGISTER_NO_GRADIENT_OP's,
 * refused for op types that have a gradient or a declaration. (Python's
 * test_not_differentiable_stops_gradients checks its effect.) */
static void NoGradientDeclaration(void) {
  static NegGradContext ctx;
  MF_Status* s = MF_NewStatus();
  MF_RegisterNoGradient("Mul", s);
  MFT_CHECK_STATUS(s, MF_ALREADY_EXISTS, "already has a registered gradient");
  MF_RegisterNoGradient("", s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "op_type");
  MF_RegisterNoGradient(NULL, s);
  MFT_CHECK_STATUS(s, MF_INVALID_ARGUMENT, "op_type");
  MF_RegisterNoGradient("LRN", s);
  MFT_CHECK_OK(s);
  MF_RegisterNoGradient("LRN", s);
  MFT_CHECK_STATUS(s, MF_ALREADY_EXISTS, "declared to have no gradient");
  MF_RegisterGradientFunction("LRN", NegGrad, &ctx, s);
  MFT_CHECK_STATUS(s, MF_ALREADY_EXISTS, "declared to have no gradient");
  MF_DeleteStatus(s);
}

int main(void) {
  PolynomialGradient();
  MultipleYsAndXsAndDx();
  Prefix();
  Errors(); /* before MedianPool2D gets a gradient below */
  RegisteredCGradient();
  GradientFromAnOpLibrary();
  NoGradientDeclaration();
  printf("c_api_gradients_test: OK\n");
  return 0;
}
