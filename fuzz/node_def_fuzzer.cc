// Feeds arbitrary bytes as a serialized NodeDef through AddDefaultsToNodeDef
// and ValidateNodeDef against a real OpDef: one named by the node when
// registered (in minflow or in TensorFlow's op list, when present), else
// one picked by the bytes. Every input must be accepted or rejected, never
// crash or allocate without bound; and whatever ValidateNodeDef accepts
// must yield types, ranges and attrs that agree with each other.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "google/protobuf/text_format.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_def_util.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"

namespace minflow {
namespace {

struct Ops {
  OpList list;
  absl::flat_hash_map<std::string, const OpDef*> by_name;
};

const Ops& AllOps() {
  static const Ops* const ops = [] {
    auto* ops = new Ops;
    OpRegistry::Global()->Export(/*include_internal=*/true, &ops->list);
#ifdef MINFLOW_TF_OPS_PBTXT
    std::ifstream file(MINFLOW_TF_OPS_PBTXT);
    std::stringstream buffer;
    buffer << file.rdbuf();
    OpList tf;
    if (google::protobuf::TextFormat::ParseFromString(buffer.str(), &tf)) {
      for (const OpDef& op : tf.op()) *ops->list.add_op() = op;
    }
#endif
    for (const OpDef& op : ops->list.op()) ops->by_name.emplace(op.name(), &op);
    return ops;
  }();
  return *ops;
}

void CheckValidNode(const NodeDef& node, const OpDef& op_def) {
  DataTypeVector inputs, outputs;
  if (!InOutTypesForNode(node, op_def, &inputs, &outputs).ok())
    __builtin_trap();
  NameRangeMap in_ranges, out_ranges;
  if (!NameRangesForNode(node, op_def, &in_ranges, &out_ranges).ok()) {
    __builtin_trap();
  }
  int num_outputs = 0;
  if (!NumOutputsForNode(node, op_def, &num_outputs).ok() ||
      num_outputs != static_cast<int>(outputs.size())) {
    __builtin_trap();
  }
  // The node's own input types must re-infer the attrs it already has.
  std::vector<DataTypeVector> per_arg;
  for (const auto& arg : op_def.input_arg()) {
    const auto range = in_ranges.at(arg.name());
    per_arg.emplace_back(inputs.begin() + range.first,
                         inputs.begin() + range.second);
  }
  NodeDef copy = node;
  if (!InferAttrsFromInputTypes(op_def, per_arg, &copy).ok()) __builtin_trap();
  (void)SummarizeNodeDef(node);
}

}  // namespace
}  // namespace minflow

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace minflow;  // NOLINT: a fuzz target's entry point
  const Ops& ops = AllOps();
  if (ops.list.op_size() == 0) return 0;
  NodeDef node;
  if (!node.ParseFromArray(data, static_cast<int>(size))) return 0;
  const auto it = ops.by_name.find(node.op());
  const OpDef* op_def = nullptr;
  if (it != ops.by_name.end()) {
    op_def = it->second;
  } else {
    uint32_t pick = 0;
    for (size_t i = 0; i < size && i < 4; ++i) pick = pick * 256 + data[i];
    op_def = &ops.list.op(pick % ops.list.op_size());
    node.set_op(op_def->name());
  }
  AddDefaultsToNodeDef(*op_def, &node);
  if (ValidateNodeDef(node, *op_def).ok()) CheckValidNode(node, *op_def);
  (void)SummarizeNodeDef(node, 8);
  return 0;
}
