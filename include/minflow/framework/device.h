// Devices as kernels see them: where memory comes from (GetAllocator), which
// threads and Eigen device run their math, and where per-device state
// (ResourceMgr) lives. CpuDevice is the host device; GPU devices derive from
// Device in the cuda layer.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "minflow/core/allocator.h"
#include "minflow/core/status.h"
#include "minflow/core/threadpool.h"
#include "minflow/core/types.h"

namespace Eigen {
struct GpuDevice;
}  // namespace Eigen

namespace minflow {

class AsyncOpKernel;
class OpKernel;
class OpKernelContext;
class ResourceMgr;
class Tensor;
class TensorProto;

// What a kernel asks of an allocation. `on_host`: the memory must be host
// memory even on an accelerator (shapes, sizes read by the CPU).
class AllocatorAttributes {
 public:
  void set_on_host(bool v) { on_host_ = v; }
  bool on_host() const { return on_host_; }
  void set_gpu_compatible(bool v) { gpu_compatible_ = v; }
  bool gpu_compatible() const { return gpu_compatible_; }
  bool operator==(const AllocatorAttributes& o) const {
    return on_host_ == o.on_host_ && gpu_compatible_ == o.gpu_compatible_;
  }
  bool operator!=(const AllocatorAttributes& o) const { return !(*this == o); }

 private:
  bool on_host_ = false;
  bool gpu_compatible_ = false;
};

// The part of a device a kernel may use. Methods are thread-safe (kernels
// run concurrently on one device). A bare DeviceBase (tests, shape-only
// tools) serves host memory and a process-wide single-thread Eigen device.
class DeviceBase {
 public:
  // The intra-op threads Shard() uses: TensorFlow's
  //   auto* w = ctx->device()->tensorflow_cpu_worker_threads();
  //   Shard(w->num_threads, w->workers, total, cost_per_unit, work);
  struct CpuWorkerThreads {
    int num_threads = 1;
    thread::ThreadPool* workers = nullptr;
  };

  DeviceBase();
  virtual ~DeviceBase();
  DeviceBase(const DeviceBase&) = delete;
  DeviceBase& operator=(const DeviceBase&) = delete;

  // "/job:localhost/replica:0/task:0/device:CPU:0"; "" for a bare base.
  virtual const std::string& name() const;
  // DEVICE_CPU, DEVICE_GPU, ...
  virtual const DeviceType& device_type() const;

  // Where tensors for this device come from; never null. The default hands
  // out cpu_allocator().
  virtual Allocator* GetAllocator(AllocatorAttributes attr);

  const CpuWorkerThreads* tensorflow_cpu_worker_threads() const {
    return &cpu_worker_threads_;
  }
  // The Eigen device that evaluates tensor expressions on the intra-op
  // threads; never null.
  const Eigen::ThreadPoolDevice* eigen_cpu_device() const;
  // The Eigen GPU device of an accelerator; null on the host. The cuda layer
  // overrides it (GPU kernels reach it through eigen_device<GpuDevice>(),
  // declared in the GPU-only op_kernel_gpu.h).
  virtual const Eigen::GpuDevice* eigen_gpu_device() const { return nullptr; }

  // Per-device kernel state; may be null for a bare DeviceBase.
  virtual ResourceMgr* resource_manager() { return nullptr; }

  // Decodes `proto` into a tensor whose memory belongs to this device
  // (Const kernels). InvalidArgument for a malformed proto; the default
  // decodes on the host with GetAllocator(attr).
  virtual Status MakeTensorFromProto(const TensorProto& proto,
                                     AllocatorAttributes attr, Tensor* tensor);

 protected:
  // For subclasses, before the device is used: `pool` (not owned) must
  // outlive the device.
  void set_intra_op_thread_pool(thread::ThreadPool* pool);

 private:
  CpuWorkerThreads cpu_worker_threads_;
  const Eigen::ThreadPoolDevice* eigen_cpu_device_ = nullptr;
};

// A named device that owns its ResourceMgr and runs kernels. The executor
// calls Compute/ComputeAsync rather than the kernel directly, so devices can
// add work around kernels (GPU stream sync, tracing).
class Device : public DeviceBase {
 public:
  Device(std::string name, DeviceType device_type);
  ~Device() override;

  const std::string& name() const override { return name_; }
  const DeviceType& device_type() const override { return device_type_; }
  ResourceMgr* resource_manager() override { return resource_manager_.get(); }

  // Runs `op_kernel` in `context`; the default just calls Compute.
  virtual void Compute(OpKernel* op_kernel, OpKernelContext* context);
  virtual void ComputeAsync(AsyncOpKernel* op_kernel, OpKernelContext* context,
                            std::function<void()> done);
  // Waits for work queued on the device (GPU streams); OK on the host.
  virtual Status Sync() { return OkStatus(); }

 private:
  const std::string name_;
  const DeviceType device_type_;
  std::unique_ptr<ResourceMgr> resource_manager_;
};

struct CpuDeviceOptions {
  std::string name = "/job:localhost/replica:0/task:0/device:CPU:0";
  // Intra-op threads for Eigen and Shard(); 0 means one per core
  // (thread::DefaultNumThreads()). Ignored when `intra_op_pool` is set.
  int intra_op_threads = 0;
  // A pool to share (not owned; must outlive the device), e.g. one pool for
  // the whole session.
  thread::ThreadPool* intra_op_pool = nullptr;
  // Where tensors come from; null means cpu_allocator(). Not owned.
  Allocator* allocator = nullptr;
};

// The host device: kernels' Eigen expressions run on the intra-op pool
// through an Eigen::ThreadPoolDevice. Thread-safe.
class CpuDevice : public Device {
 public:
  explicit CpuDevice(const CpuDeviceOptions& options = {});
  ~CpuDevice() override;

  Allocator* GetAllocator(AllocatorAttributes attr) override {
    return allocator_;
  }
  thread::ThreadPool* intra_op_pool() const { return pool_; }

 private:
  std::unique_ptr<thread::ThreadPool> owned_pool_;
  thread::ThreadPool* pool_;
  Allocator* allocator_;
};

}  // namespace minflow
