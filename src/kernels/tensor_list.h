// TensorList: the value behind a DT_VARIANT tensor made by TensorFlow 2's
// list ops (EmptyTensorList, TensorListPushBack, ...). See Note [TensorList
// storage]: copies share their element vector, so a Variant copy is O(1),
// and a kernel may change a list in place only when it holds the sole
// reference. Not thread-safe to mutate; distinct copies may be read from
// different threads.
#pragma once

#include <string>
#include <vector>

#include "minflow/core/refcount.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/types.h"

namespace minflow {

// Note [TensorList storage]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// A list's elements live in one reference-counted vector shared by every
// copy of the list, as in TensorFlow. Copying a TensorList (which copying
// its Variant, or the DT_VARIANT tensor's buffer, does) costs one atomic
// increment. A kernel that changes a list (PushBack, SetItem, PopBack,
// Resize, ScatterIntoExistingList) does so in place only when both the
// input tensor's buffer and the list's vector have a single owner: then
// nobody else can observe the change, and N push-backs in a loop cost O(N).
// Otherwise it works on Copy(), a new vector of the same element tensors
// (which share their buffers: elements are never written in place).
// An element with dtype DT_INVALID is unset (TensorListReserve, Resize,
// SetItem past the end); readers treat it as zeros of the element shape.
class TensorList {
 public:
  TensorList() : storage_(new Storage) {}
  TensorList(DataType dtype, PartialTensorShape shape, int max_elements = -1)
      : element_dtype(dtype),
        element_shape(std::move(shape)),
        max_num_elements(max_elements),
        storage_(new Storage) {}
  // Shares `other`'s elements.
  TensorList(const TensorList& other);
  TensorList& operator=(const TensorList& other);
  // Moves are copies: a moved-from list stays a valid (shared) list.
  TensorList(TensorList&& other) : TensorList(other) {}
  TensorList& operator=(TensorList&& other) { return *this = other; }
  ~TensorList();

  // The elements. Call the mutable overload only when RefCountIsOne().
  std::vector<Tensor>& tensors() { return storage_->values; }
  const std::vector<Tensor>& tensors() const { return storage_->values; }

  // True when no other TensorList shares the elements.
  bool RefCountIsOne() const { return storage_->RefCountIsOne(); }
  // The same list with its own element vector (the element tensors still
  // share their buffers).
  TensorList Copy() const;

  // The name errors give for a DT_VARIANT holding a list.
  static constexpr const char* kTypeName = "TensorList";
  std::string TypeName() const { return kTypeName; }
  // "TensorList<element_dtype: float element_shape: [2] size: 3>".
  std::string DebugString() const;

  DataType element_dtype = DT_INVALID;
  // What every element must be compatible with; may be partly known.
  PartialTensorShape element_shape;
  // -1 for no limit (EmptyTensorList's max_num_elements).
  int max_num_elements = -1;

 private:
  struct Storage : core::RefCounted {
    std::vector<Tensor> values;
  };
  Storage* storage_;  // one reference owned; never null
};

}  // namespace minflow
