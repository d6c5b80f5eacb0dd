// ShapeRefiner over generated graphs of 100k and 200k nodes: chains of
// MatMul -> BiasAdd -> Relu -> broadcasting Add -> Reshape with a constant
// shape. Reports nodes per second; linear cost means the 200k run takes
// about twice the 100k one. The graph is imported once, outside the timed
// loop; the reference in the same binary is that import (validating every
// node and resolving every input name), the step before refinement.
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "minflow/core/logging.h"
#include "minflow/framework/op.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/shape_refiner.h"
#include "minflow/node_def.pb.h"
#include "minflow/tensor.pb.h"

namespace minflow {
namespace {

constexpr int kWidth = 64;

NodeDef* AddNode(GraphDef* g, const std::string& name, const std::string& op,
                 std::initializer_list<std::string> inputs) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (const std::string& in : inputs) n->add_input(in);
  return n;
}

void SetType(NodeDef* n, const char* key, DataType t) {
  (*n->mutable_attr())[key].set_type(t);
}

// A float Const of `dims` written with TensorFlow's repeat-the-last-value
// shorthand, so the proto stays small.
void AddFloatConst(GraphDef* g, const std::string& name,
                   std::initializer_list<int64_t> dims) {
  NodeDef* n = AddNode(g, name, "Const", {});
  SetType(n, "dtype", DT_FLOAT);
  TensorProto* t = (*n->mutable_attr())["value"].mutable_tensor();
  t->set_dtype(DT_FLOAT);
  for (int64_t d : dims) t->mutable_tensor_shape()->add_dim()->set_size(d);
  t->add_float_val(0.5f);
}

// About `num_nodes` nodes: a placeholder, then blocks of 9 nodes.
GraphDef MakeGraph(int num_nodes) {
  GraphDef g;
  NodeDef* x = AddNode(&g, "x", "Placeholder", {});
  SetType(x, "dtype", DT_FLOAT);
  TensorShapeProto* shape = (*x->mutable_attr())["shape"].mutable_shape();
  shape->add_dim()->set_size(-1);
  shape->add_dim()->set_size(kWidth);
  std::string h = "x";
  for (int b = 0; g.node_size() + 9 <= num_nodes; ++b) {
    const std::string p = absl::StrCat("b", b, "/");
    AddFloatConst(&g, p + "w", {kWidth, kWidth});
    SetType(AddNode(&g, p + "mm", "MatMul", {h, p + "w"}), "T", DT_FLOAT);
    AddFloatConst(&g, p + "bias", {kWidth});
    SetType(AddNode(&g, p + "ba", "BiasAdd", {p + "mm", p + "bias"}), "T",
            DT_FLOAT);
    SetType(AddNode(&g, p + "relu", "Relu", {p + "ba"}), "T", DT_FLOAT);
    AddFloatConst(&g, p + "scale", {1, kWidth});
    SetType(AddNode(&g, p + "add", "AddV2", {p + "relu", p + "scale"}), "T",
            DT_FLOAT);
    NodeDef* s = AddNode(&g, p + "shape", "Const", {});
    SetType(s, "dtype", DT_INT32);
    TensorProto* t = (*s->mutable_attr())["value"].mutable_tensor();
    t->set_dtype(DT_INT32);
    t->mutable_tensor_shape()->add_dim()->set_size(2);
    t->add_int_val(-1);
    t->add_int_val(kWidth);
    NodeDef* r =
        AddNode(&g, p + "reshape", "Reshape", {p + "add", p + "shape"});
    SetType(r, "T", DT_FLOAT);
    SetType(r, "Tshape", DT_INT32);
    h = p + "reshape";
  }
  return g;
}

const GraphDef& TestGraph(int num_nodes) {
  static auto* graphs = new std::map<int, std::unique_ptr<GraphDef>>;
  auto& g = (*graphs)[num_nodes];
  if (g == nullptr) g = std::make_unique<GraphDef>(MakeGraph(num_nodes));
  return *g;
}

void BM_ShapeRefiner_Chain(benchmark::State& state) {
  const GraphDef& graph_def = TestGraph(static_cast<int>(state.range(0)));
  Graph graph(OpRegistry::Global());
  MF_CHECK_OK(
      ConvertGraphDefToGraph(GraphConstructorOptions(), graph_def, &graph));
  for (auto _ : state) {
    auto refiner = std::make_unique<ShapeRefiner>(2100, OpRegistry::Global());
    const Status s = refiner->RefineGraph(graph);
    MF_CHECK(s.ok()) << s;
    benchmark::DoNotOptimize(refiner->num_nodes_refined());
    state.PauseTiming();  // freeing the results is not refinement
    refiner.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * graph_def.node_size());
  state.counters["nodes"] = graph_def.node_size();
}

void BM_Import_Reference(benchmark::State& state) {
  const GraphDef& graph_def = TestGraph(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto graph = std::make_unique<Graph>(OpRegistry::Global());
    MF_CHECK_OK(ConvertGraphDefToGraph(GraphConstructorOptions(), graph_def,
                                       graph.get()));
    benchmark::DoNotOptimize(graph->num_nodes());
    state.PauseTiming();
    graph.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * graph_def.node_size());
}

BENCHMARK(BM_ShapeRefiner_Chain)
    ->Arg(100000)
    ->Arg(200000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Import_Reference)
    ->Arg(100000)
    ->Arg(200000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
