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

namespace {

Status CopyWithAllocator(OpKernelContext* ctx, const Tensor& src, Tensor* dst) {
  if (!DataTypeCanUseMemcpy(src.dtype())) {
    *dst = src.DeepCopy();  // strings: element by element
    return OkStatus();
  }
  Tensor copy;
  MF_RETURN_IF_ERROR(ctx->allocate_temp(src.dtype(), src.shape(), &copy));
  if (src.TotalBytes() > 0) {
    std::memcpy(copy.data(), src.data(), src.TotalBytes());
  }
  *dst = std::move(copy);
  return OkStatus();
}

}  // namespace

Status ValueForVariable(OpKernelContext* ctx, const Tensor& value,
                        Tensor* out) {
  if (value.RefCountIsOne() || value.NumElements() == 0) {
    *out = value;
    return OkStatus();
  }
  return CopyWithAllocator(ctx, value, out);
}

Status PrepareToUpdateVariable(OpKernelContext* ctx, Tensor* tensor) {
  if (!tensor->IsInitialized() || tensor->RefCountIsOne() ||
      tensor->NumElements() == 0) {
    return OkStatus();
  }
  return CopyWithAllocator(ctx, *tensor, tensor);
}

}  // namespace minflow
