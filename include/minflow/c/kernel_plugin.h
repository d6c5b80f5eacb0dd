/* The stable plugin kernel ABI: custom ops written in C (or any language
 * that can export a C function), built by any compiler, against any minflow
 * whose plugin API serves the version they ask for.
 *
 * Plain C11; no minflow C++ type crosses this boundary.
 *
 * Note [Plugin kernel ABI]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * Loading. A plugin is a shared library that exports
 *
 *   MF_PLUGIN_EXPORT int32_t MF_PluginInit(const MF_PluginApiBase* base,
 *                                          MF_PluginRegistrar* registrar);
 *
 * minflow (LoadOpLibrary, `minflow run --load LIB`) calls it once. The
 * plugin never links against libminflow: everything it may call reaches it
 * as function pointers. Its first call is
 *
 *   const MF_PluginApi* api = base->GetApi(registrar, MF_PLUGIN_API_VERSION);
 *
 * which returns the function table, or NULL when this minflow cannot serve
 * that version; the load then fails with an error naming both versions, and
 * MF_PluginInit should return at once. MF_PluginInit then creates operators
 * (api->OperatorCreate), describes them with the same spec strings as
 * REGISTER_OP ("x: T", "T: {float, double}"), sets their callbacks and
 * registers them (api->RegisterOperator), and returns 0. Registration is
 * all or nothing: the operators become visible only when MF_PluginInit
 * returns 0 and every RegisterOperator succeeded; otherwise none is added.
 *
 * Versioning. MF_PLUGIN_API_VERSION grows by one whenever functions are
 * appended to MF_PluginApi. The table is append-only: a field is never
 * removed, reordered or given another signature, and the callback types
 * below never change, so the table of version N is a prefix of the table of
 * every later version. A minflow whose API version is M serves every
 * request from MF_PLUGIN_API_MIN_VERSION to M; a plugin built against a
 * newer header (N > M) is refused before it can read past the end of an
 * older table. MF_PluginApiBase is frozen forever.
 *
 * Callbacks. Each operator has up to four, LiteRT-style:
 *   Init(init_ctx, user_data) -> kernel_state   once per node per session,
 *       when the kernel is made; reads attrs and dtypes. Optional: without
 *       it kernel_state is the operator's user_data.
 *   Free(kernel_state, user_data)   once for each non-NULL state Init
 *       returned, when the kernel is destroyed (also when Init reported an
 *       error). Optional; never called for operators without Init.
 *   Prepare(ctx, kernel_state)   before every Invoke: checks inputs, sets
 *       output shapes (KernelContext_SetOutputShape). Optional.
 *   Invoke(ctx, kernel_state)   reads inputs, writes every output.
 *       Required.
 * Prepare and Invoke return MF_OK or an error code; the message goes
 * through KernelContext_SetError. Their failure becomes the step's Status,
 * naming the node and the op.
 *
 * Shape inference. By default a plugin op's outputs have unknown shapes
 * until it runs. OperatorSetShapeInference(op, MF_PLUGIN_SHAPES_FROM_PREPARE)
 * makes minflow also run Init, Prepare and Free while it checks a graph,
 * for each node whose input shapes are all fully known (otherwise the
 * outputs stay unknown); the shapes Prepare sets become the node's output
 * shapes and a Prepare error makes the graph invalid. During that call
 * KernelContext_IsShapeInference returns 1, KernelContext_InputData returns
 * an input's value only when it is a small known constant, and output data
 * and temporaries are unavailable; a Prepare that asks for what is
 * unavailable leaves the outputs unknown rather than failing. Opt in only
 * when Prepare's output shapes depend on nothing but input shapes, attrs
 * and such constant inputs.
 *
 * Errors and untrusted plugins. Every API function checks its arguments:
 * a NULL handle or pointer, an index out of range, a dtype that is not the
 * tensor's, a negative dimension, a call made in the wrong callback. It
 * then returns NULL / -1 / an error code and records a clear error in the
 * context, which fails the callback even if the plugin goes on to return
 * MF_OK (the first error wins). Invoke returning MF_OK without
 * producing every output is an error naming the output. A failing plugin
 * call fails that node's step; the process keeps working.
 *
 * Ownership. Handles are owned by minflow and valid only during the call
 * that received them: never keep a context after the callback returns.
 * Strings passed in are copied; strings returned point into minflow and
 * live as long as the context. Input data is read-only; input, output and
 * temporary data pointers are valid until the callback returns. An
 * MF_PluginOperator lives until RegisterOperator (which always takes it),
 * OperatorDelete, or the end of MF_PluginInit, whichever comes first.
 * user_data is never freed by minflow (a plugin library is never
 * unloaded).
 *
 * Threading. Init and Free run once per kernel, but kernels of different
 * nodes and sessions (and the shape-inference calls) may be made at the
 * same time: Init may run concurrently with itself and with Invoke, so
 * user_data is shared read-only. Prepare and Invoke of one kernel may run
 * concurrently from different steps (Session::Run from several threads),
 * always with distinct contexts: treat kernel_state as read-only there, or
 * synchronise. A context must be used only on the thread that received it
 * (data pointers may be shared with worker threads during the call).
 * MF_PluginInit runs once, on one thread.
 *
 * Data types (MF_DataType) are TensorFlow's DataType numbers; data access
 * is for numeric and bool types (bool is one byte holding 0 or 1; half and
 * bfloat16 are 16-bit storage), not MF_STRING, MF_RESOURCE or MF_VARIANT.
 * Codes (MF_Code) are TensorFlow's. Data pointers of tensors with
 * no elements are non-NULL and must not be dereferenced. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* MF_DataType (MF_FLOAT, ...) and MF_Code (MF_OK, ...), shared with the C
 * API for applications. A plugin uses only these enums from them: the
 * functions they declare live in libminflow, which plugins do not link. */
#include "minflow/c/mf_datatype.h"
#include "minflow/c/mf_status.h"

#if defined(_WIN32)
#define MF_PLUGIN_EXPORT __declspec(dllexport)
#else
#define MF_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The newest plugin API version this header describes; a plugin passes it
 * to GetApi. */
#define MF_PLUGIN_API_VERSION 1
/* The oldest version this minflow still serves. */
#define MF_PLUGIN_API_MIN_VERSION 1
/* The symbol LoadOpLibrary looks up. */
#define MF_PLUGIN_INIT_SYMBOL "MF_PluginInit"

/* OperatorSetShapeInference modes. */
enum { MF_PLUGIN_SHAPES_UNKNOWN = 0, MF_PLUGIN_SHAPES_FROM_PREPARE = 1 };

/* Opaque handles. */
typedef struct MF_PluginRegistrar MF_PluginRegistrar;
typedef struct MF_PluginOperator MF_PluginOperator;
typedef struct MF_KernelInitContext MF_KernelInitContext;
typedef struct MF_KernelContext MF_KernelContext;

/* Callback types (frozen; see Note [Plugin kernel ABI]). */
typedef void* (*MF_PluginInitFn)(MF_KernelInitContext* ctx, void* user_data);
typedef void (*MF_PluginFreeFn)(void* kernel_state, void* user_data);
typedef MF_Code (*MF_PluginPrepareFn)(MF_KernelContext* ctx,
                                      void* kernel_state);
typedef MF_Code (*MF_PluginInvokeFn)(MF_KernelContext* ctx, void* kernel_state);

/* The function table, version 1. Append-only. */
typedef struct MF_PluginApi {
  uint32_t api_version;        /* the version this minflow implements */
  uint32_t struct_size;        /* sizeof(MF_PluginApi) in this minflow */
  const char* minflow_version; /* "0.1.0" */

  /* ---- Registration: only inside MF_PluginInit. ---- */

  /* A new operator named `name` (CamelCase, '>'-separated parts allowed:
   * "Examples>Atan"); `version` (>= 1) is the plugin's own version of its
   * kernel, shown in kernel listings and errors. NULL (with the error
   * recorded) for a NULL registrar or name. */
  MF_PluginOperator* (*OperatorCreate)(MF_PluginRegistrar* registrar,
                                       const char* name, int32_t version);
  /* REGISTER_OP's specs, in order: Input("x: T"), Output("y: T"),
   * Attr("T: {float, double}"), Doc("..."). Mistakes are reported by
   * RegisterOperator. */
  void (*OperatorAddInput)(MF_PluginOperator* op, const char* spec);
  void (*OperatorAddOutput)(MF_PluginOperator* op, const char* spec);
  void (*OperatorAddAttr)(MF_PluginOperator* op, const char* spec);
  void (*OperatorSetDoc)(MF_PluginOperator* op, const char* doc);
  /* Passed to Init and Free; the kernel state when there is no Init. */
  void (*OperatorSetUserData)(MF_PluginOperator* op, void* user_data);
  void (*OperatorSetInit)(MF_PluginOperator* op, MF_PluginInitFn fn);
  void (*OperatorSetFree)(MF_PluginOperator* op, MF_PluginFreeFn fn);
  void (*OperatorSetPrepare)(MF_PluginOperator* op, MF_PluginPrepareFn fn);
  void (*OperatorSetInvoke)(MF_PluginOperator* op, MF_PluginInvokeFn fn);
  /* MF_PLUGIN_SHAPES_UNKNOWN (default) or MF_PLUGIN_SHAPES_FROM_PREPARE. */
  void (*OperatorSetShapeInference)(MF_PluginOperator* op, int32_t mode);
  /* Checks the operator (specs, name free, an Invoke set) and queues it;
   * always takes ownership of `op`. MF_OK, or an error code with
   * the message recorded for the load's Status. */
  MF_Code (*RegisterOperator)(MF_PluginRegistrar* registrar,
                              MF_PluginOperator* op);
  /* Discards an operator that will not be registered. */
  void (*OperatorDelete)(MF_PluginOperator* op);
  /* Fails the load with `message` (MF_PluginInit should then return
   * non-zero). */
  void (*RegistrarSetError)(MF_PluginRegistrar* registrar, MF_Code code,
                            const char* message);

  /* ---- Init: the node being made into a kernel. ---- */

  const char* (*InitContext_NodeName)(MF_KernelInitContext* ctx);
  int32_t (*InitContext_NumInputs)(MF_KernelInitContext* ctx);
  int32_t (*InitContext_NumOutputs)(MF_KernelInitContext* ctx);
  MF_DataType (*InitContext_InputDataType)(MF_KernelInitContext* ctx,
                                           int32_t index);
  MF_DataType (*InitContext_OutputDataType)(MF_KernelInitContext* ctx,
                                            int32_t index);
  /* 1 when the node has attr `name` (declared attrs always have a value:
   * defaults are filled in), 0 otherwise; never an error. */
  int32_t (*InitContext_HasAttr)(MF_KernelInitContext* ctx, const char* name);
  /* Attr readers: MF_OK, or NOT_FOUND (no such attr) /
   * INVALID_ARGUMENT (another attr type; a NULL argument), recorded. */
  MF_Code (*InitContext_GetAttrInt)(MF_KernelInitContext* ctx, const char* name,
                                    int64_t* value);
  MF_Code (*InitContext_GetAttrFloat)(MF_KernelInitContext* ctx,
                                      const char* name, float* value);
  /* *value is 0 or 1. */
  MF_Code (*InitContext_GetAttrBool)(MF_KernelInitContext* ctx,
                                     const char* name, int32_t* value);
  MF_Code (*InitContext_GetAttrType)(MF_KernelInitContext* ctx,
                                     const char* name, MF_DataType* value);
  /* *data points at *length bytes (not NUL-terminated in general; may
   * contain NULs), valid until Init returns. */
  MF_Code (*InitContext_GetAttrString)(MF_KernelInitContext* ctx,
                                       const char* name, const char** data,
                                       size_t* length);
  /* Copies min(count, max_values) ints into `values` (may be NULL when
   * max_values is 0) and sets *count to the list's length. */
  MF_Code (*InitContext_GetAttrIntList)(MF_KernelInitContext* ctx,
                                        const char* name, int64_t* values,
                                        int32_t max_values, int32_t* count);
  /* Fails kernel construction with `message`. */
  void (*InitContext_SetError)(MF_KernelInitContext* ctx, MF_Code code,
                               const char* message);

  /* ---- Prepare and Invoke: one call on one node. ---- */

  const char* (*KernelContext_NodeName)(MF_KernelContext* ctx);
  /* 1 inside the shape-inference call of Prepare, else 0. */
  int32_t (*KernelContext_IsShapeInference)(MF_KernelContext* ctx);
  int32_t (*KernelContext_NumInputs)(MF_KernelContext* ctx);
  int32_t (*KernelContext_NumOutputs)(MF_KernelContext* ctx);
  /* MF_INVALID on a bad index. */
  MF_DataType (*KernelContext_InputDataType)(MF_KernelContext* ctx,
                                             int32_t index);
  /* Rank; -1 on a bad index. */
  int32_t (*KernelContext_InputNumDims)(MF_KernelContext* ctx, int32_t index);
  /* Size of dimension `dim`; -1 on a bad index or dim. */
  int64_t (*KernelContext_InputDim)(MF_KernelContext* ctx, int32_t index,
                                    int32_t dim);
  int64_t (*KernelContext_InputNumElements)(MF_KernelContext* ctx,
                                            int32_t index);
  /* The input's elements, row-major, read-only. `dtype` must be the
   * input's: asking for another is an error (NULL), never a
   * reinterpretation. */
  const void* (*KernelContext_InputData)(MF_KernelContext* ctx, int32_t index,
                                         MF_DataType dtype);
  MF_DataType (*KernelContext_OutputDataType)(MF_KernelContext* ctx,
                                              int32_t index);
  /* Sets output `index`'s shape (usually in Prepare); `dims` may be NULL
   * when num_dims is 0 (a scalar). */
  MF_Code (*KernelContext_SetOutputShape)(MF_KernelContext* ctx, int32_t index,
                                          const int64_t* dims,
                                          int32_t num_dims);
  /* Invoke only. Allocates output `index` with this shape (which must match
   * one set by SetOutputShape, if any) and returns its data. `dtype` must
   * be the output's. NULL on error. */
  void* (*KernelContext_AllocateOutput)(MF_KernelContext* ctx, int32_t index,
                                        MF_DataType dtype, const int64_t* dims,
                                        int32_t num_dims);
  /* Invoke only. Output `index`'s data: allocated with the shape set by
   * SetOutputShape on the first call, the same buffer afterwards. */
  void* (*KernelContext_OutputData)(MF_KernelContext* ctx, int32_t index,
                                    MF_DataType dtype);
  /* Scratch memory, valid until the callback returns. */
  void* (*KernelContext_AllocateTemp)(MF_KernelContext* ctx, MF_DataType dtype,
                                      const int64_t* dims, int32_t num_dims);
  /* Fails this call with `message` (the callback should then return
   * `code`). */
  void (*KernelContext_SetError)(MF_KernelContext* ctx, MF_Code code,
                                 const char* message);
} MF_PluginApi;

/* Frozen forever: what MF_PluginInit receives. */
typedef struct MF_PluginApiBase {
  uint32_t max_api_version; /* MF_PLUGIN_API_VERSION of this minflow */
  uint32_t min_api_version; /* MF_PLUGIN_API_MIN_VERSION of this minflow */
  /* The table for `version`, or NULL (with the load's error recorded) when
   * this minflow does not serve it. */
  const MF_PluginApi* (*GetApi)(MF_PluginRegistrar* registrar,
                                uint32_t version);
} MF_PluginApiBase;

/* The entry point a plugin library exports (see Note [Plugin kernel ABI]):
 * returns 0 on success. Declared here so the compiler checks a plugin's
 * definition; minflow itself only looks it up by name. */
typedef int32_t (*MF_PluginInitEntry)(const MF_PluginApiBase* base,
                                      MF_PluginRegistrar* registrar);
MF_PLUGIN_EXPORT int32_t MF_PluginInit(const MF_PluginApiBase* base,
                                       MF_PluginRegistrar* registrar);

#ifdef __cplusplus
} /* extern "C" */
#endif
