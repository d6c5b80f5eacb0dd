#include "minflow/graph/placer.h"

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/framework/device.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::SizeIs;

// A second device type for placement tests: its memory is not host memory,
// so tensors crossing to and from it need copies.
constexpr char kFake[] = "FAKE";
constexpr char kFakeName[] = "/job:localhost/replica:0/task:0/device:FAKE:0";
constexpr char kCpuName[] = "/job:localhost/replica:0/task:0/device:CPU:0";

REGISTER_OP("PlacerTestSource").Output("y: float");
REGISTER_OP("PlacerTestUnary").Input("x: float").Output("y: float");
REGISTER_OP("PlacerTestCpuOnly").Input("x: float").Output("y: float");
REGISTER_OP("PlacerTestShaped")
    .Input("x: float")
    .Input("shape: int32")
    .Output("y: float");
REGISTER_OP("PlacerTestShapeSource").Output("y: int32");
// int32 in and out, with no HostMemory on its FAKE kernel.
REGISTER_OP("PlacerTestIntUnary")
    .Input("x: float")
    .Input("n: int32")
    .Output("y: float")
    .Output("m: int32");
REGISTER_OP("PlacerTestIntSink").Input("n: int32").Output("y: int32");

class NeverRun : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(errors::Internal("placement tests do not run kernels"));
  }
};

REGISTER_KERNEL_BUILDER(Name("PlacerTestSource").Device(DEVICE_CPU), NeverRun);
REGISTER_KERNEL_BUILDER(Name("PlacerTestSource").Device(kFake), NeverRun);
REGISTER_KERNEL_BUILDER(Name("PlacerTestUnary").Device(DEVICE_CPU), NeverRun);
REGISTER_KERNEL_BUILDER(Name("PlacerTestUnary").Device(kFake), NeverRun);
REGISTER_KERNEL_BUILDER(Name("PlacerTestCpuOnly").Device(DEVICE_CPU), NeverRun);
REGISTER_KERNEL_BUILDER(Name("PlacerTestShaped").Device(DEVICE_CPU), NeverRun);
REGISTER_KERNEL_BUILDER(
    Name("PlacerTestShaped").Device(kFake).HostMemory("shape"), NeverRun);
REGISTER_KERNEL_BUILDER(Name("PlacerTestShapeSource").Device(DEVICE_CPU),
                        NeverRun);
REGISTER_KERNEL_BUILDER(Name("PlacerTestIntUnary").Device(DEVICE_CPU),
                        NeverRun);
REGISTER_KERNEL_BUILDER(Name("PlacerTestIntUnary").Device(kFake), NeverRun);
REGISTER_KERNEL_BUILDER(Name("PlacerTestIntSink").Device(DEVICE_CPU), NeverRun);

class PlacerTest : public ::testing::Test {
 protected:
  PlacerTest()
      : cpu_(std::make_unique<CpuDevice>()),
        fake_(std::make_unique<Device>(kFakeName, DeviceType(kFake))) {}

  // Imports `text` into a fresh graph and places it.
  Status Place(const std::string& text, PlacerOptions options = {}) {
    graph_ = std::make_unique<Graph>(OpRegistry::Global());
    MF_RETURN_IF_ERROR(ConvertGraphDefToGraph(
        GraphConstructorOptions(), ParseTextProtoOrDie<GraphDef>(text),
        graph_.get()));
    // The accelerator first, as the session lists devices.
    return PlaceGraph({fake_.get(), cpu_.get()}, options, graph_.get());
  }

  std::string DeviceOf(const std::string& node) {
    const Node* n = graph_->FindNodeByName(node);
    EXPECT_NE(n, nullptr) << node;
    return n == nullptr ? "" : n->assigned_device_name();
  }

  std::vector<const Node*> NodesOfOp(const std::string& op) {
    std::vector<const Node*> found;
    for (const Node* n : graph_->nodes()) {
      if (n->type_string() == op) found.push_back(n);
    }
    return found;
  }

  // The node feeding input `port` of `node`.
  const Node* InputOf(const std::string& node, int port) {
    const Edge* e = nullptr;
    Status s = graph_->FindNodeByName(node)->input_edge(port, &e);
    EXPECT_TRUE(s.ok()) << s;
    return e == nullptr ? nullptr : e->src;
  }

  std::unique_ptr<Device> cpu_;
  std::unique_ptr<Device> fake_;
  std::unique_ptr<Graph> graph_;
};

TEST_F(PlacerTest, UnrequestedNodesGoToTheFirstDeviceWithAKernel) {
  MF_ASSERT_OK(Place(R"pb(
    node { name: "src" op: "PlacerTestSource" }
    node { name: "cpu_only" op: "PlacerTestCpuOnly" input: "src" }
  )pb"));
  EXPECT_EQ(DeviceOf("src"), kFakeName);
  EXPECT_EQ(DeviceOf("cpu_only"), kCpuName);
  // FAKE memory -> host: one _CopyToHost on the FAKE device.
  const Node* copy = InputOf("cpu_only", 0);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->type_string(), kCopyToHostOp);
  EXPECT_EQ(copy->assigned_device_name(), kFakeName);
  EXPECT_EQ(InputOf(copy->name(), 0)->name(), "src");
}

TEST_F(PlacerTest, ACacheRemembersCandidatesPerNodeDef) {
  graph_ = std::make_unique<Graph>(OpRegistry::Global());
  MF_ASSERT_OK(ConvertGraphDefToGraph(
      GraphConstructorOptions(), ParseTextProtoOrDie<GraphDef>(R"pb(
        node { name: "src" op: "PlacerTestSource" }
        node { name: "cpu_only" op: "PlacerTestCpuOnly" input: "src" }
      )pb"),
      graph_.get()));
  // A copy shares the NodeDefs.
  std::unique_ptr<Graph> copy = graph_->Clone();
  PlacementCache cache;
  PlacerOptions options;
  options.cache = &cache;
  MF_ASSERT_OK(PlaceGraph({fake_.get(), cpu_.get()}, options, graph_.get()));
  const std::vector<Device*>* src =
      cache.Find(&graph_->FindNodeByName("src")->def());
  ASSERT_NE(src, nullptr);
  ASSERT_EQ(2u, src->size());  // both devices have a kernel; FAKE first
  EXPECT_EQ(kFakeName, (*src)[0]->name());
  const std::vector<Device*>* cpu_only =
      cache.Find(&graph_->FindNodeByName("cpu_only")->def());
  ASSERT_NE(cpu_only, nullptr);
  ASSERT_EQ(1u, cpu_only->size());
  EXPECT_EQ(kCpuName, (*cpu_only)[0]->name());
  // The copy is placed from the cache, the same way.
  MF_ASSERT_OK(PlaceGraph({fake_.get(), cpu_.get()}, options, copy.get()));
  EXPECT_EQ(&copy->FindNodeByName("src")->def(),
            &graph_->FindNodeByName("src")->def());
  EXPECT_EQ(kCpuName, copy->FindNodeByName("cpu_only")->assigned_device_name());
  EXPECT_EQ(kFakeName, copy->FindNodeByName("src")->assigned_device_name());
  // A NodeDef it has not seen is not in it.
  NodeDef other;
  EXPECT_EQ(nullptr, cache.Find(&other));
}

TEST_F(PlacerTest, RequestsInEveryFormAreHonoured) {
  MF_ASSERT_OK(Place(R"pb(
    node { name: "a" op: "PlacerTestSource" device: "/cpu:0" }
    node { name: "b" op: "PlacerTestUnary" input: "a" device: "/device:FAKE:0" }
    node {
      name: "c"
      op: "PlacerTestUnary"
      input: "b"
      device: "/job:localhost/replica:0/task:0/device:CPU:0"
    }
    node { name: "d" op: "PlacerTestUnary" input: "c" device: "/device:CPU:0" }
  )pb"));
  EXPECT_EQ(DeviceOf("a"), kCpuName);
  EXPECT_EQ(DeviceOf("b"), kFakeName);
  EXPECT_EQ(DeviceOf("c"), kCpuName);
  EXPECT_EQ(DeviceOf("d"), kCpuName);
  // Host -> FAKE and back: one copy each way; CPU -> CPU needs none.
  EXPECT_EQ(InputOf("b", 0)->type_string(), kCopyFromHostOp);
  EXPECT_EQ(InputOf("b", 0)->assigned_device_name(), kFakeName);
  EXPECT_EQ(InputOf("c", 0)->type_string(), kCopyToHostOp);
  EXPECT_EQ(InputOf("d", 0)->name(), "c");
}

TEST_F(PlacerTest, OneCopyServesEveryConsumerOnTheSameDevice) {
  MF_ASSERT_OK(Place(R"pb(
    node { name: "a" op: "PlacerTestSource" device: "/cpu:0" }
    node { name: "b" op: "PlacerTestUnary" input: "a" device: "/device:FAKE:0" }
    node { name: "c" op: "PlacerTestUnary" input: "a" device: "/device:FAKE:0" }
  )pb"));
  EXPECT_THAT(NodesOfOp(kCopyFromHostOp), SizeIs(1));
  EXPECT_EQ(InputOf("b", 0), InputOf("c", 0));
}

TEST_F(PlacerTest, HostMemoryArgsStayOnTheHost) {
  MF_ASSERT_OK(Place(R"pb(
    node { name: "x" op: "PlacerTestSource" device: "/device:FAKE:0" }
    node { name: "shape" op: "PlacerTestShapeSource" }
    node {
      name: "shaped"
      op: "PlacerTestShaped"
      input: "x"
      input: "shape"
      device: "/device:FAKE:0"
    }
  )pb"));
  EXPECT_EQ(DeviceOf("shape"), kCpuName);
  EXPECT_EQ(DeviceOf("shaped"), kFakeName);
  // The data input comes straight from FAKE memory; the shape is read from
  // host memory, so no copy either.
  EXPECT_EQ(InputOf("shaped", 0)->name(), "x");
  EXPECT_EQ(InputOf("shaped", 1)->name(), "shape");
  EXPECT_THAT(NodesOfOp(kCopyFromHostOp), SizeIs(0));
  EXPECT_THAT(NodesOfOp(kCopyToHostOp), SizeIs(0));
}

TEST_F(PlacerTest, Int32OnAnAcceleratorIsHostMemoryWithoutHostMemoryArgs) {
  // PlacerTestIntUnary's FAKE kernel declares no HostMemory, yet its int32
  // input and output are host memory there (FillMemoryTypes), so the int32
  // edges from and to the CPU need no copy; its float input does.
  MF_ASSERT_OK(Place(R"pb(
    node { name: "x" op: "PlacerTestSource" device: "/cpu:0" }
    node { name: "n" op: "PlacerTestShapeSource" }
    node { name: "op" op: "PlacerTestIntUnary" input: "x" input: "n" }
    node { name: "sink" op: "PlacerTestIntSink" input: "op:1" }
  )pb"));
  EXPECT_EQ(DeviceOf("n"), kCpuName);
  EXPECT_EQ(DeviceOf("op"), kFakeName);
  EXPECT_EQ(DeviceOf("sink"), kCpuName);
  EXPECT_EQ(InputOf("op", 1)->name(), "n");
  EXPECT_EQ(InputOf("sink", 0)->name(), "op");
  EXPECT_THAT(NodesOfOp(kCopyToHostOp), SizeIs(0));
  // The float input is device memory: the one copy.
  EXPECT_THAT(NodesOfOp(kCopyFromHostOp), SizeIs(1));
  EXPECT_EQ(InputOf("op", 0)->type_string(), kCopyFromHostOp);
}

TEST_F(PlacerTest, RequestWithoutAKernelFailsUnlessSoft) {
  constexpr char kGraph[] = R"pb(
    node { name: "a" op: "PlacerTestSource" }
    node {
      name: "b"
      op: "PlacerTestCpuOnly"
      input: "a"
      device: "/device:FAKE:0"
    }
  )pb";
  EXPECT_THAT(Place(kGraph),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("PlacerTestCpuOnly"), HasSubstr("b"),
                             HasSubstr("FAKE"))));
}

TEST_F(PlacerTest, SoftPlacementFallsBackToADeviceWithAKernel) {
  PlacerOptions options;
  options.allow_soft_placement = true;
  MF_ASSERT_OK(Place(R"pb(
                       node { name: "a" op: "PlacerTestSource" }
                       node {
                         name: "b"
                         op: "PlacerTestCpuOnly"
                         input: "a"
                         device: "/device:FAKE:0"
                       }
                       node {
                         name: "c"
                         op: "PlacerTestUnary"
                         input: "b"
                         device: "/device:FAKE:7"
                       }
                     )pb",
                     options));
  EXPECT_EQ(DeviceOf("b"), kCpuName);
  // FAKE:7 does not exist; soft placement picks an existing device.
  EXPECT_NE(DeviceOf("c"), "");
}

TEST_F(PlacerTest, ColocationPutsTheGroupOnOneDevice) {
  MF_ASSERT_OK(Place(R"pb(
    node { name: "a" op: "PlacerTestSource" device: "/cpu:0" }
    node {
      name: "b"
      op: "PlacerTestUnary"
      input: "a"
      attr {
        key: "_class"
        value { list { s: "loc:@a" } }
      }
    }
  )pb"));
  EXPECT_EQ(DeviceOf("b"), kCpuName);
  EXPECT_THAT(Place(R"pb(
                node { name: "a" op: "PlacerTestSource" }
                node {
                  name: "b"
                  op: "PlacerTestUnary"
                  input: "a"
                  attr {
                    key: "_class"
                    value { list { s: "loc:@ghost" } }
                  }
                }
              )pb"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ghost")));
}

TEST_F(PlacerTest, LogDevicePlacementPrintsEachDecision) {
  std::ostringstream log;
  PlacerOptions options;
  options.log_device_placement = &log;
  MF_ASSERT_OK(
      Place(R"pb(
              node { name: "a" op: "PlacerTestSource" device: "/cpu:0" }
              node { name: "b" op: "PlacerTestUnary" input: "a" }
            )pb",
            options));
  EXPECT_THAT(log.str(),
              HasSubstr(std::string("a (PlacerTestSource): ") + kCpuName));
  EXPECT_THAT(log.str(),
              HasSubstr(std::string("b (PlacerTestUnary): ") + kFakeName));
}

}  // namespace
}  // namespace minflow
