// constant_folding: replaces every stateless node whose data inputs are all
// constants by Const nodes holding its outputs, computed once by its CPU
// kernel (ConstantEvaluator), before placement; chains fold in one run
// since nodes are visited in topological order.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/constant_evaluator.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/optimization_registry.h"
#include "minflow/graph/subgraph.h"
#include "minflow/node_def.pb.h"
#include "minflow/tensor.pb.h"

namespace minflow {
namespace {

// TensorFlow's limit on a folded constant's size.
constexpr int64_t kMaxFoldedBytes = 10 << 20;
// A node with more outputs than this is left alone: each output would become
// a Const node of its own (a Split of an empty tensor into 2^20 parts made a
// million Consts from one node, gigabytes of graph, in the single-op fuzzer).
constexpr int kMaxFoldedOutputs = 1024;

class ConstantFoldingPass : public GraphOptimizationPass {
 public:
  absl::string_view name() const override { return "constant_folding"; }
  absl::string_view preserves() const override {
    return "the value of every fetched tensor; every stateful node, target, "
           "feed and fetch; the order control edges impose";
  }
  bool EnabledBy(const RewriterConfig& config) const override {
    return config.constant_folding() != RewriterConfig::OFF;
  }
  Status Run(const GraphOptimizationContext& context,
             Graph* graph) const override;
};

// The value of a Const node, decoded once.
class ConstValues {
 public:
  const Tensor* Get(const Node* node) {
    auto it = values_.find(node->id());
    if (it != values_.end()) return &it->second;
    const TensorProto* proto = nullptr;
    Tensor t;
    if (!TryGetNodeAttr(AttrSlice(node->def()), "value", &proto) ||
        !TensorFromProto(*proto, &t).ok()) {
      return nullptr;
    }
    return &values_.emplace(node->id(), std::move(t)).first->second;
  }
  void Set(const Node* node, Tensor t) { values_[node->id()] = std::move(t); }

 private:
  absl::flat_hash_map<int, Tensor> values_;
};

bool Foldable(const Node& n, const absl::flat_hash_set<std::string>& keep) {
  if (n.IsConstant() || n.IsStateful() || n.num_outputs() == 0 ||
      n.num_outputs() > kMaxFoldedOutputs || n.num_inputs() == 0 ||
      n.IsOp(kArgOp) || n.IsOp(kRetvalOp) || keep.contains(n.name()) ||
      n.output_shapes().size() != static_cast<size_t>(n.num_outputs())) {
    return false;
  }
  for (const Edge* e : n.in_edges()) {
    if (!e->IsControlEdge() && !e->src->IsConstant()) return false;
  }
  for (DataType t : n.input_types()) {
    if (IsRefType(t)) return false;
  }
  return true;
}

std::string UniqueName(const Graph& graph, const std::string& base) {
  std::string name = base;
  for (int i = 1; graph.FindNodeByName(name) != nullptr; ++i) {
    name = absl::StrCat(base, "_", i);
  }
  return name;
}

Status ConstantFoldingPass::Run(const GraphOptimizationContext& context,
                                Graph* graph) const {
  const absl::flat_hash_set<std::string> keep = NodesToKeep(context, *graph);
  std::vector<Node*> order;
  MF_RETURN_IF_ERROR(TopologicalOrder(*graph, &order));
  // Made at the first foldable node: most graphs have none.
  std::unique_ptr<ConstantEvaluator> evaluator;
  ConstValues values;
  for (Node* n : order) {
    if (!Foldable(*n, keep) || !ConstantEvaluator::CanEvaluate(n->def())) {
      continue;
    }
    std::vector<Tensor> inputs(n->num_inputs());
    std::vector<Node*> sources;
    bool ok = true;
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge()) continue;
      const Tensor* v = values.Get(e->src);
      if (v == nullptr) {
        ok = false;
        break;
      }
      inputs[e->dst_input] = *v;
      sources.push_back(e->src);
    }
    if (!ok) continue;
    if (evaluator == nullptr) {
      evaluator =
          std::make_unique<ConstantEvaluator>(graph->versions().producer());
    }
    std::vector<Tensor> outputs;
    // A node the kernel rejects stays, to report its error when it runs.
    if (!evaluator
             ->Evaluate(n->def(), inputs, n->output_shapes(), kMaxFoldedBytes,
                        &outputs)
             .ok()) {
      continue;
    }
    std::vector<Node*> consts;
    for (int i = 0; i < n->num_outputs(); ++i) {
      NodeDef def;
      def.set_name(
          UniqueName(*graph, n->num_outputs() == 1
                                 ? absl::StrCat(n->name(), "/folded")
                                 : absl::StrCat(n->name(), "/folded_", i)));
      def.set_op("Const");
      def.set_device(n->requested_device());
      AddNodeAttr("dtype", outputs[i].dtype(), &def);
      AttrValue value;
      outputs[i].AsProtoTensorContent(value.mutable_tensor());
      AddNodeAttr("value", value, &def);
      MF_ASSIGN_OR_RETURN(Node * c, graph->AddNode(std::move(def)));
      c->set_output_shapes({PartialTensorShape(outputs[i].shape())});
      values.Set(c, std::move(outputs[i]));
      consts.push_back(c);
    }
    // The constants wait for what the node and its inputs waited for (a
    // Const in a cond branch waits for the branch's Switch: dropping that
    // edge would make it live in the branch not taken), and whatever waited
    // for the node waits for them.
    auto wait_for_controls_of = [&](const Node* waiter) {
      for (const Edge* e : waiter->in_edges()) {
        if (!e->IsControlEdge()) continue;
        for (Node* c : consts) graph->AddControlEdge(e->src, c);
      }
    };
    wait_for_controls_of(n);
    for (const Node* src : sources) wait_for_controls_of(src);
    const std::vector<const Edge*> out = n->out_edges();
    for (const Edge* e : out) {
      Node* dst = e->dst;
      if (e->IsControlEdge()) {
        graph->AddControlEdge(consts[0], dst);
      } else {
        const int port = e->src_output;
        const int dst_input = e->dst_input;
        graph->RemoveEdge(e);
        graph->AddEdge(consts[port], 0, dst, dst_input);
      }
    }
    graph->RemoveNode(n);
    // Inputs nothing reads any more go too.
    for (Node* src : sources) {
      if (graph->FindNodeId(src->id()) == src && src->out_edges().empty() &&
          !keep.contains(src->name())) {
        graph->RemoveNode(src);
      }
    }
  }
  return OkStatus();
}

}  // namespace

REGISTER_GRAPH_OPTIMIZATION(kPrePlacement, 10, ConstantFoldingPass);

}  // namespace minflow
