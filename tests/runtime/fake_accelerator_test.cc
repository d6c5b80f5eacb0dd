// The accelerator paths of the session, on the fake accelerator
// (tests/runtime/fake_accelerator.h): placement and copy insertion,
// asynchronous completion, errors raised on the stream, stream-ordered
// device memory, and device_count. No CUDA: these run in every build.
//
// What a sticky error means here (Note [Accelerator streams]): once work on
// a device's stream failed, the device is unusable for the rest of its
// session, as a CUDA context is after a device-side fault. Every later Run
// of that session fails with the first error (its _CopyToHost or its
// step-end Sync returns it), including Runs that do not touch the failing
// node. A new session gets a new device and runs normally.
#include "tests/runtime/fake_accelerator.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/config.pb.h"
#include "minflow/core/tensor.h"
#include "minflow/graph.pb.h"
#include "minflow/rewriter_config.pb.h"
#include "minflow/runtime/session.h"
#include "minflow/step_stats.pb.h"
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
using ::testing::SizeIs;

constexpr char kCpuName[] = "/job:localhost/replica:0/task:0/device:CPU:0";

// A CPU-only op (Neg) between accelerator ops, and a Reshape whose int32
// shape comes from a Const through an Identity, all three on the device:
// r = relu(reshape(-(x * 2) + x, [2, -1])).
constexpr char kMixed[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "two"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {}
          float_val: 2
        }
      }
    }
  }
  node {
    name: "m"
    op: "Mul"
    input: "x"
    input: "two"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "n"
    op: "Neg"
    input: "m"
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
    name: "shape"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_INT32
          tensor_shape { dim { size: 2 } }
          int_val: 2
          int_val: -1
        }
      }
    }
  }
  node {
    name: "shape_id"
    op: "Identity"
    input: "shape"
    attr {
      key: "T"
      value { type: DT_INT32 }
    }
  }
  node {
    name: "rs"
    op: "Reshape"
    input: "a"
    input: "shape_id"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "Tshape"
      value { type: DT_INT32 }
    }
  }
  node {
    name: "r"
    op: "Relu"
    input: "rs"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

class FakeAcceleratorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterFakeAcceleratorFactory();
    SetFakeAcceleratorOptions({});
    violations_before_ = FakeDeviceAllocator::TotalViolations();
  }
  void TearDown() override {
    SetFakeAcceleratorOptions({});
    // No test may read freed device memory, or free twice.
    EXPECT_EQ(violations_before_, FakeDeviceAllocator::TotalViolations());
  }

  static std::unique_ptr<Session> MakeSession(const std::string& text,
                                              ConfigProto config = {}) {
    // In a CUDA build on a machine with a GPU, the GPU factory (priority
    // 200 too) would add its devices: these tests are about FAKE_GPU only.
    config.mutable_device_count()->insert({"GPU", 0});
    config.set_inter_op_parallelism_threads(4);
    config.set_intra_op_parallelism_threads(1);
    SessionOptions options;
    options.config = config;
    auto session =
        Session::Create(ParseTextProtoOrDie<GraphDef>(text), options);
    EXPECT_TRUE(session.ok()) << session.status();
    return session.ok() ? std::move(session).value() : nullptr;
  }

  static float Relu(float v) { return v > 0 ? v : 0; }

  int64_t violations_before_ = 0;
};

// Nodes of a partition graph by name.
std::map<std::string, const NodeDef*> ByName(const GraphDef& graph) {
  std::map<std::string, const NodeDef*> nodes;
  for (const NodeDef& n : graph.node()) nodes[n.name()] = &n;
  return nodes;
}

std::vector<const NodeDef*> OfOp(const GraphDef& graph, const std::string& op) {
  std::vector<const NodeDef*> found;
  for (const NodeDef& n : graph.node()) {
    if (n.op() == op) found.push_back(&n);
  }
  return found;
}

// The node named by input `i` of `n` ("name", "name:port" or "^name").
const NodeDef* Input(const std::map<std::string, const NodeDef*>& nodes,
                     const NodeDef& n, int i) {
  std::string name = n.input(i);
  if (!name.empty() && name[0] == '^') name = name.substr(1);
  name = name.substr(0, name.find(':'));
  auto it = nodes.find(name);
  return it == nodes.end() ? nullptr : it->second;
}

// --- The stream and the allocator on their own

TEST_F(FakeAcceleratorTest, StreamRunsItemsInOrderAfterTheCallReturns) {
  FakeStream stream("test");
  stream.set_item_delay(std::chrono::milliseconds(5));
  std::vector<int> order;
  std::mutex mu;
  for (int i = 0; i < 5; ++i) {
    stream.Enqueue([&, i] {
      std::lock_guard<std::mutex> lock(mu);
      order.push_back(i);
      return OkStatus();
    });
  }
  {
    // Enqueue returned long before 5 delayed items could run.
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_LT(order.size(), 5u);
  }
  MF_EXPECT_OK(stream.BlockHostUntilDone());
  EXPECT_EQ(order, std::vector<int>({0, 1, 2, 3, 4}));
  EXPECT_EQ(5, stream.items_executed());
}

TEST_F(FakeAcceleratorTest, HostToDeviceCopySnapshotsTheSourceAtEnqueue) {
  FakeStream stream("test");
  stream.set_item_delay(std::chrono::milliseconds(5));
  float source[4] = {1, 2, 3, 4};
  float device[4] = {0, 0, 0, 0};
  MF_ASSERT_OK(stream.CopyHostToDevice(source, device, sizeof(source)));
  // The host reuses its buffer at once, as the contract allows.
  std::fill(source, source + 4, -7.0f);
  float back[4] = {0, 0, 0, 0};
  MF_ASSERT_OK(stream.CopyDeviceToHost(device, back, sizeof(back)));
  MF_ASSERT_OK(stream.BlockHostUntilDone());
  EXPECT_EQ(std::vector<float>(back, back + 4),
            std::vector<float>({1, 2, 3, 4}));
}

TEST_F(FakeAcceleratorTest, StreamErrorsAreStickyAndSkipLaterWork) {
  FakeStream stream("test");
  std::atomic<int> ran{0};
  stream.FailNthItem(2, errors::Internal("injected"));
  for (int i = 0; i < 4; ++i) {
    stream.Enqueue([&] {
      ++ran;
      return OkStatus();
    });
  }
  EXPECT_THAT(stream.BlockHostUntilDone(),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("injected")));
  EXPECT_EQ(1, ran.load());  // item 1 ran; 2 failed; 3 and 4 were skipped
  // Later work is skipped, later waits return the first error; frees run.
  std::atomic<bool> freed{false};
  stream.Enqueue([&] {
    ++ran;
    return errors::Unknown("second");
  });
  stream.EnqueueAlwaysRun([&] { freed = true; });
  EXPECT_THAT(stream.BlockHostUntilDone(),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("injected")));
  EXPECT_EQ(1, ran.load());
  EXPECT_TRUE(freed.load());
}

TEST_F(FakeAcceleratorTest, FreesAreStreamOrderedAndPoisonFreedMemory) {
  FakeAcceleratorDevice device;
  FakeStream* stream = device.fake_stream();
  FakeDeviceAllocator* allocator = device.fake_allocator();
  stream->set_item_delay(std::chrono::milliseconds(20));
  const int64_t before = allocator->live_bytes();
  float host[4] = {1, 2, 3, 4};
  float back[4] = {0, 0, 0, 0};
  void* buffer = allocator->AllocateRaw(kAllocatorAlignment, sizeof(host));
  ASSERT_NE(buffer, nullptr);
  EXPECT_EQ(before + static_cast<int64_t>(sizeof(host)),
            allocator->live_bytes());
  MF_ASSERT_OK(stream->CopyHostToDevice(host, buffer, sizeof(host)));
  MF_ASSERT_OK(stream->CopyDeviceToHost(buffer, back, sizeof(back)));
  // Freed by the host before the copies ran: the free waits for them.
  allocator->DeallocateRaw(buffer, sizeof(host));
  EXPECT_EQ(1, allocator->pending_frees());
  MF_ASSERT_OK(stream->BlockHostUntilDone());
  EXPECT_EQ(std::vector<float>(back, back + 4),
            std::vector<float>({1, 2, 3, 4}));
  EXPECT_EQ(0, allocator->pending_frees());
  EXPECT_EQ(before, allocator->live_bytes());
  // The block sits poisoned in the quarantine (still mapped).
  uint32_t word;
  std::memcpy(&word, buffer, sizeof(word));
  EXPECT_EQ(kPoison, word);
  EXPECT_EQ(0, allocator->violations());
}

TEST_F(FakeAcceleratorTest, AReadAfterFreeIsCaught) {
  FakeAcceleratorDevice device;
  FakeStream* stream = device.fake_stream();
  FakeDeviceAllocator* allocator = device.fake_allocator();
  void* buffer = allocator->AllocateRaw(kAllocatorAlignment, 16);
  ASSERT_NE(buffer, nullptr);
  allocator->DeallocateRaw(buffer, 16);
  MF_ASSERT_OK(stream->BlockHostUntilDone());
  // Work enqueued after the free must not touch the block.
  float back[4];
  MF_ASSERT_OK(stream->CopyDeviceToHost(buffer, back, sizeof(back)));
  EXPECT_THAT(stream->BlockHostUntilDone(),
              StatusIs(absl::StatusCode::kInternal,
                       HasSubstr("is not live device memory")));
  EXPECT_EQ(1, allocator->violations());
  // So is a double free.
  allocator->DeallocateRaw(buffer, 16);
  EXPECT_EQ(2, allocator->violations());
  // This test's violations are expected.
  violations_before_ += 2;
}

// --- Through the session

TEST_F(FakeAcceleratorTest, PlacesFloatNodesOnTheDeviceAndInsertsCopies) {
  // The graph as written runs: no pass folds or removes nodes.
  ConfigProto config;
  config.mutable_graph_options()
      ->mutable_rewrite_options()
      ->set_disable_meta_optimizer(true);
  auto session = MakeSession(kMixed, config);
  ASSERT_NE(session, nullptr);
  std::vector<DeviceInfo> devices;
  MF_ASSERT_OK(session->ListDevices(&devices));
  ASSERT_THAT(devices, SizeIs(2));
  EXPECT_EQ(kFakeGpuName, devices[0].name);
  EXPECT_EQ(kFakeGpu, devices[0].device_type);

  RunOptions options;
  options.set_output_partition_graphs(true);
  RunMetadata metadata;
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run(options, {{"x", Vector({1, -2, 3, -4})}}, {"r"}, {},
                            &out, &metadata));
  ASSERT_THAT(out, SizeIs(1));
  // -(2x) + x = -x, as [2, 2].
  EXPECT_EQ("[2,2]", out[0].shape().DebugString());
  EXPECT_EQ(Values(out[0]), std::vector<float>({0, 2, 0, 4}));

  ASSERT_EQ(1, metadata.partition_graphs_size());
  const GraphDef& graph = metadata.partition_graphs(0);
  const auto nodes = ByName(graph);
  for (const char* name : {"two", "m", "a", "shape", "shape_id", "rs", "r"}) {
    ASSERT_TRUE(nodes.count(name)) << name;
    EXPECT_EQ(kFakeGpuName, nodes.at(name)->device()) << name;
  }
  // Neg has no FAKE_GPU kernel.
  ASSERT_TRUE(nodes.count("n"));
  EXPECT_EQ(kCpuName, nodes.at("n")->device());

  // m -> n crosses to the host, n -> a back to the device.
  const NodeDef* to_neg = Input(nodes, *nodes.at("n"), 0);
  ASSERT_NE(to_neg, nullptr);
  EXPECT_EQ("_CopyToHost", to_neg->op());
  EXPECT_EQ(kFakeGpuName, to_neg->device());
  EXPECT_EQ("m", Input(nodes, *to_neg, 0)->name());
  const NodeDef* from_neg = Input(nodes, *nodes.at("a"), 0);
  ASSERT_NE(from_neg, nullptr);
  EXPECT_EQ("_CopyFromHost", from_neg->op());
  EXPECT_EQ(kFakeGpuName, from_neg->device());
  EXPECT_EQ("n", Input(nodes, *from_neg, 0)->name());
  // The feed reaches m and a through one copy to the device.
  const NodeDef* feed_copy = Input(nodes, *nodes.at("m"), 0);
  ASSERT_NE(feed_copy, nullptr);
  EXPECT_EQ("_CopyFromHost", feed_copy->op());
  EXPECT_EQ(feed_copy, Input(nodes, *nodes.at("a"), 1));
  EXPECT_EQ(kCpuName, Input(nodes, *feed_copy, 0)->device());
  // The int32 shape stays in host memory: the Const on the device makes it
  // there, Identity passes it on there, and Reshape reads it from there
  // (HostMemory("shape")), with no copy between.
  EXPECT_EQ("shape", Input(nodes, *nodes.at("shape_id"), 0)->name());
  EXPECT_EQ("shape_id", Input(nodes, *nodes.at("rs"), 1)->name());
  // The device Const "two" needs no copy either.
  EXPECT_EQ("two", Input(nodes, *nodes.at("m"), 1)->name());
  // The fetch goes back to the host.
  int to_host_of_r = 0;
  for (const NodeDef* copy : OfOp(graph, "_CopyToHost")) {
    if (Input(nodes, *copy, 0)->name() == "r") ++to_host_of_r;
  }
  EXPECT_EQ(1, to_host_of_r);
  EXPECT_THAT(OfOp(graph, "_CopyToHost"), SizeIs(2));
  EXPECT_THAT(OfOp(graph, "_CopyFromHost"), SizeIs(2));
}

TEST_F(FakeAcceleratorTest, AsyncResultsAreCompleteWhenRunReturns) {
  // Every stream item waits, so nothing is done when a kernel returns.
  SetFakeAcceleratorOptions({std::chrono::microseconds(1500)});
  auto session = MakeSession(kChain);
  ASSERT_NE(session, nullptr);
  FakeAcceleratorDevice* device = LastCreatedFakeDevice();
  ASSERT_NE(device, nullptr);
  const int64_t items_before = device->fake_stream()->items_executed();
  for (int run = 0; run < 40; ++run) {
    std::vector<float> x(64);
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = static_cast<float>(run) - static_cast<float>(i);
    }
    std::vector<Tensor> out;
    MF_ASSERT_OK(session->Run({{"x", Vector(x)}}, {"r", "m"}, {}, &out));
    ASSERT_THAT(out, SizeIs(2));
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(Relu(3 * x[i]), out[0].flat<float>()(i)) << run << " " << i;
      ASSERT_EQ(2 * x[i], out[1].flat<float>()(i)) << run << " " << i;
    }
  }
  // The kernels and copies did run on the stream: per run one copy in, Mul,
  // AddV2, Relu and two copies out.
  EXPECT_GE(device->fake_stream()->items_executed() - items_before, 40 * 6);
}

TEST_F(FakeAcceleratorTest, AHostOpBetweenDeviceOpsReadsCompleteData) {
  // Neg runs on the CPU, between Mul and AddV2 on the device: it may read
  // m only once _CopyToHost waited for the stream.
  SetFakeAcceleratorOptions({std::chrono::microseconds(1500)});
  auto session = MakeSession(kMixed);
  ASSERT_NE(session, nullptr);
  for (int run = 0; run < 20; ++run) {
    std::vector<float> x(8);
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = static_cast<float>(i) - static_cast<float>(run);
    }
    std::vector<Tensor> out;
    MF_ASSERT_OK(session->Run({{"x", Vector(x)}}, {"r", "n"}, {}, &out));
    ASSERT_THAT(out, SizeIs(2));
    ASSERT_EQ("[2,4]", out[0].shape().DebugString());
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(-2 * x[i], out[1].flat<float>()(i)) << run << " " << i;
      ASSERT_EQ(Relu(-x[i]), out[0].flat<float>()(i)) << run << " " << i;
    }
  }
}

TEST_F(FakeAcceleratorTest, EmptyTensorsCrossTheDevice) {
  auto session = MakeSession(kChain);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({{"x", Vector({})}}, {"r", "m"}, {}, &out));
  ASSERT_THAT(out, SizeIs(2));
  EXPECT_EQ(0, out[0].NumElements());
  EXPECT_EQ(0, out[1].NumElements());
}

TEST_F(FakeAcceleratorTest, ConcurrentRunsGetTheirOwnResults) {
  SetFakeAcceleratorOptions({std::chrono::microseconds(200)});
  auto session = MakeSession(kChain);
  ASSERT_NE(session, nullptr);
  constexpr int kThreads = 4;
  constexpr int kRuns = 25;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int run = 0; run < kRuns; ++run) {
        std::vector<float> x(32);
        for (size_t i = 0; i < x.size(); ++i) {
          x[i] = static_cast<float>(t * 1000 + run) - static_cast<float>(i);
        }
        std::vector<Tensor> out;
        const Status s = session->Run({{"x", Vector(x)}}, {"r"}, {}, &out);
        if (!s.ok() || out.size() != 1) {
          ++failures;
          continue;
        }
        for (size_t i = 0; i < x.size(); ++i) {
          if (out[0].flat<float>()(i) != Relu(3 * x[i])) {
            ++failures;
            break;
          }
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(0, failures.load());
}

TEST_F(FakeAcceleratorTest, AsyncKernelFailureFailsTheRunNamingTheDevice) {
  SetFakeAcceleratorOptions({std::chrono::microseconds(500)});
  auto session = MakeSession(kChain);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  // The kernel returned OK; its work failed on the stream, and the copy of
  // the fetch (or the step-end Sync) reports it.
  EXPECT_THAT(session->Run({{"x", Vector({1, 2})}}, {"after_fail"}, {}, &out),
              StatusIs(absl::StatusCode::kInternal,
                       AllOf(HasSubstr("asynchronous failure in node fail"),
                             HasSubstr(kFakeGpuName))));
  // Sticky: the device is unusable for the rest of the session, even for a
  // signature without the failing node.
  EXPECT_THAT(session->Run({{"x", Vector({1, 2})}}, {"r"}, {}, &out),
              StatusIs(absl::StatusCode::kInternal,
                       AllOf(HasSubstr("asynchronous failure in node fail"),
                             HasSubstr(kFakeGpuName))));
  // A new session has a new device.
  auto fresh = MakeSession(kChain);
  ASSERT_NE(fresh, nullptr);
  MF_ASSERT_OK(fresh->Run({{"x", Vector({1, -2})}}, {"r"}, {}, &out));
  EXPECT_EQ(Values(out[0]), std::vector<float>({3, 0}));
}

TEST_F(FakeAcceleratorTest, FailureInATargetOnlyNodeIsReportedBySync) {
  SetFakeAcceleratorOptions({std::chrono::microseconds(500)});
  auto session = MakeSession(kChain);
  ASSERT_NE(session, nullptr);
  // No fetch, so no _CopyToHost waits: only the step-end Sync sees it.
  EXPECT_THAT(session->Run({{"x", Vector({1, 2})}}, {}, {"fail"}, nullptr),
              StatusIs(absl::StatusCode::kInternal,
                       AllOf(HasSubstr("asynchronous failure in node fail"),
                             HasSubstr(kFakeGpuName))));
}

TEST_F(FakeAcceleratorTest, InjectedStreamFailureFailsTheRun) {
  auto session = MakeSession(kChain);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({{"x", Vector({1, 2})}}, {"r"}, {}, &out));
  FakeAcceleratorDevice* device = LastCreatedFakeDevice();
  ASSERT_NE(device, nullptr);
  // The copy of the feed runs; Mul fails.
  device->fake_stream()->FailNthItem(2, errors::Aborted("injected fault"));
  EXPECT_THAT(
      session->Run({{"x", Vector({1, 2})}}, {"r"}, {}, &out),
      StatusIs(absl::StatusCode::kAborted,
               AllOf(HasSubstr("injected fault"), HasSubstr(kFakeGpuName))));
}

TEST_F(FakeAcceleratorTest, DeviceMemoryReturnsToBaselineAfterRuns) {
  const int64_t leaked_before = FakeDeviceAllocator::LeakedAtDestruction();
  {
    SetFakeAcceleratorOptions({std::chrono::microseconds(100)});
    auto session = MakeSession(kMixed);
    ASSERT_NE(session, nullptr);
    FakeAcceleratorDevice* device = LastCreatedFakeDevice();
    ASSERT_NE(device, nullptr);
    FakeDeviceAllocator* allocator = device->fake_allocator();
    std::vector<Tensor> out;
    // The first run makes the kernels, and the Const tensors they hold.
    MF_ASSERT_OK(session->Run({{"x", Vector({1, 2, 3, 4})}}, {"r"}, {}, &out));
    device->fake_stream()->Quiesce();
    const int64_t baseline = allocator->live_bytes();
    EXPECT_EQ(static_cast<int64_t>(sizeof(float)), baseline);  // "two"
    const int64_t allocs_before = allocator->GetStats().num_allocs;
    for (int run = 0; run < 30; ++run) {
      MF_ASSERT_OK(session->Run({{"x", Vector({1, 2, 3, float(run)})}},
                                {"r", "a"}, {}, &out));
      EXPECT_EQ(Values(out[0]), std::vector<float>({0, 0, 0, 0}));
    }
    device->fake_stream()->Quiesce();
    EXPECT_EQ(baseline, allocator->live_bytes());
    EXPECT_EQ(0, allocator->pending_frees());
    // Device memory was used, not bypassed.
    EXPECT_GT(allocator->GetStats().num_allocs, allocs_before + 30);
    EXPECT_EQ(0, allocator->violations());
  }
  // The session and its device are gone, and left nothing behind.
  EXPECT_EQ(leaked_before, FakeDeviceAllocator::LeakedAtDestruction());
  EXPECT_EQ(0, FakeDeviceAllocator::TotalLiveBytes());
}

TEST_F(FakeAcceleratorTest,
       DeviceCountZeroGivesACpuOnlySessionWithSameResults) {
  ConfigProto cpu_only;
  (*cpu_only.mutable_device_count())[kFakeGpu] = 0;
  auto on_cpu = MakeSession(kMixed, cpu_only);
  auto on_fake = MakeSession(kMixed);
  ASSERT_NE(on_cpu, nullptr);
  ASSERT_NE(on_fake, nullptr);
  std::vector<DeviceInfo> devices;
  MF_ASSERT_OK(on_cpu->ListDevices(&devices));
  ASSERT_THAT(devices, SizeIs(1));
  EXPECT_EQ(kCpuName, devices[0].name);

  RunOptions options;
  options.set_output_partition_graphs(true);
  for (int run = 0; run < 5; ++run) {
    const Tensor x = Vector({1.5f, -2, float(run), -4, 5, -6});
    std::vector<Tensor> cpu_out, fake_out;
    RunMetadata metadata;
    MF_ASSERT_OK(
        on_cpu->Run(options, {{"x", x}}, {"r", "a"}, {}, &cpu_out, &metadata));
    MF_ASSERT_OK(on_fake->Run({{"x", x}}, {"r", "a"}, {}, &fake_out));
    ASSERT_THAT(cpu_out, SizeIs(2));
    ASSERT_THAT(fake_out, SizeIs(2));
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(cpu_out[i].shape(), fake_out[i].shape());
      EXPECT_EQ(Values(cpu_out[i]), Values(fake_out[i]));
    }
    const GraphDef& graph = metadata.partition_graphs(0);
    EXPECT_THAT(OfOp(graph, "_CopyToHost"), SizeIs(0));
    EXPECT_THAT(OfOp(graph, "_CopyFromHost"), SizeIs(0));
    for (const NodeDef& n : graph.node()) EXPECT_EQ(kCpuName, n.device());
  }
}

}  // namespace
}  // namespace fake_accel
}  // namespace minflow
