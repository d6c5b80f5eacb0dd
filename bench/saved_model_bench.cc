// Loading a SavedModel against loading the same model as a frozen GraphDef.
// Two models, written by the set-up into a temporary folder both ways: the
// SavedModel with the weight Consts as resource variables
// (ExportSavedModel), the frozen graph as a binary GraphDef with the Consts.
//   /0  the bundled digits MLP (examples/graphs/digits_mlp.pbtxt, 35-32-10,
//       5 KB of weights): fixed costs dominate
//   /1  an MLP 784-512-512-10 (the peer harness's mlp, 2.6 MB of weights,
//       made here with fixed pseudo-random values)
//   Load           LoadSavedModel: read + parse saved_model.pb, Session
//                  create, the restore run (RestoreV2 + AssignVariableOp)
//   Frozen         reference: ReadGraphDefFile + Session::Create
//   LoadAndRun /   the same, then one Run of the serving signature (x ->
//   FrozenAndRun   probs) on one input: the time to the first result.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "minflow/config.pb.h"
#include "minflow/core/logging.h"
#include "minflow/core/tensor.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/runtime/session.h"
#include "minflow/saved_model/constants.h"
#include "minflow/saved_model/export.h"
#include "minflow/saved_model/loader.h"

namespace minflow {
namespace {

namespace fs = std::filesystem;

struct Files {
  std::string saved_model;
  std::string frozen;
  int input_size = 0;
};

// A Const of `rows` x `cols` (a vector when rows is 0) fixed pseudo-random
// floats in [-0.05, 0.05).
void AddWeights(GraphDef* graph, const std::string& name, int rows, int cols,
                uint32_t* state) {
  NodeDef* node = graph->add_node();
  node->set_name(name);
  node->set_op("Const");
  (*node->mutable_attr())["dtype"].set_type(DT_FLOAT);
  Tensor value(DT_FLOAT,
               rows > 0 ? TensorShape({rows, cols}) : TensorShape({cols}));
  for (int64_t i = 0; i < value.NumElements(); ++i) {
    *state = *state * 1664525u + 1013904223u;
    value.flat<float>()(i) =
        static_cast<float>(*state >> 8) / (1 << 24) * 0.1f - 0.05f;
  }
  value.AsProtoTensorContent((*node->mutable_attr())["value"].mutable_tensor());
}

void AddOp(GraphDef* graph, const std::string& name, const std::string& op,
           std::vector<std::string> inputs) {
  NodeDef* node = graph->add_node();
  node->set_name(name);
  node->set_op(op);
  for (const std::string& input : inputs) node->add_input(input);
  (*node->mutable_attr())["T"].set_type(DT_FLOAT);
}

// x [?,784] -> 512 -> 512 -> 10 -> probs, ReLU between.
GraphDef LargeMlp() {
  GraphDef graph;
  NodeDef* x = graph.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(DT_FLOAT);
  uint32_t state = 42;
  const int sizes[] = {784, 512, 512, 10};
  std::string previous = "x";
  for (int layer = 1; layer <= 3; ++layer) {
    const std::string w = absl::StrCat("w", layer);
    const std::string b = absl::StrCat("b", layer);
    AddWeights(&graph, w, sizes[layer - 1], sizes[layer], &state);
    AddWeights(&graph, b, 0, sizes[layer], &state);
    AddOp(&graph, absl::StrCat("matmul", layer), "MatMul", {previous, w});
    AddOp(&graph, absl::StrCat("logits", layer), "BiasAdd",
          {absl::StrCat("matmul", layer), b});
    previous = absl::StrCat("logits", layer);
    if (layer < 3) {
      AddOp(&graph, absl::StrCat("relu", layer), "Relu", {previous});
      previous = absl::StrCat("relu", layer);
    }
  }
  AddOp(&graph, "probs", "Softmax", {previous});
  return graph;
}

Files WriteModel(const GraphDef& graph, std::vector<std::string> variables,
                 int input_size, const std::string& name) {
  const fs::path dir = fs::temp_directory_path() /
                       absl::StrCat("saved_model_bench_", getpid(), "_", name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  Files out;
  out.input_size = input_size;
  out.frozen = (dir / "frozen.pb").string();
  std::ofstream(out.frozen, std::ios::binary) << graph.SerializeAsString();
  out.saved_model = (dir / "saved_model").string();

  SavedModelExport model;
  model.graph = graph;
  model.variables = std::move(variables);
  SignatureDef& sig = model.signatures[kDefaultServingSignatureDefKey];
  sig.set_method_name(kPredictMethodName);
  TensorInfo& x = (*sig.mutable_inputs())["x"];
  x.set_name("x:0");
  x.set_dtype(DT_FLOAT);
  TensorInfo& probs = (*sig.mutable_outputs())["probs"];
  probs.set_name("probs:0");
  probs.set_dtype(DT_FLOAT);
  const Status exported = ExportSavedModel(model, out.saved_model);
  MF_CHECK(exported.ok()) << exported;
  return out;
}

const Files& SetUp(int64_t model) {
  static const std::vector<Files>* files = [] {
    GraphDef digits;
    const Status read = ReadGraphDefFile(MINFLOW_DIGITS_MLP, &digits);
    MF_CHECK(read.ok()) << read;
    return new std::vector<Files>{
        WriteModel(digits, {"w1", "b1", "w2", "b2"}, 35, "digits"),
        WriteModel(LargeMlp(), {"w1", "b1", "w2", "b2", "w3", "b3"}, 784,
                   "mlp")};
  }();
  return files->at(static_cast<size_t>(model));
}

Tensor OneInput(int size) {
  Tensor x(DT_FLOAT, TensorShape({1, size}));
  for (int i = 0; i < size; ++i)
    x.flat<float>()(i) = (i % 3 == 0) ? 1.0f : 0.0f;
  return x;
}

void RunOnce(Session* session, int input_size, benchmark::State& state) {
  std::vector<Tensor> out;
  const Status s =
      session->Run({{"x:0", OneInput(input_size)}}, {"probs:0"}, {}, &out);
  if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
}

void Load(benchmark::State& state, bool run) {
  const Files& files = SetUp(state.range(0));
  for (auto _ : state) {
    SavedModelBundle bundle;
    const Status s = LoadSavedModel(SessionOptions(), RunOptions(),
                                    files.saved_model, {"serve"}, &bundle);
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      break;
    }
    if (run) RunOnce(bundle.session.get(), files.input_size, state);
  }
}

void Frozen(benchmark::State& state, bool run) {
  const Files& files = SetUp(state.range(0));
  for (auto _ : state) {
    GraphDef graph;
    Status s = ReadGraphDefFile(files.frozen, &graph);
    auto session = Session::Create(graph, SessionOptions());
    if (!s.ok() || !session.ok()) {
      state.SkipWithError(s.ok() ? "Session::Create failed" : "read failed");
      break;
    }
    if (run) RunOnce(session->get(), files.input_size, state);
  }
}

void BM_SavedModel_Load(benchmark::State& state) { Load(state, false); }
void BM_SavedModel_FrozenReference(benchmark::State& state) {
  Frozen(state, false);
}
void BM_SavedModel_LoadAndRun(benchmark::State& state) { Load(state, true); }
void BM_SavedModel_FrozenAndRunReference(benchmark::State& state) {
  Frozen(state, true);
}

// CPU time of the whole process: the restore may run on the caller or on
// a pool thread, and both count.
BENCHMARK(BM_SavedModel_Load)
    ->Arg(0)
    ->Arg(1)
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SavedModel_FrozenReference)
    ->Arg(0)
    ->Arg(1)
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SavedModel_LoadAndRun)
    ->Arg(0)
    ->Arg(1)
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SavedModel_FrozenAndRunReference)
    ->Arg(0)
    ->Arg(1)
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
