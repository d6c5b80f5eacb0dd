#include "minflow/framework/accelerator_device.h"

#include <algorithm>
#include <utility>

#include "minflow/core/tensor.h"
#include "minflow/tensor.pb.h"

namespace minflow {

// --- Capture defaults: a stream that cannot capture says so.

std::unique_ptr<Allocator> AcceleratorStream::NewCaptureHostArena(
    size_t first_chunk_bytes) {
  return nullptr;
}

Status AcceleratorStream::BeginCapture(Allocator* host_memory) {
  return errors::Unimplemented("This device's stream cannot capture work");
}

Status AcceleratorStream::EndCapture(
    std::unique_ptr<CapturedStreamWork>* work) {
  return errors::FailedPrecondition("The stream is not capturing");
}

// --- CaptureHostArena

CaptureHostArena::CaptureHostArena(std::function<void*(size_t)> allocate_chunk,
                                   std::function<void(void*)> free_chunk,
                                   size_t first_chunk_bytes)
    : allocate_chunk_(std::move(allocate_chunk)),
      free_chunk_(std::move(free_chunk)) {
  absl::MutexLock lock(&mu_);
  if (first_chunk_bytes > 0) AddChunk(first_chunk_bytes);
}

CaptureHostArena::~CaptureHostArena() {
  absl::MutexLock lock(&mu_);
  for (const Chunk& chunk : chunks_) free_chunk_(chunk.base);
}

bool CaptureHostArena::AddChunk(size_t bytes) {
  void* base = allocate_chunk_(bytes);
  if (base == nullptr) return false;
  chunks_.push_back(Chunk{static_cast<char*>(base), bytes, 0});
  return true;
}

void* CaptureHostArena::AllocateRaw(size_t alignment, size_t num_bytes) {
  alignment = std::max(alignment, kAllocatorAlignment);
  // Zero bytes still gets a distinct pointer, as the host allocator's.
  const size_t bytes = std::max<size_t>(num_bytes, 1);
  absl::MutexLock lock(&mu_);
  auto fits = [&](Chunk& chunk) -> char* {
    const auto base = reinterpret_cast<uintptr_t>(chunk.base);
    const uintptr_t start =
        (base + chunk.used + alignment - 1) / alignment * alignment;
    if (start + bytes > base + chunk.size) return nullptr;
    chunk.used = start + bytes - base;
    return reinterpret_cast<char*>(start);
  };
  char* ptr = chunks_.empty() ? nullptr : fits(chunks_.back());
  if (ptr == nullptr) {
    // Chunks at least double, so a capture makes few of them.
    const size_t last = chunks_.empty() ? 0 : chunks_.back().size;
    if (!AddChunk(std::max(2 * last, bytes + alignment))) return nullptr;
    ptr = fits(chunks_.back());
  }
  ++stats_.num_allocs;
  ++stats_.num_system_allocs;
  stats_.bytes_in_use += static_cast<int64_t>(bytes);
  stats_.peak_bytes_in_use = stats_.bytes_in_use;
  stats_.largest_alloc_size =
      std::max(stats_.largest_alloc_size, static_cast<int64_t>(bytes));
  return ptr;
}

AllocatorStats CaptureHostArena::GetStats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

void CaptureHostArena::ResetPeak() {
  absl::MutexLock lock(&mu_);
  stats_.peak_bytes_in_use = stats_.bytes_in_use;
}

// --- AcceleratorDevice

AcceleratorDevice::AcceleratorDevice(std::string name, DeviceType device_type,
                                     Allocator* device_allocator,
                                     AcceleratorStream* stream)
    : Device(std::move(name), std::move(device_type)),
      device_allocator_(device_allocator),
      stream_(stream) {}

AcceleratorDevice::~AcceleratorDevice() = default;

Allocator* AcceleratorDevice::GetAllocator(AllocatorAttributes attr) {
  if (!attr.on_host()) return device_allocator_;
  Allocator* capture_host = stream_->capture_host_allocator();
  return capture_host != nullptr ? capture_host : cpu_allocator();
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
