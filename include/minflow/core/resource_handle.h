// ResourceHandle: the element type of DT_RESOURCE tensors. It names a
// resource in a device's ResourceMgr (container and name) and carries the
// resource's C++ type (hash_code, checked at lookup) and, for variables and
// other typed containers, the dtypes and shapes of what it holds, so that
// shape inference can see through a handle. TensorFlow's fields and proto.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "minflow/core/status.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/types.h"

namespace minflow {

class ResourceHandleProto;

struct DtypeAndPartialTensorShape {
  DataType dtype = DT_INVALID;
  PartialTensorShape shape;
};

class ResourceHandle {
 public:
  ResourceHandle() = default;

  const std::string& device() const { return device_; }
  void set_device(const std::string& device) { device_ = device; }
  const std::string& container() const { return container_; }
  void set_container(const std::string& container) { container_ = container; }
  const std::string& name() const { return name_; }
  void set_name(const std::string& name) { name_ = name; }
  // Identifies the resource's C++ type within this process.
  uint64_t hash_code() const { return hash_code_; }
  void set_hash_code(uint64_t hash_code) { hash_code_ = hash_code; }
  // For messages only.
  const std::string& maybe_type_name() const { return maybe_type_name_; }
  void set_maybe_type_name(const std::string& name) { maybe_type_name_ = name; }
  const std::vector<DtypeAndPartialTensorShape>& dtypes_and_shapes() const {
    return dtypes_and_shapes_;
  }
  void set_dtypes_and_shapes(std::vector<DtypeAndPartialTensorShape> v) {
    dtypes_and_shapes_ = std::move(v);
  }

  void AsProto(ResourceHandleProto* proto) const;
  // InvalidArgument for a malformed shape or dtype in the proto.
  Status FromProto(const ResourceHandleProto& proto);

  // "ResourceHandle(name=\"v\", device=\"/job:...\", container=\"c\",
  // type=\"minflow::Var\")".
  std::string DebugString() const;

 private:
  std::string device_;
  std::string container_;
  std::string name_;
  uint64_t hash_code_ = 0;
  std::string maybe_type_name_;
  std::vector<DtypeAndPartialTensorShape> dtypes_and_shapes_;
};

}  // namespace minflow
