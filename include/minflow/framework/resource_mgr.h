// ResourceMgr: per-device storage for state that outlives one kernel call
// (lookup tables, queues, caches), keyed by (container, type, name) and
// reference counted, with TensorFlow's names.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "minflow/core/refcount.h"
#include "minflow/core/resource_handle.h"
#include "minflow/core/status.h"
#include "minflow/core/variant.h"

namespace minflow {

// Base class of everything stored in a ResourceMgr.
class ResourceBase : public core::RefCounted {
 public:
  // A one-line description for error messages and listings.
  virtual std::string DebugString() const = 0;
  // Bytes held, for memory accounting; 0 when unknown.
  virtual int64_t MemoryUsed() const { return 0; }
};

// Thread-safe. Holds one reference to each resource it stores; Lookup hands
// the caller a new reference, which the caller must Unref (core::ScopedUnref).
class ResourceMgr {
 public:
  ResourceMgr();
  explicit ResourceMgr(std::string default_container);
  ~ResourceMgr();
  ResourceMgr(const ResourceMgr&) = delete;
  ResourceMgr& operator=(const ResourceMgr&) = delete;

  const std::string& default_container() const { return default_container_; }

  // Stores `resource` (taking over the caller's reference) under
  // (container, T, name). AlreadyExists when one is there; the resource is
  // then unreffed.
  template <typename T>
  Status Create(const std::string& container, const std::string& name,
                T* resource);

  // Sets *resource (with a new reference) to the stored resource. NotFound
  // when there is none; InvalidArgument when it has another type. With
  // `use_dynamic_cast`, a resource stored as a subclass of T also matches.
  template <typename T, bool use_dynamic_cast = false>
  Status Lookup(const std::string& container, const std::string& name,
                T** resource) const;

  // Lookup, or when absent, `creator(&r)` and store r. Concurrent callers
  // with the same key get the same resource; `creator` runs at most once per
  // key and without the manager's lock held, so it may use the manager.
  template <typename T, bool use_dynamic_cast = false>
  Status LookupOrCreate(const std::string& container, const std::string& name,
                        T** resource, std::function<Status(T**)> creator);

  // Drops the manager's reference. NotFound when absent.
  template <typename T>
  Status Delete(const std::string& container, const std::string& name);

  // Drops the resource `handle` names (its container, name and type hash,
  // whatever the C++ type). NotFound when absent.
  Status Delete(const ResourceHandle& handle);

  // Drops every resource of `container`; OK if it does not exist.
  Status Cleanup(const std::string& container);
  // Drops everything.
  void Clear();

  // One line per resource: "container | type | name | DebugString".
  std::string DebugString() const;

 private:
  struct Key {
    std::string container;
    std::type_index type;
    std::string name;
    bool operator==(const Key& o) const {
      return type == o.type && container == o.container && name == o.name;
    }
    template <typename H>
    friend H AbslHashValue(H h, const Key& k) {
      return H::combine(std::move(h), k.container, k.type, k.name);
    }
  };
  // `type_name` is only for messages.
  Status DoCreate(const std::string& container, std::type_index type,
                  const char* type_name, const std::string& name,
                  ResourceBase* resource);
  // With `exact_type` false, matches any type under (container, name).
  Status DoLookup(const std::string& container, std::type_index type,
                  const char* type_name, const std::string& name,
                  bool exact_type, ResourceBase** resource) const;
  Status DoDelete(const std::string& container, std::type_index type,
                  const char* type_name, const std::string& name);

  template <typename T, bool use_dynamic_cast>
  Status LookupInternal(const std::string& container, const std::string& name,
                        T** resource) const;

  const std::string default_container_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<Key, ResourceBase*> resources_ ABSL_GUARDED_BY(mu_);
  // Serialises LookupOrCreate's creator calls per manager.
  absl::Mutex create_mu_;
};

// ---------------------------------------------------------------------------
// Implementation of the templates.

template <typename T>
Status ResourceMgr::Create(const std::string& container,
                           const std::string& name, T* resource) {
  static_assert(std::is_base_of<ResourceBase, T>::value,
                "T must derive from ResourceBase");
  return DoCreate(container, std::type_index(typeid(T)), typeid(T).name(), name,
                  resource);
}

template <typename T, bool use_dynamic_cast>
Status ResourceMgr::LookupInternal(const std::string& container,
                                   const std::string& name,
                                   T** resource) const {
  ResourceBase* found = nullptr;
  MF_RETURN_IF_ERROR(DoLookup(container, std::type_index(typeid(T)),
                              typeid(T).name(), name, !use_dynamic_cast,
                              &found));
  if constexpr (use_dynamic_cast) {
    // DoLookup matched the name only: the type may still be another.
    T* typed = dynamic_cast<T*>(found);
    if (typed == nullptr) {
      const std::string actual = found->DebugString();
      found->Unref();
      return errors::InvalidArgument(
          "Resource ", container, "/", name, " is not a ",
          internal::DemangleTypeName(typeid(T).name()), ": ", actual);
    }
    *resource = typed;
  } else {
    // DoLookup matched the type too.
    *resource = static_cast<T*>(found);
  }
  return OkStatus();
}

template <typename T, bool use_dynamic_cast>
Status ResourceMgr::Lookup(const std::string& container,
                           const std::string& name, T** resource) const {
  static_assert(std::is_base_of<ResourceBase, T>::value,
                "T must derive from ResourceBase");
  return LookupInternal<T, use_dynamic_cast>(container, name, resource);
}

template <typename T, bool use_dynamic_cast>
Status ResourceMgr::LookupOrCreate(const std::string& container,
                                   const std::string& name, T** resource,
                                   std::function<Status(T**)> creator) {
  *resource = nullptr;
  Status s = LookupInternal<T, use_dynamic_cast>(container, name, resource);
  if (s.ok() || !errors::IsNotFound(s)) return s;
  absl::MutexLock create_lock(&create_mu_);
  s = LookupInternal<T, use_dynamic_cast>(container, name, resource);
  if (s.ok() || !errors::IsNotFound(s)) return s;
  T* created = nullptr;
  MF_RETURN_IF_ERROR(creator(&created));
  if (created == nullptr) {
    return errors::Internal("LookupOrCreate creator for ", container, "/", name,
                            " returned OK but no resource");
  }
  created->Ref();  // one for the caller, one for the manager
  s = Create(container, name, created);
  if (!s.ok()) {
    created->Unref();
    return s;
  }
  *resource = created;
  return OkStatus();
}

template <typename T>
Status ResourceMgr::Delete(const std::string& container,
                           const std::string& name) {
  return DoDelete(container, std::type_index(typeid(T)), typeid(T).name(),
                  name);
}

}  // namespace minflow
