#include "minflow/framework/accelerator_device.h"

#include <utility>

#include "minflow/core/tensor.h"
#include "minflow/tensor.pb.h"

namespace minflow {

AcceleratorDevice::AcceleratorDevice(std::string name, DeviceType device_type,
                                     Allocator* device_allocator,
                                     AcceleratorStream* stream)
    : Device(std::move(name), std::move(device_type)),
      device_allocator_(device_allocator),
      stream_(stream) {}

AcceleratorDevice::~AcceleratorDevice() = default;

Allocator* AcceleratorDevice::GetAllocator(AllocatorAttributes attr) {
  return attr.on_host() ? cpu_allocator() : device_allocator_;
}

Status AcceleratorDevice::MakeTensorFromProto(const TensorProto& proto,
                                              AllocatorAttributes attr,
                                              Tensor* tensor) {
  Tensor host;
  TensorProtoOptions options;
  options.allocator = cpu_allocator();
  MF_RETURN_IF_ERROR(TensorFromProto(proto, &host, options));
  // Strings, resources and variants hold host objects; they stay on the host
  // whatever was asked.
  if (attr.on_host() || !DataTypeCanUseMemcpy(host.dtype())) {
    *tensor = std::move(host);
    return OkStatus();
  }
  MF_ASSIGN_OR_RETURN(
      Tensor on_device,
      Tensor::Allocate(device_allocator_, host.dtype(), host.shape()));
  if (host.TotalBytes() > 0) {
    MF_RETURN_IF_ERROR(stream_->CopyHostToDevice(
        host.tensor_data().data(),
        const_cast<char*>(on_device.tensor_data().data()), host.TotalBytes()));
  }
  *tensor = std::move(on_device);
  return OkStatus();
}

Status AcceleratorDevice::Sync() {
  Status s = stream_->BlockHostUntilDone();
  if (!s.ok()) {
    return errors::AppendToMessage(s, " (on device ", name(), ")");
  }
  return OkStatus();
}

}  // namespace minflow
