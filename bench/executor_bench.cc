// Executor and session overheads (issue #6 figures), each next to a same-run
// reference: a chain of trivial nodes against a bare loop over the same
// kernels' Compute; 64 independent MatMuls at 1 vs 2 inter-op threads; the
// 784-512-512-10 MLP; and import + shape refinement of a 100k-node GraphDef
// against plain protobuf parsing of the same bytes.
#include <random>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "minflow/config.pb.h"
#include "minflow/framework/device.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/runtime/session.h"
#include "minflow/tensor.pb.h"

namespace minflow {
namespace {

NodeDef ConstNode(const std::string& name, const Tensor& value) {
  NodeDef n;
  n.set_name(name);
  n.set_op("Const");
  AddNodeAttr("dtype", value.dtype(), &n);
  TensorProto proto;
  value.AsProtoTensorContent(&proto);
  AttrValue v;
  *v.mutable_tensor() = proto;
  AddNodeAttr("value", v, &n);
  return n;
}

NodeDef BinaryNode(const std::string& name, const std::string& op,
                   const std::string& a, const std::string& b) {
  NodeDef n;
  n.set_name(name);
  n.set_op(op);
  n.add_input(a);
  n.add_input(b);
  AddNodeAttr("T", DT_FLOAT, &n);
  return n;
}

// x -> AddV2(x, one) -> AddV2(., one) -> ... : `length` scalar adds.
GraphDef ChainGraph(int length) {
  GraphDef g;
  *g.add_node() = ConstNode("x", Tensor(0.0f));
  *g.add_node() = ConstNode("one", Tensor(1.0f));
  std::string prev = "x";
  for (int i = 0; i < length; ++i) {
    const std::string name = absl::StrCat("add", i);
    *g.add_node() = BinaryNode(name, "AddV2", prev, "one");
    prev = name;
  }
  return g;
}

std::unique_ptr<Session> MakeSession(const GraphDef& g, int inter_op,
                                     int intra_op) {
  SessionOptions options;
  options.config.set_inter_op_parallelism_threads(inter_op);
  options.config.set_intra_op_parallelism_threads(intra_op);
  // These graphs compute on constants: folding them would leave the
  // executor nothing to measure.
  options.config.mutable_graph_options()
      ->mutable_rewrite_options()
      ->set_constant_folding(RewriterConfig::OFF);
  auto session = Session::Create(g, options);
  if (!session.ok()) {
    std::fprintf(stderr, "%s\n",
                 std::string(session.status().message()).c_str());
    std::abort();
  }
  return std::move(session).value();
}

// Args: inter-op threads (0: the default pool), chain length. Two lengths,
// to see whether the cost per node grows with the graph (issue 18).
void BM_Executor_Chain(benchmark::State& state) {
  const int kChain = static_cast<int>(state.range(1));
  auto session = MakeSession(ChainGraph(kChain), state.range(0), 1);
  const std::string fetch = absl::StrCat("add", kChain - 1);
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!session->Run({}, {fetch}, {}, &out).ok()) state.SkipWithError("run");
  }
  state.counters["ns_per_node"] =
      benchmark::Counter(kChain, benchmark::Counter::kIsIterationInvariantRate |
                                     benchmark::Counter::kInvert);
}
BENCHMARK(BM_Executor_Chain)
    ->Args({1, 1000})
    ->Args({1, 10000})
    ->Args({0, 10000})
    ->UseRealTime();

// Reference: the same AddV2 kernels' Compute called in order, no scheduler.
// Arg: chain length.
void BM_Reference_BareKernelLoop(benchmark::State& state) {
  const int kChain = static_cast<int>(state.range(0));
  CpuDeviceOptions device_options;
  device_options.intra_op_threads = 1;
  CpuDevice device(device_options);
  NodeDef def = BinaryNode("add", "AddV2", "x", "one");
  AddDefaultsToNodeDef(
      *[] {
        const OpDef* op_def = nullptr;
        (void)OpRegistry::Global()->LookUpOpDef("AddV2", &op_def);
        return op_def;
      }(),
      &def);
  std::vector<std::unique_ptr<OpKernel>> kernels(kChain);
  for (auto& k : kernels) {
    if (!CreateOpKernel(DEVICE_CPU, &device, nullptr, def, 1882, &k).ok()) {
      state.SkipWithError("CreateOpKernel");
      return;
    }
  }
  const Tensor one(1.0f);
  for (auto _ : state) {
    Tensor value(0.0f);
    for (auto& kernel : kernels) {
      Tensor a = std::move(value);
      Tensor b = one;
      TensorValue inputs[2] = {TensorValue(&a), TensorValue(&b)};
      OpKernelContext::Params params;
      params.op_kernel = kernel.get();
      params.device = &device;
      params.inputs = inputs;
      OpKernelContext ctx(&params);
      kernel->Compute(&ctx);
      value = std::move(*ctx.mutable_output(0));
    }
    benchmark::DoNotOptimize(value.data());
  }
  state.counters["ns_per_node"] =
      benchmark::Counter(kChain, benchmark::Counter::kIsIterationInvariantRate |
                                     benchmark::Counter::kInvert);
}
BENCHMARK(BM_Reference_BareKernelLoop)->Arg(1000)->Arg(10000)->UseRealTime();

Tensor RandomMatrix(int rows, int cols, int seed) {
  Tensor t(DT_FLOAT, TensorShape({rows, cols}));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-0.1f, 0.1f);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.flat<float>()(i) = dist(rng);
  return t;
}

// 64 independent 256x256 MatMuls of one input, summed by AddN.
void BM_Executor_WideMatMuls(benchmark::State& state) {
  GraphDef g;
  *g.add_node() = ConstNode("x", RandomMatrix(256, 256, 1));
  NodeDef sum;
  sum.set_name("sum");
  sum.set_op("AddN");
  for (int i = 0; i < 64; ++i) {
    const std::string w = absl::StrCat("w", i), mm = absl::StrCat("mm", i);
    *g.add_node() = ConstNode(w, RandomMatrix(256, 256, i + 2));
    NodeDef m = BinaryNode(mm, "MatMul", "x", w);
    *g.add_node() = m;
    sum.add_input(mm);
  }
  AddNodeAttr("N", int64_t{64}, &sum);
  AddNodeAttr("T", DT_FLOAT, &sum);
  *g.add_node() = sum;
  auto session = MakeSession(g, state.range(0), 1);
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!session->Run({}, {"sum"}, {}, &out).ok()) state.SkipWithError("run");
  }
  state.SetItemsProcessed(state.iterations() * 64 * 2 * 256 * 256 * 256);
}
BENCHMARK(BM_Executor_WideMatMuls)->Arg(1)->Arg(2)->UseRealTime();

// 784-512-512-10 with BiasAdd, Relu and Softmax, random weights.
void BM_Session_Mlp(benchmark::State& state) {
  GraphDef g;
  NodeDef x;
  x.set_name("x");
  x.set_op("Placeholder");
  AddNodeAttr("dtype", DT_FLOAT, &x);
  *g.add_node() = x;
  const int sizes[] = {784, 512, 512, 10};
  std::string prev = "x";
  for (int l = 0; l < 3; ++l) {
    const std::string p = absl::StrCat("l", l);
    *g.add_node() =
        ConstNode(p + "/w", RandomMatrix(sizes[l], sizes[l + 1], l));
    Tensor b(DT_FLOAT, TensorShape({sizes[l + 1]}));
    b.flat<float>().setConstant(0.01f);
    *g.add_node() = ConstNode(p + "/b", b);
    *g.add_node() = BinaryNode(p + "/mm", "MatMul", prev, p + "/w");
    *g.add_node() = BinaryNode(p + "/bias", "BiasAdd", p + "/mm", p + "/b");
    NodeDef act;
    act.set_name(p + "/act");
    act.set_op(l == 2 ? "Softmax" : "Relu");
    act.add_input(p + "/bias");
    AddNodeAttr("T", DT_FLOAT, &act);
    *g.add_node() = act;
    prev = p + "/act";
  }
  auto session = MakeSession(g, 0, state.range(1));
  const Tensor input = RandomMatrix(state.range(0), 784, 99);
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!session->Run({{"x", input}}, {prev}, {}, &out).ok()) {
      state.SkipWithError("run");
    }
  }
}
BENCHMARK(BM_Session_Mlp)
    ->Args({1, 1})
    ->Args({64, 1})
    ->Args({1, 2})
    ->Args({64, 2})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// A 100k-node GraphDef (a chain of scalar AddV2s), binary bytes.
std::string LargeGraphBytes() {
  GraphDef g = ChainGraph(100000);
  return g.SerializeAsString();
}

void BM_ImportAndRefine_100kNodes(benchmark::State& state) {
  const std::string bytes = LargeGraphBytes();
  for (auto _ : state) {
    GraphDef def;
    if (!ParseGraphDef(bytes, &def).ok()) state.SkipWithError("parse");
    // As Session::Create does; the bytes were parsed for this import alone,
    // so the nodes are handed over.
    std::unique_ptr<GraphPipeline> pipeline;
    if (!GraphPipeline::Prepare(std::move(def), GraphPipelineOptions(),
                                &pipeline)
             .ok()) {
      state.SkipWithError("import and refine");
    }
  }
  state.SetItemsProcessed(state.iterations() * 100002);
}
BENCHMARK(BM_ImportAndRefine_100kNodes)->Unit(benchmark::kMillisecond);

// Reference: protobuf parsing of the same bytes alone.
void BM_Reference_ProtobufParse100k(benchmark::State& state) {
  const std::string bytes = LargeGraphBytes();
  for (auto _ : state) {
    GraphDef def;
    if (!def.ParseFromString(bytes)) state.SkipWithError("parse");
    benchmark::DoNotOptimize(def.node_size());
  }
  state.SetItemsProcessed(state.iterations() * 100002);
}
BENCHMARK(BM_Reference_ProtobufParse100k)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
