// Accelerators as the executor and the copy kernels see them: a device
// whose memory is not host memory and whose work runs asynchronously, in
// order, on one stream. The CUDA layer implements this interface with a
// cudaStream_t (src/cuda/gpu_device.h); tests implement it with a host
// worker thread (tests/runtime/fake_accelerator.h), so the placement, copy,
// completion and error paths run in CI without a GPU. No CUDA types here.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "minflow/core/allocator.h"
#include "minflow/core/status.h"
#include "minflow/framework/device.h"

namespace minflow {

// Note [Accelerator streams]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// Every kernel of an accelerator device enqueues its work on the device's one
// stream and returns without waiting, so the executor never synchronises per
// node. Work on a stream runs in the order it was enqueued; that alone makes
// a kernel see its inputs complete. Device memory is stream-ordered too: a
// buffer freed by the executor after its last consumer was *enqueued* is
// reused only by work enqueued later. The host waits only where it must
// read device memory: `_CopyToHost`, and the end of a step (Device::Sync),
// which is also where an error raised asynchronously on the stream reaches
// the caller. Errors are sticky: once the stream failed, every later wait
// returns the first error.
class AcceleratorStream {
 public:
  virtual ~AcceleratorStream() = default;

  // Enqueue copies of `bytes` bytes. The host source of a host-to-device
  // copy may be reused as soon as the call returns.
  virtual Status CopyHostToDevice(const void* host_src, void* device_dst,
                                  size_t bytes) = 0;
  virtual Status CopyDeviceToHost(const void* device_src, void* host_dst,
                                  size_t bytes) = 0;
  virtual Status CopyDeviceToDevice(const void* device_src, void* device_dst,
                                    size_t bytes) = 0;
  // Blocks until all work enqueued so far is done; the stream's first
  // error, if any.
  virtual Status BlockHostUntilDone() = 0;
};

// A device with its own memory and one stream (Note [Accelerator streams]).
// Host-memory allocations (AllocatorAttributes::on_host) come from the host
// allocator. Thread-safe.
class AcceleratorDevice : public Device {
 public:
  // `device_allocator` hands out device memory in stream order; neither it
  // nor `stream` is owned, and both must outlive the device. Subclasses that
  // make them after construction pass null and call
  // set_stream_and_allocator before the device is used.
  AcceleratorDevice(std::string name, DeviceType device_type,
                    Allocator* device_allocator, AcceleratorStream* stream);
  ~AcceleratorDevice() override;

  Allocator* GetAllocator(AllocatorAttributes attr) override;
  AcceleratorStream* stream() const { return stream_; }

  // Decodes on the host, then copies into device memory.
  Status MakeTensorFromProto(const TensorProto& proto, AllocatorAttributes attr,
                             Tensor* tensor) override;
  // Waits for the stream; its sticky error names this device.
  Status Sync() override;

 protected:
  void set_stream_and_allocator(AcceleratorStream* stream,
                                Allocator* device_allocator) {
    stream_ = stream;
    device_allocator_ = device_allocator;
  }

 private:
  Allocator* device_allocator_;
  AcceleratorStream* stream_;
};

}  // namespace minflow
