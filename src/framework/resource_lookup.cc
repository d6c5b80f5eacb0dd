#include "minflow/framework/resource_lookup.h"

#include "absl/strings/str_cat.h"

namespace minflow {

ResourceHandle MakeResourceHandle(
    const std::string& container, const std::string& name,
    const DeviceBase& device, uint64_t type_hash_code,
    const std::string& type_name,
    std::vector<DtypeAndPartialTensorShape> dtypes_and_shapes) {
  ResourceHandle handle;
  handle.set_device(device.name());
  handle.set_container(container);
  handle.set_name(name);
  handle.set_hash_code(type_hash_code);
  handle.set_maybe_type_name(type_name);
  handle.set_dtypes_and_shapes(std::move(dtypes_and_shapes));
  return handle;
}

Status MakeResourceHandleToOutput(OpKernelContext* ctx, int output_index,
                                  const ResourceHandle& handle) {
  Tensor* out = nullptr;
  MF_RETURN_IF_ERROR(ctx->allocate_output(output_index, TensorShape(), &out));
  out->scalar<ResourceHandle>()() = handle;
  return OkStatus();
}

Status HandleFromInput(OpKernelContext* ctx, int input,
                       ResourceHandle* handle) {
  const ResourceHandle* found = nullptr;
  MF_RETURN_IF_ERROR(HandleFromInput(ctx, input, &found));
  *handle = *found;
  return OkStatus();
}

Status HandleFromInput(OpKernelContext* ctx, int input,
                       const ResourceHandle** handle) {
  if (input < 0 || input >= ctx->num_inputs() || !ctx->has_input(input) ||
      ctx->input_is_ref(input)) {
    return errors::Internal("Input ", input, " is not a resource handle");
  }
  const Tensor& t = ctx->input(input);
  if (t.dtype() != DT_RESOURCE) {
    return errors::InvalidArgument("Expected a resource handle for input ",
                                   input, ", got ", DataTypeString(t.dtype()));
  }
  if (t.NumElements() != 1 || !t.IsInitialized()) {
    return errors::InvalidArgument(
        "Expected a single resource handle for input ", input, ", got shape ",
        t.shape().DebugString());
  }
  *handle = &t.flat<ResourceHandle>()(0);
  return OkStatus();
}

Status HandleFromInput(OpKernelContext* ctx, absl::string_view input,
                       ResourceHandle* handle) {
  int start = 0;
  int stop = 0;
  MF_RETURN_IF_ERROR(ctx->input_range(input, &start, &stop));
  if (stop != start + 1) {
    return errors::InvalidArgument("Input '", input,
                                   "' is not a single resource handle");
  }
  return HandleFromInput(ctx, start, handle);
}

namespace internal {

Status ValidateHandle(OpKernelContext* ctx, const ResourceHandle& handle,
                      uint64_t type_hash_code, const std::string& type_name) {
  if (ctx->device() != nullptr && handle.device() != ctx->device()->name()) {
    return errors::InvalidArgument("Trying to access resource ", handle.name(),
                                   " located in device ", handle.device(),
                                   " from device ", ctx->device()->name());
  }
  if (handle.hash_code() != type_hash_code) {
    return errors::InvalidArgument(
        "Trying to access resource ", handle.name(),
        " using the wrong type. Expected ", type_name, " got ",
        handle.maybe_type_name().empty() ? "an unknown type"
                                         : handle.maybe_type_name());
  }
  return OkStatus();
}

}  // namespace internal

Status DeleteResource(OpKernelContext* ctx, const ResourceHandle& handle) {
  if (ctx->device() != nullptr && handle.device() != ctx->device()->name()) {
    return errors::InvalidArgument("Trying to delete resource ", handle.name(),
                                   " located in device ", handle.device(),
                                   " from device ", ctx->device()->name());
  }
  return ctx->resource_manager()->Delete(handle);
}

}  // namespace minflow
