// The guide's custom ops on the GPU: each case of custom_op_cases.h runs
// as Placeholder -> op in a session with the GPU (where the op is placed
// first, GPU kernels having priority) and in one without
// (device_count["GPU"] = 0); the partition graph must show the op on GPU:0
// (resp. CPU:0) and the outputs must agree bit for bit (Example: NaNs may
// differ in payload, as the GPU's arithmetic makes every NaN canonical).
// Rejected inputs must fail the same way on both. The GPU tests skip, with
// the reason, on machines without a GPU; the CPU session's half of the
// harness runs everywhere.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/config.pb.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "minflow/cuda/gpu_info.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "tests/cuda/custom_op_cases.h"
#include "tests/cuda/gpu_test_util.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::testing::HasSubstr;

// x = Placeholder(dtype); op = `op`(x) with T = dtype and `attrs`.
GraphDef OpGraph(const std::string& op, DataType dtype,
                 const std::function<void(NodeDef*)>& attrs) {
  GraphDef graph;
  NodeDef* x = graph.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  AddNodeAttr("dtype", dtype, x);
  NodeDef* node = graph.add_node();
  node->set_name("op");
  node->set_op(op);
  node->add_input("x");
  AddNodeAttr("T", dtype, node);
  if (attrs) attrs(node);
  return graph;
}

struct RunResult {
  Status status;
  Tensor output;
  std::string op_device;  // where the partition graph placed "op"
};

// Runs `graph` fed with `x` in a new session, with or without the GPU.
RunResult RunOp(const GraphDef& graph, const Tensor& x, bool with_gpu) {
  SessionOptions options;
  if (!with_gpu) (*options.config.mutable_device_count())["GPU"] = 0;
  RunResult result;
  auto session = Session::Create(graph, options);
  if (!session.ok()) {
    result.status = session.status();
    return result;
  }
  RunOptions run_options;
  run_options.set_output_partition_graphs(true);
  RunMetadata metadata;
  std::vector<Tensor> outputs;
  result.status =
      (*session)->Run(run_options, {{"x", x}}, {"op"}, {}, &outputs, &metadata);
  if (!result.status.ok()) return result;
  result.output = outputs.at(0);
  for (const GraphDef& partition : metadata.partition_graphs()) {
    for (const NodeDef& node : partition.node()) {
      if (node.name() == "op") result.op_device = node.device();
    }
  }
  return result;
}

template <typename T>
Tensor MakeInput(const std::vector<int64_t>& shape,
                 const std::vector<float>& values) {
  Tensor t(DataTypeToEnum<T>::v(), TensorShape(shape));
  T* data = t.base<T>();
  for (size_t i = 0; i < values.size(); ++i)
    data[i] = static_cast<T>(values[i]);
  return t;
}

template <typename T>
std::string Bits(const T& v) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  std::string out = "0x";
  static const char kHex[] = "0123456789abcdef";
  for (int i = static_cast<int>(sizeof(T)) - 1; i >= 0; --i) {
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 15];
  }
  return out;
}

// Same shape and dtype, and every element the same bits; with
// `any_nan_payload`, two NaNs count as equal whatever their bits.
template <typename T>
void ExpectSameOutputs(const Tensor& gpu, const Tensor& cpu,
                       bool any_nan_payload) {
  ASSERT_EQ(gpu.dtype(), cpu.dtype());
  ASSERT_EQ(gpu.shape(), cpu.shape());
  const T* g = gpu.base<const T>();
  const T* c = cpu.base<const T>();
  int64_t mismatches = 0;
  for (int64_t i = 0; i < cpu.NumElements(); ++i) {
    if (std::memcmp(&g[i], &c[i], sizeof(T)) == 0) continue;
    if (any_nan_payload && std::isnan(g[i]) && std::isnan(c[i])) continue;
    if (++mismatches <= 10) {
      ADD_FAILURE() << "element " << i << ": GPU " << Bits(g[i]) << " (" << g[i]
                    << "), CPU " << Bits(c[i]) << " (" << c[i] << ")";
    }
  }
  EXPECT_EQ(mismatches, 0) << "of " << cpu.NumElements() << " elements";
}

// Runs `graph` on the GPU and on the CPU; checks placement and outputs.
template <typename T>
void CompareGpuWithCpu(const GraphDef& graph, const Tensor& x,
                       bool any_nan_payload) {
  const RunResult cpu = RunOp(graph, x, /*with_gpu=*/false);
  MF_ASSERT_OK(cpu.status);
  EXPECT_THAT(cpu.op_device, HasSubstr("device:CPU:0"));
  const RunResult gpu = RunOp(graph, x, /*with_gpu=*/true);
  MF_ASSERT_OK(gpu.status);
  EXPECT_THAT(gpu.op_device, HasSubstr("device:GPU:0"))
      << "the op did not run on the GPU";
  ExpectSameOutputs<T>(gpu.output, cpu.output, any_nan_payload);
}

// Both sessions reject `x` with the same InvalidArgument, which says
// `message`.
void ExpectSameError(const GraphDef& graph, const Tensor& x,
                     const std::string& message) {
  const RunResult cpu = RunOp(graph, x, /*with_gpu=*/false);
  const RunResult gpu = RunOp(graph, x, /*with_gpu=*/true);
  EXPECT_EQ(cpu.status.code(), absl::StatusCode::kInvalidArgument)
      << cpu.status;
  EXPECT_THAT(std::string(cpu.status.message()), HasSubstr(message));
  EXPECT_EQ(gpu.status.code(), cpu.status.code()) << gpu.status;
  EXPECT_EQ(gpu.status.message(), cpu.status.message());
}

GraphDef ExampleGraph(DataType dtype) { return OpGraph("Example", dtype, {}); }

GraphDef ZeroOutGraph(DataType dtype, int64_t preserve_index) {
  return OpGraph("ZeroOut", dtype, [preserve_index](NodeDef* n) {
    AddNodeAttr("preserve_index", preserve_index, n);
  });
}

GraphDef MedianPoolGraph(DataType dtype, const std::vector<int64_t>& ksize,
                         const std::vector<int64_t>& strides,
                         const std::string& padding) {
  return OpGraph("MedianPool2D", dtype, [&](NodeDef* n) {
    AddNodeAttr("ksize", absl::Span<const int64_t>(ksize), n);
    AddNodeAttr("strides", absl::Span<const int64_t>(strides), n);
    AddNodeAttr("padding", padding, n);
  });
}

TEST(CustomOpGpuTest, ExampleMatchesTheCpu) {
  MF_SKIP_WITHOUT_GPU();
  for (const test::ExampleCase& c : test::ExampleCases()) {
    SCOPED_TRACE(c.name);
    CompareGpuWithCpu<float>(ExampleGraph(DT_FLOAT),
                             MakeInput<float>(c.shape, c.values),
                             /*any_nan_payload=*/true);
    CompareGpuWithCpu<double>(ExampleGraph(DT_DOUBLE),
                              MakeInput<double>(c.shape, c.values),
                              /*any_nan_payload=*/true);
  }
}

TEST(CustomOpGpuTest, ZeroOutMatchesTheCpu) {
  MF_SKIP_WITHOUT_GPU();
  for (const test::ZeroOutCase& c : test::ZeroOutCases()) {
    SCOPED_TRACE(c.name);
    const std::vector<int64_t> shape = {static_cast<int64_t>(c.values.size())};
    CompareGpuWithCpu<float>(ZeroOutGraph(DT_FLOAT, c.preserve_index),
                             MakeInput<float>(shape, c.values),
                             /*any_nan_payload=*/false);
    CompareGpuWithCpu<double>(ZeroOutGraph(DT_DOUBLE, c.preserve_index),
                              MakeInput<double>(shape, c.values),
                              /*any_nan_payload=*/false);
  }
}

TEST(CustomOpGpuTest, ZeroOutRejectsTheSameInputs) {
  MF_SKIP_WITHOUT_GPU();
  for (const test::ZeroOutErrorCase& c : test::ZeroOutErrorCases()) {
    SCOPED_TRACE(c.name);
    ExpectSameError(ZeroOutGraph(DT_FLOAT, c.preserve_index),
                    Tensor(DT_FLOAT, TensorShape(c.shape)), c.message);
  }
}

TEST(CustomOpGpuTest, MedianPoolMatchesTheCpu) {
  MF_SKIP_WITHOUT_GPU();
  for (const test::MedianPoolCase& c : test::MedianPoolCases()) {
    SCOPED_TRACE(c.name);
    const std::vector<float> values = c.Values();
    CompareGpuWithCpu<float>(
        MedianPoolGraph(DT_FLOAT, c.ksize(), c.strides(), c.padding),
        MakeInput<float>(c.shape, values), /*any_nan_payload=*/false);
    CompareGpuWithCpu<double>(
        MedianPoolGraph(DT_DOUBLE, c.ksize(), c.strides(), c.padding),
        MakeInput<double>(c.shape, values), /*any_nan_payload=*/false);
  }
}

TEST(CustomOpGpuTest, MedianPoolRejectsTheSameInputs) {
  MF_SKIP_WITHOUT_GPU();
  for (const test::MedianPoolErrorCase& c : test::MedianPoolErrorCases()) {
    SCOPED_TRACE(c.name);
    ExpectSameError(MedianPoolGraph(DT_FLOAT, c.ksize, c.strides, "SAME"),
                    Tensor(DT_FLOAT, TensorShape(c.shape)), c.message);
  }
}

// The harness itself, on any machine: the CPU session runs each op on
// CPU:0 and the error cases fail as the GPU tests expect.
TEST(CustomOpGpuTest, CpuSessionHarnessRunsEverywhere) {
  const test::MedianPoolCase c = test::MedianPoolCases().at(1);
  const RunResult cpu =
      RunOp(MedianPoolGraph(DT_FLOAT, c.ksize(), c.strides(), c.padding),
            MakeInput<float>(c.shape, c.Values()), /*with_gpu=*/false);
  MF_ASSERT_OK(cpu.status);
  EXPECT_THAT(cpu.op_device, HasSubstr("device:CPU:0"));
  EXPECT_EQ(cpu.output.shape(), TensorShape(c.shape));  // SAME, stride 1
  const test::ExampleCase e = test::ExampleCases().at(2);
  const RunResult doubled =
      RunOp(ExampleGraph(DT_FLOAT), MakeInput<float>(e.shape, e.values), false);
  MF_ASSERT_OK(doubled.status);
  EXPECT_EQ(doubled.output.shape(), TensorShape(e.shape));
  for (const test::ZeroOutErrorCase& z : test::ZeroOutErrorCases()) {
    SCOPED_TRACE(z.name);
    const RunResult r = RunOp(ZeroOutGraph(DT_FLOAT, z.preserve_index),
                              Tensor(DT_FLOAT, TensorShape(z.shape)), false);
    EXPECT_EQ(r.status.code(), absl::StatusCode::kInvalidArgument) << r.status;
    EXPECT_THAT(std::string(r.status.message()), HasSubstr(z.message));
  }
  for (const test::MedianPoolErrorCase& m : test::MedianPoolErrorCases()) {
    SCOPED_TRACE(m.name);
    const RunResult r =
        RunOp(MedianPoolGraph(DT_FLOAT, m.ksize, m.strides, "SAME"),
              Tensor(DT_FLOAT, TensorShape(m.shape)), false);
    EXPECT_EQ(r.status.code(), absl::StatusCode::kInvalidArgument) << r.status;
    EXPECT_THAT(std::string(r.status.message()), HasSubstr(m.message));
  }
}

}  // namespace
}  // namespace minflow
