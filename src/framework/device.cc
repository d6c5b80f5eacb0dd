#define EIGEN_USE_THREADS
#include "minflow/framework/device.h"

#include <utility>

#include "minflow/core/tensor.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/resource_mgr.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {
namespace {

// The intra-op pool of a bare DeviceBase: one worker, made on first use and
// never destroyed (kernels may hold its Eigen device until exit).
thread::ThreadPool* DefaultIntraOpPool() {
  static thread::ThreadPool* pool = new thread::ThreadPool("mf_default", 1);
  return pool;
}

const std::string& EmptyString() {
  static const std::string* empty = new std::string();
  return *empty;
}

}  // namespace

DeviceBase::DeviceBase() = default;
DeviceBase::~DeviceBase() = default;

const std::string& DeviceBase::name() const { return EmptyString(); }

const DeviceType& DeviceBase::device_type() const {
  static const DeviceType* cpu = new DeviceType(DEVICE_CPU);
  return *cpu;
}

Allocator* DeviceBase::GetAllocator(AllocatorAttributes attr) {
  return cpu_allocator();
}

const Eigen::ThreadPoolDevice* DeviceBase::eigen_cpu_device() const {
  if (eigen_cpu_device_ != nullptr) return eigen_cpu_device_;
  return &DefaultIntraOpPool()->eigen_device();
}

void DeviceBase::set_intra_op_thread_pool(thread::ThreadPool* pool) {
  cpu_worker_threads_.num_threads = pool->NumThreads();
  cpu_worker_threads_.workers = pool;
  eigen_cpu_device_ = &pool->eigen_device();
}

Status DeviceBase::MakeTensorFromProto(const TensorProto& proto,
                                       AllocatorAttributes attr,
                                       Tensor* tensor) {
  TensorProtoOptions options;
  options.allocator = GetAllocator(attr);
  return TensorFromProto(proto, tensor, options);
}

Device::Device(std::string name, DeviceType device_type)
    : name_(std::move(name)),
      device_type_(std::move(device_type)),
      resource_manager_(std::make_unique<ResourceMgr>()) {}

Device::~Device() = default;

void Device::Compute(OpKernel* op_kernel, OpKernelContext* context) {
  op_kernel->Compute(context);
}

void Device::ComputeAsync(AsyncOpKernel* op_kernel, OpKernelContext* context,
                          std::function<void()> done) {
  op_kernel->ComputeAsync(context, std::move(done));
}

CpuDevice::CpuDevice(const CpuDeviceOptions& options)
    : Device(options.name, DEVICE_CPU),
      pool_(options.intra_op_pool),
      allocator_(options.allocator != nullptr ? options.allocator
                                              : cpu_allocator()) {
  if (pool_ == nullptr) {
    const int n = options.intra_op_threads > 0 ? options.intra_op_threads
                                               : thread::DefaultNumThreads();
    owned_pool_ = std::make_unique<thread::ThreadPool>("mf_intra_op", n);
    pool_ = owned_pool_.get();
  }
  set_intra_op_thread_pool(pool_);
}

// The resource manager goes first: resources may use the pool as they die.
CpuDevice::~CpuDevice() {
  if (resource_manager() != nullptr) resource_manager()->Clear();
}

}  // namespace minflow
