/* minflow's C API for applications: build or import a graph, inspect it,
 * and run it in a session, from C or any language with a C FFI. Names follow
 * TensorFlow's TF_ C API with an MF_ prefix.
 *
 * Plain C (C89 and later, and C++ through the extern "C" guard). The
 * functions live in libminflow itself (CMake target minflow::minflow), next
 * to the C++ API they wrap; see include/minflow/c/README.md.
 *
 * Conventions:
 * - Every handle is opaque and made by an MF_New... function; each has an
 *   MF_Delete... function, and deleting NULL is a no-op.
 * - Functions that can fail take an MF_Status* last; on return it holds
 *   MF_OK or an error code with a message. A NULL status is allowed (errors
 *   are then dropped). Bad arguments (NULL pointers, unknown dtypes, dims
 *   that disagree with a byte size, out-of-range indices, operations of
 *   another graph) are errors, never crashes.
 * - Getters without a status return a sentinel for bad arguments: NULL,
 *   -1, MF_INVALID or {NULL, -1}, as documented on each.
 * - Strings returned as const char* belong to the object they came from and
 *   live as long as it does.
 * - Thread safety: a graph may be used from several threads (it locks
 *   internally; see MF_OperationOutputConsumers for the exception); a
 *   session may run from several threads at once. Statuses, tensors,
 *   buffers, options and operation descriptions must not be shared.
 */
#ifndef MINFLOW_C_C_API_H_
#define MINFLOW_C_C_API_H_

#include <stddef.h>
#include <stdint.h>

#include "minflow/c/c_api_macros.h"
#include "minflow/c/mf_datatype.h"
#include "minflow/c/mf_status.h"
#include "minflow/c/mf_tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "0.1.0": the minflow release this library was built from. */
MF_CAPI_EXPORT extern const char* MF_Version(void);

/* ---- Buffers ----------------------------------------------------------- */

/* Bytes, usually a serialized protocol buffer. `data_deallocator`, when not
 * NULL, is called by MF_DeleteBuffer to free `data`. */
typedef struct MF_Buffer {
  const void* data;
  size_t length;
  void (*data_deallocator)(void* data, size_t length);
} MF_Buffer;

/* An empty buffer, to be filled by functions such as MF_GraphToGraphDef. */
MF_CAPI_EXPORT extern MF_Buffer* MF_NewBuffer(void);
/* A buffer holding a copy of `proto` (`proto_len` bytes); NULL when
 * `proto` is NULL and `proto_len` is not 0. */
MF_CAPI_EXPORT extern MF_Buffer* MF_NewBufferFromString(const void* proto,
                                                        size_t proto_len);
MF_CAPI_EXPORT extern void MF_DeleteBuffer(MF_Buffer* buffer);
/* A copy of the struct (an empty one for NULL). */
MF_CAPI_EXPORT extern MF_Buffer MF_GetBuffer(MF_Buffer* buffer);

/* ---- Graphs and operations --------------------------------------------- */

/* A graph under construction or imported; owns its operations. */
typedef struct MF_Graph MF_Graph;
/* A node of a graph, valid as long as the graph. Never freed by the user. */
typedef struct MF_Operation MF_Operation;
/* An operation being built (MF_NewOperation ... MF_FinishOperation). */
typedef struct MF_OperationDescription MF_OperationDescription;

/* Output `index` of `oper`, and input `index` of `oper`. */
typedef struct MF_Output {
  MF_Operation* oper;
  int index;
} MF_Output;
typedef struct MF_Input {
  MF_Operation* oper;
  int index;
} MF_Input;

MF_CAPI_EXPORT extern MF_Graph* MF_NewGraph(void);
/* Frees the graph and its operations; when sessions made from it are still
 * alive, the graph goes when the last of them is deleted. */
MF_CAPI_EXPORT extern void MF_DeleteGraph(MF_Graph* graph);

/* The operation named `oper_name`, or NULL (also for NULL arguments). */
MF_CAPI_EXPORT extern MF_Operation* MF_GraphOperationByName(
    MF_Graph* graph, const char* oper_name);
/* Iterates the operations in the order they were added: start with
 * `*pos` = 0; returns NULL at the end (and for NULL arguments). */
MF_CAPI_EXPORT extern MF_Operation* MF_GraphNextOperation(MF_Graph* graph,
                                                          size_t* pos);
/* The number of operations; -1 for NULL. */
MF_CAPI_EXPORT extern int MF_GraphNumOperations(MF_Graph* graph);

/* The rank inferred for `output` (-1 when unknown), and its dims (-1 for
 * unknown ones) into `dims`, which must hold exactly the rank. */
MF_CAPI_EXPORT extern int MF_GraphGetTensorNumDims(MF_Graph* graph,
                                                   MF_Output output,
                                                   MF_Status* status);
MF_CAPI_EXPORT extern void MF_GraphGetTensorShape(MF_Graph* graph,
                                                  MF_Output output,
                                                  int64_t* dims, int num_dims,
                                                  MF_Status* status);

/* Writes the graph as a binary GraphDef into `output_graph_def`, which must
 * be empty (from MF_NewBuffer); free it with MF_DeleteBuffer. */
MF_CAPI_EXPORT extern void MF_GraphToGraphDef(MF_Graph* graph,
                                              MF_Buffer* output_graph_def,
                                              MF_Status* status);
/* The OpDef of a registered op, binary, into an empty buffer. NotFound for
 * an unknown op. */
MF_CAPI_EXPORT extern void MF_GraphGetOpDef(MF_Graph* graph,
                                            const char* op_name,
                                            MF_Buffer* output_op_def,
                                            MF_Status* status);
/* Every registered op as a binary OpList; free with MF_DeleteBuffer. */
MF_CAPI_EXPORT extern MF_Buffer* MF_GetAllOpList(void);

/* Options for MF_GraphImportGraphDef. */
typedef struct MF_ImportGraphDefOptions MF_ImportGraphDefOptions;
MF_CAPI_EXPORT extern MF_ImportGraphDefOptions* MF_NewImportGraphDefOptions(
    void);
MF_CAPI_EXPORT extern void MF_DeleteImportGraphDefOptions(
    MF_ImportGraphDefOptions* opts);
/* Prepended to every imported name (and to the inputs naming them), e.g.
 * "imported/". The string is copied. */
MF_CAPI_EXPORT extern void MF_ImportGraphDefOptionsSetPrefix(
    MF_ImportGraphDefOptions* opts, const char* prefix);
/* The device of every imported node that names none. */
MF_CAPI_EXPORT extern void MF_ImportGraphDefOptionsSetDefaultDevice(
    MF_ImportGraphDefOptions* opts, const char* device);

/* TensorFlow's input_map: data inputs of imported operations that read
 * output `src_index` of `src_name` (as the GraphDef names it, before the
 * prefix) read `dst`, an output of an operation of the graph imported
 * into, instead. Mapping the same key again replaces its value. The import
 * checks `dst` (InvalidArgument / OutOfRange naming the key) and the
 * dtypes of the new edges. */
MF_CAPI_EXPORT extern void MF_ImportGraphDefOptionsAddInputMapping(
    MF_ImportGraphDefOptions* opts, const char* src_name, int src_index,
    MF_Output dst);
/* Asks MF_GraphImportGraphDefWithResults for output `index` of the
 * GraphDef's node `oper_name` (a mapped key gives its mapped tensor), or
 * for the operation imported from node `oper_name`. A name that is not a
 * node of the GraphDef fails the import. */
MF_CAPI_EXPORT extern void MF_ImportGraphDefOptionsAddReturnOutput(
    MF_ImportGraphDefOptions* opts, const char* oper_name, int index);
MF_CAPI_EXPORT extern int MF_ImportGraphDefOptionsNumReturnOutputs(
    const MF_ImportGraphDefOptions* opts);
MF_CAPI_EXPORT extern void MF_ImportGraphDefOptionsAddReturnOperation(
    MF_ImportGraphDefOptions* opts, const char* oper_name);
MF_CAPI_EXPORT extern int MF_ImportGraphDefOptionsNumReturnOperations(
    const MF_ImportGraphDefOptions* opts);

/* Adds the nodes of a GraphDef (binary or text format) to `graph`, with the
 * same checks as a session's import and shape inference. `options` may be
 * NULL. All or nothing: on error the graph is unchanged. */
MF_CAPI_EXPORT extern void MF_GraphImportGraphDef(
    MF_Graph* graph, const MF_Buffer* graph_def,
    const MF_ImportGraphDefOptions* options, MF_Status* status);

/* What an import returns: the requested outputs and operations, and the
 * input-mapping keys whose node is not in the GraphDef or lacks that
 * output (TensorFlow's Python import_graph_def reports them as an error). */
typedef struct MF_ImportGraphDefResults MF_ImportGraphDefResults;
/* MF_GraphImportGraphDef, returning the results (NULL on error); free them
 * with MF_DeleteImportGraphDefResults. */
MF_CAPI_EXPORT extern MF_ImportGraphDefResults*
MF_GraphImportGraphDefWithResults(MF_Graph* graph, const MF_Buffer* graph_def,
                                  const MF_ImportGraphDefOptions* options,
                                  MF_Status* status);
/* The arrays belong to `results`, in the order they were asked for. */
MF_CAPI_EXPORT extern void MF_ImportGraphDefResultsReturnOutputs(
    MF_ImportGraphDefResults* results, int* num_outputs, MF_Output** outputs);
MF_CAPI_EXPORT extern void MF_ImportGraphDefResultsReturnOperations(
    MF_ImportGraphDefResults* results, int* num_opers, MF_Operation*** opers);
MF_CAPI_EXPORT extern void MF_ImportGraphDefResultsMissingUnusedInputMappings(
    MF_ImportGraphDefResults* results, int* num_missing_unused_input_mappings,
    const char*** src_names, int** src_indexes);
MF_CAPI_EXPORT extern void MF_DeleteImportGraphDefResults(
    MF_ImportGraphDefResults* results);

/* Operation properties; NULL / -1 / MF_INVALID for bad arguments. */
MF_CAPI_EXPORT extern const char* MF_OperationName(MF_Operation* oper);
MF_CAPI_EXPORT extern const char* MF_OperationOpType(MF_Operation* oper);
/* The device asked for ("" when none). */
MF_CAPI_EXPORT extern const char* MF_OperationDevice(MF_Operation* oper);
MF_CAPI_EXPORT extern int MF_OperationNumInputs(MF_Operation* oper);
MF_CAPI_EXPORT extern int MF_OperationNumOutputs(MF_Operation* oper);
MF_CAPI_EXPORT extern MF_DataType MF_OperationInputType(MF_Input oper_in);
MF_CAPI_EXPORT extern MF_DataType MF_OperationOutputType(MF_Output oper_out);
/* The output feeding `oper_in`; {NULL, -1} for bad arguments. */
MF_CAPI_EXPORT extern MF_Output MF_OperationInput(MF_Input oper_in);
/* How many inputs `oper_out` feeds (-1 for bad arguments), and the first
 * `max_consumers` of them into `consumers`; returns the number written.
 * Consumers change as operations are added: do not call these while
 * another thread adds operations to the same graph. */
MF_CAPI_EXPORT extern int MF_OperationOutputNumConsumers(MF_Output oper_out);
MF_CAPI_EXPORT extern int MF_OperationOutputConsumers(MF_Output oper_out,
                                                      MF_Input* consumers,
                                                      int max_consumers);
/* Control inputs, as above. */
MF_CAPI_EXPORT extern int MF_OperationNumControlInputs(MF_Operation* oper);
MF_CAPI_EXPORT extern int MF_OperationGetControlInputs(
    MF_Operation* oper, MF_Operation** control_inputs, int max_control_inputs);
/* The operation's NodeDef, binary, into an empty buffer. */
MF_CAPI_EXPORT extern void MF_OperationToNodeDef(MF_Operation* oper,
                                                 MF_Buffer* output_node_def,
                                                 MF_Status* status);

/* ---- Reading attrs ------------------------------------------------------ */

typedef enum MF_AttrType {
  MF_ATTR_STRING = 0,
  MF_ATTR_INT = 1,
  MF_ATTR_FLOAT = 2,
  MF_ATTR_BOOL = 3,
  MF_ATTR_TYPE = 4,
  MF_ATTR_SHAPE = 5,
  MF_ATTR_TENSOR = 6,
  MF_ATTR_PLACEHOLDER = 7,
  MF_ATTR_FUNC = 8
} MF_AttrType;

/* What an attr holds. For a list, list_size is its length (else -1).
 * total_size: a string's length, a shape's rank (-1 unknown), a list of
 * strings' total length, a list of shapes' total rank; else -1. */
typedef struct MF_AttrMetadata {
  unsigned char is_list;
  int64_t list_size;
  MF_AttrType type;
  int64_t total_size;
} MF_AttrMetadata;

/* Every getter: NotFound when the operation has no such attr,
 * InvalidArgument when it holds another type or a destination is too
 * small. List getters write the first `max_values` values. */
MF_CAPI_EXPORT extern MF_AttrMetadata MF_OperationGetAttrMetadata(
    MF_Operation* oper, const char* attr_name, MF_Status* status);
/* Copies the bytes (not NUL-terminated); `max_length` must be at least the
 * length (MF_AttrMetadata.total_size). */
MF_CAPI_EXPORT extern void MF_OperationGetAttrString(MF_Operation* oper,
                                                     const char* attr_name,
                                                     void* value,
                                                     size_t max_length,
                                                     MF_Status* status);
/* values[i] points into `storage` (of `storage_size` bytes), lengths[i] is
 * its length. */
MF_CAPI_EXPORT extern void MF_OperationGetAttrStringList(
    MF_Operation* oper, const char* attr_name, void** values, size_t* lengths,
    int max_values, void* storage, size_t storage_size, MF_Status* status);
MF_CAPI_EXPORT extern void MF_OperationGetAttrInt(MF_Operation* oper,
                                                  const char* attr_name,
                                                  int64_t* value,
                                                  MF_Status* status);
MF_CAPI_EXPORT extern void MF_OperationGetAttrIntList(MF_Operation* oper,
                                                      const char* attr_name,
                                                      int64_t* values,
                                                      int max_values,
                                                      MF_Status* status);
MF_CAPI_EXPORT extern void MF_OperationGetAttrFloat(MF_Operation* oper,
                                                    const char* attr_name,
                                                    float* value,
                                                    MF_Status* status);
MF_CAPI_EXPORT extern void MF_OperationGetAttrFloatList(MF_Operation* oper,
                                                        const char* attr_name,
                                                        float* values,
                                                        int max_values,
                                                        MF_Status* status);
MF_CAPI_EXPORT extern void MF_OperationGetAttrBool(MF_Operation* oper,
                                                   const char* attr_name,
                                                   unsigned char* value,
                                                   MF_Status* status);
MF_CAPI_EXPORT extern void MF_OperationGetAttrBoolList(MF_Operation* oper,
                                                       const char* attr_name,
                                                       unsigned char* values,
                                                       int max_values,
                                                       MF_Status* status);
MF_CAPI_EXPORT extern void MF_OperationGetAttrType(MF_Operation* oper,
                                                   const char* attr_name,
                                                   MF_DataType* value,
                                                   MF_Status* status);
MF_CAPI_EXPORT extern void MF_OperationGetAttrTypeList(MF_Operation* oper,
                                                       const char* attr_name,
                                                       MF_DataType* values,
                                                       int max_values,
                                                       MF_Status* status);
/* Writes the shape's dims (-1 for unknown ones) into `value`; `num_dims`
 * must be at least the rank (MF_AttrMetadata.total_size). An unknown-rank
 * shape writes nothing. */
MF_CAPI_EXPORT extern void MF_OperationGetAttrShape(MF_Operation* oper,
                                                    const char* attr_name,
                                                    int64_t* value,
                                                    int num_dims,
                                                    MF_Status* status);
/* A new tensor the caller deletes with MF_DeleteTensor. */
MF_CAPI_EXPORT extern void MF_OperationGetAttrTensor(MF_Operation* oper,
                                                     const char* attr_name,
                                                     MF_Tensor** value,
                                                     MF_Status* status);
/* Any attr as a binary AttrValue, into an empty buffer. */
MF_CAPI_EXPORT extern void MF_OperationGetAttrValueProto(
    MF_Operation* oper, const char* attr_name, MF_Buffer* output_attr_value,
    MF_Status* status);

/* ---- Building operations ------------------------------------------------ */

/* Starts an operation of type `op_type` named `oper_name` in `graph`.
 * Inputs are added in the order of the op's input args: MF_AddInput for a
 * single-tensor arg, MF_AddInputList for a list arg. Type and length attrs
 * the inputs determine (T, N, ...) are inferred, as are attr defaults.
 * Setters have no status: the first problem (unknown op, NULL name, bad
 * dtype or dims, an input from another graph or out of range) is kept and
 * reported by MF_FinishOperation, which every description must reach.
 * Returns NULL (and records nothing) only for a NULL graph, op_type or
 * oper_name; MF_FinishOperation(NULL, status) then reports it. */
MF_CAPI_EXPORT extern MF_OperationDescription* MF_NewOperation(
    MF_Graph* graph, const char* op_type, const char* oper_name);
MF_CAPI_EXPORT extern void MF_SetDevice(MF_OperationDescription* desc,
                                        const char* device);
MF_CAPI_EXPORT extern void MF_AddInput(MF_OperationDescription* desc,
                                       MF_Output input);
MF_CAPI_EXPORT extern void MF_AddInputList(MF_OperationDescription* desc,
                                           const MF_Output* inputs,
                                           int num_inputs);
MF_CAPI_EXPORT extern void MF_AddControlInput(MF_OperationDescription* desc,
                                              MF_Operation* input);
/* Places the operation with `op` (the "_class" attr, "loc:@<name>"). */
MF_CAPI_EXPORT extern void MF_ColocateWith(MF_OperationDescription* desc,
                                           MF_Operation* op);

MF_CAPI_EXPORT extern void MF_SetAttrString(MF_OperationDescription* desc,
                                            const char* attr_name,
                                            const void* value, size_t length);
MF_CAPI_EXPORT extern void MF_SetAttrStringList(MF_OperationDescription* desc,
                                                const char* attr_name,
                                                const void* const* values,
                                                const size_t* lengths,
                                                int num_values);
MF_CAPI_EXPORT extern void MF_SetAttrInt(MF_OperationDescription* desc,
                                         const char* attr_name, int64_t value);
MF_CAPI_EXPORT extern void MF_SetAttrIntList(MF_OperationDescription* desc,
                                             const char* attr_name,
                                             const int64_t* values,
                                             int num_values);
MF_CAPI_EXPORT extern void MF_SetAttrFloat(MF_OperationDescription* desc,
                                           const char* attr_name, float value);
MF_CAPI_EXPORT extern void MF_SetAttrFloatList(MF_OperationDescription* desc,
                                               const char* attr_name,
                                               const float* values,
                                               int num_values);
MF_CAPI_EXPORT extern void MF_SetAttrBool(MF_OperationDescription* desc,
                                          const char* attr_name,
                                          unsigned char value);
MF_CAPI_EXPORT extern void MF_SetAttrBoolList(MF_OperationDescription* desc,
                                              const char* attr_name,
                                              const unsigned char* values,
                                              int num_values);
MF_CAPI_EXPORT extern void MF_SetAttrType(MF_OperationDescription* desc,
                                          const char* attr_name,
                                          MF_DataType value);
MF_CAPI_EXPORT extern void MF_SetAttrTypeList(MF_OperationDescription* desc,
                                              const char* attr_name,
                                              const MF_DataType* values,
                                              int num_values);
/* `num_dims` -1: unknown rank; a dim of -1: unknown size. */
MF_CAPI_EXPORT extern void MF_SetAttrShape(MF_OperationDescription* desc,
                                           const char* attr_name,
                                           const int64_t* dims, int num_dims);
MF_CAPI_EXPORT extern void MF_SetAttrShapeList(MF_OperationDescription* desc,
                                               const char* attr_name,
                                               const int64_t* const* dims,
                                               const int* num_dims,
                                               int num_shapes);
/* The tensor's value is copied; the caller keeps `value`. */
MF_CAPI_EXPORT extern void MF_SetAttrTensor(MF_OperationDescription* desc,
                                            const char* attr_name,
                                            MF_Tensor* value,
                                            MF_Status* status);
MF_CAPI_EXPORT extern void MF_SetAttrTensorList(MF_OperationDescription* desc,
                                                const char* attr_name,
                                                MF_Tensor* const* values,
                                                int num_values,
                                                MF_Status* status);
/* A `func` attr naming the function `value` (`length` bytes) with no attrs
 * of its own, such as PartitionedCall's `f`. */
MF_CAPI_EXPORT extern void MF_SetAttrFuncName(MF_OperationDescription* desc,
                                              const char* attr_name,
                                              const char* value, size_t length);
/* Any attr from a binary AttrValue. */
MF_CAPI_EXPORT extern void MF_SetAttrValueProto(MF_OperationDescription* desc,
                                                const char* attr_name,
                                                const void* proto,
                                                size_t proto_len,
                                                MF_Status* status);

/* Validates the operation as the importer validates a NodeDef (op, attrs,
 * input count and dtypes), adds it to the graph and infers its shapes, so a
 * shape error surfaces here. Frees `desc` in every case. Returns the new
 * operation, or NULL with the status set (the graph is then unchanged). */
MF_CAPI_EXPORT extern MF_Operation* MF_FinishOperation(
    MF_OperationDescription* desc, MF_Status* status);

/* ---- Gradients ---------------------------------------------------------- */

/* Adds to `g` the operations computing the partial derivatives of
 * y[0] + ... + y[ny-1] with respect to each x (TensorFlow's
 * TF_AddGradients): dy[i] receives d(sum of ys)/d(x[i]). `dx` holds ny
 * gradients flowing into the ys (each of its y's dtype), or is NULL for
 * ones. An x that no y depends on through floating-point edges, or whose
 * every path goes through an op without gradient (StopGradient, Shape),
 * gets dy[i] = {NULL, -1}. The new operations are named under
 * "gradients" (made unique: "gradients_1" when taken). Errors: a NULL or
 * foreign output is InvalidArgument, an output index out of range
 * OutOfRange; an op on a path with no registered gradient is NotFound
 * naming it; a loop is Unimplemented. On error the graph is left as it
 * was (TensorFlow leaves what it added) and dy is not written. */
MF_CAPI_EXPORT extern void MF_AddGradients(MF_Graph* g, MF_Output* y, int ny,
                                           MF_Output* x, int nx, MF_Output* dx,
                                           MF_Status* status, MF_Output* dy);

/* As MF_AddGradients, with the new operations named under "<prefix>/"
 * (TF_AddGradientsWithPrefix). A prefix that is the name of an operation of
 * `g`, or the start of one's name up to a '/', is InvalidArgument; NULL
 * or "" is the default prefix. */
MF_CAPI_EXPORT extern void MF_AddGradientsWithPrefix(
    MF_Graph* g, const char* prefix, MF_Output* y, int ny, MF_Output* x, int nx,
    MF_Output* dx, MF_Status* status, MF_Output* dy);

/* A gradient function written against the C API (a language binding's
 * gradients). Called by MF_AddGradients, on its thread, for an operation
 * `oper` of `graph` of the registered type: `output_grads` holds one
 * gradient per output of `oper` (num_outputs of them), and the function
 * writes one gradient per input into `input_grads` (num_inputs entries,
 * each {NULL, -1} on entry: an entry left so has no gradient). It adds its
 * operations with MF_NewOperation/MF_FinishOperation (the graph is not
 * locked during the call), preferably named under `name_scope` + "/", a
 * name nothing else in the graph uses. It reports failure by setting
 * `status`; MF_AddGradients then fails with that code and message, naming
 * the operation. */
typedef void (*MF_GradientFunction)(void* context, MF_Graph* graph,
                                    MF_Operation* oper, const char* name_scope,
                                    const MF_Output* output_grads,
                                    int num_outputs, MF_Output* input_grads,
                                    int num_inputs, MF_Status* status);

/* Registers `fn` (with `context`, passed back on every call) as the
 * gradient of op type `op_type`, in the process-wide gradient registry
 * that C++'s REGISTER_GRADIENT_OP fills (as TensorFlow Python's
 * RegisterGradient). Registrations are permanent: `context` must outlive
 * every MF_AddGradients call. AlreadyExists when `op_type` has a gradient,
 * or is declared to have none; InvalidArgument for a NULL or empty
 * `op_type` or a NULL `fn`. Such a gradient is only used by
 * MF_AddGradients: C++'s AddSymbolicGradients meeting it fails with
 * FailedPrecondition. */
MF_CAPI_EXPORT extern void MF_RegisterGradientFunction(const char* op_type,
                                                       MF_GradientFunction fn,
                                                       void* context,
                                                       MF_Status* status);

/* Declares that op type `op_type` has no gradient (TensorFlow Python's
 * NotDifferentiable, C++'s REGISTER_NO_GRADIENT_OP): gradients stop at it
 * instead of failing with NotFound. AlreadyExists when `op_type` has a
 * gradient or is declared already; InvalidArgument for a NULL or empty
 * `op_type`. */
MF_CAPI_EXPORT extern void MF_RegisterNoGradient(const char* op_type,
                                                 MF_Status* status);

/* ---- Functions ---------------------------------------------------------- */

/* A function: a FunctionDef that graphs may add to their library and call
 * by name (an operation whose op type is the function's name) or through
 * PartitionedCall's `f`. Owned by the caller (MF_DeleteFunction). */
typedef struct MF_Function MF_Function;
/* Options of MF_GraphToFunction; none exist yet, so pass NULL. */
typedef struct MF_FunctionOptions MF_FunctionOptions;

/* Makes a function named `fn_name` from operations of `fn_body`: the
 * `num_opers` operations of `opers`, or with num_opers -1 every operation
 * but the input Placeholders. Each of the `ninputs` inputs must be an output
 * of a Placeholder outside the body; it becomes an input arg named after
 * the Placeholder. Each of the `noutputs` outputs must be produced by a body
 * operation (or be an input); `output_names` (NULL: named after their
 * operations) names the output args. Edges between body operations become
 * TensorFlow's "node:out_arg:index" references. With `append_hash_to_fn_name`
 * the name gets "_" and a hash of the body. InvalidArgument naming the
 * operation when a body operation reads a tensor that is neither an input
 * nor made in the body, when an input is not a Placeholder's output, when
 * an output is not in the body, or when two outputs share a name. Returns a
 * new function, or NULL with the status set. */
MF_CAPI_EXPORT extern MF_Function* MF_GraphToFunction(
    const MF_Graph* fn_body, const char* fn_name,
    unsigned char append_hash_to_fn_name, int num_opers,
    const MF_Operation* const* opers, int ninputs, const MF_Output* inputs,
    int noutputs, const MF_Output* outputs, const char* const* output_names,
    const MF_FunctionOptions* opts, const char* description, MF_Status* status);
/* The function's name (its signature's), owned by `func`; NULL for NULL. */
MF_CAPI_EXPORT extern const char* MF_FunctionName(MF_Function* func);
/* The function as a binary FunctionDef, into an empty buffer. */
MF_CAPI_EXPORT extern void MF_FunctionToFunctionDef(MF_Function* func,
                                                    MF_Buffer* output_func_def,
                                                    MF_Status* status);
/* A function from a binary FunctionDef, checked as a graph's library checks
 * one (InvalidArgument naming the function and node otherwise). */
MF_CAPI_EXPORT extern MF_Function* MF_FunctionImportFunctionDef(
    const void* proto, size_t proto_len, MF_Status* status);
MF_CAPI_EXPORT extern void MF_DeleteFunction(MF_Function* func);
/* Adds `func` (a copy), and `grad` as its gradient when not NULL, to the
 * library of `g`, so operations may call it. Adding the same definition
 * again is allowed; another function under a taken name, or an op's name,
 * is InvalidArgument. The graph is unchanged on error. */
MF_CAPI_EXPORT extern void MF_GraphCopyFunction(MF_Graph* g,
                                                const MF_Function* func,
                                                const MF_Function* grad,
                                                MF_Status* status);
/* The number of functions in the graph's library; -1 for NULL. */
MF_CAPI_EXPORT extern int MF_GraphNumFunctions(MF_Graph* g);

/* ---- Sessions ----------------------------------------------------------- */

typedef struct MF_SessionOptions MF_SessionOptions;
MF_CAPI_EXPORT extern MF_SessionOptions* MF_NewSessionOptions(void);
MF_CAPI_EXPORT extern void MF_DeleteSessionOptions(MF_SessionOptions* opts);
/* Replaces the configuration with a binary ConfigProto. */
MF_CAPI_EXPORT extern void MF_SetConfig(MF_SessionOptions* options,
                                        const void* proto, size_t proto_len,
                                        MF_Status* status);
/* Sets the thread counts of the ConfigProto: intra-op (work inside one
 * kernel) and inter-op (kernels at once); 0 means one per core. */
MF_CAPI_EXPORT extern void MF_SetNumThreads(MF_SessionOptions* options,
                                            int intra_op_threads,
                                            int inter_op_threads,
                                            MF_Status* status);

/* A session runs the graph as it is when the session is made: operations
 * added to the graph later are not part of it (make a new session). */
typedef struct MF_Session MF_Session;

/* `opts` may be NULL (defaults). Import, shape and config errors surface
 * here; placement errors (an unknown device) at the first run that needs
 * the operation. Deleting the graph first is allowed: it lives on until
 * the session is deleted. */
MF_CAPI_EXPORT extern MF_Session* MF_NewSession(MF_Graph* graph,
                                                const MF_SessionOptions* opts,
                                                MF_Status* status);
/* Loads the MetaGraph tagged exactly `tags` (`tags_len` strings) of the
 * TensorFlow SavedModel in `export_dir`: its variables restored and its
 * init op run (see minflow/saved_model/loader.h). The MetaGraph's graph is
 * imported into `graph`, which must be empty, so MF_GraphOperationByName
 * finds the signatures' tensors. `opts` and `run_options` (a binary
 * RunOptions, used for the restore and init runs) may be NULL; so may
 * `meta_graph_def`, else an empty buffer that receives the binary
 * MetaGraphDef (its signature_def map names the tensors). NULL and an
 * error status on failure, the graph left empty. */
MF_CAPI_EXPORT extern MF_Session* MF_LoadSessionFromSavedModel(
    const MF_SessionOptions* opts, const MF_Buffer* run_options,
    const char* export_dir, const char* const* tags, int tags_len,
    MF_Graph* graph, MF_Buffer* meta_graph_def, MF_Status* status);
/* Later runs fail with MF_CANCELLED. */
MF_CAPI_EXPORT extern void MF_CloseSession(MF_Session* session,
                                           MF_Status* status);
MF_CAPI_EXPORT extern void MF_DeleteSession(MF_Session* session,
                                            MF_Status* status);

/* Feeds input_values[i] to inputs[i], computes outputs[i] into
 * output_values[i] (new tensors the caller deletes) and runs the target
 * operations. Every operation must belong to the session's graph (and have
 * existed when the session was made). `run_options` (a binary RunOptions)
 * and `run_metadata` (an empty buffer that receives a binary RunMetadata)
 * may be NULL. The input tensors stay the caller's. On error every
 * output_values[i] is NULL. */
MF_CAPI_EXPORT extern void MF_SessionRun(
    MF_Session* session, const MF_Buffer* run_options, const MF_Output* inputs,
    MF_Tensor* const* input_values, int ninputs, const MF_Output* outputs,
    MF_Tensor** output_values, int noutputs,
    const MF_Operation* const* target_opers, int ntargets,
    MF_Buffer* run_metadata, MF_Status* status);

/* A callable: one (inputs, outputs, targets) signature of a session made
 * ready once (pruning, placement, kernels), then run by handle without the
 * per-run name handling of MF_SessionRun (TensorFlow's Python does the same
 * with TF_SessionMakeCallable). Returns the handle (>= 0), or -1 with the
 * status set (the errors of MF_SessionRun's arrays, and of an operation
 * added to the graph after the session was made). Handles belong to the
 * session and go with it. */
MF_CAPI_EXPORT extern int64_t MF_SessionMakeCallable(
    MF_Session* session, const MF_Output* inputs, int ninputs,
    const MF_Output* outputs, int noutputs,
    const MF_Operation* const* target_opers, int ntargets, MF_Status* status);
/* Runs callable `handle` with input_values[i] fed to its inputs[i] and its
 * outputs into output_values (new tensors the caller deletes; all NULL on
 * error); `ninputs` and `noutputs` must be the callable's counts. Errors as
 * MF_SessionRun's; InvalidArgument for an unknown handle. */
MF_CAPI_EXPORT extern void MF_SessionRunCallable(
    MF_Session* session, int64_t handle, MF_Tensor* const* input_values,
    int ninputs, MF_Tensor** output_values, int noutputs, MF_Status* status);
/* As MF_SessionRunCallable, but output i is written into the caller's
 * tensor output_buffers[i], which must have that output's dtype and element
 * count (ONNX Runtime's bound outputs; Session::RunCallableInto): on return
 * it holds the output, reshaped to its shape, in the same memory, so
 * MF_TensorData(output_buffers[i]) is unchanged. The host kernel producing
 * an output writes it there directly when nothing else shares the buffer.
 * On error (MF_SessionRunCallable's, and InvalidArgument naming the output
 * for a buffer of another dtype or size) the buffers keep their dtype and
 * shape and their contents are unspecified. */
MF_CAPI_EXPORT extern void MF_SessionRunCallableInto(
    MF_Session* session, int64_t handle, MF_Tensor* const* input_values,
    int ninputs, MF_Tensor* const* output_buffers, int noutputs,
    MF_Status* status);
/* Frees the callable; InvalidArgument for an unknown handle. */
MF_CAPI_EXPORT extern void MF_SessionReleaseCallable(MF_Session* session,
                                                     int64_t handle,
                                                     MF_Status* status);

/* ---- Op libraries and language bindings -------------------------------- */

/* A custom-op library loaded into this process (TensorFlow's TF_Library). */
typedef struct MF_Library MF_Library;

/* Loads the custom-op library at `library_filename` and registers its ops
 * and kernels (minflow/framework/load_library.h: all or none; loading the
 * same file again returns its ops again). Errors: NotFound (no file),
 * InvalidArgument (not a library, a malformed op), AlreadyExists (an op
 * name taken), FailedPrecondition (built against another minflow), each
 * naming the path. Returns a handle to delete with MF_DeleteLibraryHandle,
 * or NULL. The library itself stays loaded for the life of the process. */
MF_CAPI_EXPORT extern MF_Library* MF_LoadLibrary(const char* library_filename,
                                                 MF_Status* status);
/* The library's ops as a binary OpList, in registration order. The bytes
 * belong to the handle (do not free them); {NULL, 0, NULL} for NULL. */
MF_CAPI_EXPORT extern MF_Buffer MF_GetOpList(MF_Library* lib_handle);
/* Frees the handle; the ops stay registered. */
MF_CAPI_EXPORT extern void MF_DeleteLibraryHandle(MF_Library* lib_handle);

/* `t` itself when it is the only owner of its memory, so the memory may be
 * handed to another owner (a numpy array) without a copy; NULL when the
 * buffer is shared (a Const of the graph, a tensor still fed), empty, or
 * `t` is NULL. Either way `t` stays the caller's. */
MF_CAPI_EXPORT extern MF_Tensor* MF_TensorMaybeMove(MF_Tensor* t);

/* Everything a binding needs to read a tensor, in one call: returns its
 * dtype (MF_INVALID for NULL, and then writes nothing) and writes its rank
 * into `*num_dims`, its first `max_dims` dims into `dims`, MF_TensorData
 * into `*data` and MF_TensorByteSize into `*byte_size`. Any of the output
 * pointers may be NULL. */
MF_CAPI_EXPORT extern MF_DataType MF_TensorGetInfo(const MF_Tensor* t,
                                                   int* num_dims, int64_t* dims,
                                                   int max_dims, void** data,
                                                   size_t* byte_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MINFLOW_C_C_API_H_ */
