// A fake accelerator for tests: an AcceleratorDevice ("FAKE_GPU") whose
// stream is a host worker thread and whose "device memory" is host memory
// handed out by a stream-ordered allocator that poisons what it frees and
// tracks what is live. With it the placement, copy, asynchronous-completion
// and error paths of Note [Accelerator streams] run in every build, without
// CUDA.
//
// The library also registers kernels for FAKE_GPU (see fake_accelerator.cc):
// Const, Identity, Reshape (shape in host memory), AddV2, Mul and Relu for
// float, which enqueue their computation on the stream (AddV2 and Mul hold
// their tensors in the closure; Relu, as a real kernel launch, holds raw
// pointers only and relies on stream-ordered frees), the copy kernels
// `_CopyFromHost`/`_CopyToHost`, and the op FakeAcceleratorFail, whose kernel
// fails on the stream, after its Compute returned. The device factory is not
// registered until a test calls RegisterFakeAcceleratorFactory().
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "minflow/core/allocator.h"
#include "minflow/core/status.h"
#include "minflow/framework/accelerator_device.h"

namespace minflow {
namespace fake_accel {

inline constexpr char kFakeGpu[] = "FAKE_GPU";
inline constexpr char kFakeGpuName[] =
    "/job:localhost/replica:0/task:0/device:FAKE_GPU:0";

// The bit pattern freed device memory is filled with (a NaN no test
// computes), 32 bits at a time.
inline constexpr uint32_t kPoison = 0xFFBADBADu;

class FakeDeviceAllocator;

// A stream on a worker thread: enqueued items run one at a time, in FIFO
// order, each after an optional delay, so that results are not ready when
// the host-side call that enqueued them returns. Errors are sticky: after
// the first failing item the stream skips every later work item (frees still
// run), and every wait returns that first error. It captures as a CUDA
// stream does (Note [Captured steps]): while capturing, items are recorded
// instead of run, and a launch enqueues copies of them. Thread-safe.
//
// The fake's locks are std::mutex rather than absl::Mutex: ThreadSanitizer
// sees them without the wrappers of src/core/tsan_absl_sync.cc.
class FakeStream final : public AcceleratorStream {
 public:
  struct Item {
    std::function<Status()> work;
    bool always_run = false;
  };

  explicit FakeStream(std::string name);
  FakeStream(const FakeStream&) = delete;
  FakeStream& operator=(const FakeStream&) = delete;
  // Drains the queue, then stops the worker.
  ~FakeStream() override;

  // Snapshots the source now (the host may reuse it once the call returns)
  // and writes the destination on the stream; while capturing, reads the
  // source when the item runs, as a recorded copy does.
  Status CopyHostToDevice(const void* host_src, void* device_dst,
                          size_t bytes) override;
  Status CopyDeviceToHost(const void* device_src, void* host_dst,
                          size_t bytes) override;
  Status CopyDeviceToDevice(const void* device_src, void* device_dst,
                            size_t bytes) override;
  // Waits until every item enqueued before the call is done (as
  // cudaStreamSynchronize); then the sticky error, if any. FailedPrecondition
  // while capturing.
  Status BlockHostUntilDone() override;

  bool SupportsCapture() const override { return true; }
  std::unique_ptr<Allocator> NewCaptureHostArena(
      size_t first_chunk_bytes) override;
  Status BeginCapture(Allocator* host_memory) override;
  Status EndCapture(std::unique_ptr<CapturedStreamWork>* work) override;
  Allocator* capture_host_allocator() const override;
  // While capturing, `ptr` (just allocated) becomes the recording's, freed
  // when the recording goes; false when not capturing.
  bool AdoptCapturedBlock(void* ptr);
  // Enqueues copies of recorded items (a launch).
  void EnqueueRecorded(const std::vector<Item>& items);
  // Captures ended, and recordings launched, so far.
  int64_t captures() const;
  int64_t launches() const;
  // Waits until the queue is empty, including the frees that finished items
  // enqueued as their closures went: for tests measuring memory, with no
  // other thread enqueueing.
  void Quiesce();

  // Enqueues work; an error it returns becomes the stream's sticky error.
  // The closure is destroyed on the stream, after it ran (or was skipped),
  // and before the stream counts the item done.
  void Enqueue(std::function<Status()> work);
  // Enqueues work that runs even after the stream failed (frees).
  void EnqueueAlwaysRun(std::function<void()> work);

  // Sleeps this long before each work item (not before frees).
  void set_item_delay(std::chrono::microseconds delay);
  // The `n`th work item executed from now on (1-based) fails with `error`
  // instead of running; n <= 0 clears the injection.
  void FailNthItem(int64_t n, Status error);
  // Memory checks for copies: the device side of each copy must be live.
  void set_allocator(FakeDeviceAllocator* allocator);

  const std::string& name() const { return name_; }
  // Work items run (or failed) so far, frees excluded.
  int64_t items_executed() const;
  // The sticky error (OK if none).
  Status error() const;

 private:
  void Push(Item item);
  void WorkerLoop();
  Status CheckDevice(const void* ptr, size_t bytes, const char* what,
                     bool read) const;

  const std::string name_;
  FakeDeviceAllocator* allocator_ = nullptr;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::deque<Item> queue_;
  // Items enqueued and not yet done (the one running included).
  int64_t pending_ = 0;
  // Items ever enqueued, and ever done (in FIFO order).
  int64_t pushed_ = 0;
  int64_t done_ = 0;
  int64_t executed_ = 0;
  int64_t fail_at_ = 0;
  Status fail_with_;
  Status error_;
  std::chrono::microseconds delay_{0};
  bool stop_ = false;
  // Set while capturing.
  Allocator* capture_host_ = nullptr;
  std::vector<Item> recorded_;
  std::vector<void*> recorded_blocks_;
  int64_t captures_ = 0;
  int64_t launches_ = 0;
  std::thread worker_;
};

// "Device memory" that is host memory: AllocateRaw hands out a fresh block
// at once; DeallocateRaw enqueues the free on the stream (stream order, as
// cudaFreeAsync), where the block is filled with kPoison and kept in a
// quarantine for a while before it goes back to malloc, so a late read sees
// the poison rather than another tensor's data. Every access the fake
// kernels and copies make goes through CheckAccess, which counts accesses
// to memory that is not live. Thread-safe.
class FakeDeviceAllocator final : public Allocator {
 public:
  explicit FakeDeviceAllocator(FakeStream* stream);
  FakeDeviceAllocator(const FakeDeviceAllocator&) = delete;
  FakeDeviceAllocator& operator=(const FakeDeviceAllocator&) = delete;
  // Frees the quarantine. Blocks still live here are leaks: counted in
  // LeakedAtDestruction().
  ~FakeDeviceAllocator() override;

  std::string Name() const override { return "fake_gpu_stream_ordered"; }
  void* AllocateRaw(size_t alignment, size_t num_bytes) override;
  void DeallocateRaw(void* ptr, size_t num_bytes) override;
  AllocatorStats GetStats() const override;
  void ResetPeak() override;

  // OK when [ptr, ptr + bytes) lies in one live block and, for a `read`,
  // holds no kPoison word; otherwise counts a violation and returns an
  // Internal error saying what was accessed.
  Status CheckAccess(const void* ptr, size_t bytes, const char* what,
                     bool read) const;
  // Frees a block a recording owned (FakeStream::AdoptCapturedBlock), on
  // the stream; until then frees of it are ignored, as CUDA keeps graph
  // memory for the graph.
  void FreeRecordedBlock(void* ptr);
  // Bytes allocated and not yet freed on the stream.
  int64_t live_bytes() const;
  int64_t live_blocks() const;
  // Frees enqueued whose stream item has not run yet.
  int64_t pending_frees() const;
  // Accesses CheckAccess refused, and quarantined blocks found written
  // after they were freed.
  int64_t violations() const;

  // Over all fake allocators of the process, so a test can see what a
  // session's device left when the session is gone.
  static int64_t TotalLiveBytes();
  static int64_t TotalViolations();
  static int64_t LeakedAtDestruction();

 private:
  struct Block {
    size_t bytes;     // as asked
    size_t capacity;  // allocated
  };
  void FreeOnStream(void* ptr);
  void Release(void* ptr, const Block& block);

  FakeStream* const stream_;
  mutable std::mutex mu_;
  std::map<uintptr_t, Block> live_;
  // Live blocks a recording owns.
  std::set<uintptr_t> recorded_;
  std::deque<std::pair<void*, Block>> quarantine_;
  int64_t live_bytes_ = 0;
  int64_t peak_bytes_ = 0;
  int64_t num_allocs_ = 0;
  int64_t largest_alloc_ = 0;
  int64_t pending_frees_ = 0;
  mutable int64_t violations_ = 0;
};

namespace internal {
// What a FakeAcceleratorDevice owns besides the Device: constructed before
// and destroyed after it, so tensors the device's kernels and resources
// still hold free into a live allocator and stream.
struct FakeDeviceResources {
  explicit FakeDeviceResources(const std::string& name);
  ~FakeDeviceResources();
  std::unique_ptr<FakeStream> stream_impl;
  std::unique_ptr<FakeDeviceAllocator> allocator_impl;
};
}  // namespace internal

class FakeAcceleratorDevice final : private internal::FakeDeviceResources,
                                    public AcceleratorDevice {
 public:
  explicit FakeAcceleratorDevice(int ordinal = 0);
  ~FakeAcceleratorDevice() override;

  FakeStream* fake_stream() const { return stream_impl.get(); }
  FakeDeviceAllocator* fake_allocator() const { return allocator_impl.get(); }
};

// How the factory makes devices, for the sessions created from now on.
struct FakeAcceleratorOptions {
  // The FakeStream's per-item delay.
  std::chrono::microseconds item_delay{0};
};
void SetFakeAcceleratorOptions(const FakeAcceleratorOptions& options);

// Registers the FAKE_GPU device factory (one device, priority 200, as the
// GPU's). Idempotent.
void RegisterFakeAcceleratorFactory();

// The fake device the factory made last, while it lives (else null): how a
// test reaches the device inside its session.
FakeAcceleratorDevice* LastCreatedFakeDevice();

}  // namespace fake_accel
}  // namespace minflow
