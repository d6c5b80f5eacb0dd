#include "minflow/framework/resource_mgr.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace minflow {
ResourceMgr::ResourceMgr() : ResourceMgr("localhost") {}

ResourceMgr::ResourceMgr(std::string default_container)
    : default_container_(std::move(default_container)) {}

ResourceMgr::~ResourceMgr() { Clear(); }

Status ResourceMgr::DoCreate(const std::string& container, std::type_index type,
                             const char* type_name, const std::string& name,
                             ResourceBase* resource) {
  {
    absl::MutexLock lock(&mu_);
    auto [it, inserted] =
        resources_.emplace(Key{container, type, name}, resource);
    if (inserted) return OkStatus();
  }
  resource->Unref();
  return errors::AlreadyExists("Resource ", container, "/", name, "/",
                               internal::DemangleTypeName(type_name));
}

Status ResourceMgr::DoLookup(const std::string& container, std::type_index type,
                             const char* type_name, const std::string& name,
                             bool exact_type, ResourceBase** resource) const {
  absl::ReaderMutexLock lock(&mu_);
  if (exact_type) {
    auto it = resources_.find(Key{container, type, name});
    if (it != resources_.end()) {
      it->second->Ref();
      *resource = it->second;
      return OkStatus();
    }
  } else {
    // A subclass is stored under its own type: scan the (container, name)
    // entries. Resource managers hold few entries, so this stays cheap.
    for (const auto& [key, value] : resources_) {
      if (key.container == container && key.name == name) {
        value->Ref();
        *resource = value;
        return OkStatus();
      }
    }
  }
  const bool container_exists = std::any_of(
      resources_.begin(), resources_.end(),
      [&](const auto& kv) { return kv.first.container == container; });
  if (!container_exists) {
    return errors::NotFound("Container ", container,
                            " does not exist. (Could not find resource: ",
                            container, "/", name, ")");
  }
  return errors::NotFound("Resource ", container, "/", name, "/",
                          internal::DemangleTypeName(type_name),
                          " does not exist.");
}

Status ResourceMgr::DoDelete(const std::string& container, std::type_index type,
                             const char* type_name, const std::string& name) {
  ResourceBase* doomed = nullptr;
  {
    absl::MutexLock lock(&mu_);
    auto it = resources_.find(Key{container, type, name});
    if (it == resources_.end()) {
      return errors::NotFound("Resource ", container, "/", name, "/",
                              internal::DemangleTypeName(type_name),
                              " does not exist.");
    }
    doomed = it->second;
    resources_.erase(it);
  }
  // Unref outside the lock: a destructor may use the manager.
  doomed->Unref();
  return OkStatus();
}

Status ResourceMgr::Delete(const ResourceHandle& handle) {
  ResourceBase* doomed = nullptr;
  {
    absl::MutexLock lock(&mu_);
    for (auto it = resources_.begin(); it != resources_.end(); ++it) {
      const Key& key = it->first;
      if (key.container == handle.container() && key.name == handle.name() &&
          static_cast<uint64_t>(key.type.hash_code()) == handle.hash_code()) {
        doomed = it->second;
        resources_.erase(it);
        break;
      }
    }
  }
  if (doomed == nullptr) {
    return errors::NotFound("Resource ", handle.container(), "/", handle.name(),
                            "/", handle.maybe_type_name(), " does not exist.");
  }
  doomed->Unref();
  return OkStatus();
}

Status ResourceMgr::Cleanup(const std::string& container) {
  std::vector<ResourceBase*> doomed;
  {
    absl::MutexLock lock(&mu_);
    for (auto it = resources_.begin(); it != resources_.end();) {
      if (it->first.container == container) {
        doomed.push_back(it->second);
        resources_.erase(it++);
      } else {
        ++it;
      }
    }
  }
  for (ResourceBase* r : doomed) r->Unref();
  return OkStatus();
}

void ResourceMgr::Clear() {
  absl::flat_hash_map<Key, ResourceBase*> doomed;
  {
    absl::MutexLock lock(&mu_);
    doomed.swap(resources_);
  }
  for (auto& [key, r] : doomed) r->Unref();
}

std::string ResourceMgr::DebugString() const {
  std::vector<std::string> lines;
  {
    absl::ReaderMutexLock lock(&mu_);
    for (const auto& [key, r] : resources_) {
      lines.push_back(absl::StrCat(key.container, " | ",
                                   internal::DemangleTypeName(key.type.name()),
                                   " | ", key.name, " | ", r->DebugString()));
    }
  }
  std::sort(lines.begin(), lines.end());
  return absl::StrJoin(lines, "\n");
}

}  // namespace minflow
