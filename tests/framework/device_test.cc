#define EIGEN_USE_THREADS
#include "minflow/framework/device.h"

#include <atomic>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/resource_mgr.h"
#include "minflow/tensor.pb.h"
#include "tests/testlib/status_matchers.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;

TEST(DeviceTest, CpuDeviceHasTensorFlowsNameAndItsOwnPool) {
  CpuDeviceOptions options;
  options.intra_op_threads = 3;
  CpuDevice device(options);
  EXPECT_EQ(device.name(), "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(device.device_type(), DEVICE_CPU);
  EXPECT_EQ(device.GetAllocator(AllocatorAttributes()), cpu_allocator());
  EXPECT_EQ(device.tensorflow_cpu_worker_threads()->num_threads, 3);
  EXPECT_EQ(device.tensorflow_cpu_worker_threads()->workers,
            device.intra_op_pool());
  EXPECT_EQ(device.eigen_cpu_device()->numThreads(), 3);
  EXPECT_EQ(device.eigen_gpu_device(), nullptr);
  EXPECT_NE(device.resource_manager(), nullptr);
  MF_EXPECT_OK(device.Sync());
}

TEST(DeviceTest, SharesAGivenPoolAndAllocator) {
  thread::ThreadPool pool("shared", 2);
  CpuAllocator allocator;
  CpuDeviceOptions options;
  options.name = "/job:localhost/replica:0/task:0/device:CPU:1";
  options.intra_op_pool = &pool;
  options.allocator = &allocator;
  CpuDevice device(options);
  EXPECT_EQ(device.name(), options.name);
  EXPECT_EQ(device.intra_op_pool(), &pool);
  EXPECT_EQ(device.eigen_cpu_device(), &pool.eigen_device());
  EXPECT_EQ(device.GetAllocator(AllocatorAttributes()), &allocator);
}

TEST(DeviceTest, ShardUsesTheWorkerThreads) {
  CpuDeviceOptions options;
  options.intra_op_threads = 4;
  CpuDevice device(options);
  const auto* workers = device.tensorflow_cpu_worker_threads();
  std::atomic<int64_t> sum{0};
  Shard(workers->num_threads, workers->workers, 100000, 1000,
        [&sum](int64_t start, int64_t limit) {
          int64_t local = 0;
          for (int64_t i = start; i < limit; ++i) local += i;
          sum.fetch_add(local);
        });
  EXPECT_EQ(sum.load(), int64_t{100000} * 99999 / 2);
}

TEST(DeviceTest, EigenExpressionsRunOnTheDevice) {
  CpuDevice device;
  Tensor a(DT_FLOAT, TensorShape({1 << 16}));
  a.flat<float>().setConstant(2.0f);
  Tensor b(DT_FLOAT, TensorShape({1 << 16}));
  b.flat<float>().device(*device.eigen_cpu_device()) = a.flat<float>() * 3.0f;
  EXPECT_EQ(b.flat<float>()(12345), 6.0f);
}

TEST(DeviceTest, BareDeviceBaseServesHostMemoryAndADefaultPool) {
  DeviceBase base;
  EXPECT_EQ(base.name(), "");
  EXPECT_EQ(base.device_type(), DEVICE_CPU);
  EXPECT_EQ(base.GetAllocator(AllocatorAttributes()), cpu_allocator());
  EXPECT_NE(base.eigen_cpu_device(), nullptr);
  EXPECT_EQ(base.tensorflow_cpu_worker_threads()->workers, nullptr);
  EXPECT_EQ(base.resource_manager(), nullptr);
}

TEST(DeviceTest, MakeTensorFromProtoUsesTheDevicesAllocator) {
  CpuAllocator allocator;
  CpuDeviceOptions options;
  options.allocator = &allocator;
  CpuDevice device(options);
  TensorProto proto;
  proto.set_dtype(DT_INT32);
  proto.mutable_tensor_shape()->add_dim()->set_size(3);
  proto.add_int_val(4);
  Tensor t;
  MF_ASSERT_OK(device.MakeTensorFromProto(proto, AllocatorAttributes(), &t));
  EXPECT_EQ(t.flat<int32_t>()(2), 4);
  EXPECT_EQ(allocator.GetStats().num_allocs, 1);
  proto.mutable_tensor_shape()->mutable_dim(0)->set_size(-2);
  EXPECT_THAT(device.MakeTensorFromProto(proto, AllocatorAttributes(), &t),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(DeviceTest, AllocatorAttributesCompare) {
  AllocatorAttributes a;
  AllocatorAttributes b;
  EXPECT_EQ(a, b);
  b.set_on_host(true);
  EXPECT_TRUE(b.on_host());
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace minflow
