// MedianPool2D fused vs the stock-op composite it replaces
// (ExtractImagePatches -> Reshape -> Transpose -> TopKV2 -> middle value, as
// examples/graphs/make_median_pool_graphs.py writes it), both as graphs run
// through a Session on [1,512,512,32] floats, kxk VALID, stride 1. Besides
// time, each reports `peak_bytes`: the most the host allocator held above
// what was in use before Run (outputs, intermediates and kernel scratch).
// References in the same run: MaxPool of the same window (a windowed op at
// memory speed) and a memcpy of the input. Arg: k. Intra-op threads: all.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "minflow/core/allocator.h"
#include "minflow/core/tensor.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/runtime/session.h"

namespace minflow {
namespace {

constexpr int64_t kBatch = 1, kRows = 512, kCols = 512, kDepth = 32;

std::string IntList(const std::string& name, std::vector<int64_t> values) {
  std::string out = absl::StrCat("attr { key: \"", name, "\" value { list {");
  for (int64_t v : values) absl::StrAppend(&out, " i: ", v);
  return absl::StrCat(out, " } } }");
}

std::string TypeAttr(const std::string& name, const std::string& type) {
  return absl::StrCat("attr { key: \"", name, "\" value { type: ", type,
                      " } }");
}

std::string Node(const std::string& name, const std::string& op,
                 std::vector<std::string> inputs,
                 std::vector<std::string> attrs) {
  std::string out =
      absl::StrCat("node { name: \"", name, "\" op: \"", op, "\"");
  for (const std::string& i : inputs)
    absl::StrAppend(&out, " input: \"", i, "\"");
  for (const std::string& a : attrs) absl::StrAppend(&out, " ", a);
  return absl::StrCat(out, " }\n");
}

std::string Int32Const(const std::string& name, std::vector<int64_t> values,
                       bool vector = true) {
  std::string tensor = "tensor { dtype: DT_INT32 tensor_shape {";
  if (vector) absl::StrAppend(&tensor, " dim { size: ", values.size(), " }");
  absl::StrAppend(&tensor, " }");
  for (int64_t v : values) absl::StrAppend(&tensor, " int_val: ", v);
  return Node(
      name, "Const", {},
      {TypeAttr("dtype", "DT_INT32"),
       absl::StrCat("attr { key: \"value\" value { ", tensor, " } } }")});
}

std::string Input() {
  return Node("input", "Placeholder", {}, {TypeAttr("dtype", "DT_FLOAT")});
}

const std::string kF32 = TypeAttr("T", "DT_FLOAT");
const std::string kValid = "attr { key: \"padding\" value { s: \"VALID\" } }";

GraphDef Parse(const std::string& text) {
  GraphDef g;
  const Status s = ParseGraphDef(text, &g);
  if (!s.ok()) std::abort();
  return g;
}

// input -> `op` with a kxk VALID window (MedianPool2D or MaxPool).
GraphDef PoolGraph(const std::string& op, int64_t k) {
  return Parse(Input() + Node("output", op, {"input"},
                              {kF32, IntList("ksize", {1, k, k, 1}),
                               IntList("strides", {1, 1, 1, 1}), kValid}));
}

// The graph make_median_pool_graphs.py writes, for a kxk window.
GraphDef CompositeGraph(int64_t k) {
  const int64_t n = k * k;
  const std::string i32 = TypeAttr("T", "DT_INT32");
  const std::string index = TypeAttr("Index", "DT_INT32");
  const std::string shape_out = TypeAttr("out_type", "DT_INT32");
  const std::string concat = "attr { key: \"N\" value { i: 2 } }";
  std::string t = Input();
  t += Node(
      "patches", "ExtractImagePatches", {"input"},
      {kF32, IntList("ksizes", {1, k, k, 1}), IntList("strides", {1, 1, 1, 1}),
       IntList("rates", {1, 1, 1, 1}), kValid});
  t += Node("input_shape", "Shape", {"input"}, {kF32, shape_out});
  t += Int32Const("channels/begin", {3}) + Int32Const("channels/end", {4}) +
       Int32Const("one", {1});
  t += Node("channels", "StridedSlice",
            {"input_shape", "channels/begin", "channels/end", "one"},
            {i32, index});
  t += Int32Const("windows/head", {-1, n}) + Int32Const("axis0", {0}, false);
  t += Node("windows/shape", "ConcatV2", {"windows/head", "channels", "axis0"},
            {i32, concat});
  t += Node("windows", "Reshape", {"patches", "windows/shape"}, {kF32});
  t += Int32Const("perm", {0, 2, 1});
  t += Node("rows", "Transpose", {"windows", "perm"}, {kF32});
  t += Int32Const("k", {n}, false);
  t += Node("sorted", "TopKV2", {"rows", "k"}, {kF32});
  t += Int32Const("middle/begin", {0, 0, n / 2}) +
       Int32Const("middle/end", {0, 0, n / 2 + 1}) +
       Int32Const("middle/strides", {1, 1, 1});
  t += Node("middle", "StridedSlice",
            {"sorted", "middle/begin", "middle/end", "middle/strides"},
            {kF32, index, "attr { key: \"begin_mask\" value { i: 3 } }",
             "attr { key: \"end_mask\" value { i: 3 } }",
             "attr { key: \"shrink_axis_mask\" value { i: 4 } }"});
  t += Node("patches_shape", "Shape", {"patches"}, {kF32, shape_out});
  t += Int32Const("pixels/begin", {0}) + Int32Const("pixels/end", {3});
  t += Node("pixels", "StridedSlice",
            {"patches_shape", "pixels/begin", "pixels/end", "one"},
            {i32, index});
  t += Node("output/shape", "ConcatV2", {"pixels", "channels", "axis0"},
            {i32, concat});
  t += Node("output", "Reshape", {"middle", "output/shape"}, {kF32});
  return Parse(t);
}

Tensor RandomImage() {
  Tensor t(DT_FLOAT, TensorShape({kBatch, kRows, kCols, kDepth}));
  t.flat<float>().setRandom();
  return t;
}

// Runs `graph` on a random image until the benchmark stops; reports the
// largest allocator peak above the bytes in use before each Run.
void RunGraph(benchmark::State& state, const GraphDef& graph) {
  auto session = Session::Create(graph, SessionOptions());
  if (!session.ok()) {
    state.SkipWithError(std::string(session.status().message()).c_str());
    return;
  }
  const Tensor input = RandomImage();
  Allocator* allocator = cpu_allocator();
  std::vector<Tensor> outputs;
  int64_t peak = 0;
  for (auto _ : state) {
    outputs.clear();
    const int64_t before = allocator->GetStats().bytes_in_use;
    allocator->ResetPeak();
    const Status s =
        (*session)->Run({{"input", input}}, {"output"}, {}, &outputs);
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      break;
    }
    peak = std::max(peak, allocator->GetStats().peak_bytes_in_use - before);
    benchmark::DoNotOptimize(outputs[0].data());
  }
  state.counters["peak_bytes"] = static_cast<double>(peak);
  state.SetBytesProcessed(state.iterations() * input.TotalBytes());
}

void BM_MedianPool2D_Fused(benchmark::State& state) {
  RunGraph(state, PoolGraph("MedianPool2D", state.range(0)));
}
BENCHMARK(BM_MedianPool2D_Fused)
    ->ArgName("k")
    ->Arg(3)
    ->Arg(5)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_MedianPool2D_Composite(benchmark::State& state) {
  RunGraph(state, CompositeGraph(state.range(0)));
}
BENCHMARK(BM_MedianPool2D_Composite)
    ->ArgName("k")
    ->Arg(3)
    ->Arg(5)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Reference: MaxPool, the same window's cheapest reduction.
void BM_Reference_MaxPool(benchmark::State& state) {
  RunGraph(state, PoolGraph("MaxPool", state.range(0)));
}
BENCHMARK(BM_Reference_MaxPool)
    ->ArgName("k")
    ->Arg(3)
    ->Arg(5)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Reference: one pass over the input's 32 MiB.
void BM_Reference_Memcpy(benchmark::State& state) {
  const Tensor input = RandomImage();
  std::vector<char> out(input.TotalBytes());
  for (auto _ : state) {
    std::memcpy(out.data(), input.data(), out.size());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * input.TotalBytes());
}
BENCHMARK(BM_Reference_Memcpy)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
