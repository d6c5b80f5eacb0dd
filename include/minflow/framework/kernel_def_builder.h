// KernelDefBuilder: the fluent half of REGISTER_KERNEL_BUILDER,
//   Name("Op").Device(DEVICE_CPU).TypeConstraint<float>("T")
//       .HostMemory("shape").Label("l").Priority(1)
// which builds a KernelDef proto. Checking the result against the op's
// OpDef happens later, in the kernel registry (see Note [Lazy kernel
// validation] in kernel_registry.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/types/span.h"
#include "minflow/core/types.h"

namespace minflow {

class KernelDef;

// Not thread-safe; used once per registration.
class KernelDefBuilder {
 public:
  explicit KernelDefBuilder(const char* op_name);
  ~KernelDefBuilder();
  KernelDefBuilder(const KernelDefBuilder&) = delete;
  KernelDefBuilder& operator=(const KernelDefBuilder&) = delete;

  // The device type the kernel runs on (DEVICE_CPU, DEVICE_GPU, ...).
  KernelDefBuilder& Device(const char* device_type);

  // The `type` (or `list(type)`) attr `attr_name` must be one of `allowed`
  // (every element of it, for a list).
  KernelDefBuilder& TypeConstraint(const char* attr_name,
                                   absl::Span<const DataType> allowed);
  KernelDefBuilder& TypeConstraint(const char* attr_name, DataType allowed);
  template <class T>
  KernelDefBuilder& TypeConstraint(const char* attr_name) {
    return TypeConstraint(attr_name, DataTypeToEnum<T>::v());
  }

  // Constraints on `int`, `string` and `bool` attrs (or lists of them), as
  // TensorFlow's AttrConstraint: the node's value must be one of `allowed`.
  KernelDefBuilder& AttrConstraint(const char* attr_name,
                                   absl::Span<const int64_t> allowed);
  KernelDefBuilder& AttrConstraint(const char* attr_name, int64_t allowed);
  KernelDefBuilder& AttrConstraint(const char* attr_name,
                                   absl::Span<const std::string> allowed);
  KernelDefBuilder& AttrConstraint(const char* attr_name,
                                   const std::string& allowed);
  KernelDefBuilder& AttrConstraint(const char* attr_name, const char* allowed);
  KernelDefBuilder& AttrConstraint(const char* attr_name, bool allowed);

  // The input or output arg `arg_name` lives in host memory even when the
  // kernel runs on an accelerator (shapes, axes, sizes).
  KernelDefBuilder& HostMemory(const char* arg_name);

  // The kernel is chosen only for nodes whose `_kernel` attr is `label`.
  KernelDefBuilder& Label(const char* label);

  // Among matching kernels the highest priority wins; default 0.
  KernelDefBuilder& Priority(int32_t priority);

  // Returns the KernelDef; the builder must not be used afterwards. The
  // caller owns the result.
  const KernelDef* Build();

 private:
  std::unique_ptr<KernelDef> kernel_def_;
};

}  // namespace minflow
