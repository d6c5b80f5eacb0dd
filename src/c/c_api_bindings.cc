// What language bindings need beyond building and running graphs: loading
// custom-op libraries (TensorFlow's TF_LoadLibrary) and handing a fetched
// tensor's memory over without a copy (TF_TensorMaybeMove).
#include <string>

#include "minflow/c/c_api.h"
#include "minflow/framework/load_library.h"
#include "minflow/op_def.pb.h"
#include "src/c/c_api_internal.h"

// A loaded library's op list, serialized once: MF_GetOpList hands out a
// view of it that lives as long as the handle.
struct MF_Library {
  std::string op_list;
};

namespace c_api = minflow::c_api;

extern "C" {

MF_Library* MF_LoadLibrary(const char* library_filename, MF_Status* status) {
  if (library_filename == nullptr) {
    c_api::Set(status,
               c_api::NullArgument("MF_LoadLibrary", "library_filename"));
    return nullptr;
  }
  minflow::OpList ops;
  const minflow::Status s = minflow::LoadOpLibrary(library_filename, &ops);
  if (!s.ok()) {
    c_api::Set(status, s);
    return nullptr;
  }
  c_api::SetOk(status);
  return new MF_Library{ops.SerializeAsString()};
}

MF_Buffer MF_GetOpList(MF_Library* lib_handle) {
  MF_Buffer view = {nullptr, 0, nullptr};
  if (lib_handle != nullptr) {
    view.data = lib_handle->op_list.data();
    view.length = lib_handle->op_list.size();
  }
  return view;
}

void MF_DeleteLibraryHandle(MF_Library* lib_handle) { delete lib_handle; }

MF_Tensor* MF_TensorMaybeMove(MF_Tensor* t) {
  // Note [Handing over a tensor's memory]
  // A fetched tensor may share its buffer with a Const of the session's
  // graph or with a fed tensor the caller still holds; writing through a
  // view of it would change those too. Only a buffer with one owner may be
  // handed to another language's array without a copy.
  if (t == nullptr || !t->tensor.RefCountIsOne()) return nullptr;
  return t;
}

MF_DataType MF_TensorGetInfo(const MF_Tensor* t, int* num_dims, int64_t* dims,
                             int max_dims, void** data, size_t* byte_size) {
  // One call instead of five: a binding calling through an FFI pays about as
  // much per call as MF_SessionRun's own overhead on a tiny graph.
  if (t == nullptr) return MF_INVALID;
  const int rank = t->tensor.dims();
  if (num_dims != nullptr) *num_dims = rank;
  if (dims != nullptr) {
    for (int d = 0; d < rank && d < max_dims; ++d) {
      dims[d] = t->tensor.dim_size(d);
    }
  }
  if (data != nullptr) *data = MF_TensorData(t);
  if (byte_size != nullptr) *byte_size = MF_TensorByteSize(t);
  return static_cast<MF_DataType>(t->tensor.dtype());
}

}  // extern "C"
