// Building a graph through the C++ API (Scope + generated op classes) and,
// as the same-run reference, through the C API (MF_NewOperation ...
// MF_FinishOperation): a Placeholder followed by a chain of N Neg ops.
// Every op is checked and shape-inferred where it is made in both; the
// Scope refines only the new node (ShapeRefiner::AddNode), the C API
// imports the node and refines the whole graph again.
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "minflow/c/c_api.h"
#include "minflow/cc/framework/scope.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/core/logging.h"

namespace minflow {
namespace {

void BM_ScopeBuildChain(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  for (auto _ : state) {
    Scope root = Scope::NewRootScope();
    Output last = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
    for (int i = 0; i < n; ++i) last = ops::Neg(root, last);
    MF_CHECK(root.ok()) << root.status();
    benchmark::DoNotOptimize(last);
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_ScopeBuildChain)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);

void BM_CApiBuildChain(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  MF_Status* status = MF_NewStatus();
  for (auto _ : state) {
    MF_Graph* graph = MF_NewGraph();
    MF_OperationDescription* desc = MF_NewOperation(graph, "Placeholder", "x");
    MF_SetAttrType(desc, "dtype", MF_FLOAT);
    MF_Output last = {MF_FinishOperation(desc, status), 0};
    MF_CHECK(MF_GetCode(status) == MF_OK);
    for (int i = 0; i < n; ++i) {
      const std::string name = absl::StrCat("Neg_", i);
      desc = MF_NewOperation(graph, "Neg", name.c_str());
      MF_AddInput(desc, last);
      last = {MF_FinishOperation(desc, status), 0};
      MF_CHECK(MF_GetCode(status) == MF_OK);
    }
    MF_DeleteGraph(graph);
  }
  MF_DeleteStatus(status);
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_CApiBuildChain)
    ->Arg(100)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace minflow
BENCHMARK_MAIN();
