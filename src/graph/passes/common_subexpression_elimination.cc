// common_subexpression_elimination: merges nodes that compute the same thing
// (same op, attrs, devices, data inputs and control inputs) into one, before
// placement. See Note [Common subexpressions].
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "minflow/attr_value.pb.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/attr_value_util.h"
#include "minflow/framework/function.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/optimization_registry.h"
#include "minflow/graph/subgraph.h"
#include "minflow/op_def.pb.h"
#include "minflow/tensor.pb.h"

namespace minflow {
namespace {

// Note [Common subexpressions]
// Nodes are put in classes in topological order: a node joins the class of
// an earlier node with the same op, devices and attrs (AreAttrValuesEqual,
// so Consts compare by value) whose data inputs come from the same classes
// and ports (either order for commutative binary ops) and whose control
// inputs come from the same set of classes. Then every class keeps one
// node, a preserved one if it has one, and the others' consumers read it.
// Inputs of a class always come from earlier classes, so the merged graph
// has no cycle, and one walk finds chains of duplicates (two equal Consts
// make their two equal consumers equal).
//
// A node joins no class when merging could change what runs: stateful ops,
// TF1 control flow, _Arg/_Retval/Placeholder, function calls, ref inputs,
// outputs or edges, resource and variant outputs (handles and containers that
// later ops may update), and nodes with no output read (unless preserved).
// minflow has no op that updates a regular input in place (TensorFlow's
// Inplace* ops): one would need the nodes feeding it left alone.

class CommonSubexpressionEliminationPass : public GraphOptimizationPass {
 public:
  absl::string_view name() const override {
    return "common_subexpression_elimination";
  }
  absl::string_view preserves() const override {
    return "every output's value; every stateful, control-flow and "
           "preserved node; the order control edges impose";
  }
  // TensorFlow dedups in common_subgraph_elimination, which runs only when
  // arithmetic_optimization is on too.
  bool EnabledBy(const RewriterConfig& config) const override {
    return config.common_subgraph_elimination() != RewriterConfig::OFF &&
           config.arithmetic_optimization() != RewriterConfig::OFF;
  }
  Status Run(const GraphOptimizationContext& context,
             Graph* graph) const override;
};

// Tensors larger than this hash by dtype and size only: equality still
// compares them in full.
constexpr int64_t kMaxHashedTensorBytes = int64_t{1} << 20;

size_t HashSerialized(const google::protobuf::Message& m) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    out.SetSerializationDeterministic(true);
    m.SerializeToCodedStream(&out);
  }
  return absl::HashOf(bytes);
}

// Equal for tensors AreAttrValuesEqual calls equal: by decoded value where
// it decodes, whatever the encoding (float_val or tensor_content).
size_t HashTensor(const TensorProto& proto) {
  TensorProtoOptions options;
  options.max_bytes = kMaxHashedTensorBytes;
  Tensor t;
  if (!TensorFromProto(proto, &t, options).ok()) {
    return absl::HashOf(static_cast<int>(proto.dtype()));
  }
  if (t.dtype() == DT_STRING) {
    TensorProto canonical;
    t.AsProtoTensorContent(&canonical);
    return HashSerialized(canonical);
  }
  return absl::HashOf(static_cast<int>(t.dtype()), t.shape().dim_sizes(),
                      t.tensor_data());
}

size_t HashAttr(const AttrValue& v) {
  switch (v.value_case()) {
    // The common scalars, without serialising.
    case AttrValue::kType:
      return absl::HashOf(1, static_cast<int>(v.type()));
    case AttrValue::kI:
      return absl::HashOf(2, v.i());
    case AttrValue::kB:
      return absl::HashOf(3, v.b());
    case AttrValue::kS:
      return absl::HashOf(4, v.s());
    case AttrValue::kTensor:
      return HashTensor(v.tensor());
    case AttrValue::kFunc:
      return absl::HashOf(v.func().name(), v.func().attr().size());
    case AttrValue::kList: {
      AttrValue::ListValue rest = v.list();
      rest.clear_tensor();
      rest.clear_func();
      size_t h = HashSerialized(rest);
      for (const TensorProto& t : v.list().tensor()) {
        h = absl::HashOf(h, HashTensor(t));
      }
      for (const NameAttrList& f : v.list().func()) {
        h = absl::HashOf(h, f.name());
      }
      return h;
    }
    default:
      return HashSerialized(v);
  }
}

// A binary op whose two inputs may be swapped without changing one bit of
// the result. Maximum and Minimum are not for floats: max(-0, +0) is the
// first operand.
bool IsCommutativeBinary(const Node& n) {
  if (n.num_inputs() != 2) return false;
  if (n.op_def().is_commutative()) return true;
  if (n.IsOp("Maximum") || n.IsOp("Minimum")) {
    const DataType t = n.input_type(0);
    return DataTypeIsInteger(t) || t == DT_BOOL;
  }
  return false;
}

// A preserved node may merge with no consumer: a target that equals a node
// others read.
bool CanMerge(const Node& n, const Graph& graph, bool preserved) {
  if (n.IsStateful() || n.IsControlFlow() || n.IsOp(kArgOp) ||
      n.IsOp(kRetvalOp) || n.type_string().rfind("Placeholder", 0) == 0 ||
      n.num_outputs() == 0 || (n.out_edges().empty() && !preserved)) {
    return false;
  }
  if (graph.flib_def() != nullptr &&
      graph.flib_def()->Find(n.type_string()) != nullptr) {
    return false;  // a call: its body may have effects
  }
  for (DataType t : n.input_types()) {
    if (IsRefType(t)) return false;
  }
  for (DataType t : n.output_types()) {
    if (IsRefType(t) || t == DT_RESOURCE || t == DT_VARIANT) return false;
  }
  return true;
}

// What a node's inputs are, by class.
struct InputKey {
  std::vector<std::pair<int, int>> data;  // (class, port) by input index
  std::vector<int> control;               // classes, sorted, unique
  bool operator==(const InputKey& o) const {
    return data == o.data && control == o.control;
  }
};

bool ComputeInputKey(const Node& n, const std::vector<int>& class_of,
                     InputKey* key) {
  key->data.assign(n.num_inputs(), {-1, -1});
  for (const Edge* e : n.in_edges()) {
    if (e->IsControlEdge()) {
      key->control.push_back(class_of[e->src->id()]);
    } else {
      key->data[e->dst_input] = {class_of[e->src->id()], e->src_output};
    }
  }
  for (const auto& d : key->data) {
    if (d.first < 0) return false;  // an input not connected
  }
  // A read of a TF1 variable (a ref edge into a value input) sees the value
  // at its own time.
  for (const Edge* e : n.in_edges()) {
    if (!e->IsControlEdge() && IsRefType(e->src->output_type(e->src_output))) {
      return false;
    }
  }
  if (IsCommutativeBinary(n) && key->data[1] < key->data[0]) {
    std::swap(key->data[0], key->data[1]);
  }
  std::sort(key->control.begin(), key->control.end());
  key->control.erase(std::unique(key->control.begin(), key->control.end()),
                     key->control.end());
  return true;
}

size_t HashNode(const Node& n, const InputKey& key) {
  size_t attrs = 0;
  // Order-independent: equal maps may iterate in different orders.
  for (const auto& [name, value] : n.def().attr()) {
    attrs += absl::HashOf(name, HashAttr(value));
  }
  return absl::HashOf(n.type_string(), n.requested_device(),
                      n.assigned_device_name(), attrs, key.data, key.control);
}

bool SameAttrs(const Node& a, const Node& b) {
  const auto& aa = a.def().attr();
  const auto& ba = b.def().attr();
  if (aa.size() != ba.size()) return false;
  for (const auto& [name, value] : aa) {
    const auto it = ba.find(name);
    if (it == ba.end() || !AreAttrValuesEqual(value, it->second)) return false;
  }
  return true;
}

Status CommonSubexpressionEliminationPass::Run(
    const GraphOptimizationContext& context, Graph* graph) const {
  // With no signature, any node's output may be asked for later.
  if (context.preserved_nodes.empty()) return OkStatus();
  const absl::flat_hash_set<std::string> keep_names =
      NodesToKeep(context, *graph);
  std::vector<Node*> order;
  MF_RETURN_IF_ERROR(TopologicalOrder(*graph, &order));

  std::vector<int> class_of(graph->num_node_ids(), -1);
  std::vector<std::vector<Node*>> members;  // by class
  std::vector<InputKey> keys;               // by class: its first node's
  absl::flat_hash_map<size_t, std::vector<int>> buckets;  // hash -> classes
  auto new_class = [&](Node* n, InputKey key) {
    class_of[n->id()] = static_cast<int>(members.size());
    members.push_back({n});
    keys.push_back(std::move(key));
    return class_of[n->id()];
  };
  for (Node* n : order) {
    InputKey key;
    if (!CanMerge(*n, *graph, keep_names.contains(n->name())) ||
        !ComputeInputKey(*n, class_of, &key)) {
      new_class(n, InputKey());
      continue;
    }
    std::vector<int>& bucket = buckets[HashNode(*n, key)];
    bool found = false;
    for (int c : bucket) {
      const Node& first = *members[c].front();
      if (keys[c] == key && first.type_string() == n->type_string() &&
          first.requested_device() == n->requested_device() &&
          first.assigned_device_name() == n->assigned_device_name() &&
          SameAttrs(first, *n)) {
        class_of[n->id()] = c;
        members[c].push_back(n);
        found = true;
        break;
      }
    }
    if (!found) bucket.push_back(new_class(n, std::move(key)));
  }

  // The survivor of each class; removed nodes are the other members that
  // are not kept.
  std::vector<Node*> survivor(graph->num_node_ids(), nullptr);
  std::vector<Node*> removed;
  for (const std::vector<Node*>& m : members) {
    if (m.size() < 2) continue;
    Node* keep = m.front();
    for (Node* n : m) {
      if (keep_names.contains(n->name())) {
        keep = n;
        break;
      }
    }
    for (Node* n : m) {
      if (n == keep || keep_names.contains(n->name())) continue;
      survivor[n->id()] = keep;
      removed.push_back(n);
    }
  }
  for (Node* n : removed) {
    Node* keep = survivor[n->id()];
    const std::vector<const Edge*> out = n->out_edges();
    for (const Edge* e : out) {
      Node* dst = e->dst;
      if (survivor[dst->id()] != nullptr) continue;  // goes too
      if (e->IsControlEdge()) {
        graph->AddControlEdge(keep, dst);
      } else {
        const int port = e->src_output;
        const int input = e->dst_input;
        graph->RemoveEdge(e);
        graph->AddEdge(keep, port, dst, input);
      }
    }
  }
  for (Node* n : removed) graph->RemoveNode(n);
  return OkStatus();
}

}  // namespace

REGISTER_GRAPH_OPTIMIZATION(kPrePlacement, 20,
                            CommonSubexpressionEliminationPass);

}  // namespace minflow
