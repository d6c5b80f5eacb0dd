// Captured steps (Note [Captured steps]) on the fake accelerator: what the
// stream records, which signatures the session captures, that launches give
// each run's own results, and that memory and errors behave. The GPU twin,
// with CUDA Graphs, is GpuCudaGraphTest in tests/cuda/gpu_kernels_test.cc.
#include "src/runtime/captured_step.h"

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/config.pb.h"
#include "minflow/core/tensor.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "tests/runtime/fake_accelerator.h"
#include "tests/runtime/fake_accelerator_testutil.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace fake_accel {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

// The same with a Neg in the middle, which has no FAKE_GPU kernel: a host
// kernel inside the step.
constexpr char kHostInTheMiddle[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "n"
    op: "Neg"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "a"
    op: "AddV2"
    input: "n"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "r"
    op: "Relu"
    input: "a"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

class CapturedStepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterFakeAcceleratorFactory();
    SetFakeAcceleratorOptions({});
    violations_before_ = FakeDeviceAllocator::TotalViolations();
    live_before_ = FakeDeviceAllocator::TotalLiveBytes();
  }
  void TearDown() override {
    SetFakeAcceleratorOptions({});
    // No launch may read freed device memory or free twice, and a session's
    // recordings give their device memory back with it.
    EXPECT_EQ(violations_before_, FakeDeviceAllocator::TotalViolations());
    EXPECT_EQ(live_before_, FakeDeviceAllocator::TotalLiveBytes());
  }

  static std::unique_ptr<Session> MakeSession(const std::string& text,
                                              bool use_cuda_graphs) {
    ConfigProto config;
    config.mutable_device_count()->insert({"GPU", 0});
    config.set_inter_op_parallelism_threads(4);
    config.set_intra_op_parallelism_threads(1);
    config.mutable_gpu_options()->mutable_experimental()->set_use_cuda_graphs(
        use_cuda_graphs);
    SessionOptions options;
    options.config = config;
    auto session =
        Session::Create(ParseTextProtoOrDie<GraphDef>(text), options);
    EXPECT_TRUE(session.ok()) << session.status();
    return session.ok() ? std::move(session).value() : nullptr;
  }

  // relu(3x) for kChain, relu(0) = 0 for kHostInTheMiddle.
  static std::vector<float> ChainOf(const std::vector<float>& x) {
    std::vector<float> y;
    for (float v : x) y.push_back(3 * v > 0 ? 3 * v : 0);
    return y;
  }

  static std::vector<float> RunChain(Session* session,
                                     const std::vector<float>& x) {
    std::vector<Tensor> out;
    const Status s = session->Run({{"x", Vector(x)}}, {"r"}, {}, &out);
    EXPECT_TRUE(s.ok()) << s;
    return s.ok() && out.size() == 1 ? Values(out[0]) : std::vector<float>();
  }

  int64_t violations_before_ = 0;
  int64_t live_before_ = 0;
};

// --- The stream

TEST_F(CapturedStepTest, RecordedCopyReadsItsSourceAtEveryLaunch) {
  FakeAcceleratorDevice device;
  FakeStream* stream = device.fake_stream();
  std::unique_ptr<Allocator> arena = stream->NewCaptureHostArena(1024);
  ASSERT_NE(arena, nullptr);
  auto* host = static_cast<float*>(arena->AllocateRaw(64, 4 * sizeof(float)));
  ASSERT_NE(host, nullptr);
  void* on_device = device.fake_allocator()->AllocateRaw(64, 16);
  std::fill(host, host + 4, 1.0f);

  MF_ASSERT_OK(stream->BeginCapture(arena.get()));
  EXPECT_TRUE(stream->IsCapturing());
  // On-host allocations of the device come from the arena meanwhile.
  AllocatorAttributes on_host;
  on_host.set_on_host(true);
  EXPECT_EQ(arena.get(), device.GetAllocator(on_host));
  MF_ASSERT_OK(stream->CopyHostToDevice(host, on_device, 16));
  // Nothing recorded has run, so there is nothing to wait for.
  EXPECT_THAT(device.Sync(), StatusIs(absl::StatusCode::kFailedPrecondition,
                                      HasSubstr("while it captures")));
  std::unique_ptr<CapturedStreamWork> work;
  MF_ASSERT_OK(stream->EndCapture(&work));
  EXPECT_FALSE(stream->IsCapturing());
  EXPECT_NE(arena.get(), device.GetAllocator(on_host));
  EXPECT_EQ(0, stream->items_executed());

  for (float value : {5.0f, -3.0f}) {
    std::fill(host, host + 4, value);
    MF_ASSERT_OK(work->Launch());
    MF_ASSERT_OK(device.Sync());
    float back[4];
    std::memcpy(back, on_device, sizeof(back));
    EXPECT_THAT(back, ::testing::Each(value));
  }
  EXPECT_EQ(2, stream->launches());
  work.reset();
  device.fake_allocator()->DeallocateRaw(on_device, 16);
}

TEST_F(CapturedStepTest, DeviceMemoryAllocatedWhileCapturingIsTheRecordings) {
  FakeAcceleratorDevice device;
  FakeStream* stream = device.fake_stream();
  FakeDeviceAllocator* allocator = device.fake_allocator();
  std::unique_ptr<Allocator> arena = stream->NewCaptureHostArena(0);
  MF_ASSERT_OK(stream->BeginCapture(arena.get()));
  void* block = allocator->AllocateRaw(64, 32);
  // A free while capturing is a free the recording makes at every launch:
  // the block stays the recording's until the recording goes.
  allocator->DeallocateRaw(block, 32);
  std::unique_ptr<CapturedStreamWork> work;
  MF_ASSERT_OK(stream->EndCapture(&work));
  for (int i = 0; i < 3; ++i) MF_ASSERT_OK(work->Launch());
  MF_ASSERT_OK(device.Sync());
  EXPECT_EQ(1, allocator->live_blocks());
  work.reset();
  stream->Quiesce();
  EXPECT_EQ(0, allocator->live_blocks());
}

TEST_F(CapturedStepTest, CaptureThatFailsLaunchesNothing) {
  FakeAcceleratorDevice device;
  std::unique_ptr<CapturedStep> step;
  std::vector<Tensor> outputs;
  auto failing = [&](const std::vector<Tensor>& feeds,
                     std::vector<Tensor>* fetched) -> Status {
    EXPECT_EQ(1u, feeds.size());
    void* block = device.fake_allocator()->AllocateRaw(64, 8);
    device.fake_allocator()->DeallocateRaw(block, 8);
    return errors::InvalidArgument("the step failed");
  };
  EXPECT_THAT(CapturedStep::Capture(&device, failing, {Vector({1, 2})}, &step,
                                    &outputs),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the step failed")));
  EXPECT_EQ(nullptr, step);
  EXPECT_FALSE(device.fake_stream()->IsCapturing());
  EXPECT_EQ(1, device.fake_stream()->captures());
  EXPECT_EQ(0, device.fake_stream()->launches());
  device.fake_stream()->Quiesce();
  EXPECT_EQ(0, device.fake_allocator()->live_blocks());
}

// --- Sessions

TEST_F(CapturedStepTest, SecondRunIsRecordedAndLaterRunsLaunchIt) {
  auto session = MakeSession(kChain, /*use_cuda_graphs=*/true);
  ASSERT_NE(session, nullptr);
  FakeStream* stream = LastCreatedFakeDevice()->fake_stream();
  EXPECT_EQ(ChainOf({1, -2, 3}), RunChain(session.get(), {1, -2, 3}));
  EXPECT_EQ(0, stream->captures());
  // Recorded, then launched once for its own results.
  EXPECT_EQ(ChainOf({4, 5, -6}), RunChain(session.get(), {4, 5, -6}));
  EXPECT_EQ(1, stream->captures());
  EXPECT_EQ(1, stream->launches());
  const int64_t items_per_launch = stream->items_executed();
  // Each launch takes its own feeds.
  for (float v : {7.0f, -8.0f, 0.5f}) {
    EXPECT_EQ(ChainOf({v, 2 * v, -v}), RunChain(session.get(), {v, 2 * v, -v}));
  }
  EXPECT_EQ(1, stream->captures());
  EXPECT_EQ(4, stream->launches());
  EXPECT_GT(stream->items_executed(), items_per_launch);
}

TEST_F(CapturedStepTest, NothingIsRecordedWithoutTheOption) {
  auto session = MakeSession(kChain, /*use_cuda_graphs=*/false);
  ASSERT_NE(session, nullptr);
  for (float v : {1.0f, 2.0f, 3.0f}) {
    EXPECT_EQ(ChainOf({v}), RunChain(session.get(), {v}));
  }
  EXPECT_EQ(0, LastCreatedFakeDevice()->fake_stream()->captures());
}

TEST_F(CapturedStepTest, OtherShapesRunThroughTheExecutor) {
  auto session = MakeSession(kChain, /*use_cuda_graphs=*/true);
  ASSERT_NE(session, nullptr);
  FakeStream* stream = LastCreatedFakeDevice()->fake_stream();
  RunChain(session.get(), {1, 2});
  RunChain(session.get(), {1, 2});
  ASSERT_EQ(1, stream->launches());
  EXPECT_EQ(ChainOf({1, 2, 3, 4, 5}), RunChain(session.get(), {1, 2, 3, 4, 5}));
  EXPECT_EQ(ChainOf({}), RunChain(session.get(), {}));
  EXPECT_EQ(1, stream->launches());
  EXPECT_EQ(ChainOf({-1, 9}), RunChain(session.get(), {-1, 9}));
  EXPECT_EQ(2, stream->launches());
  EXPECT_EQ(1, stream->captures());
}

TEST_F(CapturedStepTest, StepWithAHostKernelIsNotRecorded) {
  auto session = MakeSession(kHostInTheMiddle, /*use_cuda_graphs=*/true);
  ASSERT_NE(session, nullptr);
  for (float v : {1.0f, -2.0f, 3.0f}) {
    EXPECT_EQ(std::vector<float>({0.0f}), RunChain(session.get(), {v}));
  }
  EXPECT_EQ(0, LastCreatedFakeDevice()->fake_stream()->captures());
}

TEST_F(CapturedStepTest, DeviceMemoryStaysFlatAcrossLaunches) {
  auto session = MakeSession(kChain, /*use_cuda_graphs=*/true);
  ASSERT_NE(session, nullptr);
  FakeAcceleratorDevice* device = LastCreatedFakeDevice();
  const std::vector<float> x(1000, 1.5f);
  for (int i = 0; i < 3; ++i) RunChain(session.get(), x);
  device->fake_stream()->Quiesce();
  const int64_t after_three = device->fake_allocator()->live_bytes();
  for (int i = 0; i < 20; ++i) RunChain(session.get(), x);
  device->fake_stream()->Quiesce();
  EXPECT_EQ(after_three, device->fake_allocator()->live_bytes());
  EXPECT_EQ(22, device->fake_stream()->launches());
}

TEST_F(CapturedStepTest, ErrorDuringALaunchNamesTheDeviceAndSticks) {
  auto session = MakeSession(kChain, /*use_cuda_graphs=*/true);
  ASSERT_NE(session, nullptr);
  FakeStream* stream = LastCreatedFakeDevice()->fake_stream();
  RunChain(session.get(), {1});
  RunChain(session.get(), {1});
  ASSERT_EQ(1, stream->launches());
  stream->FailNthItem(2, errors::Internal("injected fault"));
  std::vector<Tensor> out;
  EXPECT_THAT(
      session->Run({{"x", Vector({1})}}, {"r"}, {}, &out),
      StatusIs(absl::StatusCode::kInternal,
               AllOf(HasSubstr("injected fault"), HasSubstr(kFakeGpuName))));
  EXPECT_THAT(
      session->Run({{"x", Vector({1})}}, {"r"}, {}, &out),
      StatusIs(absl::StatusCode::kInternal, HasSubstr("injected fault")));
}

TEST_F(CapturedStepTest, ConcurrentRunsEachGetTheirOwnResults) {
  auto session = MakeSession(kChain, /*use_cuda_graphs=*/true);
  ASSERT_NE(session, nullptr);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        const std::vector<float> x = {static_cast<float>(t),
                                      static_cast<float>(i), -1.0f};
        if (RunChain(session.get(), x) != ChainOf(x)) ++wrong;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(0, wrong.load());
  FakeStream* stream = LastCreatedFakeDevice()->fake_stream();
  EXPECT_EQ(1, stream->captures());
  // All but the first run of the signature, and those that raced it.
  EXPECT_GE(stream->launches(), 90);
}

}  // namespace
}  // namespace fake_accel
}  // namespace minflow
