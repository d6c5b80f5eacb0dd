// Op registry costs: looking an op up (hit, and miss with suggestions),
// building an OpDef from specs, and validating TensorFlow's whole op list
// (ops/s), with an unlocked flat_hash_map lookup and the text parse of the
// op list as same-run references.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "google/protobuf/text_format.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_def_builder.h"
#include "minflow/framework/op_def_util.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"

namespace minflow {
namespace {

std::string ReadTfOpsText() {
  std::ifstream file(MINFLOW_TF_OPS_PBTXT);
  std::stringstream buffer;
  buffer << file.rdbuf();
  return buffer.str();
}

// TensorFlow's 1,563 ops, or as many made-up ones when the file is absent.
const OpList& TfOps() {
  static const OpList* const ops = [] {
    auto* ops = new OpList;
    if (!google::protobuf::TextFormat::ParseFromString(ReadTfOpsText(), ops) ||
        ops->op_size() == 0) {
      ops->Clear();
      for (int i = 0; i < 1563; ++i) {
        OpRegistrationData data;
        OpDefBuilder(absl::StrCat("SyntheticOp", i))
            .Input("x: T")
            .Output("y: T")
            .Attr("T: numbertype")
            .Finalize(&data)
            .IgnoreError();
        *ops->add_op() = data.op_def;
      }
    }
    return ops;
  }();
  return *ops;
}

// A registry holding every op of TfOps(), already processed.
const OpRegistry& FilledRegistry() {
  static const OpRegistry* const registry = [] {
    auto* registry = new OpRegistry;
    for (const OpDef& op : TfOps().op()) {
      registry->Register([op](OpRegistrationData* data) {
        data->op_def = op;
        return OkStatus();
      });
    }
    registry->ProcessRegistrations().IgnoreError();
    return registry;
  }();
  return *registry;
}

std::vector<std::string> Names() {
  std::vector<std::string> names;
  for (const OpDef& op : TfOps().op()) names.push_back(op.name());
  return names;
}

void BM_OpRegistry_LookUp(benchmark::State& state) {
  const OpRegistry& registry = FilledRegistry();
  const std::vector<std::string> names = Names();
  size_t i = 0;
  for (auto _ : state) {
    const OpRegistrationData* data = nullptr;
    benchmark::DoNotOptimize(registry.LookUp(names[i], &data).ok());
    benchmark::DoNotOptimize(data);
    if (++i == names.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_OpRegistry_LookUp)->ThreadRange(1, 2);

// Reference: the same names in an unlocked flat_hash_map.
void BM_Reference_FlatHashMapFind(benchmark::State& state) {
  absl::flat_hash_map<std::string, const OpDef*> map;
  for (const OpDef& op : TfOps().op()) map.emplace(op.name(), &op);
  const std::vector<std::string> names = Names();
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(map.find(names[i])->second);
    if (++i == names.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Reference_FlatHashMapFind);

// A miss builds the NotFound message with close-name suggestions.
void BM_OpRegistry_LookUpMissWithSuggestions(benchmark::State& state) {
  const OpRegistry& registry = FilledRegistry();
  for (auto _ : state) {
    const OpRegistrationData* data = nullptr;
    benchmark::DoNotOptimize(registry.LookUp("Conv2d", &data));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_OpRegistry_LookUpMissWithSuggestions);

// Validating every op of TensorFlow's list: items/s is ops/s.
void BM_ValidateOpDef_AllTfOps(benchmark::State& state) {
  const OpList& ops = TfOps();
  for (auto _ : state) {
    for (const OpDef& op : ops.op()) {
      benchmark::DoNotOptimize(ValidateOpDef(op).ok());
    }
  }
  state.SetItemsProcessed(state.iterations() * ops.op_size());
}
BENCHMARK(BM_ValidateOpDef_AllTfOps)->Unit(benchmark::kMillisecond);

// Reference: parsing the same list from text (what `ops validate` also
// pays); items/s is ops/s.
void BM_Reference_ParseTfOpsText(benchmark::State& state) {
  const std::string text = ReadTfOpsText();
  int ops = 0;
  for (auto _ : state) {
    OpList list;
    google::protobuf::TextFormat::ParseFromString(text, &list);
    ops = list.op_size();
  }
  state.SetItemsProcessed(state.iterations() * ops);
  state.SetBytesProcessed(state.iterations() * text.size());
}
BENCHMARK(BM_Reference_ParseTfOpsText)->Unit(benchmark::kMillisecond);

void BM_OpDefBuilder_FinalizeConvLikeOp(benchmark::State& state) {
  const OpDefBuilder builder =
      OpDefBuilder("Conv2DLike")
          .Input("input: T")
          .Input("filter: T")
          .Output("output: T")
          .Attr("T: {half, bfloat16, float, double, int32}")
          .Attr("strides: list(int)")
          .Attr("use_cudnn_on_gpu: bool = true")
          .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
          .Attr("explicit_paddings: list(int) = []")
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .Attr("dilations: list(int) = [1, 1, 1, 1]");
  for (auto _ : state) {
    OpRegistrationData data;
    benchmark::DoNotOptimize(builder.Finalize(&data).ok());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_OpDefBuilder_FinalizeConvLikeOp);

void BM_ValidateNodeDef_ConcatV2(benchmark::State& state) {
  const OpDef* op_def = nullptr;
  if (!FilledRegistry().LookUpOpDef("ConcatV2", &op_def).ok()) {
    state.SkipWithError("ConcatV2 needs TensorFlow's op list");
    return;
  }
  NodeDef node;
  node.set_name("concat");
  node.set_op("ConcatV2");
  for (const char* input : {"a", "b", "c", "axis"}) node.add_input(input);
  AddNodeAttr("N", 3, &node);
  AddNodeAttr("T", DT_FLOAT, &node);
  AddDefaultsToNodeDef(*op_def, &node);
  for (auto _ : state) {
    benchmark::DoNotOptimize(ValidateNodeDef(node, *op_def).ok());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ValidateNodeDef_ConcatV2);

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
