#include "minflow/core/resource_handle.h"

#include "absl/strings/str_cat.h"
#include "minflow/resource_handle.pb.h"

namespace minflow {

void ResourceHandle::AsProto(ResourceHandleProto* proto) const {
  proto->Clear();
  proto->set_device(device_);
  proto->set_container(container_);
  proto->set_name(name_);
  proto->set_hash_code(hash_code_);
  proto->set_maybe_type_name(maybe_type_name_);
  for (const DtypeAndPartialTensorShape& ds : dtypes_and_shapes_) {
    auto* out = proto->add_dtypes_and_shapes();
    out->set_dtype(ds.dtype);
    ds.shape.AsProto(out->mutable_shape());
  }
}

Status ResourceHandle::FromProto(const ResourceHandleProto& proto) {
  std::vector<DtypeAndPartialTensorShape> dtypes_and_shapes;
  for (const auto& ds : proto.dtypes_and_shapes()) {
    DtypeAndPartialTensorShape entry;
    entry.dtype = ds.dtype();
    if (!DataTypeIsValid(entry.dtype) || IsRefType(entry.dtype)) {
      return errors::InvalidArgument("Resource handle '", proto.name(),
                                     "' holds an invalid dtype ",
                                     static_cast<int>(ds.dtype()));
    }
    MF_RETURN_IF_ERROR(
        PartialTensorShape::BuildPartialTensorShape(ds.shape(), &entry.shape));
    dtypes_and_shapes.push_back(std::move(entry));
  }
  device_ = proto.device();
  container_ = proto.container();
  name_ = proto.name();
  hash_code_ = proto.hash_code();
  maybe_type_name_ = proto.maybe_type_name();
  dtypes_and_shapes_ = std::move(dtypes_and_shapes);
  return OkStatus();
}

std::string ResourceHandle::DebugString() const {
  std::string s = absl::StrCat("ResourceHandle(name=\"", name_, "\", device=\"",
                               device_, "\", container=\"", container_,
                               "\", type=\"", maybe_type_name_, "\"");
  if (!dtypes_and_shapes_.empty()) {
    absl::StrAppend(&s, ", dtype and shapes : \"");
    for (size_t i = 0; i < dtypes_and_shapes_.size(); ++i) {
      absl::StrAppend(&s, i == 0 ? "" : ", ", "{ ",
                      DataTypeString(dtypes_and_shapes_[i].dtype), " ",
                      dtypes_and_shapes_[i].shape.DebugString(), " }");
    }
    absl::StrAppend(&s, "\"");
  }
  return s + ")";
}

}  // namespace minflow
