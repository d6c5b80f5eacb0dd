// ConstantLayoutCache: see Note [Kept constant layouts].
#include "src/kernels/constant_layout_cache.h"

#include <utility>

#include "minflow/framework/node_def_util.h"

namespace minflow {
namespace internal {

const float* ConstantLayoutCache::FindLocked(const Tensor& constant,
                                             const void* layout) const {
  for (const auto& e : entries_) {
    if (e->layout == layout && e->constant.data() == constant.data() &&
        e->constant.shape() == constant.shape()) {
      return e->copy.base<const float>();
    }
  }
  return nullptr;
}

const float* ConstantLayoutCache::Find(const Tensor& constant,
                                       const void* layout) const {
  absl::MutexLock lock(&mu_);
  return FindLocked(constant, layout);
}

const float* ConstantLayoutCache::Keep(const Tensor& constant,
                                       const void* layout, Tensor* copy) {
  absl::MutexLock lock(&mu_);
  if (const float* kept = FindLocked(constant, layout)) return kept;
  if (entries_.size() >= kMaxEntries) return nullptr;
  entries_.push_back(
      std::make_unique<Entry>(Entry{constant, layout, std::move(*copy)}));
  return entries_.back()->copy.base<const float>();
}

bool ConstantLayoutCache::Full() const {
  absl::MutexLock lock(&mu_);
  return entries_.size() >= kMaxEntries;
}

bool OperandIsMarkedConst(OpKernelConstruction* ctx) {
  bool marked = false;
  return TryGetNodeAttr(AttrSlice(ctx->def()), "_is_filter_const", &marked) &&
         marked;
}

Status AllocateKeptCopy(OpKernelContext* ctx, int64_t elements,
                        const char* what, Tensor* copy) {
  *copy = Tensor(ctx->device()->GetAllocator(AllocatorAttributes()), DT_FLOAT,
                 TensorShape({elements}));
  if (!copy->IsInitialized()) {
    return errors::ResourceExhausted("Out of memory keeping ", what, " of ",
                                     elements * sizeof(float), " bytes");
  }
  return OkStatus();
}

}  // namespace internal
}  // namespace minflow
