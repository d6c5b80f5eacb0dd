// TensorArray: the state behind TensorFlow 1's TensorArray ops (the V3
// kernels in tensor_array_ops.cc). A fixed or growing list of tensors of
// one dtype, each written once and read once (or many times without
// clear_after_read), with TensorFlow's rules and messages. TensorArrayV3
// creates one in the step's container (ScopedStepContainer), so it lives
// for one step unless closed earlier.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/framework/resource_mgr.h"

namespace minflow {

class OpKernelContext;

// Thread-safe: every method takes the array's mutex, so kernels of one step
// (ordered by their flow tensors, or not) may use one array concurrently.
// Elements share their tensors' buffers with the values written and read.
class TensorArray : public ResourceBase {
 public:
  // The most elements an array may hold: a size or write index past it is
  // ResourceExhausted. The bookkeeping (~70 bytes per element) is made only
  // for elements written or read, so a large size costs nothing at
  // creation.
  static constexpr int64_t kMaxSize = int64_t{1} << 24;

  // `name` (unique per step) is used in messages. `size` must be in
  // [0, kMaxSize].
  TensorArray(std::string name, DataType dtype,
              PartialTensorShape element_shape, int32_t size, bool dynamic_size,
              bool clear_after_read, bool identical_element_shapes);
  TensorArray(const TensorArray&) = delete;
  TensorArray& operator=(const TensorArray&) = delete;

  const std::string& name() const { return name_; }
  DataType dtype() const { return dtype_; }
  bool dynamic_size() const { return dynamic_size_; }

  // Stores `value` at `index` (growing a dynamic_size array). InvalidArgument
  // when closed, the index is out of range, the dtype or shape does not
  // match the element shape, or the element was written or read before.
  Status Write(int32_t index, const Tensor& value);
  // Write for each (indices[i], values[i]), in reverse order as in
  // TensorFlow; stops at the first error.
  Status WriteMany(absl::Span<const int32_t> indices,
                   absl::Span<const Tensor> values);

  // The element at `index`; with clear_after_read the array drops it. An
  // element never written reads as zeros when the element shape is fully
  // known (allocated from `ctx`), else it is InvalidArgument, as are a
  // closed array, an index out of range and a cleared element.
  Status Read(OpKernelContext* ctx, int32_t index, Tensor* value);
  // Read of each index, in order; stops at the first error.
  Status ReadMany(OpKernelContext* ctx, absl::Span<const int32_t> indices,
                  std::vector<Tensor>* values);

  // The number of elements; InvalidArgument when closed.
  Status Size(int32_t* size) const;
  // The element shape as refined so far; InvalidArgument when closed.
  Status ElementShape(PartialTensorShape* shape) const;
  // Narrows the element shape to `candidate`; InvalidArgument when they
  // disagree.
  Status MergeElementShape(const PartialTensorShape& candidate);

  // Drops every element; any later use is InvalidArgument ("has already
  // been closed"). Closing twice is fine.
  void Close();

  std::string DebugString() const override;
  int64_t MemoryUsed() const override;

 private:
  struct Element {
    Tensor tensor;
    bool written = false;
    bool read = false;
    bool cleared = false;
  };

  Status LockedReturnIfClosed() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Status LockedWrite(int32_t index, const Tensor& value)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Status LockedRead(OpKernelContext* ctx, int32_t index, Tensor* value)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string name_;
  const DataType dtype_;
  const bool dynamic_size_;
  const bool clear_after_read_;
  const bool identical_element_shapes_;

  mutable absl::Mutex mu_;
  PartialTensorShape element_shape_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  // The array's size; elements_ grows up to it as elements are used.
  int64_t size_ ABSL_GUARDED_BY(mu_);
  std::vector<Element> elements_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minflow
