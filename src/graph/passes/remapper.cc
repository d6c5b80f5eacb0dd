// remapper: replaces a contraction (Conv2D, DepthwiseConv2dNative, MatMul)
// followed by a bias and an optional activation by one fused op
// (_FusedConv2D, _FusedDepthwiseConv2dNative, _FusedMatMul), as Grappler's
// remapper does; an inference FusedBatchNorm after a convolution with
// constant weights is first folded into those weights and a bias. The
// fused op takes the name of the pattern's last node.
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/device_name_utils.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/optimization_registry.h"
#include "minflow/kernel_def.pb.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"
#include "minflow/tensor.pb.h"

namespace minflow {
namespace {

// Note [What the remapper fuses]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A pattern is a chain contraction -> bias -> activation? where each node
// but the last feeds only the next one (no other data or control
// consumer). The bias is a BiasAdd (NHWC), an Add/AddV2 of a 1-D Const with
// as many elements as the contraction's known last dimension (broadcasting
// then makes it exactly a BiasAdd), or, after a Conv2D or depthwise
// convolution whose filter is a Const, an inference-mode FusedBatchNorm
// whose four parameters are Consts (folded: filter * s and offset - mean *
// s, s = scale / sqrt(variance + epsilon) per output channel). The
// activation is one the CPU kernels fuse: Relu, Relu6, Elu or LeakyRelu
// (Sigmoid and Tanh are not among them, so they stay separate nodes).
//
// The fused ops have CPU kernels only. Before placement a node without a
// device request goes to the session's preferred device that has a kernel
// for it; so a pattern fuses only when every node of it would run on the
// CPU anyway: it asks for a CPU, or no other device type has a kernel for
// its op (none has in a CPU-only process). A pattern with another device
// request, or whose nodes ask for different devices, stays.
//
// The fused node takes the last node's name, device and consumers (data
// and control), and waits for every control input of the nodes it
// replaces, so fetches of the activation still work and control order is
// kept. Nodes named by a colocation constraint (`_class`) or carrying one,
// nodes that pick a kernel by label (`_kernel`), preserved nodes (targets,
// _Arg, _Retval), and inputs read from reference outputs are left alone.

constexpr char kBiasAdd[] = "BiasAdd";

class RemapperPass : public GraphOptimizationPass {
 public:
  absl::string_view name() const override { return "remapper"; }
  absl::string_view preserves() const override {
    return "the value of every fetched tensor up to float rounding; every "
           "stateful node, target, feed and fetch; the order control edges "
           "impose";
  }
  bool EnabledBy(const RewriterConfig& config) const override {
    return config.remapping() != RewriterConfig::OFF;
  }
  Status Run(const GraphOptimizationContext& context,
             Graph* graph) const override;
};

// Ops whose every registered kernel is a CPU kernel (looked up once per
// op): a node of one without a device request can only run on the CPU.
class CpuOnlyOps {
 public:
  bool Contains(const std::string& op) {
    auto it = cache_.find(op);
    if (it != cache_.end()) return it->second;
    bool cpu_only = true;
    const KernelList kernels = GetRegisteredKernelsForOp(op);
    for (const KernelDef& k : kernels.kernel()) {
      if (k.device_type() != DEVICE_CPU) cpu_only = false;
    }
    return cache_.emplace(op, cpu_only).first->second;
  }

 private:
  absl::flat_hash_map<std::string, bool> cache_;
};

// The value of a Const node; false for any other node.
bool ConstValue(const Node& n, Tensor* value) {
  if (!n.IsConstant()) return false;
  const TensorProto* proto = nullptr;
  return TryGetNodeAttr(AttrSlice(n.def()), "value", &proto) &&
         TensorFromProto(*proto, value).ok();
}

DataType TypeAttr(const Node& n, const char* attr = "T") {
  DataType t = DT_INVALID;
  if (!TryGetNodeAttr(AttrSlice(n.def()), attr, &t)) return DT_INVALID;
  return t;
}

// The only consumer of `n`, when `n` has exactly one out edge, a data edge
// from output 0.
const Edge* SoleConsumer(const Node& n) {
  if (n.out_edges().size() != 1) return nullptr;
  const Edge* e = n.out_edges()[0];
  return e->IsControlEdge() || e->src_output != 0 ? nullptr : e;
}

// The data edge into input `index` of `n`, or null.
const Edge* InputEdge(const Node& n, int index) {
  const Edge* e = nullptr;
  return n.input_edge(index, &e).ok() ? e : nullptr;
}

// Whether no data input of `n` reads a reference (a TF1 variable).
bool HasNoRefInputs(const Node& n) {
  for (const Edge* e : n.in_edges()) {
    if (!e->IsControlEdge() && IsRefType(e->src->output_type(e->src_output))) {
      return false;
    }
  }
  return true;
}

bool IsActivation(const Node& n) {
  return n.IsOp("Relu") || n.IsOp("Relu6") || n.IsOp("Elu") ||
         n.IsOp("LeakyRelu");
}

bool IsFusedBatchNorm(const Node& n) {
  return n.IsOp("FusedBatchNorm") || n.IsOp("FusedBatchNormV2") ||
         n.IsOp("FusedBatchNormV3");
}

// A contraction the CPU kernels fuse for its dtype and layout.
bool IsFusableContraction(const Node& n) {
  const DataType t = TypeAttr(n);
  const AttrSlice attrs(n.def());
  if (n.IsOp("MatMul")) return t == DT_FLOAT;
  if (!n.IsOp("Conv2D") && !n.IsOp("DepthwiseConv2dNative")) return false;
  if (t != DT_FLOAT && t != DT_DOUBLE) return false;
  if (GetNodeAttrString(attrs, "data_format") != "NHWC") return false;
  // _FusedDepthwiseConv2dNative has no explicit padding.
  return !(n.IsOp("DepthwiseConv2dNative") &&
           GetNodeAttrString(attrs, "padding") == "EXPLICIT");
}

// What a pattern reads and where its result goes.
struct Pattern {
  Node* contraction = nullptr;
  Node* bias_node = nullptr;  // BiasAdd, Add/AddV2 or FusedBatchNorm*
  Node* activation = nullptr;
  // The bias tensor (for BiasAdd or Add); for a batch norm, the folded
  // filter and bias values instead.
  const Edge* bias = nullptr;
  bool batch_norm = false;
  Tensor folded_filter;
  Tensor folded_bias;
  Node* last() const { return activation != nullptr ? activation : bias_node; }
};

class Remapper {
 public:
  Remapper(const GraphOptimizationContext& context, Graph* graph)
      : context_(context), graph_(graph) {
    for (const Node* n : graph->nodes()) {
      std::vector<std::string> classes;
      if (!TryGetNodeAttr(AttrSlice(n->def()), kColocationAttrName, &classes)) {
        continue;
      }
      for (const std::string& c : classes) {
        if (absl::StartsWith(c, kColocationGroupPrefix)) {
          colocated_.insert(c.substr(strlen(kColocationGroupPrefix)));
        }
      }
    }
  }

  Status Run() {
    for (Node* n : graph_->nodes()) {
      if (graph_->FindNodeId(n->id()) != n) continue;  // fused away
      Pattern p;
      if (!Match(n, &p)) continue;
      MF_RETURN_IF_ERROR(Rewrite(p));
    }
    return OkStatus();
  }

 private:
  // Whether `n` may become part of a fused node. See Note [What the
  // remapper fuses].
  bool Replaceable(const Node& n, const std::string& device) {
    if (n.requested_device() != device ||
        context_.preserved_nodes.contains(n.name()) ||
        colocated_.contains(n.name()) ||
        HasNodeAttr(n.def(), kColocationAttrName) ||
        HasNodeAttr(n.def(), "_kernel") || !HasNoRefInputs(n)) {
      return false;
    }
    if (!device.empty()) {
      DeviceNameUtils::ParsedName parsed;
      return DeviceNameUtils::ParseFullName(device, &parsed).ok() &&
             parsed.has_type && parsed.type == DEVICE_CPU;
    }
    return cpu_only_.Contains(n.type_string());
  }

  bool Match(Node* n, Pattern* p);
  bool MatchBias(const Edge& out, Pattern* p);
  bool MatchBatchNorm(Node* bn, Pattern* p);
  Status Rewrite(const Pattern& p);
  StatusOr<Node*> AddConst(const std::string& base, const Tensor& value,
                           const std::string& device);

  const GraphOptimizationContext& context_;
  Graph* graph_;
  absl::flat_hash_set<std::string> colocated_;
  CpuOnlyOps cpu_only_;
};

bool Remapper::Match(Node* n, Pattern* p) {
  if (!IsFusableContraction(*n)) return false;
  const std::string& device = n->requested_device();
  if (!Replaceable(*n, device)) return false;
  const Edge* out = SoleConsumer(*n);
  if (out == nullptr || !Replaceable(*out->dst, device)) return false;
  p->contraction = n;
  if (!MatchBias(*out, p)) return false;
  // The activation is optional: without one that fits, the bias is fused
  // alone.
  const Edge* next = SoleConsumer(*p->bias_node);
  if (next != nullptr && next->dst_input == 0 && IsActivation(*next->dst) &&
      TypeAttr(*next->dst) == TypeAttr(*n) && Replaceable(*next->dst, device)) {
    p->activation = next->dst;
  }
  // The last node's outputs other than 0 (a batch norm's statistics) must
  // be unused: the fused op has only one.
  for (const Edge* e : p->last()->out_edges()) {
    if (!e->IsControlEdge() && e->src_output != 0) return false;
  }
  return true;
}

bool Remapper::MatchBias(const Edge& out, Pattern* p) {
  Node* next = out.dst;
  const Node& contraction = *p->contraction;
  const DataType t = TypeAttr(contraction);
  if (IsFusedBatchNorm(*next)) {
    return out.dst_input == 0 && MatchBatchNorm(next, p);
  }
  if (TypeAttr(*next) != t) return false;
  const PartialTensorShape shape = contraction.output_shape(0);
  const int64_t channels =
      shape.dims() > 0 ? shape.dim_size(shape.dims() - 1) : -1;
  if (next->IsOp(kBiasAdd)) {
    if (out.dst_input != 0 ||
        GetNodeAttrString(AttrSlice(next->def()), "data_format") != "NHWC") {
      return false;
    }
    const Edge* bias = InputEdge(*next, 1);
    if (bias == nullptr) return false;
    // A bias of the wrong size is left for BiasAdd to report.
    const PartialTensorShape b = bias->src->output_shape(bias->src_output);
    if (b.dims() != -1 &&
        (b.dims() != 1 ||
         (channels >= 0 && b.dim_size(0) >= 0 && b.dim_size(0) != channels))) {
      return false;
    }
    p->bias_node = next;
    p->bias = bias;
    return true;
  }
  if (!next->IsOp("Add") && !next->IsOp("AddV2")) return false;
  // x + c with c a 1-D Const of x's last dimension
  // broadcasts c along that dimension only, which is BiasAdd exactly; the
  // rank and last dimension must be known to be sure of it.
  const Edge* bias = InputEdge(*next, 1 - out.dst_input);
  if (bias == nullptr || !bias->src->IsConstant() || channels < 0) {
    return false;
  }
  const PartialTensorShape b = bias->src->output_shape(bias->src_output);
  if (b.dims() != 1 || b.dim_size(0) != channels) return false;
  p->bias_node = next;
  p->bias = bias;
  return true;
}

bool Remapper::MatchBatchNorm(Node* bn, Pattern* p) {
  const Node& conv = *p->contraction;
  if (conv.IsOp("MatMul") || TypeAttr(conv) != DT_FLOAT ||
      TypeAttr(*bn) != DT_FLOAT) {
    return false;
  }
  if (!bn->IsOp("FusedBatchNorm") && TypeAttr(*bn, "U") != DT_FLOAT) {
    return false;
  }
  const AttrSlice attrs(bn->def());
  bool is_training = true;
  float epsilon = 0;
  if (!TryGetNodeAttr(attrs, "is_training", &is_training) || is_training ||
      !TryGetNodeAttr(attrs, "epsilon", &epsilon) ||
      GetNodeAttrString(attrs, "data_format") != "NHWC") {
    return false;
  }
  const Edge* filter_edge = InputEdge(conv, 1);
  Tensor filter;
  if (filter_edge == nullptr || !ConstValue(*filter_edge->src, &filter) ||
      filter.dtype() != DT_FLOAT || filter.dims() != 4) {
    return false;
  }
  // Output channels: the filter's last dimension, or for a depthwise
  // filter [H, W, in, multiplier] channel i * multiplier + m, so in both
  // cases the filter's flat index modulo the channel count.
  const int64_t channels = conv.IsOp("DepthwiseConv2dNative")
                               ? filter.dim_size(2) * filter.dim_size(3)
                               : filter.dim_size(3);
  Tensor params[4];  // scale, offset, mean, variance
  for (int i = 0; i < 4; ++i) {
    const Edge* e = InputEdge(*bn, i + 1);
    if (e == nullptr || !ConstValue(*e->src, &params[i]) ||
        params[i].dtype() != DT_FLOAT || params[i].dims() != 1 ||
        params[i].dim_size(0) != channels) {
      return false;
    }
  }
  if (channels == 0) return false;
  const float* scale = params[0].base<const float>();
  const float* offset = params[1].base<const float>();
  const float* mean = params[2].base<const float>();
  const float* variance = params[3].base<const float>();
  std::vector<double> s(channels);
  for (int64_t c = 0; c < channels; ++c) {
    s[c] = scale[c] / std::sqrt(static_cast<double>(variance[c]) + epsilon);
  }
  p->folded_filter = Tensor(DT_FLOAT, filter.shape());
  const float* f = filter.base<const float>();
  float* folded = p->folded_filter.base<float>();
  for (int64_t i = 0; i < filter.NumElements(); ++i) {
    folded[i] = static_cast<float>(f[i] * s[i % channels]);
  }
  p->folded_bias = Tensor(DT_FLOAT, TensorShape({channels}));
  float* bias = p->folded_bias.base<float>();
  for (int64_t c = 0; c < channels; ++c) {
    bias[c] = static_cast<float>(offset[c] - mean[c] * s[c]);
  }
  p->bias_node = bn;
  p->batch_norm = true;
  return true;
}

std::string UniqueName(const Graph& graph, const std::string& base) {
  std::string name = base;
  for (int i = 1; graph.FindNodeByName(name) != nullptr; ++i) {
    name = absl::StrCat(base, "_", i);
  }
  return name;
}

StatusOr<Node*> Remapper::AddConst(const std::string& base, const Tensor& value,
                                   const std::string& device) {
  NodeDef def;
  def.set_name(UniqueName(*graph_, base));
  def.set_op("Const");
  def.set_device(device);
  AddNodeAttr("dtype", value.dtype(), &def);
  AttrValue proto;
  value.AsProtoTensorContent(proto.mutable_tensor());
  AddNodeAttr("value", proto, &def);
  MF_ASSIGN_OR_RETURN(Node * c, graph_->AddNode(std::move(def)));
  c->set_output_shapes({PartialTensorShape(value.shape())});
  return c;
}

// The fused op's NodeDef, without inputs, from the pattern's attrs.
NodeDef FusedNodeDef(const Pattern& p) {
  const Node& c = *p.contraction;
  NodeDef def;
  def.set_name(p.last()->name());
  def.set_device(p.last()->requested_device());
  const DataType t = TypeAttr(c);
  AddNodeAttr("T", t, &def);
  auto copy = [&](const char* name) {
    auto it = c.def().attr().find(name);
    if (it != c.def().attr().end()) (*def.mutable_attr())[name] = it->second;
  };
  if (c.IsOp("MatMul")) {
    def.set_op("_FusedMatMul");
    copy("transpose_a");
    copy("transpose_b");
  } else {
    def.set_op(c.IsOp("Conv2D") ? "_FusedConv2D"
                                : "_FusedDepthwiseConv2dNative");
    for (const char* name :
         {"strides", "padding", "data_format", "dilations"}) {
      copy(name);
    }
    if (c.IsOp("Conv2D")) {
      copy("explicit_paddings");
      copy("use_cudnn_on_gpu");
      AddNodeAttr("TArgs", DataTypeVector{t}, &def);
    }
  }
  AddNodeAttr("num_args", int64_t{1}, &def);
  std::vector<std::string> fused_ops = {kBiasAdd};
  if (p.activation != nullptr) {
    fused_ops.push_back(p.activation->type_string());
    float alpha = 0;
    if (TryGetNodeAttr(AttrSlice(p.activation->def()), "alpha", &alpha)) {
      AddNodeAttr("leakyrelu_alpha", alpha, &def);
    }
  }
  AddNodeAttr("fused_ops", fused_ops, &def);
  return def;
}

Status Remapper::Rewrite(const Pattern& p) {
  Node* last = p.last();
  const std::string device = last->requested_device();
  NodeDef def = FusedNodeDef(p);
  const OpDef* op_def = nullptr;
  MF_RETURN_IF_ERROR(graph_->op_registry()->LookUpOpDef(def.op(), &op_def));
  AddDefaultsToNodeDef(*op_def, &def);
  // The pattern stays when the CPU has no kernel for the result (a dtype
  // the fused kernel lacks).
  if (!KernelDefAvailable(DEVICE_CPU, def)) return OkStatus();

  std::vector<Node*> removed = {p.contraction, p.bias_node};
  if (p.activation != nullptr) removed.push_back(p.activation);
  const Edge* input = InputEdge(*p.contraction, 0);
  const Edge* filter = InputEdge(*p.contraction, 1);
  if (input == nullptr || filter == nullptr) return OkStatus();
  std::pair<Node*, int> inputs[3] = {{input->src, input->src_output},
                                     {filter->src, filter->src_output},
                                     {nullptr, 0}};
  // Nodes the fused node must wait for: the removed nodes' control inputs.
  std::vector<Node*> waits;
  absl::flat_hash_set<Node*> seen;
  auto wait_for_controls_of = [&](const Node& n, std::vector<Node*>* out) {
    for (const Edge* e : n.in_edges()) {
      if (e->IsControlEdge() && seen.insert(e->src).second) {
        out->push_back(e->src);
      }
    }
  };
  for (const Node* n : removed) wait_for_controls_of(*n, &waits);

  std::vector<Node*> folded_sources;  // the batch norm's Consts
  if (p.batch_norm) {
    folded_sources.push_back(filter->src);
    for (int i = 1; i <= 4; ++i) {
      folded_sources.push_back(InputEdge(*p.bias_node, i)->src);
    }
    // The new Consts wait for what the old ones waited for (a Const in a
    // loop body waits for the loop's pivot: that puts it in the frame).
    std::vector<Node*> const_waits;
    seen.clear();
    for (const Node* src : folded_sources) {
      wait_for_controls_of(*src, &const_waits);
    }
    MF_ASSIGN_OR_RETURN(
        Node * new_filter,
        AddConst(absl::StrCat(p.contraction->name(), "/folded_filter"),
                 p.folded_filter, device));
    MF_ASSIGN_OR_RETURN(
        Node * new_bias,
        AddConst(absl::StrCat(p.bias_node->name(), "/folded_bias"),
                 p.folded_bias, device));
    for (Node* w : const_waits) {
      graph_->AddControlEdge(w, new_filter);
      graph_->AddControlEdge(w, new_bias);
    }
    inputs[1] = {new_filter, 0};
    inputs[2] = {new_bias, 0};
  } else {
    inputs[2] = {p.bias->src, p.bias->src_output};
  }
  for (const auto& [src, port] : inputs) {
    def.add_input(port == 0 ? src->name()
                            : absl::StrCat(src->name(), ":", port));
  }

  // The consumers of the last node become the fused node's.
  struct Out {
    Node* dst;
    int dst_input;
  };
  std::vector<Out> outs;
  for (const Edge* e : last->out_edges()) {
    outs.push_back({e->dst, e->IsControlEdge() ? kControlSlot : e->dst_input});
  }
  const std::vector<PartialTensorShape> shapes = {last->output_shape(0)};
  for (Node* n : removed) graph_->RemoveNode(n);
  MF_ASSIGN_OR_RETURN(Node * fused, graph_->AddNode(std::move(def)));
  fused->set_output_shapes(shapes);
  for (int i = 0; i < 3; ++i) {
    graph_->AddEdge(inputs[i].first, inputs[i].second, fused, i);
  }
  for (Node* w : waits) graph_->AddControlEdge(w, fused);
  for (const Out& o : outs) {
    if (o.dst_input == kControlSlot) {
      graph_->AddControlEdge(fused, o.dst);
    } else {
      graph_->AddEdge(fused, 0, o.dst, o.dst_input);
    }
  }
  // Consts the folding replaced go when nothing else reads them.
  for (Node* src : folded_sources) {
    if (graph_->FindNodeId(src->id()) == src && src->out_edges().empty() &&
        !context_.preserved_nodes.contains(src->name())) {
      graph_->RemoveNode(src);
    }
  }
  return OkStatus();
}

Status RemapperPass::Run(const GraphOptimizationContext& context,
                         Graph* graph) const {
  return Remapper(context, graph).Run();
}

}  // namespace

REGISTER_GRAPH_OPTIMIZATION(kPrePlacement, 40, RemapperPass);

}  // namespace minflow
