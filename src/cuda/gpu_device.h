// The CUDA device: one stream per GPU (Note [Accelerator streams] in
// framework/accelerator_device.h), device memory from the stream-ordered
// allocator (cudaMallocAsync on the device's default pool), an
// Eigen::GpuDevice on that stream for expression kernels, and a cuBLAS handle
// bound to it. Registered as the "GPU" device factory (priority 200), so a
// session on a machine with GPUs places nodes there first. Part of
// libminflow_gpu, which libminflow loads on demand (src/runtime/gpu_loader.cc).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <atomic>
#include <memory>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "minflow/framework/accelerator_device.h"

namespace Eigen {
struct GpuDevice;
}  // namespace Eigen

namespace minflow {

class OpKernelContext;

// An AcceleratorStream on a cudaStream_t; errors are sticky. Captures into
// CUDA Graphs (Note [Captured steps]).
class CudaStream final : public AcceleratorStream {
 public:
  CudaStream(int ordinal, cudaStream_t stream)
      : ordinal_(ordinal), stream_(stream) {}

  Status CopyHostToDevice(const void* host_src, void* device_dst,
                          size_t bytes) override;
  Status CopyDeviceToHost(const void* device_src, void* host_dst,
                          size_t bytes) override;
  Status CopyDeviceToDevice(const void* device_src, void* device_dst,
                            size_t bytes) override;
  Status BlockHostUntilDone() override;

  bool SupportsCapture() const override { return true; }
  // Page-locked host memory (cudaHostAlloc), so recorded copies are true
  // asynchronous copies.
  std::unique_ptr<Allocator> NewCaptureHostArena(
      size_t first_chunk_bytes) override;
  // cudaStreamBeginCapture in relaxed mode: other threads and sessions may
  // go on using CUDA meanwhile.
  Status BeginCapture(Allocator* host_memory) override;
  // Ends the capture and instantiates the graph.
  Status EndCapture(std::unique_ptr<CapturedStreamWork>* work) override;
  Allocator* capture_host_allocator() const override {
    return capture_host_.load(std::memory_order_acquire);
  }

  cudaStream_t cuda_stream() const { return stream_; }
  int ordinal() const { return ordinal_; }
  // Records `s` as the stream's error unless one is recorded already, and
  // returns the recorded one.
  Status RecordError(Status s);

 private:
  const int ordinal_;
  const cudaStream_t stream_;
  std::atomic<Allocator*> capture_host_{nullptr};
  absl::Mutex mu_;
  Status error_ ABSL_GUARDED_BY(mu_);
};

// Makes GPU `ordinal` current on this thread, asking first: a thread-local
// read in the runtime, where switching is dearer and rarely needed.
cudaError_t MakeGpuCurrent(int ordinal);

// Device memory in stream order: AllocateRaw is cudaMallocAsync and
// DeallocateRaw cudaFreeAsync on the device's stream, from a pool that keeps
// freed memory for reuse (release threshold: unlimited).
class GpuStreamAllocator final : public Allocator {
 public:
  GpuStreamAllocator(int ordinal, cudaStream_t stream)
      : ordinal_(ordinal), stream_(stream) {}

  std::string Name() const override;
  void* AllocateRaw(size_t alignment, size_t num_bytes) override;
  void DeallocateRaw(void* ptr, size_t num_bytes) override;
  AllocatorStats GetStats() const override;
  void ResetPeak() override;

 private:
  const int ordinal_;
  const cudaStream_t stream_;
  std::atomic<int64_t> num_allocs_{0};
  std::atomic<int64_t> bytes_in_use_{0};
  std::atomic<int64_t> peak_bytes_in_use_{0};
  std::atomic<int64_t> largest_alloc_size_{0};
};

namespace internal {
// What a GpuDevice owns besides the Device itself. A base class that is
// constructed before and destroyed after Device, so tensors the device's
// ResourceMgr still holds free into a live allocator and stream.
struct GpuDeviceResources {
  explicit GpuDeviceResources(int ordinal);
  ~GpuDeviceResources();
  const int gpu_ordinal;
  cudaStream_t raw_stream = nullptr;
  cublasHandle_t cublas = nullptr;
  // cuBLAS's workspace, ours rather than its own pool's, so that a captured
  // step (Note [Captured steps]) never sees cuBLAS allocate.
  void* cublas_workspace = nullptr;
  std::unique_ptr<CudaStream> stream_impl;
  std::unique_ptr<GpuStreamAllocator> allocator_impl;
  struct EigenState;
  std::unique_ptr<EigenState> eigen;
};
}  // namespace internal

class GpuDevice final : private internal::GpuDeviceResources,
                        public AcceleratorDevice {
 public:
  // Creates the device for GPU `ordinal` with its stream and handles.
  static Status Create(int ordinal, std::unique_ptr<GpuDevice>* device);
  ~GpuDevice() override;

  const Eigen::GpuDevice* eigen_gpu_device() const override;
  void Compute(OpKernel* op_kernel, OpKernelContext* context) override;

  int ordinal() const { return gpu_ordinal; }
  cudaStream_t cuda_stream() const { return raw_stream; }
  cublasHandle_t cublas_handle() const { return cublas; }
  CudaStream* gpu_stream() const { return stream_impl.get(); }

 private:
  explicit GpuDevice(int ordinal);
  Status Init();
};

// The GpuDevice a GPU kernel runs on; Internal error if it runs elsewhere.
Status GetGpuDevice(OpKernelContext* ctx, GpuDevice** device);

struct SessionOptions;
// The GPU device factory: one GpuDevice per visible GPU (none, and OK, on a
// machine without). Registered for "GPU" when libminflow_gpu loads.
Status CreateGpuDevices(const SessionOptions& options,
                        std::vector<std::unique_ptr<Device>>* devices);

}  // namespace minflow
