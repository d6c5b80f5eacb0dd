// Var: a variable's storage in the session's ResourceMgr. TF2 resource
// variables (VarHandleOp and the *VariableOp kernels) and TF1 ref variables
// (VariableV2, whose output refers to the Var's tensor) both keep one.
#pragma once

#include <string>

#include "absl/synchronization/mutex.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/resource_mgr.h"

namespace minflow {

class OpKernelContext;

// Thread-safe through mu(): readers take it shared and keep a share of the
// tensor's buffer; writers take it exclusively and, when a reader still
// holds the buffer, write into a copy (copy-on-write), so a value once read
// never changes under its reader.
class Var : public ResourceBase {
 public:
  explicit Var(DataType dtype)
      : dtype_(dtype), tensor_(Tensor::Unallocated(dtype)) {}

  absl::Mutex* mu() { return &mu_; }
  // Guarded by mu().
  Tensor* tensor() { return &tensor_; }
  // Fixed at creation; kept apart from the tensor, which writers replace,
  // so reading it needs no lock.
  DataType dtype() const { return dtype_; }
  // False until the first assignment.
  bool is_initialized() {
    absl::ReaderMutexLock lock(&mu_);
    return tensor_.IsInitialized();
  }

  std::string DebugString() const override;
  int64_t MemoryUsed() const override;

  // The resource type's name in messages and handles.
  static const char* TypeName() { return "Var"; }

 private:
  const DataType dtype_;
  mutable absl::Mutex mu_;
  Tensor tensor_;
};

// What a variable should hold after assigning `value`: `value` itself when
// nothing else holds its buffer, else a copy from `ctx`'s allocator (a
// tensor the caller fed may be written again by the caller).
// ResourceExhausted when the copy cannot be allocated.
Status ValueForVariable(OpKernelContext* ctx, const Tensor& value, Tensor* out);

// Makes `*tensor` (a variable's storage, mu held exclusively) safe to
// update in place: when its buffer is shared with a reader it is replaced
// by a copy from `ctx`'s allocator. ResourceExhausted when that fails.
Status PrepareToUpdateVariable(OpKernelContext* ctx, Tensor* tensor);

}  // namespace minflow
