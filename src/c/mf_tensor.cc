// MF_DataType and MF_Tensor: C tensors over minflow::Tensor.
#include <cstdint>
#include <cstring>

#include "minflow/c/c_api.h"
#include "minflow/core/allocator.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"
#include "src/c/c_api_internal.h"

namespace minflow {
namespace c_api {

Status ToDataType(int value, DataType* out) {
  const DataType dtype = static_cast<DataType>(value);
  if (!DataType_IsValid(value) || !DataTypeIsValid(dtype) || IsRefType(dtype)) {
    return errors::InvalidArgument("MF_DataType ", value,
                                   " is not a valid element type");
  }
  *out = dtype;
  return OkStatus();
}

namespace {

// Checks everything MF_NewTensor and MF_AllocateTensor are given.
Status CheckTensorArgs(const char* function, MF_DataType dtype,
                       const int64_t* dims, int num_dims, size_t len,
                       DataType* type, TensorShape* shape) {
  MF_RETURN_IF_ERROR(ToDataType(dtype, type));
  if (!DataTypeCanUseMemcpy(*type)) {
    return errors::InvalidArgument(
        function, ": ", DataTypeString(*type),
        " tensors cannot be made through the C API (only types of a fixed "
        "size, such as MF_FLOAT or MF_INT32)");
  }
  if (num_dims < 0) {
    return errors::InvalidArgument(
        function, ": num_dims must be >= 0, but got ", num_dims);
  }
  if (num_dims > 0 && dims == nullptr) {
    return NullArgument(function, "dims (with num_dims > 0)");
  }
  MF_RETURN_IF_ERROR(
      errors::Prefix(TensorShape::BuildTensorShape(
                         absl::Span<const int64_t>(dims, num_dims), shape),
                     function, ": "));
  // BuildTensorShape bounds the element count by int64; the byte count
  // needs its own check.
  const uint64_t elements = static_cast<uint64_t>(shape->num_elements());
  const uint64_t size = static_cast<uint64_t>(DataTypeSize(*type));
  if (elements != 0 && size > UINT64_MAX / elements) {
    return errors::InvalidArgument(function, ": shape ", shape->DebugString(),
                                   " is too large for ", DataTypeString(*type));
  }
  if (elements * size != len) {
    return errors::InvalidArgument(function, ": len must be ", elements * size,
                                   " bytes (", elements, " elements of ",
                                   DataTypeString(*type), " for shape ",
                                   shape->DebugString(), "), but got ", len);
  }
  return OkStatus();
}

}  // namespace
}  // namespace c_api
}  // namespace minflow

using minflow::DataType;
using minflow::Status;
using minflow::StatusOr;
using minflow::Tensor;
using minflow::TensorShape;
namespace c_api = minflow::c_api;

extern "C" {

size_t MF_DataTypeSize(MF_DataType dt) {
  DataType dtype;
  if (!c_api::ToDataType(dt, &dtype).ok()) return 0;
  return static_cast<size_t>(minflow::DataTypeSize(dtype));
}

MF_Tensor* MF_NewTensor(MF_DataType dtype, const int64_t* dims, int num_dims,
                        void* data, size_t len,
                        void (*deallocator)(void* data, size_t len, void* arg),
                        void* deallocator_arg, MF_Status* status) {
  DataType type;
  TensorShape shape;
  Status s = c_api::CheckTensorArgs("MF_NewTensor", dtype, dims, num_dims, len,
                                    &type, &shape);
  if (s.ok() && data == nullptr && len != 0) {
    s = c_api::NullArgument("MF_NewTensor", "data (with len > 0)");
  }
  if (!s.ok()) {
    c_api::Set(status, s);
    return nullptr;
  }
  auto release = [deallocator, len, deallocator_arg](void* p) {
    if (deallocator != nullptr) deallocator(p, len, deallocator_arg);
  };
  MF_Tensor* t = new MF_Tensor;
  const bool aligned =
      reinterpret_cast<uintptr_t>(data) % minflow::kAllocatorAlignment == 0;
  if (len == 0 || !aligned) {
    // Kernels take aligned Eigen views of their inputs, so unaligned data
    // is copied; empty tensors need no memory at all.
    StatusOr<Tensor> copy =
        Tensor::Allocate(minflow::cpu_allocator(), type, shape);
    if (!copy.ok()) {
      delete t;
      c_api::Set(status, copy.status());
      return nullptr;
    }
    t->tensor = *std::move(copy);
    if (len != 0) std::memcpy(t->tensor.data(), data, len);
    release(data);
  } else {
    t->tensor = Tensor(type, shape, data, release);
  }
  c_api::SetOk(status);
  return t;
}

MF_Tensor* MF_AllocateTensor(MF_DataType dtype, const int64_t* dims,
                             int num_dims, size_t len, MF_Status* status) {
  DataType type;
  TensorShape shape;
  Status s = c_api::CheckTensorArgs("MF_AllocateTensor", dtype, dims, num_dims,
                                    len, &type, &shape);
  if (!s.ok()) {
    c_api::Set(status, s);
    return nullptr;
  }
  StatusOr<Tensor> tensor =
      Tensor::Allocate(minflow::cpu_allocator(), type, shape);
  if (!tensor.ok()) {
    c_api::Set(status, tensor.status());
    return nullptr;
  }
  c_api::SetOk(status);
  return new MF_Tensor{*std::move(tensor)};
}

void MF_DeleteTensor(MF_Tensor* t) { delete t; }

MF_DataType MF_TensorType(const MF_Tensor* t) {
  return t == nullptr ? MF_INVALID
                      : static_cast<MF_DataType>(t->tensor.dtype());
}

int MF_NumDims(const MF_Tensor* t) {
  return t == nullptr ? -1 : t->tensor.dims();
}

int64_t MF_Dim(const MF_Tensor* t, int dim_index) {
  if (t == nullptr || dim_index < 0 || dim_index >= t->tensor.dims()) {
    return -1;
  }
  return t->tensor.dim_size(dim_index);
}

int64_t MF_TensorElementCount(const MF_Tensor* t) {
  return t == nullptr ? -1 : t->tensor.NumElements();
}

size_t MF_TensorByteSize(const MF_Tensor* t) {
  if (t == nullptr || !minflow::DataTypeCanUseMemcpy(t->tensor.dtype())) {
    return 0;
  }
  return t->tensor.TotalBytes();
}

void* MF_TensorData(const MF_Tensor* t) {
  if (t == nullptr || !minflow::DataTypeCanUseMemcpy(t->tensor.dtype())) {
    return nullptr;
  }
  return t->tensor.data();
}

MF_Tensor* MF_NewStringTensor(const int64_t* dims, int num_dims,
                              const void* const* values, const size_t* lengths,
                              int64_t num_values, MF_Status* status) {
  const char* fn = "MF_NewStringTensor";
  TensorShape shape;
  Status s;
  if (num_dims < 0) {
    s = minflow::errors::InvalidArgument(
        fn, ": num_dims must be >= 0, but got ", num_dims);
  } else if (num_dims > 0 && dims == nullptr) {
    s = c_api::NullArgument(fn, "dims (with num_dims > 0)");
  } else {
    s = minflow::errors::Prefix(
        TensorShape::BuildTensorShape(absl::Span<const int64_t>(dims, num_dims),
                                      &shape),
        fn, ": ");
  }
  if (s.ok() && num_values != shape.num_elements()) {
    s = minflow::errors::InvalidArgument(
        fn, ": num_values must be the element count of shape ",
        shape.DebugString(), ", ", shape.num_elements(), ", but got ",
        num_values);
  }
  if (s.ok() && num_values > 0 && (values == nullptr || lengths == nullptr)) {
    s = c_api::NullArgument(fn, "values and lengths (with num_values > 0)");
  }
  for (int64_t i = 0; s.ok() && i < num_values; ++i) {
    if (values[i] == nullptr && lengths[i] > 0) {
      s = minflow::errors::InvalidArgument(
          fn, ": values[", i, "] is NULL but lengths[", i, "] is ", lengths[i]);
    }
  }
  if (!s.ok()) {
    c_api::Set(status, s);
    return nullptr;
  }
  StatusOr<Tensor> tensor =
      Tensor::Allocate(minflow::cpu_allocator(), minflow::DT_STRING, shape);
  if (!tensor.ok()) {
    c_api::Set(status, tensor.status());
    return nullptr;
  }
  auto flat = tensor->flat<std::string>();
  for (int64_t i = 0; i < num_values; ++i) {
    flat(i).assign(static_cast<const char*>(values[i]), lengths[i]);
  }
  c_api::SetOk(status);
  return new MF_Tensor{*std::move(tensor)};
}

void MF_TensorGetStrings(const MF_Tensor* t, const void** values,
                         size_t* lengths, int64_t num_values,
                         MF_Status* status) {
  const char* fn = "MF_TensorGetStrings";
  Status s;
  if (t == nullptr) {
    s = c_api::NullArgument(fn, "t");
  } else if (t->tensor.dtype() != minflow::DT_STRING) {
    s = minflow::errors::InvalidArgument(
        fn, ": the tensor must be MF_STRING, but got ",
        minflow::DataTypeString(t->tensor.dtype()));
  } else if (num_values != t->tensor.NumElements()) {
    s = minflow::errors::InvalidArgument(
        fn, ": num_values must be the element count, ", t->tensor.NumElements(),
        ", but got ", num_values);
  } else if (num_values > 0 && (values == nullptr || lengths == nullptr)) {
    s = c_api::NullArgument(fn, "values and lengths (with num_values > 0)");
  }
  if (s.ok() && num_values > 0) {
    auto flat = t->tensor.flat<std::string>();
    for (int64_t i = 0; i < num_values; ++i) {
      values[i] = flat(i).data();
      lengths[i] = flat(i).size();
    }
  }
  c_api::Set(status, s);
}

}  // extern "C"
