// libminflow loads its GPU layer (libminflow_gpu, cudart, cuBLAS) only when
// a session may use a GPU (Note [Loading the GPU layer] in
// src/runtime/gpu_loader.cc). This binary links libminflow alone, like an
// application, so what it maps is what libminflow chose to load.
#include "src/runtime/gpu_loader.h"

#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "minflow/config.pb.h"
#include "minflow/core/tensor.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;

// Whether a shared object whose path contains `name` is mapped here.
bool Mapped(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (absl::StrContains(line, name)) return true;
  }
  return false;
}

bool NvidiaDriverPresent() {
  return access("/dev/nvidiactl", F_OK) == 0 ||
         access("/proc/driver/nvidia/version", F_OK) == 0;
}

constexpr char kMul[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "y"
    op: "Mul"
    input: "x"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

// Runs y = x * x once; returns the device y ran on.
std::string RunMul(const SessionOptions& options) {
  auto session = Session::Create(ParseTextProtoOrDie<GraphDef>(kMul), options);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return "";
  Tensor x(DT_FLOAT, TensorShape({3}));
  x.flat<float>().setValues({1, -2, 3});
  RunOptions run_options;
  run_options.set_output_partition_graphs(true);
  RunMetadata metadata;
  std::vector<Tensor> out;
  MF_EXPECT_OK(
      (*session)->Run(run_options, {{"x", x}}, {"y"}, {}, &out, &metadata));
  if (out.size() != 1) return "";
  EXPECT_EQ(out[0].flat<float>()(1), 4.0f);
  for (const GraphDef& g : metadata.partition_graphs()) {
    for (const NodeDef& n : g.node()) {
      if (n.name() == "y") return n.device();
    }
  }
  return "";
}

// Runs first (tests run in order): nothing has asked for a GPU yet.
TEST(GpuLoaderTest, NothingIsLoadedAtStartOrForCpuOnlySessions) {
  EXPECT_FALSE(internal::GpuLibraryLoaded());
  EXPECT_FALSE(Mapped("libcudart")) << "libminflow must not link cudart";
  EXPECT_FALSE(Mapped("libcublas")) << "libminflow must not link cuBLAS";
  SessionOptions cpu_only;
  (*cpu_only.config.mutable_device_count())["GPU"] = 0;
  EXPECT_TRUE(absl::EndsWith(RunMul(cpu_only), "/device:CPU:0"));
  EXPECT_FALSE(internal::GpuLibraryLoaded());
  EXPECT_FALSE(Mapped("libcudart"));
}

TEST(GpuLoaderTest, ASessionThatMayUseAGpuLoadsItWhereThereIsADriver) {
  const std::string device = RunMul(SessionOptions());
  if (!NvidiaDriverPresent()) {
    // The loader does not even try: no driver, no GPU.
    EXPECT_FALSE(internal::GpuLibraryLoaded());
    EXPECT_FALSE(Mapped("libcublas"));
    EXPECT_TRUE(absl::EndsWith(device, "/device:CPU:0")) << device;
    return;
  }
  EXPECT_TRUE(internal::GpuLibraryLoaded());
  EXPECT_TRUE(Mapped("libcudart"));
  // The loaded library registered the GPU kernels: Mul ran on the GPU.
  EXPECT_TRUE(absl::EndsWith(device, "/device:GPU:0")) << device;
}

}  // namespace
}  // namespace minflow
