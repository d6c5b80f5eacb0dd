// Session set-up costs on a 100k-node GraphDef (a chain of scalar AddV2s),
// each next to a same-run reference, plain protobuf parsing of the same
// bytes:
//   Create            Session::Create (import + shape refinement + whatever
//                     the session keeps for its signatures);
//   FirstSignature    Create, then MakeCallable for one fetch: what a user
//                     waits for before the first Run can start;
//   SecondSignature   MakeCallable for another fetch of a session that has
//                     one signature already: what each new signature costs.
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "minflow/config.pb.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "minflow/tensor.pb.h"

namespace minflow {
namespace {

constexpr int kChainLength = 100000;

NodeDef ScalarConst(const std::string& name, float value) {
  NodeDef n;
  n.set_name(name);
  n.set_op("Const");
  AddNodeAttr("dtype", DT_FLOAT, &n);
  TensorProto proto;
  Tensor(value).AsProtoTensorContent(&proto);
  AttrValue v;
  *v.mutable_tensor() = proto;
  AddNodeAttr("value", v, &n);
  return n;
}

// x -> AddV2(x, one) -> AddV2(., one) -> ... -> add{length-1}, with x a
// scalar Placeholder (a Const x would let constant folding fold the chain).
const GraphDef& ChainGraph() {
  static const GraphDef* graph = [] {
    auto* g = new GraphDef;
    NodeDef* x = g->add_node();
    x->set_name("x");
    x->set_op("Placeholder");
    AddNodeAttr("dtype", DT_FLOAT, x);
    AddNodeAttr("shape", TensorShape({}), x);
    *g->add_node() = ScalarConst("one", 1.0f);
    std::string prev = "x";
    for (int i = 0; i < kChainLength; ++i) {
      NodeDef* n = g->add_node();
      n->set_name(absl::StrCat("add", i));
      n->set_op("AddV2");
      n->add_input(prev);
      n->add_input("one");
      AddNodeAttr("T", DT_FLOAT, n);
      prev = n->name();
    }
    return g;
  }();
  return *graph;
}

SessionOptions OneThread() {
  SessionOptions options;
  options.config.set_inter_op_parallelism_threads(1);
  options.config.set_intra_op_parallelism_threads(1);
  return options;
}

// Feeds x, fetches `name`.
CallableOptions Fetch(const std::string& name) {
  CallableOptions options;
  options.add_feed("x");
  options.add_fetch(name);
  return options;
}

void BM_Session_Create_100kChain(benchmark::State& state) {
  const GraphDef& graph = ChainGraph();
  for (auto _ : state) {
    std::unique_ptr<Session> session = NewSession(OneThread());
    if (!session->Create(graph).ok()) state.SkipWithError("create");
    state.PauseTiming();
    session.reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_Session_Create_100kChain)->Unit(benchmark::kMillisecond);

void BM_Session_FirstSignature_100kChain(benchmark::State& state) {
  const GraphDef& graph = ChainGraph();
  const CallableOptions last = Fetch(absl::StrCat("add", kChainLength - 1));
  for (auto _ : state) {
    std::unique_ptr<Session> session = NewSession(OneThread());
    Session::CallableHandle handle;
    if (!session->Create(graph).ok() ||
        !session->MakeCallable(last, &handle).ok()) {
      state.SkipWithError("first signature");
    }
    state.PauseTiming();
    session.reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_Session_FirstSignature_100kChain)->Unit(benchmark::kMillisecond);

// The second fetch needs all but one node of the chain, as the first does.
void BM_Session_SecondSignature_100kChain(benchmark::State& state) {
  const GraphDef& graph = ChainGraph();
  const CallableOptions last = Fetch(absl::StrCat("add", kChainLength - 1));
  const CallableOptions second = Fetch(absl::StrCat("add", kChainLength - 2));
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<Session> session = NewSession(OneThread());
    Session::CallableHandle handle;
    if (!session->Create(graph).ok() ||
        !session->MakeCallable(last, &handle).ok()) {
      state.SkipWithError("first signature");
    }
    state.ResumeTiming();
    if (!session->MakeCallable(second, &handle).ok()) {
      state.SkipWithError("second signature");
    }
    state.PauseTiming();
    session.reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_Session_SecondSignature_100kChain)->Unit(benchmark::kMillisecond);

// Reference: protobuf parsing of the same graph's bytes alone.
void BM_Reference_ProtobufParse100kChain(benchmark::State& state) {
  const std::string bytes = ChainGraph().SerializeAsString();
  for (auto _ : state) {
    GraphDef def;
    if (!def.ParseFromString(bytes)) state.SkipWithError("parse");
    benchmark::DoNotOptimize(def.node_size());
  }
}
BENCHMARK(BM_Reference_ProtobufParse100kChain)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
