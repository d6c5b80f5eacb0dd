// Intrusive reference counting for objects shared across threads and
// kernel calls: resources, variables, values inside variant tensors.
#pragma once

#include <atomic>

namespace minflow {
namespace core {

// Starts with one reference owned by its creator. Ref/Unref are
// thread-safe; the last Unref deletes the object.
class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;

  void Ref() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  // Deletes the object when the last reference goes; returns true then.
  bool Unref() const {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      delete this;
      return true;
    }
    return false;
  }
  bool RefCountIsOne() const {
    return refs_.load(std::memory_order_acquire) == 1;
  }

 protected:
  virtual ~RefCounted() = default;

 private:
  mutable std::atomic<int> refs_{1};
};

// Drops one reference of `obj` (if not null) at scope exit.
class ScopedUnref {
 public:
  explicit ScopedUnref(const RefCounted* obj) : obj_(obj) {}
  ~ScopedUnref() {
    if (obj_ != nullptr) obj_->Unref();
  }
  ScopedUnref(const ScopedUnref&) = delete;
  ScopedUnref& operator=(const ScopedUnref&) = delete;

 private:
  const RefCounted* obj_;
};

}  // namespace core
}  // namespace minflow
