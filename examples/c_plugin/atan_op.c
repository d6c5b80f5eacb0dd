/* Examples>Atan: y = atan(x), elementwise, for float and double, as a
 * minflow plugin in plain C11 (LiteRT's custom-op guide, on minflow's
 * stable plugin ABI: include/minflow/c/kernel_plugin.h).
 *
 * The op is named "Examples>Atan" because "Atan" is built in; a plugin that
 * reuses a taken name is refused when it loads.
 *
 * Build: see CMakeLists.txt. Run:
 *   minflow run --load libatan.so atan_offset.pbtxt --feed x=[0,1,2]
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "minflow/c/kernel_plugin.h"

/* The table minflow hands to MF_PluginInit; the same for every call. */
static const MF_PluginApi* api;

/* Checks the input and gives the output the input's shape. */
static MF_Code AtanPrepare(MF_KernelContext* ctx, void* kernel_state) {
  int64_t dims[256];
  int32_t rank;
  int32_t d;
  (void)kernel_state;
  if (api->KernelContext_NumInputs(ctx) != 1 ||
      api->KernelContext_NumOutputs(ctx) != 1) {
    api->KernelContext_SetError(ctx, MF_INVALID_ARGUMENT,
                                "Examples>Atan takes one input and gives "
                                "one output");
    return MF_INVALID_ARGUMENT;
  }
  rank = api->KernelContext_InputNumDims(ctx, 0);
  if (rank < 0 || rank > 256) return MF_INVALID_ARGUMENT;
  for (d = 0; d < rank; ++d) dims[d] = api->KernelContext_InputDim(ctx, 0, d);
  return api->KernelContext_SetOutputShape(ctx, 0, dims, rank);
}

/* y[i] = atan(x[i]). A NULL pointer means minflow has recorded why. */
static MF_Code AtanInvoke(MF_KernelContext* ctx, void* kernel_state) {
  const MF_DataType dtype = api->KernelContext_InputDataType(ctx, 0);
  const int64_t n = api->KernelContext_InputNumElements(ctx, 0);
  int64_t i;
  (void)kernel_state;
  if (dtype == MF_FLOAT) {
    const float* x = (const float*)api->KernelContext_InputData(ctx, 0, dtype);
    float* y = (float*)api->KernelContext_OutputData(ctx, 0, dtype);
    if (x == NULL || y == NULL) return MF_INVALID_ARGUMENT;
    for (i = 0; i < n; ++i) y[i] = atanf(x[i]);
  } else if (dtype == MF_DOUBLE) {
    const double* x =
        (const double*)api->KernelContext_InputData(ctx, 0, dtype);
    double* y = (double*)api->KernelContext_OutputData(ctx, 0, dtype);
    if (x == NULL || y == NULL) return MF_INVALID_ARGUMENT;
    for (i = 0; i < n; ++i) y[i] = atan(x[i]);
  } else {
    api->KernelContext_SetError(ctx, MF_INVALID_ARGUMENT,
                                "Examples>Atan supports float and double");
    return MF_INVALID_ARGUMENT;
  }
  return MF_OK;
}

MF_PLUGIN_EXPORT int32_t MF_PluginInit(const MF_PluginApiBase* base,
                                       MF_PluginRegistrar* registrar) {
  MF_PluginOperator* op;
  api = base->GetApi(registrar, MF_PLUGIN_API_VERSION);
  if (api == NULL) return 1; /* minflow is too old; it says so */
  op = api->OperatorCreate(registrar, "Examples>Atan", 1);
  if (op == NULL) return 1;
  api->OperatorAddInput(op, "x: T");
  api->OperatorAddOutput(op, "y: T");
  api->OperatorAddAttr(op, "T: {float, double}");
  api->OperatorSetDoc(op,
                      "Computes the arc tangent of x element-wise.\n\n"
                      "A plugin written in C; see examples/c_plugin.");
  api->OperatorSetPrepare(op, AtanPrepare);
  api->OperatorSetInvoke(op, AtanInvoke);
  /* Prepare depends on the input's shape only, so it can infer shapes. */
  api->OperatorSetShapeInference(op, MF_PLUGIN_SHAPES_FROM_PREPARE);
  return api->RegisterOperator(registrar, op) == MF_OK ? 0 : 1;
}
