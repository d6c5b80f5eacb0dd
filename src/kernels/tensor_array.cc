#include "src/kernels/tensor_array.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "minflow/core/logging.h"
#include "minflow/core/types.h"
#include "minflow/framework/op_kernel.h"

namespace minflow {

TensorArray::TensorArray(std::string name, DataType dtype,
                         PartialTensorShape element_shape, int32_t size,
                         bool dynamic_size, bool clear_after_read,
                         bool identical_element_shapes)
    : name_(std::move(name)),
      dtype_(dtype),
      dynamic_size_(dynamic_size),
      clear_after_read_(clear_after_read),
      identical_element_shapes_(identical_element_shapes),
      element_shape_(std::move(element_shape)),
      size_(size) {}

Status TensorArray::LockedReturnIfClosed() const {
  if (closed_) {
    return errors::InvalidArgument("TensorArray ", name_,
                                   " has already been closed.");
  }
  return OkStatus();
}

Status TensorArray::LockedWrite(int32_t index, const Tensor& value) {
  MF_RETURN_IF_ERROR(LockedReturnIfClosed());
  if (index < 0 || (!dynamic_size_ && index >= size_)) {
    return errors::InvalidArgument(
        "TensorArray ", name_, ": Tried to write to index ", index,
        " but array is not resizeable and size is: ", size_);
  }
  if (index >= kMaxSize) {
    return errors::ResourceExhausted(
        "TensorArray ", name_, ": Tried to write to index ", index,
        " but a TensorArray holds at most ", kMaxSize, " elements");
  }
  if (value.dtype() != dtype_) {
    return errors::InvalidArgument(
        "TensorArray ", name_, ": Could not write to TensorArray index ", index,
        " because the value dtype is ", DataTypeString(value.dtype()),
        " but TensorArray dtype is ", DataTypeString(dtype_), ".");
  }
  if (!element_shape_.IsCompatibleWith(value.shape())) {
    return errors::InvalidArgument(
        "TensorArray ", name_, ": Could not write to TensorArray index ", index,
        " because the value shape is ", value.shape().DebugString(),
        " which is incompatible with the TensorArray's inferred element "
        "shape: ",
        element_shape_.DebugString(), " (consider setting infer_shape=False).");
  }
  if (static_cast<size_t>(index) >= elements_.size()) {
    elements_.resize(static_cast<size_t>(index) + 1);
  }
  Element& e = elements_[index];
  if (e.read) {
    return errors::InvalidArgument("TensorArray ", name_,
                                   ": Could not write to TensorArray index ",
                                   index, " because it has already been read.");
  }
  if (e.written) {
    return errors::InvalidArgument(
        "TensorArray ", name_, ": Could not write to TensorArray index ", index,
        " because it has already been written to.");
  }
  // As in TensorFlow, only identical_element_shapes lets the first write
  // fix the shape of the rest; otherwise element_shape stays as created.
  if (identical_element_shapes_ && !element_shape_.IsFullyDefined()) {
    element_shape_ = PartialTensorShape(value.shape());
  }
  e.tensor = value;
  e.written = true;
  size_ = std::max<int64_t>(size_, int64_t{index} + 1);
  return OkStatus();
}

Status TensorArray::Write(int32_t index, const Tensor& value) {
  absl::MutexLock lock(&mu_);
  return LockedWrite(index, value);
}

Status TensorArray::WriteMany(absl::Span<const int32_t> indices,
                              absl::Span<const Tensor> values) {
  MF_CHECK_EQ(indices.size(), values.size());
  absl::MutexLock lock(&mu_);
  for (size_t i = indices.size(); i-- > 0;) {
    MF_RETURN_IF_ERROR(LockedWrite(indices[i], values[i]));
  }
  return OkStatus();
}

Status TensorArray::LockedRead(OpKernelContext* ctx, int32_t index,
                               Tensor* value) {
  MF_RETURN_IF_ERROR(LockedReturnIfClosed());
  if (index < 0 || index >= size_) {
    return errors::InvalidArgument("Tried to read from index ", index,
                                   " but array size is: ", size_);
  }
  if (static_cast<size_t>(index) >= elements_.size()) {
    elements_.resize(static_cast<size_t>(index) + 1);
  }
  Element& e = elements_[index];
  if (e.cleared) {
    return errors::InvalidArgument(
        "TensorArray ", name_, ": Could not read index ", index,
        " twice because it was cleared after a previous read (perhaps try "
        "setting clear_after_read = false?).");
  }
  if (!e.written) {
    // TensorFlow reads an element never written as zeros of the element
    // shape, when that is fully known (gradients of elements that
    // stop_gradient kept from being written).
    TensorShape shape;
    if (!element_shape_.AsTensorShape(&shape)) {
      return errors::InvalidArgument(
          "TensorArray ", name_, ": Could not read from TensorArray index ",
          index, ".  Furthermore, the element shape is not fully defined: ",
          element_shape_.DebugString(),
          ".  It is possible you are working with a resizeable TensorArray "
          "and stop_gradients is not allowing the gradients to be written.  "
          "If you set the full element_shape property on the forward "
          "TensorArray, the proper all-zeros tensor will be returned instead "
          "of incurring this error.");
    }
    Tensor zeros;
    MF_RETURN_IF_ERROR(ctx->allocate_temp(dtype_, shape, &zeros));
    // Strings and other object types are constructed empty.
    if (DataTypeCanUseMemcpy(dtype_) && zeros.TotalBytes() > 0) {
      std::memset(zeros.data(), 0, zeros.TotalBytes());
    }
    e.tensor = std::move(zeros);
    e.written = true;
  }
  *value = e.tensor;
  if (clear_after_read_) {
    e.tensor = Tensor();
    e.cleared = true;
  }
  e.read = true;
  return OkStatus();
}

Status TensorArray::Read(OpKernelContext* ctx, int32_t index, Tensor* value) {
  absl::MutexLock lock(&mu_);
  return LockedRead(ctx, index, value);
}

Status TensorArray::ReadMany(OpKernelContext* ctx,
                             absl::Span<const int32_t> indices,
                             std::vector<Tensor>* values) {
  absl::MutexLock lock(&mu_);
  values->clear();
  values->resize(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) {
    MF_RETURN_IF_ERROR(LockedRead(ctx, indices[i], &(*values)[i]));
  }
  return OkStatus();
}

Status TensorArray::Size(int32_t* size) const {
  absl::MutexLock lock(&mu_);
  MF_RETURN_IF_ERROR(LockedReturnIfClosed());
  // Never past kMaxSize, which fits an int32.
  *size = static_cast<int32_t>(size_);
  return OkStatus();
}

Status TensorArray::ElementShape(PartialTensorShape* shape) const {
  absl::MutexLock lock(&mu_);
  MF_RETURN_IF_ERROR(LockedReturnIfClosed());
  *shape = element_shape_;
  return OkStatus();
}

Status TensorArray::MergeElementShape(const PartialTensorShape& candidate) {
  absl::MutexLock lock(&mu_);
  MF_RETURN_IF_ERROR(LockedReturnIfClosed());
  PartialTensorShape merged;
  MF_RETURN_IF_ERROR(element_shape_.MergeWith(candidate, &merged));
  element_shape_ = std::move(merged);
  return OkStatus();
}

void TensorArray::Close() {
  absl::MutexLock lock(&mu_);
  elements_.clear();
  elements_.shrink_to_fit();
  size_ = 0;
  closed_ = true;
}

std::string TensorArray::DebugString() const {
  absl::MutexLock lock(&mu_);
  return absl::StrCat("TensorArray ", name_, " of ", DataTypeString(dtype_),
                      closed_ ? " (closed)" : "", "[", size_, "]");
}

int64_t TensorArray::MemoryUsed() const {
  absl::MutexLock lock(&mu_);
  int64_t bytes = 0;
  for (const Element& e : elements_) {
    bytes += static_cast<int64_t>(e.tensor.TotalBytes());
  }
  return bytes;
}

}  // namespace minflow
