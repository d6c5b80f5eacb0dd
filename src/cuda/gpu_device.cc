#define EIGEN_USE_GPU
#include "src/cuda/gpu_device.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "minflow/config.pb.h"
#include "minflow/cuda/gpu_info.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/runtime/device_factory.h"
#include "minflow/runtime/session.h"
#include "src/cuda/cuda_status.h"
#include "src/runtime/gpu_loader.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {

// --- CudaStream

Status CudaStream::RecordError(Status s) {
  absl::MutexLock lock(&mu_);
  if (error_.ok()) error_ = std::move(s);
  return error_;
}

Status CudaStream::CopyHostToDevice(const void* host_src, void* device_dst,
                                    size_t bytes) {
  MF_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(device_dst, host_src, bytes,
                                          cudaMemcpyHostToDevice, stream_));
  return OkStatus();
}

Status CudaStream::CopyDeviceToHost(const void* device_src, void* host_dst,
                                    size_t bytes) {
  MF_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(host_dst, device_src, bytes,
                                          cudaMemcpyDeviceToHost, stream_));
  return OkStatus();
}

Status CudaStream::CopyDeviceToDevice(const void* device_src, void* device_dst,
                                      size_t bytes) {
  MF_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(device_dst, device_src, bytes,
                                          cudaMemcpyDeviceToDevice, stream_));
  return OkStatus();
}

Status CudaStream::BlockHostUntilDone() {
  if (IsCapturing()) {
    return errors::FailedPrecondition(
        "Cannot wait for GPU ", ordinal_,
        "'s stream while it captures: nothing recorded has run");
  }
  {
    absl::MutexLock lock(&mu_);
    if (!error_.ok()) return error_;
  }
  const Status s = [&]() -> Status {
    MF_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
    // A launch that failed without a later sync point (bad configuration).
    MF_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    return OkStatus();
  }();
  if (s.ok()) return s;
  return RecordError(s);
}

namespace {

// A recorded step: an instantiated CUDA Graph, launched on the stream it was
// captured from.
class CudaGraphWork final : public CapturedStreamWork {
 public:
  CudaGraphWork(int ordinal, cudaStream_t stream, cudaGraphExec_t exec)
      : ordinal_(ordinal), stream_(stream), exec_(exec) {}
  ~CudaGraphWork() override { cudaGraphExecDestroy(exec_); }

  Status Launch() override {
    MF_CUDA_RETURN_IF_ERROR(MakeGpuCurrent(ordinal_));
    MF_CUDA_RETURN_IF_ERROR(cudaGraphLaunch(exec_, stream_));
    return OkStatus();
  }

 private:
  const int ordinal_;
  const cudaStream_t stream_;
  const cudaGraphExec_t exec_;
};

}  // namespace

cudaError_t MakeGpuCurrent(int ordinal) {
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == ordinal) {
    return cudaSuccess;
  }
  return cudaSetDevice(ordinal);
}

std::unique_ptr<Allocator> CudaStream::NewCaptureHostArena(
    size_t first_chunk_bytes) {
  return std::make_unique<CaptureHostArena>(
      [](size_t bytes) -> void* {
        void* ptr = nullptr;
        if (cudaHostAlloc(&ptr, bytes, cudaHostAllocPortable) != cudaSuccess) {
          cudaGetLastError();  // reported as the allocation's failure
          return nullptr;
        }
        return ptr;
      },
      [](void* ptr) { cudaFreeHost(ptr); }, first_chunk_bytes);
}

Status CudaStream::BeginCapture(Allocator* host_memory) {
  if (IsCapturing()) {
    return errors::FailedPrecondition("GPU ", ordinal_,
                                      "'s stream is capturing already");
  }
  MF_CUDA_RETURN_IF_ERROR(
      cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed));
  capture_host_.store(host_memory, std::memory_order_release);
  return OkStatus();
}

Status CudaStream::EndCapture(std::unique_ptr<CapturedStreamWork>* work) {
  if (!IsCapturing()) {
    return errors::FailedPrecondition("GPU ", ordinal_,
                                      "'s stream is not capturing");
  }
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);
  capture_host_.store(nullptr, std::memory_order_release);
  if (ended != cudaSuccess) {
    // A call the capture could not record invalidates it; clear that error
    // so the stream goes on uncaptured.
    cudaGetLastError();
    if (graph != nullptr) cudaGraphDestroy(graph);
    return internal::CudaErrorToStatus(ended, "cudaStreamEndCapture", __FILE__,
                                       __LINE__);
  }
  cudaGraphExec_t exec = nullptr;
  const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  if (instantiated != cudaSuccess) {
    cudaGetLastError();
    return internal::CudaErrorToStatus(instantiated, "cudaGraphInstantiate",
                                       __FILE__, __LINE__);
  }
  *work = std::make_unique<CudaGraphWork>(ordinal_, stream_, exec);
  return OkStatus();
}

// --- GpuStreamAllocator

std::string GpuStreamAllocator::Name() const {
  return absl::StrCat("gpu_", ordinal_, "_stream_ordered");
}

void* GpuStreamAllocator::AllocateRaw(size_t alignment, size_t num_bytes) {
  // cudaMallocAsync aligns to at least 256 bytes, past every tensor's need.
  if (alignment > 256) return nullptr;
  void* ptr = nullptr;
  // Zero bytes still gets a distinct pointer, as the host allocator does.
  if (cudaMallocAsync(&ptr, std::max<size_t>(num_bytes, 1), stream_) !=
      cudaSuccess) {
    cudaGetLastError();  // out of memory is reported by the caller
    return nullptr;
  }
  const int64_t bytes = static_cast<int64_t>(num_bytes);
  num_allocs_.fetch_add(1, std::memory_order_relaxed);
  const int64_t in_use =
      bytes_in_use_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t peak = peak_bytes_in_use_.load(std::memory_order_relaxed);
  while (in_use > peak &&
         !peak_bytes_in_use_.compare_exchange_weak(peak, in_use)) {
  }
  int64_t largest = largest_alloc_size_.load(std::memory_order_relaxed);
  while (bytes > largest &&
         !largest_alloc_size_.compare_exchange_weak(largest, bytes)) {
  }
  return ptr;
}

void GpuStreamAllocator::DeallocateRaw(void* ptr, size_t num_bytes) {
  if (ptr == nullptr) return;
  cudaFreeAsync(ptr, stream_);
  bytes_in_use_.fetch_sub(static_cast<int64_t>(num_bytes),
                          std::memory_order_relaxed);
}

AllocatorStats GpuStreamAllocator::GetStats() const {
  AllocatorStats stats;
  stats.num_allocs = num_allocs_.load(std::memory_order_relaxed);
  stats.bytes_in_use = bytes_in_use_.load(std::memory_order_relaxed);
  stats.peak_bytes_in_use = peak_bytes_in_use_.load(std::memory_order_relaxed);
  stats.largest_alloc_size =
      largest_alloc_size_.load(std::memory_order_relaxed);
  return stats;
}

void GpuStreamAllocator::ResetPeak() {
  peak_bytes_in_use_.store(bytes_in_use_.load(std::memory_order_relaxed),
                           std::memory_order_relaxed);
}

// --- Eigen on the device's stream

namespace internal {

// Eigen's view of the stream: its temporaries (reduction scratch) come from
// the same stream-ordered pool as tensors, so Eigen never calls cudaMalloc or
// the synchronising cudaFree.
class EigenCudaStream final : public Eigen::StreamInterface {
 public:
  EigenCudaStream(const cudaStream_t* stream, const cudaDeviceProp* properties)
      : stream_(stream), properties_(properties) {}
  ~EigenCudaStream() override {
    if (scratch_ != nullptr) cudaFreeAsync(scratch_, *stream_);
  }

  const cudaStream_t& stream() const override { return *stream_; }
  const cudaDeviceProp& deviceProperties() const override {
    return *properties_;
  }
  void* allocate(size_t num_bytes) const override {
    void* ptr = nullptr;
    if (cudaMallocAsync(&ptr, num_bytes, *stream_) != cudaSuccess) {
      return nullptr;
    }
    return ptr;
  }
  void deallocate(void* buffer) const override {
    cudaFreeAsync(buffer, *stream_);
  }
  // Eigen's reductions want a scratch buffer whose last 4 bytes are a
  // semaphore that starts at zero. Made once, by GpuDevice::Init, before any
  // kernel runs.
  void* scratchpad() const override {
    if (scratch_ == nullptr) {
      scratch_ = allocate(Eigen::kGpuScratchSize + sizeof(unsigned int));
      if (scratch_ != nullptr) {
        cudaMemsetAsync(scratch_, 0,
                        Eigen::kGpuScratchSize + sizeof(unsigned int),
                        *stream_);
      }
    }
    return scratch_;
  }
  unsigned int* semaphore() const override {
    char* scratch = static_cast<char*>(scratchpad());
    return reinterpret_cast<unsigned int*>(scratch + Eigen::kGpuScratchSize);
  }

 private:
  const cudaStream_t* stream_;
  const cudaDeviceProp* properties_;
  mutable void* scratch_ = nullptr;
};

struct GpuDeviceResources::EigenState {
  cudaDeviceProp properties;
  std::unique_ptr<EigenCudaStream> stream;
  std::unique_ptr<Eigen::GpuDevice> device;
};

GpuDeviceResources::GpuDeviceResources(int ordinal) : gpu_ordinal(ordinal) {}

GpuDeviceResources::~GpuDeviceResources() {
  if (raw_stream != nullptr) cudaStreamSynchronize(raw_stream);
  eigen.reset();
  if (cublas != nullptr) cublasDestroy(cublas);
  if (cublas_workspace != nullptr) cudaFree(cublas_workspace);
  allocator_impl.reset();
  stream_impl.reset();
  if (raw_stream != nullptr) {
    // The frees just enqueued by the Eigen scratch and the allocator.
    cudaStreamSynchronize(raw_stream);
    cudaStreamDestroy(raw_stream);
  }
}

}  // namespace internal

// --- GpuDevice

namespace {

std::string GpuDeviceName(int ordinal) {
  return absl::StrCat("/job:localhost/replica:0/task:0/device:GPU:", ordinal);
}

}  // namespace

GpuDevice::GpuDevice(int ordinal)
    : internal::GpuDeviceResources(ordinal),
      AcceleratorDevice(GpuDeviceName(ordinal), DeviceType(DEVICE_GPU),
                        /*device_allocator=*/nullptr, /*stream=*/nullptr) {}

GpuDevice::~GpuDevice() {
  // Resources (variables on this GPU) free into the allocator, which the
  // resources base class keeps alive until after this.
  resource_manager()->Clear();
}

Status GpuDevice::Init() {
  MF_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal()));
  MF_CUDA_RETURN_IF_ERROR(
      cudaStreamCreateWithFlags(&raw_stream, cudaStreamNonBlocking));
  stream_impl = std::make_unique<CudaStream>(ordinal(), raw_stream);
  // Freed blocks stay in the pool for the next step instead of going back
  // to the driver at every synchronisation.
  cudaMemPool_t pool = nullptr;
  MF_CUDA_RETURN_IF_ERROR(cudaDeviceGetDefaultMemPool(&pool, ordinal()));
  uint64_t threshold = std::numeric_limits<uint64_t>::max();
  MF_CUDA_RETURN_IF_ERROR(cudaMemPoolSetAttribute(
      pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  allocator_impl = std::make_unique<GpuStreamAllocator>(ordinal(), raw_stream);
  MF_CUBLAS_RETURN_IF_ERROR(cublasCreate(&cublas));
  MF_CUBLAS_RETURN_IF_ERROR(cublasSetStream(cublas, raw_stream));
  // After cublasSetStream, which resets the workspace. 32 MiB is what cuBLAS
  // recommends for Hopper and later.
  constexpr size_t kCublasWorkspaceBytes = size_t{32} << 20;
  MF_CUDA_RETURN_IF_ERROR(cudaMalloc(&cublas_workspace, kCublasWorkspaceBytes));
  MF_CUBLAS_RETURN_IF_ERROR(
      cublasSetWorkspace(cublas, cublas_workspace, kCublasWorkspaceBytes));
  eigen = std::make_unique<EigenState>();
  MF_CUDA_RETURN_IF_ERROR(
      cudaGetDeviceProperties(&eigen->properties, ordinal()));
  eigen->stream = std::make_unique<internal::EigenCudaStream>(
      &raw_stream, &eigen->properties);
  // The scratch buffer is made now, not lazily: kernels on several executor
  // threads may ask for it at once.
  if (eigen->stream->scratchpad() == nullptr) {
    return errors::ResourceExhausted(
        "Cannot allocate Eigen's scratch buffer on ", name());
  }
  eigen->device = std::make_unique<Eigen::GpuDevice>(eigen->stream.get());
  set_stream_and_allocator(stream_impl.get(), allocator_impl.get());
  return OkStatus();
}

Status GpuDevice::Create(int ordinal, std::unique_ptr<GpuDevice>* device) {
  std::unique_ptr<GpuDevice> made(new GpuDevice(ordinal));
  MF_RETURN_IF_ERROR(made->Init());
  *device = std::move(made);
  return OkStatus();
}

const Eigen::GpuDevice* GpuDevice::eigen_gpu_device() const {
  return eigen->device.get();
}

void GpuDevice::Compute(OpKernel* op_kernel, OpKernelContext* context) {
  // Executor threads (and the caller's, for inline nodes) are shared by
  // every device: make this GPU current.
  const cudaError_t error = MakeGpuCurrent(ordinal());
  if (error != cudaSuccess) {
    context->SetStatus(internal::CudaErrorToStatus(error, "cudaSetDevice",
                                                   __FILE__, __LINE__));
    return;
  }
  op_kernel->Compute(context);
}

Status GetGpuDevice(OpKernelContext* ctx, GpuDevice** device) {
  *device = dynamic_cast<GpuDevice*>(ctx->device());
  if (*device == nullptr) {
    return errors::Internal("GPU kernel ", ctx->op_kernel().type_string(),
                            " ran on non-GPU device '", ctx->device()->name(),
                            "'");
  }
  return OkStatus();
}

// --- Device factory

Status CreateGpuDevices(const SessionOptions& options,
                        std::vector<std::unique_ptr<Device>>* devices) {
  int count = 0;
  MF_RETURN_IF_ERROR(GetGpuCount(&count));
  for (int i = 0; i < count; ++i) {
    std::unique_ptr<GpuDevice> device;
    MF_RETURN_IF_ERROR(GpuDevice::Create(i, &device));
    devices->push_back(std::move(device));
  }
  return OkStatus();
}

namespace {

// Replaces libminflow's loading factory once this library is in the
// process, whether loaded by it or linked by a test.
const bool kGpuFactoryRegistered = [] {
  RegisterDeviceFactory(DEVICE_GPU, internal::kGpuDevicePriority,
                        CreateGpuDevices);
  return true;
}();

}  // namespace

}  // namespace minflow
