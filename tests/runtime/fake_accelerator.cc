#include "tests/runtime/fake_accelerator.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/resource_mgr.h"
#include "minflow/runtime/device_factory.h"
#include "minflow/runtime/session.h"
#include "minflow/tensor.pb.h"
#include "src/kernels/device_copy_ops.h"

namespace minflow {
namespace fake_accel {
namespace {

std::atomic<int64_t> g_total_live_bytes{0};
std::atomic<int64_t> g_total_violations{0};
std::atomic<int64_t> g_leaked{0};

// Freed blocks kept poisoned before they go back to malloc.
constexpr size_t kQuarantineBlocks = 256;

void Poison(void* ptr, size_t capacity) {
  auto* words = static_cast<uint32_t*>(ptr);
  std::fill(words, words + capacity / sizeof(uint32_t), kPoison);
}

bool StillPoisoned(const void* ptr, size_t capacity) {
  const auto* words = static_cast<const uint32_t*>(ptr);
  return std::all_of(words, words + capacity / sizeof(uint32_t),
                     [](uint32_t w) { return w == kPoison; });
}

}  // namespace

// --- FakeStream

FakeStream::FakeStream(std::string name)
    : name_(std::move(name)), worker_([this] { WorkerLoop(); }) {}

FakeStream::~FakeStream() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  worker_.join();
}

void FakeStream::Push(Item item) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (capture_host_ != nullptr) {
      recorded_.push_back(std::move(item));
      return;
    }
    queue_.push_back(std::move(item));
    ++pending_;
    ++pushed_;
  }
  work_cv_.notify_one();
}

void FakeStream::Enqueue(std::function<Status()> work) {
  Push(Item{std::move(work), /*always_run=*/false});
}

void FakeStream::EnqueueAlwaysRun(std::function<void()> work) {
  Push(Item{[work = std::move(work)]() {
              work();
              return OkStatus();
            },
            /*always_run=*/true});
}

void FakeStream::WorkerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and drained
    Item item = std::move(queue_.front());
    queue_.pop_front();
    const std::chrono::microseconds delay = delay_;
    Status injected;
    bool skip = false;
    if (!item.always_run) {
      skip = !error_.ok();
      if (!skip) {
        ++executed_;
        if (fail_at_ > 0 && executed_ == fail_at_) {
          injected = fail_with_;
          fail_at_ = 0;
        }
      }
    }
    lock.unlock();
    Status s;
    if (!skip) {
      if (!item.always_run && delay.count() > 0) {
        std::this_thread::sleep_for(delay);
      }
      s = injected.ok() ? item.work() : injected;
    }
    // The closure's tensors go now, on the stream: their frees are enqueued
    // behind everything already queued (stream order).
    item.work = nullptr;
    lock.lock();
    if (!s.ok() && error_.ok()) error_ = s;
    --pending_;
    ++done_;
    done_cv_.notify_all();
  }
}

Status FakeStream::CheckDevice(const void* ptr, size_t bytes, const char* what,
                               bool read) const {
  FakeDeviceAllocator* allocator;
  {
    std::lock_guard<std::mutex> lock(mu_);
    allocator = allocator_;
  }
  if (allocator == nullptr) return OkStatus();
  return allocator->CheckAccess(ptr, bytes, what, read);
}

Status FakeStream::CopyHostToDevice(const void* host_src, void* device_dst,
                                    size_t bytes) {
  if (IsCapturing()) {
    Enqueue([this, host_src, device_dst, bytes]() -> Status {
      MF_RETURN_IF_ERROR(CheckDevice(device_dst, bytes,
                                     "host-to-device copy destination",
                                     /*read=*/false));
      std::memcpy(device_dst, host_src, bytes);
      return OkStatus();
    });
    return OkStatus();
  }
  // The host may reuse its buffer once this returns: copy it now.
  auto snapshot = std::make_shared<std::vector<char>>(
      static_cast<const char*>(host_src),
      static_cast<const char*>(host_src) + bytes);
  Enqueue([this, snapshot, device_dst, bytes]() -> Status {
    MF_RETURN_IF_ERROR(CheckDevice(device_dst, bytes,
                                   "host-to-device copy destination",
                                   /*read=*/false));
    std::memcpy(device_dst, snapshot->data(), bytes);
    return OkStatus();
  });
  return OkStatus();
}

Status FakeStream::CopyDeviceToHost(const void* device_src, void* host_dst,
                                    size_t bytes) {
  Enqueue([this, device_src, host_dst, bytes]() -> Status {
    MF_RETURN_IF_ERROR(CheckDevice(device_src, bytes,
                                   "device-to-host copy source",
                                   /*read=*/true));
    std::memcpy(host_dst, device_src, bytes);
    return OkStatus();
  });
  return OkStatus();
}

Status FakeStream::CopyDeviceToDevice(const void* device_src, void* device_dst,
                                      size_t bytes) {
  Enqueue([this, device_src, device_dst, bytes]() -> Status {
    MF_RETURN_IF_ERROR(CheckDevice(device_src, bytes,
                                   "device-to-device copy source",
                                   /*read=*/true));
    MF_RETURN_IF_ERROR(CheckDevice(device_dst, bytes,
                                   "device-to-device copy destination",
                                   /*read=*/false));
    std::memmove(device_dst, device_src, bytes);
    return OkStatus();
  });
  return OkStatus();
}

Status FakeStream::BlockHostUntilDone() {
  std::unique_lock<std::mutex> lock(mu_);
  if (capture_host_ != nullptr) {
    return errors::FailedPrecondition("Cannot wait for ", name_,
                                      " while it captures");
  }
  // As cudaStreamSynchronize: the work enqueued before this call, not what
  // other threads enqueue while it waits (which could starve it).
  const int64_t target = pushed_;
  done_cv_.wait(lock, [&] { return done_ >= target; });
  return error_;
}

namespace {

// What a FakeStream recorded; owns the device blocks allocated meanwhile.
class FakeCapturedWork final : public CapturedStreamWork {
 public:
  FakeCapturedWork(FakeStream* stream, FakeDeviceAllocator* allocator,
                   std::vector<FakeStream::Item> items,
                   std::vector<void*> blocks)
      : stream_(stream),
        allocator_(allocator),
        items_(std::move(items)),
        blocks_(std::move(blocks)) {}
  ~FakeCapturedWork() override {
    // The items' tensors go first; frees of recorded blocks are ignored
    // until the recording frees them itself.
    items_.clear();
    for (void* block : blocks_) allocator_->FreeRecordedBlock(block);
  }

  Status Launch() override {
    stream_->EnqueueRecorded(items_);
    return OkStatus();
  }

 private:
  FakeStream* const stream_;
  FakeDeviceAllocator* const allocator_;
  std::vector<FakeStream::Item> items_;
  const std::vector<void*> blocks_;
};

}  // namespace

std::unique_ptr<Allocator> FakeStream::NewCaptureHostArena(
    size_t first_chunk_bytes) {
  return std::make_unique<CaptureHostArena>(
      [](size_t bytes) -> void* {
        const size_t rounded = (bytes + kAllocatorAlignment - 1) /
                               kAllocatorAlignment * kAllocatorAlignment;
        return std::aligned_alloc(kAllocatorAlignment, rounded);
      },
      [](void* ptr) { std::free(ptr); }, first_chunk_bytes);
}

Status FakeStream::BeginCapture(Allocator* host_memory) {
  std::lock_guard<std::mutex> lock(mu_);
  if (capture_host_ != nullptr) {
    return errors::FailedPrecondition(name_, " is capturing already");
  }
  capture_host_ = host_memory;
  return OkStatus();
}

Status FakeStream::EndCapture(std::unique_ptr<CapturedStreamWork>* work) {
  std::vector<Item> items;
  std::vector<void*> blocks;
  FakeDeviceAllocator* allocator;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (capture_host_ == nullptr) {
      return errors::FailedPrecondition(name_, " is not capturing");
    }
    capture_host_ = nullptr;
    items.swap(recorded_);
    blocks.swap(recorded_blocks_);
    allocator = allocator_;
    ++captures_;
  }
  *work = std::make_unique<FakeCapturedWork>(this, allocator, std::move(items),
                                             std::move(blocks));
  return OkStatus();
}

Allocator* FakeStream::capture_host_allocator() const {
  std::lock_guard<std::mutex> lock(mu_);
  return capture_host_;
}

bool FakeStream::AdoptCapturedBlock(void* ptr) {
  std::lock_guard<std::mutex> lock(mu_);
  if (capture_host_ == nullptr) return false;
  recorded_blocks_.push_back(ptr);
  return true;
}

void FakeStream::EnqueueRecorded(const std::vector<Item>& items) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++launches_;
  }
  for (const Item& item : items) Push(item);
}

int64_t FakeStream::captures() const {
  std::lock_guard<std::mutex> lock(mu_);
  return captures_;
}

int64_t FakeStream::launches() const {
  std::lock_guard<std::mutex> lock(mu_);
  return launches_;
}

void FakeStream::Quiesce() {
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [&] { return pending_ == 0; });
}

void FakeStream::set_item_delay(std::chrono::microseconds delay) {
  std::lock_guard<std::mutex> lock(mu_);
  delay_ = delay;
}

void FakeStream::FailNthItem(int64_t n, Status error) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_at_ = n > 0 ? executed_ + n : 0;
  fail_with_ = std::move(error);
}

void FakeStream::set_allocator(FakeDeviceAllocator* allocator) {
  std::lock_guard<std::mutex> lock(mu_);
  allocator_ = allocator;
}

int64_t FakeStream::items_executed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return executed_;
}

Status FakeStream::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

// --- FakeDeviceAllocator

FakeDeviceAllocator::FakeDeviceAllocator(FakeStream* stream)
    : stream_(stream) {}

FakeDeviceAllocator::~FakeDeviceAllocator() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [ptr, block] : quarantine_) {
    if (!StillPoisoned(ptr, block.capacity)) {
      ++violations_;
      g_total_violations.fetch_add(1);
    }
    std::free(ptr);
  }
  quarantine_.clear();
  for (auto& [addr, block] : live_) {
    g_leaked.fetch_add(static_cast<int64_t>(block.bytes));
    g_total_live_bytes.fetch_sub(static_cast<int64_t>(block.bytes));
    std::free(reinterpret_cast<void*>(addr));
  }
  live_.clear();
}

void* FakeDeviceAllocator::AllocateRaw(size_t alignment, size_t num_bytes) {
  alignment = std::max(alignment, kAllocatorAlignment);
  // aligned_alloc wants a multiple of the alignment; zero bytes still gets
  // a distinct pointer.
  const size_t capacity =
      (std::max<size_t>(num_bytes, 1) + alignment - 1) / alignment * alignment;
  void* ptr = std::aligned_alloc(alignment, capacity);
  if (ptr == nullptr) return nullptr;
  const auto bytes = static_cast<int64_t>(num_bytes);
  // Outside mu_: the stream's lock is never taken under it.
  const bool recorded = stream_->AdoptCapturedBlock(ptr);
  std::lock_guard<std::mutex> lock(mu_);
  if (recorded) recorded_.insert(reinterpret_cast<uintptr_t>(ptr));
  live_[reinterpret_cast<uintptr_t>(ptr)] = Block{num_bytes, capacity};
  live_bytes_ += bytes;
  peak_bytes_ = std::max(peak_bytes_, live_bytes_);
  largest_alloc_ = std::max(largest_alloc_, bytes);
  ++num_allocs_;
  g_total_live_bytes.fetch_add(bytes);
  return ptr;
}

void FakeDeviceAllocator::DeallocateRaw(void* ptr, size_t num_bytes) {
  if (ptr == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == live_.end() || it->second.bytes != num_bytes) {
      // A double free, or a size that is not the one allocated.
      ++violations_;
      g_total_violations.fetch_add(1);
      return;
    }
    // A recording's block: it frees the block itself.
    if (recorded_.count(reinterpret_cast<uintptr_t>(ptr)) > 0) return;
    ++pending_frees_;
  }
  // Stream order: work enqueued before this free may still read the block.
  stream_->EnqueueAlwaysRun([this, ptr] { FreeOnStream(ptr); });
}

void FakeDeviceAllocator::FreeRecordedBlock(void* ptr) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (recorded_.erase(reinterpret_cast<uintptr_t>(ptr)) == 0) {
      ++violations_;
      g_total_violations.fetch_add(1);
      return;
    }
    ++pending_frees_;
  }
  stream_->EnqueueAlwaysRun([this, ptr] { FreeOnStream(ptr); });
}

void FakeDeviceAllocator::FreeOnStream(void* ptr) {
  std::lock_guard<std::mutex> lock(mu_);
  --pending_frees_;
  auto it = live_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == live_.end()) {
    ++violations_;
    g_total_violations.fetch_add(1);
    return;
  }
  const Block block = it->second;
  live_.erase(it);
  live_bytes_ -= static_cast<int64_t>(block.bytes);
  g_total_live_bytes.fetch_sub(static_cast<int64_t>(block.bytes));
  Poison(ptr, block.capacity);
  quarantine_.emplace_back(ptr, block);
  if (quarantine_.size() > kQuarantineBlocks) {
    auto [old, old_block] = quarantine_.front();
    quarantine_.pop_front();
    // Written after it was freed?
    if (!StillPoisoned(old, old_block.capacity)) {
      ++violations_;
      g_total_violations.fetch_add(1);
    }
    std::free(old);
  }
}

Status FakeDeviceAllocator::CheckAccess(const void* ptr, size_t bytes,
                                        const char* what, bool read) const {
  if (bytes == 0) return OkStatus();
  const auto addr = reinterpret_cast<uintptr_t>(ptr);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.upper_bound(addr);
    const bool live =
        it != live_.begin() &&
        addr + bytes <= std::prev(it)->first + std::prev(it)->second.capacity;
    if (!live) {
      ++violations_;
      g_total_violations.fetch_add(1);
      return errors::Internal("fake accelerator: ", what, " [0x",
                              absl::Hex(addr), ", +", bytes,
                              ") is not live device memory");
    }
  }
  if (read && addr % alignof(uint32_t) == 0) {
    // Poison in a live block: the data was copied from freed memory.
    const auto* words = static_cast<const uint32_t*>(ptr);
    if (std::find(words, words + bytes / sizeof(uint32_t), kPoison) !=
        words + bytes / sizeof(uint32_t)) {
      std::lock_guard<std::mutex> lock(mu_);
      ++violations_;
      g_total_violations.fetch_add(1);
      return errors::Internal("fake accelerator: ", what,
                              " holds freed (poisoned) memory");
    }
  }
  return OkStatus();
}

AllocatorStats FakeDeviceAllocator::GetStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  AllocatorStats stats;
  stats.num_allocs = num_allocs_;
  stats.bytes_in_use = live_bytes_;
  stats.peak_bytes_in_use = peak_bytes_;
  stats.largest_alloc_size = largest_alloc_;
  return stats;
}

void FakeDeviceAllocator::ResetPeak() {
  std::lock_guard<std::mutex> lock(mu_);
  peak_bytes_ = live_bytes_;
}

int64_t FakeDeviceAllocator::live_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_bytes_;
}

int64_t FakeDeviceAllocator::live_blocks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(live_.size());
}

int64_t FakeDeviceAllocator::pending_frees() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pending_frees_;
}

int64_t FakeDeviceAllocator::violations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return violations_;
}

int64_t FakeDeviceAllocator::TotalLiveBytes() {
  return g_total_live_bytes.load();
}
int64_t FakeDeviceAllocator::TotalViolations() {
  return g_total_violations.load();
}
int64_t FakeDeviceAllocator::LeakedAtDestruction() { return g_leaked.load(); }

// --- FakeAcceleratorDevice

namespace internal {

FakeDeviceResources::FakeDeviceResources(const std::string& name)
    : stream_impl(std::make_unique<FakeStream>(name)),
      allocator_impl(std::make_unique<FakeDeviceAllocator>(stream_impl.get())) {
  stream_impl->set_allocator(allocator_impl.get());
}

FakeDeviceResources::~FakeDeviceResources() {
  // The frees the device's last tensors enqueued.
  stream_impl->Quiesce();
  stream_impl->set_allocator(nullptr);
  allocator_impl.reset();
  stream_impl.reset();
}

}  // namespace internal

namespace {

std::string FakeDeviceName(int ordinal) {
  return absl::StrCat("/job:localhost/replica:0/task:0/device:", kFakeGpu, ":",
                      ordinal);
}

std::mutex g_factory_mu;
FakeAcceleratorOptions g_options;
FakeAcceleratorDevice* g_last_device = nullptr;

}  // namespace

FakeAcceleratorDevice::FakeAcceleratorDevice(int ordinal)
    : internal::FakeDeviceResources(FakeDeviceName(ordinal)),
      AcceleratorDevice(FakeDeviceName(ordinal), DeviceType(kFakeGpu),
                        allocator_impl.get(), stream_impl.get()) {}

FakeAcceleratorDevice::~FakeAcceleratorDevice() {
  {
    std::lock_guard<std::mutex> lock(g_factory_mu);
    if (g_last_device == this) g_last_device = nullptr;
  }
  // Resources on this device free into the allocator, which the resources
  // base class keeps alive until after this.
  resource_manager()->Clear();
}

void SetFakeAcceleratorOptions(const FakeAcceleratorOptions& options) {
  std::lock_guard<std::mutex> lock(g_factory_mu);
  g_options = options;
}

FakeAcceleratorDevice* LastCreatedFakeDevice() {
  std::lock_guard<std::mutex> lock(g_factory_mu);
  return g_last_device;
}

void RegisterFakeAcceleratorFactory() {
  static const bool registered = [] {
    RegisterDeviceFactory(
        kFakeGpu, 200,
        [](const SessionOptions&,
           std::vector<std::unique_ptr<Device>>* devices) -> Status {
          auto device = std::make_unique<FakeAcceleratorDevice>(0);
          std::lock_guard<std::mutex> lock(g_factory_mu);
          device->fake_stream()->set_item_delay(g_options.item_delay);
          g_last_device = device.get();
          devices->push_back(std::move(device));
          return OkStatus();
        });
    return true;
  }();
  (void)registered;
}

// --- Kernels

namespace {

Status GetFakeDevice(OpKernelContext* ctx, FakeAcceleratorDevice** device) {
  *device = dynamic_cast<FakeAcceleratorDevice*>(ctx->device());
  if (*device == nullptr) {
    return errors::Internal("fake accelerator kernel ",
                            ctx->op_kernel().type_string(), " ran on device '",
                            ctx->device()->name(), "'");
  }
  return OkStatus();
}

// Enqueues `compute(inputs, outputs)` on the device's stream. There, before
// it runs, every input and output must be live device memory and no input
// may hold poison. The closure holds the tensors, so their buffers outlive
// it whatever the executor frees meanwhile.
void EnqueueCompute(
    OpKernelContext* ctx, std::vector<Tensor> inputs,
    std::vector<Tensor> outputs,
    std::function<void(const std::vector<Tensor>&, std::vector<Tensor>&)>
        compute) {
  FakeAcceleratorDevice* device = nullptr;
  OP_REQUIRES_OK(ctx, GetFakeDevice(ctx, &device));
  FakeDeviceAllocator* allocator = device->fake_allocator();
  device->fake_stream()->Enqueue(
      [allocator, node = ctx->op_kernel().name(), inputs = std::move(inputs),
       outputs = std::move(outputs),
       compute = std::move(compute)]() mutable -> Status {
        for (const Tensor& t : inputs) {
          MF_RETURN_IF_ERROR(allocator->CheckAccess(
              t.tensor_data().data(), t.TotalBytes(),
              absl::StrCat("input of ", node).c_str(), /*read=*/true));
        }
        for (const Tensor& t : outputs) {
          MF_RETURN_IF_ERROR(allocator->CheckAccess(
              t.tensor_data().data(), t.TotalBytes(),
              absl::StrCat("output of ", node).c_str(), /*read=*/false));
        }
        compute(inputs, outputs);
        return OkStatus();
      });
}

// Const: the value decoded into device memory once (host memory for int32
// and host objects), as the real Const kernel does.
class FakeConstOp : public OpKernel {
 public:
  explicit FakeConstOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const TensorProto* proto = nullptr;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value", &proto));
    AllocatorAttributes attr;
    attr.set_on_host(ctx->output_memory_types()[0] == HOST_MEMORY);
    OP_REQUIRES_OK(ctx,
                   ctx->device()->MakeTensorFromProto(*proto, attr, &tensor_));
    OP_REQUIRES(ctx, ctx->output_type(0) == tensor_.dtype(),
                errors::InvalidArgument("Const: value is ",
                                        DataTypeString(tensor_.dtype())));
  }
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, tensor_); }
  bool IsExpensive() override { return false; }

 private:
  Tensor tensor_;
};

class FakeIdentityOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
  bool IsExpensive() override { return false; }
};

// Reshape with its int32 shape in host memory, read on the host; the output
// shares the input's device buffer.
class FakeReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& sizes = ctx->input(1);
    OP_REQUIRES(ctx, sizes.dims() == 1,
                errors::InvalidArgument("shape must be a vector"));
    const auto dims = sizes.flat<int32_t>();
    TensorShape shape;
    int unknown = -1;
    int64_t known = 1;
    for (int i = 0; i < dims.size(); ++i) {
      if (dims(i) == -1) {
        OP_REQUIRES(ctx, unknown < 0,
                    errors::InvalidArgument("more than one -1 in shape"));
        unknown = i;
        shape.AddDim(1);
      } else {
        shape.AddDim(dims(i));
        known *= dims(i);
      }
    }
    if (unknown >= 0) {
      OP_REQUIRES(ctx, known > 0 && input.NumElements() % known == 0,
                  errors::InvalidArgument("cannot infer -1 in shape"));
      shape.set_dim(unknown, input.NumElements() / known);
    }
    Tensor out;
    OP_REQUIRES(
        ctx, out.CopyFrom(input, shape),
        errors::InvalidArgument("cannot reshape ", input.shape().DebugString(),
                                " to ", shape.DebugString()));
    ctx->set_output(0, out);
  }
  bool IsExpensive() override { return false; }
};

// Element-wise binary op; a one-element operand broadcasts.
template <typename Fn>
class FakeBinaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(
        ctx,
        a.shape() == b.shape() || a.NumElements() == 1 || b.NumElements() == 1,
        errors::InvalidArgument(
            "fake ", type_string(), ": incompatible shapes ",
            a.shape().DebugString(), " and ", b.shape().DebugString()));
    // The shape of the operand that does not broadcast.
    const TensorShape& shape =
        a.shape() == b.shape() || b.NumElements() == 1 ? a.shape() : b.shape();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    EnqueueCompute(ctx, {a, b}, {*out},
                   [](const std::vector<Tensor>& in, std::vector<Tensor>& o) {
                     const auto x = in[0].flat<float>();
                     const auto y = in[1].flat<float>();
                     auto z = o[0].flat<float>();
                     const bool bx = x.size() != z.size();
                     const bool by = y.size() != z.size();
                     for (Eigen::Index i = 0; i < z.size(); ++i) {
                       z(i) = Fn()(x(bx ? 0 : i), y(by ? 0 : i));
                     }
                   });
  }
};

struct AddFn {
  float operator()(float a, float b) const { return a + b; }
};
struct MulFn {
  float operator()(float a, float b) const { return a * b; }
};

// Relu captures only raw pointers, as a real kernel launch does: nothing
// but stream-ordered deallocation keeps its buffers valid once the executor
// drops its input after Compute returns. The checks before it runs catch a
// buffer freed too early.
class FakeReluOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    FakeAcceleratorDevice* device = nullptr;
    OP_REQUIRES_OK(ctx, GetFakeDevice(ctx, &device));
    const float* in = x.flat<float>().data();
    float* result = out->flat<float>().data();
    const int64_t n = x.NumElements();
    device->fake_stream()->Enqueue([allocator = device->fake_allocator(),
                                    node = name(), in, result, n]() -> Status {
      const size_t bytes = static_cast<size_t>(n) * sizeof(float);
      MF_RETURN_IF_ERROR(allocator->CheckAccess(
          in, bytes, absl::StrCat("input of ", node).c_str(), /*read=*/true));
      MF_RETURN_IF_ERROR(allocator->CheckAccess(
          result, bytes, absl::StrCat("output of ", node).c_str(),
          /*read=*/false));
      for (int64_t i = 0; i < n; ++i) result[i] = in[i] > 0 ? in[i] : 0;
      return OkStatus();
    });
  }
};

// Returns at once; its work fails on the stream.
class FakeFailOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    FakeAcceleratorDevice* device = nullptr;
    OP_REQUIRES_OK(ctx, GetFakeDevice(ctx, &device));
    device->fake_stream()->Enqueue([node = name(), x, y = *out]() -> Status {
      return errors::Internal("asynchronous failure in node ", node);
    });
  }
};

}  // namespace

REGISTER_OP("FakeAcceleratorFail")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_KERNEL_BUILDER(Name("Const").Device(kFakeGpu), FakeConstOp);
REGISTER_KERNEL_BUILDER(Name("Identity").Device(kFakeGpu), FakeIdentityOp);
REGISTER_KERNEL_BUILDER(Name("Reshape")
                            .Device(kFakeGpu)
                            .HostMemory("shape")
                            .TypeConstraint<int32_t>("Tshape"),
                        FakeReshapeOp);
REGISTER_KERNEL_BUILDER(
    Name("AddV2").Device(kFakeGpu).TypeConstraint<float>("T"),
    FakeBinaryOp<AddFn>);
REGISTER_KERNEL_BUILDER(Name("Mul").Device(kFakeGpu).TypeConstraint<float>("T"),
                        FakeBinaryOp<MulFn>);
REGISTER_KERNEL_BUILDER(
    Name("Relu").Device(kFakeGpu).TypeConstraint<float>("T"), FakeReluOp);
REGISTER_KERNEL_BUILDER(Name("FakeAcceleratorFail").Device(kFakeGpu),
                        FakeFailOp);
// The copies the placer inserts, with the GPU's memory types.
REGISTER_KERNEL_BUILDER(
    Name("_CopyFromHost").Device(kFakeGpu).HostMemory("input"), CopyFromHostOp);
REGISTER_KERNEL_BUILDER(
    Name("_CopyToHost").Device(kFakeGpu).HostMemory("output"), CopyToHostOp);

}  // namespace fake_accel
}  // namespace minflow
