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
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
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
class CapturedStreamWork;

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
  // error, if any. While the stream captures: FailedPrecondition, because
  // nothing recorded has run.
  virtual Status BlockHostUntilDone() = 0;

  // Capture (Note [Captured steps]). A stream that cannot capture keeps
  // these defaults.
  virtual bool SupportsCapture() const { return false; }
  // Host memory that captured copies may read and write at every launch:
  // page-locked on a GPU. `first_chunk_bytes` is made now, before capture
  // starts; more is made on demand.
  virtual std::unique_ptr<Allocator> NewCaptureHostArena(
      size_t first_chunk_bytes);
  // From now on, work enqueued on the stream (from any thread) is recorded,
  // not run, and host-memory tensors of the device come from `host_memory`
  // (which must outlive the work EndCapture returns).
  virtual Status BeginCapture(Allocator* host_memory);
  // Stops recording. On success `work` launches what was recorded; device
  // memory allocated while recording belongs to it. Called after every
  // BeginCapture that succeeded, even when the captured run failed.
  virtual Status EndCapture(std::unique_ptr<CapturedStreamWork>* work);
  // The allocator BeginCapture was given while capturing, else null.
  virtual Allocator* capture_host_allocator() const { return nullptr; }
  bool IsCapturing() const { return capture_host_allocator() != nullptr; }

  // A feed bound to a device buffer: while capturing, a copy to the device
  // from exactly `host` is recorded as a copy from `device`, which the
  // owner of the recording fills before each launch (Note [Captured
  // steps]). Bound before BeginCapture, unbound after EndCapture, by the
  // thread that captures.
  void BindCaptureSource(const void* host, const void* device) {
    capture_sources_.emplace_back(host, device);
  }
  void ClearCaptureSources() { capture_sources_.clear(); }
  // The device buffer bound to `host`, or null.
  const void* CaptureSourceFor(const void* host) const {
    for (const auto& [bound_host, device] : capture_sources_) {
      if (bound_host == host) return device;
    }
    return nullptr;
  }

 private:
  std::vector<std::pair<const void*, const void*>> capture_sources_;
};

// Note [Captured steps]
// ~~~~~~~~~~~~~~~~~~~~~
// A step whose every kernel runs on one accelerator (its feeds copied in and
// its fetches copied out, nothing else on the host) does the same work every
// time its feeds have the same shapes. With GPUOptions.Experimental.
// use_cuda_graphs the session records such a step's stream work once, on its
// second run (the first does the lazy set-up capture must not see), and then
// launches the recording instead of running the executor: one launch per
// step instead of one per node, and no host work per node (a CUDA Graph on
// the GPU). What makes this correct:
// - Nothing recorded runs at capture time, so the session launches the
//   recording once to produce the capture run's own results.
// - Memory a recorded copy touches must stay put. Each feed gets a device
//   buffer outside the recording; the executor is given a host buffer as
//   the feed, and the copy in from it is recorded as a copy from the device
//   buffer (BindCaptureSource). Each launch first copies the caller's feeds
//   into those device buffers, as an uncaptured step's copy in would. The
//   copies out write buffers of the capture's host arena (the device hands
//   out arena memory for on_host allocations while capturing), page-locked
//   on a GPU; each launch is followed by a copy out of them.
// - Device memory a captured step allocates and frees is the recording's own,
//   valid at every launch (CUDA's graph memory nodes).
// - Host work in the step runs once, at capture: so no host kernel may see a
//   value that comes from a feed or from the device. The session checks the
//   graph before capturing (CheckCapturable), and BlockHostUntilDone fails
//   while capturing, so a kernel that waits for the device makes the capture
//   fail rather than record garbage; a failed capture leaves the signature
//   uncaptured for good, and that run goes through the executor.
// - Capture must not record another step's work: steps that may touch the
//   stream hold the session's capture lock shared, a capture holds it
//   exclusively.

// What a stream recorded between BeginCapture and EndCapture.
class CapturedStreamWork {
 public:
  virtual ~CapturedStreamWork() = default;
  // Enqueues the recorded work on the stream it was recorded from; the
  // host waits with the stream's BlockHostUntilDone, as for any work.
  virtual Status Launch() = 0;
};

// Host memory for a capture: chunks from `allocate_chunk`, handed out in
// order and never reused, all returned to `free_chunk` when the arena goes,
// so every buffer a recording refers to lives as long as the recording's
// owner keeps the arena. Thread-safe.
class CaptureHostArena final : public Allocator {
 public:
  CaptureHostArena(std::function<void*(size_t)> allocate_chunk,
                   std::function<void(void*)> free_chunk,
                   size_t first_chunk_bytes);
  ~CaptureHostArena() override;

  std::string Name() const override { return "capture_host_arena"; }
  void* AllocateRaw(size_t alignment, size_t num_bytes) override;
  // Nothing: the memory goes with the arena.
  void DeallocateRaw(void* ptr, size_t num_bytes) override {}
  AllocatorStats GetStats() const override;
  void ResetPeak() override;

 private:
  struct Chunk {
    char* base;
    size_t size;
    size_t used;
  };
  bool AddChunk(size_t bytes) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::function<void*(size_t)> allocate_chunk_;
  const std::function<void(void*)> free_chunk_;
  mutable absl::Mutex mu_;
  std::vector<Chunk> chunks_ ABSL_GUARDED_BY(mu_);
  AllocatorStats stats_ ABSL_GUARDED_BY(mu_);
};

// A device with its own memory and one stream (Note [Accelerator streams]).
// Host-memory allocations (AllocatorAttributes::on_host) come from the host
// allocator, or from the capture's host arena while the stream captures.
// Thread-safe.
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
