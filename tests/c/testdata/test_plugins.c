/* The plugins of plugin_kernel_api_test, in C11 (see test_plugins.h). */
#include "test_plugins.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const MF_PluginApi* api;
static atomic_int live_states;

int32_t TestPluginLiveStates(void) { return atomic_load(&live_states); }

/* ---- Test>AttrEcho: every attr kind, read in Init ---------------------- */

typedef struct {
  int64_t i;
  float f;
  int32_t b;
  MF_DataType t;
  int64_t s_length;
  int64_t s_first;
  int64_t l[8];
  int32_t l_count;
} EchoState;

static void* EchoInit(MF_KernelInitContext* ctx, void* user_data) {
  EchoState* st = (EchoState*)calloc(1, sizeof(EchoState));
  const char* s = NULL;
  size_t s_length = 0;
  (void)user_data;
  if (st == NULL) return NULL;
  atomic_fetch_add(&live_states, 1);
  /* Each reader records its own error; the first one fails the kernel. */
  api->InitContext_GetAttrInt(ctx, "i", &st->i);
  api->InitContext_GetAttrFloat(ctx, "f", &st->f);
  api->InitContext_GetAttrBool(ctx, "b", &st->b);
  api->InitContext_GetAttrType(ctx, "t", &st->t);
  if (api->InitContext_GetAttrString(ctx, "s", &s, &s_length) == MF_OK) {
    st->s_length = (int64_t)s_length;
    st->s_first = s_length > 0 ? (unsigned char)s[0] : -1;
  }
  api->InitContext_GetAttrIntList(ctx, "l", st->l, 8, &st->l_count);
  if (st->l_count > 8) {
    api->InitContext_SetError(ctx, MF_INVALID_ARGUMENT,
                              "Test>AttrEcho: l may hold at most 8 ints");
  }
  return st;
}

static void EchoFree(void* state, void* user_data) {
  (void)user_data;
  free(state);
  atomic_fetch_sub(&live_states, 1);
}

static MF_Code EchoPrepare(MF_KernelContext* ctx, void* state) {
  const EchoState* st = (const EchoState*)state;
  const int64_t ints = 6 + st->l_count;
  const int64_t one = 1;
  if (api->KernelContext_SetOutputShape(ctx, 0, &ints, 1) != MF_OK)
    return MF_INVALID_ARGUMENT;
  return api->KernelContext_SetOutputShape(ctx, 1, &one, 1);
}

static MF_Code EchoInvoke(MF_KernelContext* ctx, void* state) {
  const EchoState* st = (const EchoState*)state;
  int64_t* ints = (int64_t*)api->KernelContext_OutputData(ctx, 0, MF_INT64);
  float* f = (float*)api->KernelContext_OutputData(ctx, 1, MF_FLOAT);
  int32_t k;
  if (ints == NULL || f == NULL) return MF_INVALID_ARGUMENT;
  ints[0] = st->i;
  ints[1] = st->b;
  ints[2] = st->t;
  ints[3] = st->s_length;
  ints[4] = st->s_first;
  ints[5] = st->l_count;
  for (k = 0; k < st->l_count; ++k) ints[6 + k] = st->l[k];
  f[0] = st->f;
  return MF_OK;
}

/* ---- Test>Accumulate: a list input, a temporary, shapes from Prepare --- */

static MF_Code AccumulatePrepare(MF_KernelContext* ctx, void* state) {
  const int32_t n = api->KernelContext_NumInputs(ctx);
  const int32_t rank = api->KernelContext_InputNumDims(ctx, 0);
  int64_t dims[8];
  int32_t i;
  int32_t d;
  (void)state;
  if (rank < 0 || rank > 8) {
    api->KernelContext_SetError(ctx, MF_INVALID_ARGUMENT,
                                "Test>Accumulate: rank must be at most 8");
    return MF_INVALID_ARGUMENT;
  }
  for (d = 0; d < rank; ++d) dims[d] = api->KernelContext_InputDim(ctx, 0, d);
  for (i = 1; i < n; ++i) {
    int same = api->KernelContext_InputNumDims(ctx, i) == rank;
    for (d = 0; same && d < rank; ++d) {
      same = api->KernelContext_InputDim(ctx, i, d) == dims[d];
    }
    if (!same) {
      api->KernelContext_SetError(ctx, MF_INVALID_ARGUMENT,
                                  "Test>Accumulate: every input must have "
                                  "the shape of input 0");
      return MF_INVALID_ARGUMENT;
    }
  }
  return api->KernelContext_SetOutputShape(ctx, 0, dims, rank);
}

static MF_Code AccumulateInvoke(MF_KernelContext* ctx, void* state) {
  const int32_t n = api->KernelContext_NumInputs(ctx);
  const MF_DataType t = api->KernelContext_OutputDataType(ctx, 0);
  const int64_t size = api->KernelContext_InputNumElements(ctx, 0);
  double* sum =
      (double*)api->KernelContext_AllocateTemp(ctx, MF_DOUBLE, &size, 1);
  void* out = api->KernelContext_OutputData(ctx, 0, t);
  int32_t i;
  int64_t k;
  (void)state;
  if (sum == NULL || out == NULL) return MF_INVALID_ARGUMENT;
  for (k = 0; k < size; ++k) sum[k] = 0;
  for (i = 0; i < n; ++i) {
    const void* x = api->KernelContext_InputData(ctx, i, t);
    if (x == NULL) return MF_INVALID_ARGUMENT;
    for (k = 0; k < size; ++k) {
      sum[k] += t == MF_FLOAT    ? ((const float*)x)[k]
                : t == MF_DOUBLE ? ((const double*)x)[k]
                                 : ((const int32_t*)x)[k];
    }
  }
  for (k = 0; k < size; ++k) {
    if (t == MF_FLOAT) ((float*)out)[k] = (float)sum[k];
    if (t == MF_DOUBLE) ((double*)out)[k] = sum[k];
    if (t == MF_INT32) ((int32_t*)out)[k] = (int32_t)sum[k];
  }
  return MF_OK;
}

/* ---- Test>ShapeFromValue: an output shape read from an input's value --- */

static MF_Code ShapeFromValuePrepare(MF_KernelContext* ctx, void* state) {
  const int64_t n = api->KernelContext_InputNumElements(ctx, 0);
  const int32_t* shape =
      (const int32_t*)api->KernelContext_InputData(ctx, 0, MF_INT32);
  int64_t dims[8];
  int64_t d;
  (void)state;
  if (shape == NULL) return MF_INVALID_ARGUMENT;
  if (n > 8) {
    api->KernelContext_SetError(ctx, MF_INVALID_ARGUMENT,
                                "Test>ShapeFromValue: at most 8 dims");
    return MF_INVALID_ARGUMENT;
  }
  for (d = 0; d < n; ++d) dims[d] = shape[d];
  return api->KernelContext_SetOutputShape(ctx, 0, dims, (int32_t)n);
}

static MF_Code ShapeFromValueInvoke(MF_KernelContext* ctx, void* state) {
  const MF_DataType t = MF_FLOAT;
  float* y = (float*)api->KernelContext_OutputData(ctx, 0, t);
  (void)state;
  if (y == NULL) return MF_INVALID_ARGUMENT;
  /* The output may be empty: its pointer is valid but must not be read. */
  return MF_OK;
}

/* ---- Test>Misbehave: y = x, or one misuse of the API per `mode` -------- */

static const char* const kModes[] = {
    "ok",                     /* 0 */
    "prepare_error",          /* 1 */
    "prepare_silent",         /* 2 */
    "invoke_error",           /* 3 */
    "no_output",              /* 4 */
    "bad_input_index",        /* 5 */
    "wrong_input_dtype",      /* 6 */
    "wrong_output_dtype",     /* 7 */
    "null_context",           /* 8 */
    "negative_dim",           /* 9 */
    "null_dims",              /* 10 */
    "shape_mismatch",         /* 11 */
    "no_shape",               /* 12 */
    "output_in_prepare",      /* 13 */
    "double_allocate",        /* 14 */
    "bad_dim_index",          /* 15 */
    "string_temp",            /* 16 */
    "invalid_temp_dtype",     /* 17 */
    "overflowing_temp",       /* 18 */
    "init_context_in_invoke", /* 19 */
    "init_error",             /* 20 */
    "missing_attr",           /* 21 */
    "wrong_attr_type",        /* 22 */
    "bad_code",               /* 23 */
    "operator_in_invoke",     /* 24 */
    "error_then_ok",          /* 25 */
};
enum { kNumModes = sizeof(kModes) / sizeof(kModes[0]) };

typedef struct {
  int mode;
  MF_KernelInitContext* init_ctx; /* kept on purpose by mode 19 */
} MisbehaveState;

static void* MisbehaveInit(MF_KernelInitContext* ctx, void* user_data) {
  MisbehaveState* st = (MisbehaveState*)calloc(1, sizeof(MisbehaveState));
  const char* mode = NULL;
  size_t length = 0;
  int m;
  int64_t unused;
  (void)user_data;
  if (st == NULL) return NULL;
  atomic_fetch_add(&live_states, 1);
  st->init_ctx = ctx;
  if (api->InitContext_GetAttrString(ctx, "mode", &mode, &length) != MF_OK)
    return st;
  st->mode = -1;
  for (m = 0; m < kNumModes; ++m) {
    if (strlen(kModes[m]) == length && memcmp(kModes[m], mode, length) == 0)
      st->mode = m;
  }
  if (st->mode == -1) {
    api->InitContext_SetError(ctx, MF_INVALID_ARGUMENT,
                              "Test>Misbehave: unknown mode");
  } else if (st->mode == 20) {
    api->InitContext_SetError(ctx, MF_FAILED_PRECONDITION,
                              "Test>Misbehave: Init refuses");
  } else if (st->mode == 21) {
    api->InitContext_GetAttrInt(ctx, "no_such_attr", &unused);
  } else if (st->mode == 22) {
    api->InitContext_GetAttrInt(ctx, "mode", &unused);
  }
  return st;
}

static void MisbehaveFree(void* state, void* user_data) {
  (void)user_data;
  free(state);
  atomic_fetch_sub(&live_states, 1);
}

static MF_Code SetShapeOfX(MF_KernelContext* ctx) {
  int64_t dims[8];
  const int32_t rank = api->KernelContext_InputNumDims(ctx, 0);
  int32_t d;
  if (rank < 0 || rank > 8) return MF_INVALID_ARGUMENT;
  for (d = 0; d < rank; ++d) dims[d] = api->KernelContext_InputDim(ctx, 0, d);
  return api->KernelContext_SetOutputShape(ctx, 0, dims, rank);
}

static MF_Code MisbehavePrepare(MF_KernelContext* ctx, void* state) {
  const MisbehaveState* st = (const MisbehaveState*)state;
  const int64_t negative = -2;
  switch (st->mode) {
    case 1:
      api->KernelContext_SetError(ctx, MF_INVALID_ARGUMENT,
                                  "Test>Misbehave: x must be positive");
      return MF_INVALID_ARGUMENT;
    case 2:
      return MF_FAILED_PRECONDITION;
    case 9:
      api->KernelContext_SetOutputShape(ctx, 0, &negative, 1);
      return MF_OK;
    case 10:
      api->KernelContext_SetOutputShape(ctx, 0, NULL, 2);
      return MF_OK;
    case 12:
      return MF_OK;
    case 13:
      api->KernelContext_OutputData(ctx, 0, MF_FLOAT);
      return SetShapeOfX(ctx);
    case 15:
      api->KernelContext_InputDim(ctx, 0, 7);
      return SetShapeOfX(ctx);
    default:
      return SetShapeOfX(ctx);
  }
}

static MF_Code MisbehaveInvoke(MF_KernelContext* ctx, void* state) {
  const MisbehaveState* st = (const MisbehaveState*)state;
  const int64_t n = api->KernelContext_InputNumElements(ctx, 0);
  const int64_t huge[2] = {INT64_C(1) << 40, INT64_C(1) << 40};
  const float* x;
  float* y;
  int64_t k;
  switch (st->mode) {
    case 3:
      api->KernelContext_SetError(ctx, MF_RESOURCE_EXHAUSTED,
                                  "Test>Misbehave: out of widgets");
      return MF_RESOURCE_EXHAUSTED;
    case 4:
      return MF_OK;
    case 5:
      api->KernelContext_InputData(ctx, 3, MF_FLOAT);
      break;
    case 6:
      api->KernelContext_InputData(ctx, 0, MF_DOUBLE);
      break;
    case 7:
      api->KernelContext_OutputData(ctx, 0, MF_INT32);
      break;
    case 8:
      api->KernelContext_InputNumDims(NULL, 0);
      break;
    case 11: {
      const int64_t wrong = n + 1;
      api->KernelContext_AllocateOutput(ctx, 0, MF_FLOAT, &wrong, 1);
      return MF_OK;
    }
    case 14:
      api->KernelContext_AllocateOutput(ctx, 0, MF_FLOAT, &n, 1);
      api->KernelContext_AllocateOutput(ctx, 0, MF_FLOAT, &n, 1);
      return MF_OK;
    case 16:
      api->KernelContext_AllocateTemp(ctx, MF_STRING, &n, 1);
      break;
    case 17:
      api->KernelContext_AllocateTemp(ctx, 999, &n, 1);
      break;
    case 18:
      api->KernelContext_AllocateTemp(ctx, MF_FLOAT, huge, 2);
      break;
    case 19:
      api->InitContext_NumInputs(st->init_ctx);
      break;
    case 23:
      return 12345;
    case 24:
      api->OperatorAddInput(NULL, "z: float");
      break;
    case 25:
      api->KernelContext_SetError(ctx, MF_INVALID_ARGUMENT,
                                  "Test>Misbehave: reported, then ignored");
      break;
    default:
      break;
  }
  /* Every mode that gets here still produces y = x and returns OK: the
   * error recorded above must win. */
  x = (const float*)api->KernelContext_InputData(ctx, 0, MF_FLOAT);
  y = (float*)api->KernelContext_OutputData(ctx, 0, MF_FLOAT);
  if (x == NULL || y == NULL) return MF_OK;
  for (k = 0; k < n; ++k) y[k] = x[k];
  return MF_OK;
}

/* ---- Registration ------------------------------------------------------ */

static int GetApi(const MF_PluginApiBase* base, MF_PluginRegistrar* r) {
  api = base->GetApi(r, MF_PLUGIN_API_VERSION);
  return api != NULL;
}

int32_t TestPluginInit(const MF_PluginApiBase* base, MF_PluginRegistrar* r) {
  MF_PluginOperator* op;
  int32_t failed = 0;
  if (!GetApi(base, r)) return 1;

  op = api->OperatorCreate(r, "Test>AttrEcho", 3);
  api->OperatorAddOutput(op, "ints: int64");
  api->OperatorAddOutput(op, "f_out: float");
  api->OperatorAddAttr(op, "i: int");
  api->OperatorAddAttr(op, "f: float = 0.5");
  api->OperatorAddAttr(op, "b: bool = true");
  api->OperatorAddAttr(op, "t: type = DT_INT64");
  api->OperatorAddAttr(op, "s: string = 'abc'");
  api->OperatorAddAttr(op, "l: list(int) = [4, 5]");
  api->OperatorSetInit(op, EchoInit);
  api->OperatorSetFree(op, EchoFree);
  api->OperatorSetPrepare(op, EchoPrepare);
  api->OperatorSetInvoke(op, EchoInvoke);
  failed |= api->RegisterOperator(r, op);

  op = api->OperatorCreate(r, "Test>Accumulate", 1);
  api->OperatorAddInput(op, "xs: N * T");
  api->OperatorAddOutput(op, "y: T");
  api->OperatorAddAttr(op, "N: int >= 1");
  api->OperatorAddAttr(op, "T: {float, double, int32}");
  api->OperatorSetPrepare(op, AccumulatePrepare);
  api->OperatorSetInvoke(op, AccumulateInvoke);
  api->OperatorSetShapeInference(op, MF_PLUGIN_SHAPES_FROM_PREPARE);
  failed |= api->RegisterOperator(r, op);

  op = api->OperatorCreate(r, "Test>ShapeFromValue", 1);
  api->OperatorAddInput(op, "shape: int32");
  api->OperatorAddOutput(op, "y: float");
  api->OperatorSetPrepare(op, ShapeFromValuePrepare);
  api->OperatorSetInvoke(op, ShapeFromValueInvoke);
  api->OperatorSetShapeInference(op, MF_PLUGIN_SHAPES_FROM_PREPARE);
  failed |= api->RegisterOperator(r, op);

  op = api->OperatorCreate(r, "Test>Misbehave", 1);
  api->OperatorAddInput(op, "x: float");
  api->OperatorAddOutput(op, "y: float");
  api->OperatorAddAttr(op, "mode: string");
  api->OperatorSetInit(op, MisbehaveInit);
  api->OperatorSetFree(op, MisbehaveFree);
  api->OperatorSetPrepare(op, MisbehavePrepare);
  api->OperatorSetInvoke(op, MisbehaveInvoke);
  failed |= api->RegisterOperator(r, op);
  return failed;
}

static MF_Code IdentityPrepare(MF_KernelContext* ctx, void* state) {
  (void)state;
  return SetShapeOfX(ctx);
}

static MF_Code IdentityInvoke(MF_KernelContext* ctx, void* state) {
  const int64_t n = api->KernelContext_InputNumElements(ctx, 0);
  const float* x = (const float*)api->KernelContext_InputData(ctx, 0, MF_FLOAT);
  float* y = (float*)api->KernelContext_OutputData(ctx, 0, MF_FLOAT);
  (void)state;
  if (x == NULL || y == NULL) return MF_INVALID_ARGUMENT;
  memcpy(y, x, (size_t)n * sizeof(float));
  return MF_OK;
}

/* A valid identity operator named `name`, not yet registered. */
static MF_PluginOperator* SimpleOp(MF_PluginRegistrar* r, const char* name) {
  MF_PluginOperator* op = api->OperatorCreate(r, name, 1);
  api->OperatorAddInput(op, "x: float");
  api->OperatorAddOutput(op, "y: float");
  api->OperatorSetPrepare(op, IdentityPrepare);
  api->OperatorSetInvoke(op, IdentityInvoke);
  return op;
}

int32_t TestPluginNewerApi(const MF_PluginApiBase* base,
                           MF_PluginRegistrar* r) {
  /* A plugin built against a newer header asks for a newer table. */
  const MF_PluginApi* newer = base->GetApi(r, MF_PLUGIN_API_VERSION + 1);
  if (newer == NULL) return 1;
  return newer->RegisterOperator(r, SimpleOp(r, "Test>FromTheFuture"));
}

int32_t TestPluginBadSpec(const MF_PluginApiBase* base, MF_PluginRegistrar* r) {
  MF_PluginOperator* op;
  if (!GetApi(base, r)) return 1;
  op = api->OperatorCreate(r, "Test>BadSpec", 1);
  api->OperatorAddInput(op, "x: Tx");
  api->OperatorAddOutput(op, "y: float");
  api->OperatorSetInvoke(op, IdentityInvoke);
  return api->RegisterOperator(r, op);
}

int32_t TestPluginTakenName(const MF_PluginApiBase* base,
                            MF_PluginRegistrar* r) {
  if (!GetApi(base, r)) return 1;
  return api->RegisterOperator(r, SimpleOp(r, "ZeroOut"));
}

int32_t TestPluginNoInvoke(const MF_PluginApiBase* base,
                           MF_PluginRegistrar* r) {
  MF_PluginOperator* op;
  if (!GetApi(base, r)) return 1;
  op = api->OperatorCreate(r, "Test>NoInvoke", 1);
  api->OperatorAddOutput(op, "y: float");
  return api->RegisterOperator(r, op);
}

int32_t TestPluginFailsSilently(const MF_PluginApiBase* base,
                                MF_PluginRegistrar* r) {
  if (!GetApi(base, r)) return 1;
  api->RegisterOperator(r, SimpleOp(r, "Test>Silent"));
  return 7;
}

int32_t TestPluginReportsError(const MF_PluginApiBase* base,
                               MF_PluginRegistrar* r) {
  if (!GetApi(base, r)) return 1;
  api->RegistrarSetError(r, MF_FAILED_PRECONDITION,
                         "this plugin needs a frobnicator");
  return 1;
}

int32_t TestPluginPartlyBad(const MF_PluginApiBase* base,
                            MF_PluginRegistrar* r) {
  MF_PluginOperator* op;
  if (!GetApi(base, r)) return 1;
  api->RegisterOperator(r, SimpleOp(r, "Test>PartlyGood"));
  op = SimpleOp(r, "Test>PartlyBad");
  api->OperatorAddAttr(op, "9: int");
  api->RegisterOperator(r, op);
  return 0; /* ignores the failure: the load must fail anyway */
}

int32_t TestPluginNullArguments(const MF_PluginApiBase* base,
                                MF_PluginRegistrar* r) {
  MF_PluginOperator* op;
  if (!GetApi(base, r)) return 1;
  op = api->OperatorCreate(NULL, "Test>NullRegistrar", 1); /* recorded */
  api->OperatorAddInput(op, "x: float");
  api->OperatorCreate(r, NULL, 1);
  api->OperatorAddInput(NULL, NULL);
  api->RegisterOperator(r, NULL);
  return 0;
}

int32_t TestPluginRegistersTwice(const MF_PluginApiBase* base,
                                 MF_PluginRegistrar* r) {
  int32_t failed = 0;
  if (!GetApi(base, r)) return 1;
  failed |= api->RegisterOperator(r, SimpleOp(r, "Test>Twice"));
  failed |= api->RegisterOperator(r, SimpleOp(r, "Test>Twice"));
  return failed;
}

int32_t TestPluginUsesRegisteredOperator(const MF_PluginApiBase* base,
                                         MF_PluginRegistrar* r) {
  MF_PluginOperator* op;
  if (!GetApi(base, r)) return 1;
  op = SimpleOp(r, "Test>UsedAfterRegister");
  api->RegisterOperator(r, op);
  api->OperatorAddAttr(op, "late: int"); /* op belongs to minflow now */
  return 0;
}

int32_t TestPluginNoPrepareForShapes(const MF_PluginApiBase* base,
                                     MF_PluginRegistrar* r) {
  MF_PluginOperator* op;
  if (!GetApi(base, r)) return 1;
  op = api->OperatorCreate(r, "Test>NoPrepare", 1);
  api->OperatorAddOutput(op, "y: float");
  api->OperatorSetInvoke(op, IdentityInvoke);
  api->OperatorSetShapeInference(op, MF_PLUGIN_SHAPES_FROM_PREPARE);
  return api->RegisterOperator(r, op);
}

int32_t TestPluginIdentity(const MF_PluginApiBase* base,
                           MF_PluginRegistrar* r) {
  if (!GetApi(base, r)) return 1;
  return api->RegisterOperator(r, SimpleOp(r, "Test>Identity"));
}

int32_t TestPluginEmpty(const MF_PluginApiBase* base, MF_PluginRegistrar* r) {
  MF_PluginOperator* op;
  if (!GetApi(base, r)) return 1;
  op = SimpleOp(r, "Test>Discarded");
  api->OperatorDelete(op);
  return 0;
}
