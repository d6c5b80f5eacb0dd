// TensorList ops in loops, against a same-run reference.
//
//   V1WhileLoop            the reference: a tf.while_loop counting to N
//                          (Merge, Less, LoopCond, Switch, Identity, Const,
//                          AddV2, NextIteration per iteration), as in
//                          control_flow_bench.
//   FunctionalWhileCount   the same count with a functional While (lowered
//                          to the same TF1 loop).
//   WhilePushBack          the functional While whose body also pushes the
//                          int32 scalar i onto a TensorList
//                          (TensorListPushBack), the list then stacked into
//                          an [N] tensor: per_iteration against the v1
//                          loop's is what a list element costs in a loop.
//   WhileSetItem           the same with TensorListSetItem on a list that
//                          TensorListReserve made with N elements.
//   Stack                  TensorListStack of a list of N [k] float rows
//                          (bytes: the output).
//
// Per-iteration figures are the `per_iteration` counters.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/substitute.h"
#include "benchmark/benchmark.h"
#include "google/protobuf/text_format.h"
#include "minflow/config.pb.h"
#include "minflow/core/tensor.h"
#include "minflow/core/variant.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "src/kernels/tensor_list.h"
#include "tests/testlib/tf1_graph_builder.h"

namespace minflow {
namespace {

SessionOptions OneThread() {
  SessionOptions options;
  options.config.set_inter_op_parallelism_threads(1);
  options.config.set_intra_op_parallelism_threads(1);
  return options;
}

void SetPerIteration(benchmark::State& state, int64_t loop_iterations) {
  state.counters["per_iteration"] = benchmark::Counter(
      static_cast<double>(loop_iterations) * state.iterations(),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Runs `graph` with `start` = 0 and `limit` = state.range(0) fed; `check`
// says whether the fetched `fetch` is right.
template <typename Check>
void RunLoop(benchmark::State& state, const GraphDef& graph,
             const std::string& fetch, Check check) {
  const int32_t n = static_cast<int32_t>(state.range(0));
  auto session = Session::Create(graph, OneThread());
  if (!session.ok()) {
    return state.SkipWithError(std::string(session.status().message()).c_str());
  }
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"start", Tensor(int32_t{0})}, {"limit", Tensor(n)}};
  std::vector<Tensor> out;
  for (auto _ : state) {
    const Status s = (*session)->Run(feeds, {fetch}, {}, &out);
    if (!s.ok()) return state.SkipWithError(std::string(s.message()).c_str());
    if (!check(out[0], n)) return state.SkipWithError("wrong result");
  }
  SetPerIteration(state, n);
}

bool CountIs(const Tensor& t, int32_t n) { return t.scalar<int32_t>()() == n; }

// The stacked list is 0, 1, ..., n - 1.
bool StackIsIota(const Tensor& t, int32_t n) {
  if (t.shape() != TensorShape({n})) return false;
  for (int32_t i = 0; i < n; ++i) {
    if (t.flat<int32_t>()(i) != i) return false;
  }
  return true;
}

void BM_V1WhileLoop(benchmark::State& state) {
  RunLoop(state, testing::CountingLoopGraph(), "count/exit0", CountIs);
}
BENCHMARK(BM_V1WhileLoop)->Arg(10000)->Unit(benchmark::kMillisecond);

GraphDef ParseGraph(const std::string& text) {
  GraphDef graph;
  google::protobuf::TextFormat::ParseFromString(text, &graph);
  return graph;
}

// A functional While over (i, limit[, list]); cond i < limit; body i + 1
// and, with a list, `update` of the list by i. "stack" stacks the list.
GraphDef WhileGraph(const std::string& list_op, const std::string& update) {
  const bool with_list = !list_op.empty();
  const std::string list_type = with_list ? "type: DT_VARIANT" : "";
  const std::string list_arg =
      with_list ? "input_arg { name: \"lst\" type: DT_VARIANT }" : "";
  return ParseGraph(absl::Substitute(
      R"txt(
    node { name: "start" op: "Placeholder"
           attr { key: "dtype" value { type: DT_INT32 } } }
    node { name: "limit" op: "Placeholder"
           attr { key: "dtype" value { type: DT_INT32 } } }
    node { name: "scalar_shape" op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value {
        tensor { dtype: DT_INT32 tensor_shape { dim { size: 0 } } } } } }
    $0
    node { name: "loop" op: "While" input: "start" input: "limit" $1
           attr { key: "T" value { list { type: DT_INT32 type: DT_INT32 $2 } } }
           attr { key: "cond" value { func { name: "less" } } }
           attr { key: "body" value { func { name: "body" } } } }
    $3
    library {
      function {
        signature { name: "less"
          input_arg { name: "i" type: DT_INT32 }
          input_arg { name: "n" type: DT_INT32 }
          $4
          output_arg { name: "ok" type: DT_BOOL } }
        node_def { name: "l" op: "Less" input: "i" input: "n"
                   attr { key: "T" value { type: DT_INT32 } } }
        ret { key: "ok" value: "l:z:0" }
      }
      function {
        signature { name: "body"
          input_arg { name: "i" type: DT_INT32 }
          input_arg { name: "n" type: DT_INT32 }
          $4
          output_arg { name: "next" type: DT_INT32 }
          output_arg { name: "same" type: DT_INT32 }
          $5 }
        node_def { name: "one" op: "Const"
          attr { key: "dtype" value { type: DT_INT32 } }
          attr { key: "value" value {
            tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
        node_def { name: "add" op: "AddV2" input: "i" input: "one:output:0"
                   attr { key: "T" value { type: DT_INT32 } } }
        $6
        ret { key: "next" value: "add:z:0" }
        ret { key: "same" value: "n" }
        $7
      }
    })txt",
      list_op, with_list ? "input: \"list\"" : "", list_type,
      with_list ? R"txt(
    node { name: "stack" op: "TensorListStack"
           input: "loop:2" input: "scalar_shape"
           attr { key: "element_dtype" value { type: DT_INT32 } } })txt"
                : "",
      list_arg,
      with_list ? "output_arg { name: \"list\" type: DT_VARIANT }" : "", update,
      with_list ? "ret { key: \"list\" value: \"u:output_handle:0\" }" : ""));
}

void BM_FunctionalWhileCount(benchmark::State& state) {
  RunLoop(state, WhileGraph("", ""), "loop:0", CountIs);
}
BENCHMARK(BM_FunctionalWhileCount)->Arg(10000)->Unit(benchmark::kMillisecond);

constexpr char kEmptyList[] = R"txt(
    node { name: "minus_one" op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value {
        tensor { dtype: DT_INT32 tensor_shape {} int_val: -1 } } } }
    node { name: "list" op: "EmptyTensorList"
           input: "scalar_shape" input: "minus_one"
           attr { key: "element_dtype" value { type: DT_INT32 } }
           attr { key: "shape_type" value { type: DT_INT32 } } })txt";

constexpr char kPushBack[] = R"txt(
        node_def { name: "u" op: "TensorListPushBack" input: "lst" input: "i"
                   attr { key: "element_dtype" value { type: DT_INT32 } } })txt";

void BM_WhilePushBack(benchmark::State& state) {
  RunLoop(state, WhileGraph(kEmptyList, kPushBack), "stack", StackIsIota);
}
BENCHMARK(BM_WhilePushBack)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);

constexpr char kReserved[] = R"txt(
    node { name: "list" op: "TensorListReserve"
           input: "scalar_shape" input: "limit"
           attr { key: "element_dtype" value { type: DT_INT32 } }
           attr { key: "shape_type" value { type: DT_INT32 } } })txt";

constexpr char kSetItem[] = R"txt(
        node_def { name: "u" op: "TensorListSetItem"
                   input: "lst" input: "i" input: "i"
                   attr { key: "element_dtype" value { type: DT_INT32 } } })txt";

void BM_WhileSetItem(benchmark::State& state) {
  RunLoop(state, WhileGraph(kReserved, kSetItem), "stack", StackIsIota);
}
BENCHMARK(BM_WhileSetItem)->Arg(10000)->Unit(benchmark::kMillisecond);

// TensorListStack of n rows of k floats, the list fed.
void BM_Stack(benchmark::State& state) {
  const int64_t n = state.range(0);
  const int64_t k = state.range(1);
  testing::Tf1GraphBuilder b;
  b.Placeholder("list", DT_VARIANT);
  Tensor shape(DT_INT32, TensorShape({1}));
  shape.flat<int32_t>()(0) = static_cast<int32_t>(k);
  b.Const("shape", shape);
  NodeDef* stack = b.Node("stack", "TensorListStack", {"list", "shape"});
  AddNodeAttr("element_dtype", DT_FLOAT, stack);
  auto session = Session::Create(b.graph(), OneThread());
  if (!session.ok()) {
    return state.SkipWithError(std::string(session.status().message()).c_str());
  }
  TensorList list(DT_FLOAT, PartialTensorShape({k}));
  for (int64_t i = 0; i < n; ++i) {
    Tensor row(DT_FLOAT, TensorShape({k}));
    row.flat<float>().setConstant(static_cast<float>(i));
    list.tensors().push_back(row);
  }
  Tensor fed(DT_VARIANT, TensorShape());
  fed.scalar<Variant>()() = list;
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!(*session)->Run({{"list", fed}}, {"stack"}, {}, &out).ok()) {
      return state.SkipWithError("run");
    }
  }
  state.SetBytesProcessed(state.iterations() * n * k *
                          static_cast<int64_t>(sizeof(float)));
}
BENCHMARK(BM_Stack)
    ->Args({10000, 1})
    ->Args({1000, 1024})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
