"""Loads libminflow and declares the parts of its C API
(include/minflow/c/c_api.h) the package calls, through cffi in ABI mode:
nothing is compiled. See python/README.md for why cffi.

The library is found, in order, at $MINFLOW_LIBRARY; at the path
`cmake --install` wrote into _install_paths.py (relative to this package);
then by the dynamic loader's own search (LD_LIBRARY_PATH, the system's
library folders).
"""
import os

import cffi

CDEF = """
typedef int MF_DataType; /* enums: int-sized on every ABI minflow targets */
typedef int MF_Code;
typedef struct MF_Status MF_Status;
typedef struct MF_Tensor MF_Tensor;
typedef struct MF_Buffer {
  const void* data;
  size_t length;
  void (*data_deallocator)(void* data, size_t length);
} MF_Buffer;
typedef struct MF_Graph MF_Graph;
typedef struct MF_Operation MF_Operation;
typedef struct MF_OperationDescription MF_OperationDescription;
typedef struct MF_Output { MF_Operation* oper; int index; } MF_Output;
typedef struct MF_Input { MF_Operation* oper; int index; } MF_Input;
typedef struct MF_ImportGraphDefOptions MF_ImportGraphDefOptions;
typedef struct MF_SessionOptions MF_SessionOptions;
typedef struct MF_Session MF_Session;
typedef struct MF_Library MF_Library;

const char* MF_Version(void);
MF_Status* MF_NewStatus(void);
void MF_DeleteStatus(MF_Status* s);
MF_Code MF_GetCode(const MF_Status* s);
const char* MF_Message(const MF_Status* s);

size_t MF_DataTypeSize(MF_DataType dt);
MF_Tensor* MF_NewTensor(MF_DataType dtype, const int64_t* dims, int num_dims,
                        void* data, size_t len,
                        void (*deallocator)(void*, size_t, void*),
                        void* deallocator_arg, MF_Status* status);
MF_Tensor* MF_AllocateTensor(MF_DataType dtype, const int64_t* dims,
                             int num_dims, size_t len, MF_Status* status);
void MF_DeleteTensor(MF_Tensor* t);
MF_DataType MF_TensorType(const MF_Tensor* t);
int MF_NumDims(const MF_Tensor* t);
int64_t MF_Dim(const MF_Tensor* t, int dim_index);
size_t MF_TensorByteSize(const MF_Tensor* t);
void* MF_TensorData(const MF_Tensor* t);
MF_Tensor* MF_TensorMaybeMove(MF_Tensor* t);
MF_DataType MF_TensorGetInfo(const MF_Tensor* t, int* num_dims,
                             int64_t* dims, int max_dims, void** data,
                             size_t* byte_size);
int64_t MF_TensorElementCount(const MF_Tensor* t);
MF_Tensor* MF_NewStringTensor(const int64_t* dims, int num_dims,
                              const void* const* values,
                              const size_t* lengths, int64_t num_values,
                              MF_Status* status);
void MF_TensorGetStrings(const MF_Tensor* t, const void** values,
                         size_t* lengths, int64_t num_values,
                         MF_Status* status);

MF_Buffer* MF_NewBuffer(void);
MF_Buffer* MF_NewBufferFromString(const void* proto, size_t proto_len);
void MF_DeleteBuffer(MF_Buffer* buffer);

MF_Graph* MF_NewGraph(void);
void MF_DeleteGraph(MF_Graph* graph);
MF_Operation* MF_GraphOperationByName(MF_Graph* graph, const char* name);
MF_Operation* MF_GraphNextOperation(MF_Graph* graph, size_t* pos);
int MF_GraphNumOperations(MF_Graph* graph);
int MF_GraphGetTensorNumDims(MF_Graph* graph, MF_Output output,
                             MF_Status* status);
void MF_GraphGetTensorShape(MF_Graph* graph, MF_Output output,
                            int64_t* dims, int num_dims, MF_Status* status);
void MF_GraphToGraphDef(MF_Graph* graph, MF_Buffer* output_graph_def,
                        MF_Status* status);
MF_Buffer* MF_GetAllOpList(void);
MF_ImportGraphDefOptions* MF_NewImportGraphDefOptions(void);
void MF_DeleteImportGraphDefOptions(MF_ImportGraphDefOptions* opts);
void MF_ImportGraphDefOptionsSetPrefix(MF_ImportGraphDefOptions* opts,
                                       const char* prefix);
void MF_ImportGraphDefOptionsSetDefaultDevice(MF_ImportGraphDefOptions* opts,
                                              const char* device);
void MF_GraphImportGraphDef(MF_Graph* graph, const MF_Buffer* graph_def,
                            const MF_ImportGraphDefOptions* options,
                            MF_Status* status);
void MF_ImportGraphDefOptionsAddInputMapping(MF_ImportGraphDefOptions* opts,
                                             const char* src_name,
                                             int src_index, MF_Output dst);
void MF_ImportGraphDefOptionsAddReturnOutput(MF_ImportGraphDefOptions* opts,
                                             const char* oper_name,
                                             int index);
void MF_ImportGraphDefOptionsAddReturnOperation(MF_ImportGraphDefOptions* opts,
                                                const char* oper_name);
typedef struct MF_ImportGraphDefResults MF_ImportGraphDefResults;
MF_ImportGraphDefResults* MF_GraphImportGraphDefWithResults(
    MF_Graph* graph, const MF_Buffer* graph_def,
    const MF_ImportGraphDefOptions* options, MF_Status* status);
void MF_ImportGraphDefResultsReturnOutputs(MF_ImportGraphDefResults* results,
                                           int* num_outputs,
                                           MF_Output** outputs);
void MF_ImportGraphDefResultsReturnOperations(
    MF_ImportGraphDefResults* results, int* num_opers, MF_Operation*** opers);
void MF_ImportGraphDefResultsMissingUnusedInputMappings(
    MF_ImportGraphDefResults* results, int* num_missing,
    const char*** src_names, int** src_indexes);
void MF_DeleteImportGraphDefResults(MF_ImportGraphDefResults* results);

const char* MF_OperationName(MF_Operation* oper);
const char* MF_OperationOpType(MF_Operation* oper);
const char* MF_OperationDevice(MF_Operation* oper);
int MF_OperationNumInputs(MF_Operation* oper);
int MF_OperationNumOutputs(MF_Operation* oper);
MF_DataType MF_OperationOutputType(MF_Output oper_out);
MF_Output MF_OperationInput(MF_Input oper_in);
int MF_OperationOutputNumConsumers(MF_Output oper_out);
int MF_OperationOutputConsumers(MF_Output oper_out, MF_Input* consumers,
                                int max_consumers);
int MF_OperationNumControlInputs(MF_Operation* oper);
int MF_OperationGetControlInputs(MF_Operation* oper,
                                 MF_Operation** control_inputs, int max);
void MF_OperationToNodeDef(MF_Operation* oper, MF_Buffer* output_node_def,
                           MF_Status* status);
void MF_OperationGetAttrValueProto(MF_Operation* oper, const char* attr_name,
                                   MF_Buffer* output_attr_value,
                                   MF_Status* status);
void MF_OperationGetAttrInt(MF_Operation* oper, const char* attr_name,
                            int64_t* value, MF_Status* status);

MF_OperationDescription* MF_NewOperation(MF_Graph* graph, const char* op_type,
                                         const char* oper_name);
void MF_SetDevice(MF_OperationDescription* desc, const char* device);
void MF_AddInput(MF_OperationDescription* desc, MF_Output input);
void MF_AddInputList(MF_OperationDescription* desc, const MF_Output* inputs,
                     int num_inputs);
void MF_AddControlInput(MF_OperationDescription* desc, MF_Operation* input);
void MF_SetAttrString(MF_OperationDescription* desc, const char* attr_name,
                      const void* value, size_t length);
void MF_SetAttrStringList(MF_OperationDescription* desc,
                          const char* attr_name, const void* const* values,
                          const size_t* lengths, int num_values);
void MF_SetAttrInt(MF_OperationDescription* desc, const char* attr_name,
                   int64_t value);
void MF_SetAttrIntList(MF_OperationDescription* desc, const char* attr_name,
                       const int64_t* values, int num_values);
void MF_SetAttrFloat(MF_OperationDescription* desc, const char* attr_name,
                     float value);
void MF_SetAttrFloatList(MF_OperationDescription* desc, const char* attr_name,
                         const float* values, int num_values);
void MF_SetAttrBool(MF_OperationDescription* desc, const char* attr_name,
                    unsigned char value);
void MF_SetAttrBoolList(MF_OperationDescription* desc, const char* attr_name,
                        const unsigned char* values, int num_values);
void MF_SetAttrType(MF_OperationDescription* desc, const char* attr_name,
                    MF_DataType value);
void MF_SetAttrTypeList(MF_OperationDescription* desc, const char* attr_name,
                        const MF_DataType* values, int num_values);
void MF_SetAttrShape(MF_OperationDescription* desc, const char* attr_name,
                     const int64_t* dims, int num_dims);
void MF_SetAttrShapeList(MF_OperationDescription* desc, const char* attr_name,
                         const int64_t* const* dims, const int* num_dims,
                         int num_shapes);
void MF_SetAttrTensor(MF_OperationDescription* desc, const char* attr_name,
                      MF_Tensor* value, MF_Status* status);
void MF_SetAttrTensorList(MF_OperationDescription* desc,
                          const char* attr_name, MF_Tensor* const* values,
                          int num_values, MF_Status* status);
MF_Operation* MF_FinishOperation(MF_OperationDescription* desc,
                                 MF_Status* status);

MF_SessionOptions* MF_NewSessionOptions(void);
void MF_DeleteSessionOptions(MF_SessionOptions* opts);
void MF_SetConfig(MF_SessionOptions* options, const void* proto,
                  size_t proto_len, MF_Status* status);
MF_Session* MF_NewSession(MF_Graph* graph, const MF_SessionOptions* opts,
                          MF_Status* status);
void MF_CloseSession(MF_Session* session, MF_Status* status);
void MF_DeleteSession(MF_Session* session, MF_Status* status);
void MF_SessionRun(MF_Session* session, const MF_Buffer* run_options,
                   const MF_Output* inputs, MF_Tensor* const* input_values,
                   int ninputs, const MF_Output* outputs,
                   MF_Tensor** output_values, int noutputs,
                   const MF_Operation* const* target_opers, int ntargets,
                   MF_Buffer* run_metadata, MF_Status* status);

int64_t MF_SessionMakeCallable(MF_Session* session, const MF_Output* inputs,
                               int ninputs, const MF_Output* outputs,
                               int noutputs,
                               const MF_Operation* const* target_opers,
                               int ntargets, MF_Status* status);
void MF_SessionRunCallable(MF_Session* session, int64_t handle,
                           MF_Tensor* const* input_values, int ninputs,
                           MF_Tensor** output_values, int noutputs,
                           MF_Status* status);
void MF_SessionReleaseCallable(MF_Session* session, int64_t handle,
                               MF_Status* status);

typedef struct MF_Function MF_Function;
MF_Function* MF_GraphToFunction(
    const MF_Graph* fn_body, const char* fn_name,
    unsigned char append_hash_to_fn_name, int num_opers,
    const MF_Operation* const* opers, int ninputs, const MF_Output* inputs,
    int noutputs, const MF_Output* outputs, const char* const* output_names,
    const void* opts, const char* description, MF_Status* status);
const char* MF_FunctionName(MF_Function* func);
void MF_FunctionToFunctionDef(MF_Function* func, MF_Buffer* output_func_def,
                              MF_Status* status);
void MF_DeleteFunction(MF_Function* func);
void MF_GraphCopyFunction(MF_Graph* g, const MF_Function* func,
                          const MF_Function* grad, MF_Status* status);

/* Gradients (minflow/gradients.py). */
void MF_SetStatus(MF_Status* s, MF_Code code, const char* msg);
void MF_AddGradientsWithPrefix(MF_Graph* g, const char* prefix, MF_Output* y,
                               int ny, MF_Output* x, int nx, MF_Output* dx,
                               MF_Status* status, MF_Output* dy);
typedef void (*MF_GradientFunction)(void* context, MF_Graph* graph,
                                    MF_Operation* oper, const char* name_scope,
                                    const MF_Output* output_grads,
                                    int num_outputs, MF_Output* input_grads,
                                    int num_inputs, MF_Status* status);
void MF_RegisterGradientFunction(const char* op_type, MF_GradientFunction fn,
                                 void* context, MF_Status* status);
void MF_RegisterNoGradient(const char* op_type, MF_Status* status);

MF_Library* MF_LoadLibrary(const char* library_filename, MF_Status* status);
MF_Buffer MF_GetOpList(MF_Library* lib_handle);
void MF_DeleteLibraryHandle(MF_Library* lib_handle);
"""

ffi = cffi.FFI()
ffi.cdef(CDEF)


def _candidates():
    env = os.environ.get("MINFLOW_LIBRARY")
    if env:
        return [env], "MINFLOW_LIBRARY=%s" % env
    found = []
    try:
        from minflow import _install_paths  # written by `cmake --install`
        found.append(
            os.path.normpath(
                os.path.join(os.path.dirname(__file__),
                             _install_paths.LIBRARY)))
    except ImportError:
        pass
    found += ["libminflow.so.0", "libminflow.so"]
    return found, "tried " + ", ".join(found)


def _load():
    paths, tried = _candidates()
    errors = []
    for path in paths:
        try:
            return ffi.dlopen(path), path
        except OSError as e:
            errors.append(str(e))
    raise ImportError(
        "minflow: cannot load libminflow (%s). Set MINFLOW_LIBRARY to the "
        "library's path, e.g. build/release/src/libminflow.so. (%s)" %
        (tried, "; ".join(errors)))


# LIBRARY_PATH: the path (or bare name) libminflow was loaded by.
lib, LIBRARY_PATH = _load()
