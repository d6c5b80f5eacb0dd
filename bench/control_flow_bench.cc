// TF1 control flow in the executor, against a same-run reference.
//
//   V1WhileLoop           a tf.while_loop counting to N (i < limit; i += 1):
//                         Merge, Less, LoopCond, Switch, Identity, Const,
//                         AddV2, NextIteration per iteration, Exit at the end.
//   Reference_BareAddV2   a C++ loop calling the int32 scalar AddV2 kernel's
//                         Compute N times, feeding each result back.
//   ParallelIterations/P  16 independent iterations, each a 256x256 MatMul
//                         on loop invariants, parallel_iterations = P, two
//                         inter-op threads and one intra-op thread (so any
//                         speed-up comes from running iterations at once).
//
// Per-iteration figures are the `per_iteration` counters.
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "minflow/config.pb.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/device.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/runtime/session.h"
#include "tests/testlib/tf1_graph_builder.h"

namespace minflow {
namespace {

SessionOptions Threads(int inter_op, int intra_op) {
  SessionOptions options;
  options.config.set_inter_op_parallelism_threads(inter_op);
  options.config.set_intra_op_parallelism_threads(intra_op);
  return options;
}

// Seconds per loop iteration (printed with an SI prefix: 3.2u = 3.2 us).
void SetPerIteration(benchmark::State& state, int64_t loop_iterations) {
  state.counters["per_iteration"] = benchmark::Counter(
      static_cast<double>(loop_iterations) * state.iterations(),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_V1WhileLoop(benchmark::State& state) {
  const int32_t n = static_cast<int32_t>(state.range(0));
  auto session = Session::Create(testing::CountingLoopGraph(), Threads(1, 1));
  if (!session.ok()) {
    return state.SkipWithError(std::string(session.status().message()).c_str());
  }
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"start", Tensor(int32_t{0})}, {"limit", Tensor(n)}};
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!(*session)->Run(feeds, {"count/exit0"}, {}, &out).ok() ||
        out[0].scalar<int32_t>()() != n) {
      return state.SkipWithError("run");
    }
  }
  SetPerIteration(state, n);
}
BENCHMARK(BM_V1WhileLoop)
    ->Arg(10000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond);

void BM_Reference_BareAddV2(benchmark::State& state) {
  const int64_t n = state.range(0);
  NodeDef node;
  node.set_name("add");
  node.set_op("AddV2");
  node.add_input("x");
  node.add_input("y");
  AddNodeAttr("T", DT_INT32, &node);
  CpuDevice device{CpuDeviceOptions()};
  std::unique_ptr<OpKernel> kernel;
  if (!CreateOpKernel(DEVICE_CPU, &device, nullptr, node, 0, &kernel).ok()) {
    return state.SkipWithError("kernel");
  }
  for (auto _ : state) {
    Tensor i(int32_t{0});
    Tensor one(int32_t{1});
    for (int64_t k = 0; k < n; ++k) {
      const TensorValue values[] = {TensorValue(&i), TensorValue(&one)};
      OpKernelContext::Params params;
      params.device = &device;
      params.op_kernel = kernel.get();
      params.inputs = values;
      OpKernelContext ctx(&params);
      device.Compute(kernel.get(), &ctx);
      i = *ctx.mutable_output(0);
    }
    if (i.scalar<int32_t>()() != n) return state.SkipWithError("sum");
  }
  SetPerIteration(state, n);
}
BENCHMARK(BM_Reference_BareAddV2)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_ParallelIterations(benchmark::State& state) {
  auto session = Session::Create(testing::IndependentMatMulLoopGraph(
                                     256, static_cast<int>(state.range(0))),
                                 Threads(2, 1));
  if (!session.ok()) {
    return state.SkipWithError(std::string(session.status().message()).c_str());
  }
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!(*session)->Run({}, {"loop/exit1"}, {}, &out).ok()) {
      return state.SkipWithError("run");
    }
  }
}
BENCHMARK(BM_ParallelIterations)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
