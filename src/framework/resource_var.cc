#include "minflow/framework/resource_var.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "minflow/framework/op_kernel.h"

namespace minflow {

std::string Var::DebugString() const {
  absl::ReaderMutexLock lock(&mu_);
  if (!tensor_.IsInitialized()) {
    return absl::StrCat(DataTypeString(tensor_.dtype()), "/uninitialized");
  }
  return absl::StrCat(DataTypeString(tensor_.dtype()), "/",
                      tensor_.shape().DebugString());
}

int64_t Var::MemoryUsed() const {
  absl::ReaderMutexLock lock(&mu_);
  return static_cast<int64_t>(tensor_.AllocatedBytes());
}

Status PrepareToUpdateVariable(OpKernelContext* ctx, Tensor* tensor) {
  if (!tensor->IsInitialized() || tensor->RefCountIsOne() ||
      tensor->NumElements() == 0) {
    return OkStatus();
  }
  Tensor copy;
  MF_RETURN_IF_ERROR(
      ctx->allocate_temp(tensor->dtype(), tensor->shape(), &copy));
  if (DataTypeCanUseMemcpy(tensor->dtype())) {
    std::memcpy(copy.data(), tensor->data(), tensor->TotalBytes());
  } else {
    copy = tensor->DeepCopy();
  }
  *tensor = std::move(copy);
  return OkStatus();
}

}  // namespace minflow
