// Resource handles in kernels, with TensorFlow's names: a kernel that
// creates a resource hands out a DT_RESOURCE scalar made by
// MakeResourceHandle<T>; kernels that use it read the handle from an input
// (HandleFromInput) and look the resource up in the step's ResourceMgr
// (LookupResource<T>), which checks the handle's device and C++ type first.
#pragma once

#include <functional>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <vector>

#include "absl/strings/string_view.h"
#include "minflow/core/resource_handle.h"
#include "minflow/core/status.h"
#include "minflow/core/variant.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/resource_mgr.h"

namespace minflow {

// The identity of T that handles carry (ResourceHandle::hash_code).
template <typename T>
uint64_t ResourceTypeHashCode() {
  return static_cast<uint64_t>(std::type_index(typeid(T)).hash_code());
}

// A handle to the resource of type T named `name` in `container` (the
// manager's default container when empty) on `device`.
ResourceHandle MakeResourceHandle(
    const std::string& container, const std::string& name,
    const DeviceBase& device, uint64_t type_hash_code,
    const std::string& type_name,
    std::vector<DtypeAndPartialTensorShape> dtypes_and_shapes = {});

template <typename T>
ResourceHandle MakeResourceHandle(
    OpKernelContext* ctx, const std::string& container, const std::string& name,
    std::vector<DtypeAndPartialTensorShape> dtypes_and_shapes = {}) {
  const std::string& c = container.empty()
                             ? ctx->resource_manager()->default_container()
                             : container;
  return MakeResourceHandle(c, name, *ctx->device(), ResourceTypeHashCode<T>(),
                            internal::DemangleTypeName(typeid(T).name()),
                            std::move(dtypes_and_shapes));
}

// Output `output_index` becomes a scalar DT_RESOURCE holding `handle`.
Status MakeResourceHandleToOutput(OpKernelContext* ctx, int output_index,
                                  const ResourceHandle& handle);

// The handle in input `input`, which must be a DT_RESOURCE scalar
// (InvalidArgument otherwise).
Status HandleFromInput(OpKernelContext* ctx, int input, ResourceHandle* handle);
Status HandleFromInput(OpKernelContext* ctx, absl::string_view input,
                       ResourceHandle* handle);
// As above without a copy: *handle points into the input, valid while the
// kernel runs.
Status HandleFromInput(OpKernelContext* ctx, int input,
                       const ResourceHandle** handle);

namespace internal {
// InvalidArgument unless `handle` was made on this context's device for a
// resource of type `type_hash_code`.
Status ValidateHandle(OpKernelContext* ctx, const ResourceHandle& handle,
                      uint64_t type_hash_code, const std::string& type_name);
}  // namespace internal

// Looks the resource up (a new reference for the caller, who must Unref
// it). NotFound naming the container and name when it does not exist.
template <typename T>
Status LookupResource(OpKernelContext* ctx, const ResourceHandle& handle,
                      T** value) {
  MF_RETURN_IF_ERROR(
      internal::ValidateHandle(ctx, handle, ResourceTypeHashCode<T>(),
                               internal::DemangleTypeName(typeid(T).name())));
  return ctx->resource_manager()->Lookup<T>(handle.container(), handle.name(),
                                            value);
}

// Creates the resource; AlreadyExists when it is there.
template <typename T>
Status CreateResource(OpKernelContext* ctx, const ResourceHandle& handle,
                      T* value) {
  Status s =
      internal::ValidateHandle(ctx, handle, ResourceTypeHashCode<T>(),
                               internal::DemangleTypeName(typeid(T).name()));
  if (!s.ok()) {
    value->Unref();
    return s;
  }
  return ctx->resource_manager()->Create<T>(handle.container(), handle.name(),
                                            value);
}

template <typename T>
Status LookupOrCreateResource(OpKernelContext* ctx,
                              const ResourceHandle& handle, T** value,
                              std::function<Status(T**)> creator) {
  MF_RETURN_IF_ERROR(
      internal::ValidateHandle(ctx, handle, ResourceTypeHashCode<T>(),
                               internal::DemangleTypeName(typeid(T).name())));
  return ctx->resource_manager()->LookupOrCreate<T>(
      handle.container(), handle.name(), value, std::move(creator));
}

// Deletes the resource the handle names, whatever its type; NotFound when
// there is none.
Status DeleteResource(OpKernelContext* ctx, const ResourceHandle& handle);

}  // namespace minflow
