#include "src/kernels/tensor_list.h"

#include "absl/strings/str_cat.h"

namespace minflow {

TensorList::TensorList(const TensorList& other)
    : element_dtype(other.element_dtype),
      element_shape(other.element_shape),
      max_num_elements(other.max_num_elements),
      storage_(other.storage_) {
  storage_->Ref();
}

TensorList& TensorList::operator=(const TensorList& other) {
  if (this == &other) return *this;
  other.storage_->Ref();
  storage_->Unref();
  storage_ = other.storage_;
  element_dtype = other.element_dtype;
  element_shape = other.element_shape;
  max_num_elements = other.max_num_elements;
  return *this;
}

TensorList::~TensorList() { storage_->Unref(); }

TensorList TensorList::Copy() const {
  TensorList copy(element_dtype, element_shape, max_num_elements);
  copy.storage_->values = storage_->values;
  return copy;
}

std::string TensorList::DebugString() const {
  return absl::StrCat(
      "TensorList<element_dtype: ", DataTypeString(element_dtype),
      " element_shape: ", element_shape.DebugString(),
      " size: ", tensors().size(), ">");
}

}  // namespace minflow
