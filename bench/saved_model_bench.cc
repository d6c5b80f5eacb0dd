// Loading a SavedModel against loading the same model as a frozen GraphDef,
// on the bundled digits MLP (examples/graphs/digits_mlp.pbtxt, 35-32-10).
// Set-up writes both into a temporary folder: the SavedModel with the four
// weight Consts as resource variables (ExportSavedModel), the frozen graph
// as a binary GraphDef with the Consts.
//   Load           LoadSavedModel: read + parse saved_model.pb, Session
//                  create, the restore run (RestoreV2 + AssignVariableOp)
//   Frozen         reference: ReadGraphDefFile + Session::Create
//   LoadAndRun /   the same, then one Run of the serving signature (x ->
//   FrozenAndRun   probs) on one digit: the time to the first result.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "minflow/config.pb.h"
#include "minflow/core/logging.h"
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
};

const Files& SetUp() {
  static const Files* files = [] {
    GraphDef graph;
    const Status read = ReadGraphDefFile(MINFLOW_DIGITS_MLP, &graph);
    MF_CHECK(read.ok()) << read;
    const fs::path dir = fs::temp_directory_path() /
                         absl::StrCat("saved_model_bench_", getpid());
    fs::remove_all(dir);
    fs::create_directories(dir);
    auto* out = new Files;
    out->frozen = (dir / "frozen.pb").string();
    std::ofstream(out->frozen, std::ios::binary) << graph.SerializeAsString();
    out->saved_model = (dir / "saved_model").string();

    SavedModelExport model;
    model.graph = graph;
    model.variables = {"w1", "b1", "w2", "b2"};
    SignatureDef& sig = model.signatures[kDefaultServingSignatureDefKey];
    sig.set_method_name(kPredictMethodName);
    TensorInfo& x = (*sig.mutable_inputs())["x"];
    x.set_name("x:0");
    x.set_dtype(DT_FLOAT);
    TensorInfo& probs = (*sig.mutable_outputs())["probs"];
    probs.set_name("probs:0");
    probs.set_dtype(DT_FLOAT);
    const Status exported = ExportSavedModel(model, out->saved_model);
    MF_CHECK(exported.ok()) << exported;
    return out;
  }();
  return *files;
}

Tensor OneDigit() {
  Tensor x(DT_FLOAT, TensorShape({1, 35}));
  for (int i = 0; i < 35; ++i) x.flat<float>()(i) = (i % 3 == 0) ? 1.0f : 0.0f;
  return x;
}

void RunOnce(Session* session, benchmark::State& state) {
  std::vector<Tensor> out;
  const Status s = session->Run({{"x:0", OneDigit()}}, {"probs:0"}, {}, &out);
  if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
}

void Load(benchmark::State& state, bool run) {
  const Files& files = SetUp();
  for (auto _ : state) {
    SavedModelBundle bundle;
    const Status s = LoadSavedModel(SessionOptions(), RunOptions(),
                                    files.saved_model, {"serve"}, &bundle);
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      break;
    }
    if (run) RunOnce(bundle.session.get(), state);
  }
}

void Frozen(benchmark::State& state, bool run) {
  const Files& files = SetUp();
  for (auto _ : state) {
    GraphDef graph;
    Status s = ReadGraphDefFile(files.frozen, &graph);
    auto session = Session::Create(graph, SessionOptions());
    if (!s.ok() || !session.ok()) {
      state.SkipWithError(s.ok() ? "Session::Create failed" : "read failed");
      break;
    }
    if (run) RunOnce(session->get(), state);
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

BENCHMARK(BM_SavedModel_Load)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SavedModel_FrozenReference)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SavedModel_LoadAndRun)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SavedModel_FrozenAndRunReference)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
