// constant_filters: marks each CPU convolution whose filter, and each CPU
// product whose b, is a Const on the same device with `_is_filter_const`,
// so that its kernel may keep that operand in a layout of its own from one
// run to the next (Note [Kept constant layouts] in
// src/kernels/constant_layout_cache.h). After placement, where both
// devices are known.
#include <string>
#include <utility>
#include <vector>

#include "minflow/framework/device_name_utils.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/optimization_registry.h"
#include "minflow/node_def.pb.h"

namespace minflow {
namespace {

constexpr char kFilterIsConstAttr[] = "_is_filter_const";

// Note [Marking constant filters]
// A convolution's filter (Conv2D, _FusedConv2D) or a product's weights
// (MatMul, _FusedMatMul: b), input 1 in each, qualifies when it is output
// 0 of a Const assigned the same device as the node: the executor then
// hands the node the Const's own tensor (Note [Constants without a
// context]), one buffer whose contents never change. An operand that
// reaches the node any other way (a variable's value, a computed tensor, a
// copy from another device) is not marked, and its kernel reads it as it
// comes on every run, as before. The kernel's cache is keyed by the
// operand's buffer, so even a wrongly marked one is rearranged again
// whenever it arrives in a new buffer; only one rewritten in place would
// be missed. TensorFlow's oneDNN layout pass marks its convolutions and
// fused products the same way (is_filter_const).
bool FilterIsConst(const Node& n) {
  if (!n.IsOp("Conv2D") && !n.IsOp("_FusedConv2D") && !n.IsOp("MatMul") &&
      !n.IsOp("_FusedMatMul")) {
    return false;
  }
  DeviceNameUtils::ParsedName device;
  if (!DeviceNameUtils::ParseFullName(n.assigned_device_name(), &device).ok() ||
      !device.has_type || device.type != DEVICE_CPU) {
    return false;
  }
  bool marked = false;
  if (TryGetNodeAttr(AttrSlice(n.def()), kFilterIsConstAttr, &marked) &&
      marked) {
    return false;  // nothing to do
  }
  const Edge* filter = nullptr;
  if (!n.input_edge(1, &filter).ok()) return false;
  return filter->src->IsConstant() && filter->src_output == 0 &&
         filter->src->assigned_device_name() == n.assigned_device_name();
}

// Replaces `n` by a copy of it with the attr set: nodes' definitions are
// shared and immutable, so the node is made again with the same name,
// device, shapes and edges.
Status MarkFilterConst(Graph* graph, Node* n) {
  NodeDef def = n->def();
  (*def.mutable_attr())[kFilterIsConstAttr].set_b(true);
  struct In {
    Node* src;
    int src_output;
    int dst_input;
  };
  struct Out {
    Node* dst;
    int src_output;
    int dst_input;
  };
  std::vector<In> ins;
  std::vector<Out> outs;
  for (const Edge* e : n->in_edges()) {
    ins.push_back({e->src, e->src_output, e->dst_input});
  }
  for (const Edge* e : n->out_edges()) {
    outs.push_back({e->dst, e->src_output, e->dst_input});
  }
  const std::string device = n->assigned_device_name();
  std::vector<PartialTensorShape> shapes = n->output_shapes();
  graph->RemoveNode(n);
  MF_ASSIGN_OR_RETURN(Node * marked, graph->AddNode(std::move(def)));
  marked->set_assigned_device_name(device);
  marked->set_output_shapes(std::move(shapes));
  for (const In& in : ins) {
    if (in.src_output == kControlSlot) {
      graph->AddControlEdge(in.src, marked);
    } else {
      graph->AddEdge(in.src, in.src_output, marked, in.dst_input);
    }
  }
  for (const Out& out : outs) {
    if (out.src_output == kControlSlot) {
      graph->AddControlEdge(marked, out.dst);
    } else {
      graph->AddEdge(marked, out.src_output, out.dst, out.dst_input);
    }
  }
  return OkStatus();
}

class ConstantFiltersPass : public GraphOptimizationPass {
 public:
  absl::string_view name() const override { return "constant_filters"; }
  absl::string_view preserves() const override {
    return "every node, edge and result; convolutions and products whose "
           "filter or b is a Const on their device gain _is_filter_const";
  }
  // The remapper's toggle: both prepare nodes for the CPU kernels.
  bool EnabledBy(const RewriterConfig& config) const override {
    return config.remapping() != RewriterConfig::OFF;
  }
  Status Run(const GraphOptimizationContext& context,
             Graph* graph) const override {
    std::vector<Node*> to_mark;
    for (Node* n : graph->nodes()) {
      if (FilterIsConst(*n)) to_mark.push_back(n);
    }
    for (Node* n : to_mark) MF_RETURN_IF_ERROR(MarkFilterConst(graph, n));
    return OkStatus();
  }
};

}  // namespace

// After sequential_loops (0), which may take a convolution into a loop
// body; one left in the graph is marked.
REGISTER_GRAPH_OPTIMIZATION(kPostPlacement, 10, ConstantFiltersPass);

}  // namespace minflow
