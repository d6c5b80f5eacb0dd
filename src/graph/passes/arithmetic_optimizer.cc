// arithmetic_optimizer: removes arithmetic that leaves its input unchanged
// (x*1, x+0, a Transpose undone by the next, a Reshape to the shape it
// already has, a Cast to the same type, Neg(Neg(x)), a Pad by zeros...) and
// merges chains of Transposes and Reshapes, before placement and after
// constant folding. See Note [Arithmetic simplifications].
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "minflow/framework/attr_value_util.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/optimization_registry.h"
#include "minflow/graph/subgraph.h"
#include "minflow/node_def.pb.h"
#include "minflow/tensor.pb.h"

namespace minflow {

// Note [Arithmetic simplifications]
// Every rewrite either makes a node's consumers read one of its inputs, x,
// directly (the node goes), or makes a node read past a producer it no
// longer needs (Reshape(Reshape(x)) reads x). Each fires only when it is
// exact:
//  - The result has x's dtype and x's shape for every shape x may have at
//    run time: a constant operand may broadcast into x but never widen it
//    (x[3] * ones[2,3] stays), and the shape rules read only what the
//    refiner knows for sure (a Reshape to [-1,3] of x[?,3] goes, one of
//    x[?,?] stays).
//  - Values are bit for bit the same, except that x + 0 turns -0 into +0,
//    as TensorFlow's optimizers accept. x * 0 is not rewritten: for floats
//    it is NaN where x is Inf or NaN. Cast(Cast(x)) goes only when the
//    first cast widens to a type that holds every value of x exactly.
//  - Whatever the removed nodes waited for (their control inputs and those
//    of the constants they read), the nodes that read them now wait for,
//    and what waited for a removed node by a control edge waits for x's
//    producer too. This keeps every ordering, and keeps deadness inside
//    TF1 conditionals (a branch's constants wait on the branch's pivot).
//    A control edge into a control-flow op (a Merge, an Exit) or out of one
//    (a Switch's control edge is live on both branches) would change what
//    it means, so such rewrites do not fire.
//  - Nothing preserved (feeds, fetches, targets) is rewritten or removed,
//    nor anything stateful or with a ref-typed input or output, nor a node
//    whose requested device differs from that of the node it is replaced
//    by or reads past.
// Nodes are visited in topological order, so a chain (Neg(Neg(Neg(Neg(x)))),
// three Transposes) collapses in one run. Data edges never cross frames by
// these rewrites: x feeds the removed node, so it is in the frame of the
// removed node's consumers.

namespace {

class ArithmeticOptimizerPass : public GraphOptimizationPass {
 public:
  absl::string_view name() const override { return "arithmetic_optimizer"; }
  absl::string_view preserves() const override {
    return "the value, dtype and shape of every fetched tensor (but the "
           "sign of a zero added to +0); every stateful node, target, feed "
           "and fetch; the order control edges impose";
  }
  bool EnabledBy(const RewriterConfig& config) const override {
    return config.arithmetic_optimization() != RewriterConfig::OFF;
  }
  Status Run(const GraphOptimizationContext& context,
             Graph* graph) const override;
};

// One output of a node.
struct Output {
  Node* node = nullptr;
  int port = 0;
};

std::string UniqueName(const Graph& graph, const std::string& base) {
  std::string name = base;
  for (int i = 1; graph.FindNodeByName(name) != nullptr; ++i) {
    name = absl::StrCat(base, "_", i);
  }
  return name;
}

bool IsRealNumberType(DataType t) {
  switch (t) {
    case DT_FLOAT:
    case DT_DOUBLE:
    case DT_HALF:
    case DT_BFLOAT16:
    case DT_INT8:
    case DT_INT16:
    case DT_INT32:
    case DT_INT64:
    case DT_UINT8:
    case DT_UINT16:
    case DT_UINT32:
    case DT_UINT64:
      return true;
    default:
      return false;
  }
}

template <typename T>
bool AllElementsAreT(const Tensor& t, int value) {
  const auto flat = t.flat<T>();
  const T v = static_cast<T>(value);
  for (int64_t i = 0; i < flat.size(); ++i) {
    if (!(flat(i) == v)) return false;
  }
  return true;
}

// Whether every element of `t` is `value` (0 or 1); real numbers only.
bool AllElementsAre(const Tensor& t, int value) {
  switch (t.dtype()) {
#define MF_ALL_ELEMENTS_CASE(ENUM) \
  case ENUM:                       \
    return AllElementsAreT<EnumToDataType<ENUM>::Type>(t, value);
    MF_ALL_ELEMENTS_CASE(DT_FLOAT)
    MF_ALL_ELEMENTS_CASE(DT_DOUBLE)
    MF_ALL_ELEMENTS_CASE(DT_HALF)
    MF_ALL_ELEMENTS_CASE(DT_BFLOAT16)
    MF_ALL_ELEMENTS_CASE(DT_INT8)
    MF_ALL_ELEMENTS_CASE(DT_INT16)
    MF_ALL_ELEMENTS_CASE(DT_INT32)
    MF_ALL_ELEMENTS_CASE(DT_INT64)
    MF_ALL_ELEMENTS_CASE(DT_UINT8)
    MF_ALL_ELEMENTS_CASE(DT_UINT16)
    MF_ALL_ELEMENTS_CASE(DT_UINT32)
    MF_ALL_ELEMENTS_CASE(DT_UINT64)
#undef MF_ALL_ELEMENTS_CASE
    default:
      return false;
  }
}

// Whether Cast(Cast(x, from -> to), to -> from) is x for every x: `to`
// holds every value of `from` exactly.
bool CastRoundTripsExactly(DataType from, DataType to) {
  auto in = [to](std::initializer_list<DataType> types) {
    for (DataType t : types) {
      if (t == to) return true;
    }
    return false;
  };
  switch (from) {
    case DT_BOOL:
      // true and false become 1 and 0, and come back as x != 0.
      return IsRealNumberType(to);
    case DT_INT8:
      return in({DT_INT16, DT_INT32, DT_INT64, DT_HALF, DT_BFLOAT16, DT_FLOAT,
                 DT_DOUBLE});
    case DT_UINT8:
      return in({DT_INT16, DT_UINT16, DT_INT32, DT_UINT32, DT_INT64, DT_UINT64,
                 DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE});
    case DT_INT16:
      return in({DT_INT32, DT_INT64, DT_FLOAT, DT_DOUBLE});
    case DT_UINT16:
      return in(
          {DT_INT32, DT_UINT32, DT_INT64, DT_UINT64, DT_FLOAT, DT_DOUBLE});
    case DT_INT32:
      return in({DT_INT64, DT_DOUBLE});
    case DT_UINT32:
      return in({DT_INT64, DT_UINT64, DT_DOUBLE});
    case DT_HALF:
    case DT_BFLOAT16:
      return in({DT_FLOAT, DT_DOUBLE});
    case DT_FLOAT:
      return to == DT_DOUBLE;
    default:
      return false;
  }
}

// Runs the rewrites over one graph.
class Simplifier {
 public:
  Simplifier(const GraphOptimizationContext& context, Graph* graph)
      : context_(context), graph_(graph), keep_(NodesToKeep(context, *graph)) {}

  Status Run();

 private:
  // Each returns whether it changed the graph; `n` may be gone then.
  bool SimplifyBinaryWithIdentityElement(Node* n);
  bool SimplifyInvolution(Node* n);
  bool SimplifyTranspose(Node* n);
  bool SimplifyReshape(Node* n);
  bool SimplifySqueeze(Node* n);
  bool SimplifyCast(Node* n);
  bool SimplifyCopyLikeOp(Node* n);
  bool SimplifyStridedSlice(Node* n);

  // Whether `n` may be rewritten at all.
  bool Rewritable(const Node& n) const;
  // The producer of data input `index` of `n`.
  Output Input(const Node& n, int index) const;
  // `n`'s producer of input `index` when it is a `op` node that may be
  // rewritten and has `n`'s requested device; else null.
  Node* InputOp(const Node& n, int index, absl::string_view op) const;
  // The value of a Const node (decoded once), or null.
  const Tensor* ConstValue(const Node* n);
  // The value of data input `index` of `n` when a Const produces it.
  const Tensor* ConstInput(const Node& n, int index, Node** producer);
  // The elements of an integer Const input of rank `rank` (any when -1),
  // as int64.
  bool IntsInput(const Node& n, int index, int rank, Node** producer,
                 std::vector<int64_t>* values);

  // Makes every consumer of `n` read `x` instead and removes `n`, then
  // whatever of `bypassed` (nodes `n` read past) nothing reads any more;
  // moves control edges as Note [Arithmetic simplifications] says. Returns
  // false, changing nothing, when that is not safe.
  bool ReplaceWith(Node* n, Output x, const std::vector<Node*>& bypassed);
  // Makes `n`'s input `index` read `src`; `n` then waits for what
  // `bypassed` waited for. `bypassed` go when nothing reads them.
  bool RewireInput(Node* n, int index, Output src,
                   const std::vector<Node*>& bypassed);
  // The sources of the control edges into `nodes`, each once.
  static std::vector<Node*> ControlSources(const std::vector<Node*>& nodes);
  // Removes `n` if nothing reads it and it may go; then its inputs the same
  // way.
  void RemoveIfUnused(Node* n);

  const GraphOptimizationContext& context_;
  Graph* graph_;
  // Preserved nodes and colocation targets.
  const absl::flat_hash_set<std::string> keep_;
  absl::flat_hash_map<int, Tensor> values_;
  absl::flat_hash_set<int> not_constant_;
};

bool Simplifier::Rewritable(const Node& n) const {
  if (n.IsStateful() || n.IsControlFlow() || n.IsOp(kArgOp) ||
      n.IsOp(kRetvalOp) || keep_.contains(n.name())) {
    return false;
  }
  for (DataType t : n.input_types()) {
    if (IsRefType(t)) return false;
  }
  for (DataType t : n.output_types()) {
    if (IsRefType(t)) return false;
  }
  return true;
}

Output Simplifier::Input(const Node& n, int index) const {
  const Edge* e = nullptr;
  if (!n.input_edge(index, &e).ok()) return Output();
  return Output{e->src, e->src_output};
}

Node* Simplifier::InputOp(const Node& n, int index,
                          absl::string_view op) const {
  Output in = Input(n, index);
  if (in.node == nullptr || !in.node->IsOp(op) || !Rewritable(*in.node) ||
      in.node->requested_device() != n.requested_device()) {
    return nullptr;
  }
  return in.node;
}

const Tensor* Simplifier::ConstValue(const Node* n) {
  if (!n->IsConstant() || not_constant_.contains(n->id())) return nullptr;
  auto it = values_.find(n->id());
  if (it != values_.end()) return &it->second;
  const TensorProto* proto = nullptr;
  Tensor t;
  if (!TryGetNodeAttr(AttrSlice(n->def()), "value", &proto) ||
      !TensorFromProto(*proto, &t).ok()) {
    not_constant_.insert(n->id());
    return nullptr;
  }
  return &values_.emplace(n->id(), std::move(t)).first->second;
}

const Tensor* Simplifier::ConstInput(const Node& n, int index,
                                     Node** producer) {
  Output in = Input(n, index);
  if (in.node == nullptr) return nullptr;
  *producer = in.node;
  return ConstValue(in.node);
}

bool Simplifier::IntsInput(const Node& n, int index, int rank, Node** producer,
                           std::vector<int64_t>* values) {
  const Tensor* t = ConstInput(n, index, producer);
  if (t == nullptr || (rank >= 0 && t->dims() != rank)) return false;
  values->clear();
  if (t->dtype() == DT_INT32) {
    for (int64_t i = 0; i < t->NumElements(); ++i) {
      values->push_back(t->flat<int32_t>()(i));
    }
  } else if (t->dtype() == DT_INT64) {
    for (int64_t i = 0; i < t->NumElements(); ++i) {
      values->push_back(t->flat<int64_t>()(i));
    }
  } else {
    return false;
  }
  return true;
}

std::vector<Node*> Simplifier::ControlSources(const std::vector<Node*>& nodes) {
  std::vector<Node*> sources;
  absl::flat_hash_set<int> seen;
  for (const Node* n : nodes) {
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge() && seen.insert(e->src->id()).second) {
        sources.push_back(e->src);
      }
    }
  }
  return sources;
}

bool Simplifier::ReplaceWith(Node* n, Output x,
                             const std::vector<Node*>& bypassed) {
  if (x.node == nullptr || !Rewritable(*n) || n->out_edges().empty() ||
      n->num_outputs() != 1 ||
      BaseType(n->output_type(0)) != x.node->output_type(x.port) ||
      n->requested_device() != x.node->requested_device()) {
    return false;
  }
  std::vector<Node*> waited = bypassed;
  waited.push_back(n);
  const std::vector<Node*> controls = ControlSources(waited);
  for (const Edge* e : n->out_edges()) {
    if (!controls.empty() && e->dst->IsControlFlow()) return false;
    if (e->IsControlEdge() && x.node->IsControlFlow()) return false;
  }
  const std::vector<const Edge*> out = n->out_edges();
  for (const Edge* e : out) {
    Node* dst = e->dst;
    if (e->IsControlEdge()) {
      graph_->AddControlEdge(x.node, dst);
    } else {
      const int dst_input = e->dst_input;
      graph_->RemoveEdge(e);
      graph_->AddEdge(x.node, x.port, dst, dst_input);
    }
    for (Node* c : controls) graph_->AddControlEdge(c, dst);
  }
  std::vector<Node*> inputs = bypassed;
  for (const Edge* e : n->in_edges()) inputs.push_back(e->src);
  graph_->RemoveNode(n);
  for (Node* in : inputs) RemoveIfUnused(in);
  return true;
}

bool Simplifier::RewireInput(Node* n, int index, Output src,
                             const std::vector<Node*>& bypassed) {
  const Edge* old = nullptr;
  if (src.node == nullptr || !n->input_edge(index, &old).ok() ||
      src.node->output_type(src.port) != n->input_type(index)) {
    return false;
  }
  Node* old_src = old->src;
  const std::vector<Node*> controls = ControlSources(bypassed);
  graph_->RemoveEdge(old);
  graph_->AddEdge(src.node, src.port, n, index);
  for (Node* c : controls) graph_->AddControlEdge(c, n);
  RemoveIfUnused(old_src);
  for (Node* b : bypassed) RemoveIfUnused(b);
  return true;
}

void Simplifier::RemoveIfUnused(Node* n) {
  std::vector<Node*> work = {n};
  while (!work.empty()) {
    Node* m = work.back();
    work.pop_back();
    if (graph_->FindNodeId(m->id()) != m || !m->out_edges().empty() ||
        m->num_outputs() == 0 || !Rewritable(*m)) {
      continue;
    }
    for (const Edge* e : m->in_edges()) work.push_back(e->src);
    values_.erase(m->id());
    graph_->RemoveNode(m);
  }
}

// Whether `c`, broadcast against `x`, leaves x's shape as it is: every dim
// of `c` is 1 or one that x surely has.
bool BroadcastsInto(const TensorShape& c, const PartialTensorShape& x) {
  if (c.dims() == 0) return true;
  if (x.unknown_rank() || c.dims() > x.dims()) return false;
  const int offset = x.dims() - c.dims();
  for (int i = 0; i < c.dims(); ++i) {
    if (c.dim_size(i) != 1 && c.dim_size(i) != x.dim_size(offset + i)) {
      return false;
    }
  }
  return true;
}

bool Simplifier::SimplifyBinaryWithIdentityElement(Node* n) {
  // (op, which inputs may be the constant, the identity element).
  const bool mul = n->IsOp("Mul");
  const bool add = n->IsOp("Add") || n->IsOp("AddV2");
  const bool right_only_one = n->IsOp("Div") || n->IsOp("RealDiv");
  const bool right_only_zero = n->IsOp("Sub") || n->IsOp("BiasAdd");
  if (!mul && !add && !right_only_one && !right_only_zero) return false;
  if (n->num_inputs() != 2) return false;
  const int element = mul || right_only_one ? 1 : 0;
  for (int c = (mul || add) ? 0 : 1; c < 2; ++c) {
    Node* constant = nullptr;
    const Tensor* value = ConstInput(*n, c, &constant);
    if (value == nullptr || !AllElementsAre(*value, element)) continue;
    const Output x = Input(*n, 1 - c);
    if (x.node == nullptr) continue;
    // BiasAdd's bias has the size of x's channel dimension: it never
    // broadcasts x up.
    if (!n->IsOp("BiasAdd") &&
        !BroadcastsInto(value->shape(), x.node->output_shape(x.port))) {
      continue;
    }
    return ReplaceWith(n, x, {constant});
  }
  return false;
}

bool Simplifier::SimplifyInvolution(Node* n) {
  if (!n->IsOp("Neg") && !n->IsOp("LogicalNot")) return false;
  Node* inner = InputOp(*n, 0, n->type_string());
  if (inner == nullptr) return false;
  return ReplaceWith(n, Input(*inner, 0), {inner});
}

bool IsPermutation(const std::vector<int64_t>& perm) {
  std::vector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm.size()) || seen[p]) {
      return false;
    }
    seen[p] = true;
  }
  return true;
}

bool IsIdentityPermutation(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

bool Simplifier::SimplifyTranspose(Node* n) {
  if (!n->IsOp("Transpose")) return false;
  Node* perm_node = nullptr;
  std::vector<int64_t> perm;
  if (!IntsInput(*n, 1, 1, &perm_node, &perm) || !IsPermutation(perm)) {
    return false;
  }
  if (IsIdentityPermutation(perm)) {
    return ReplaceWith(n, Input(*n, 0), {perm_node});
  }
  Node* inner = InputOp(*n, 0, "Transpose");
  Node* inner_perm_node = nullptr;
  std::vector<int64_t> inner_perm;
  if (inner == nullptr ||
      !IntsInput(*inner, 1, 1, &inner_perm_node, &inner_perm) ||
      inner_perm.size() != perm.size() || !IsPermutation(inner_perm)) {
    return false;
  }
  // Output dim i of the pair is dim perm[i] of the inner transpose, which is
  // dim inner_perm[perm[i]] of x.
  std::vector<int64_t> composed(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) composed[i] = inner_perm[perm[i]];
  const Output x = Input(*inner, 0);
  if (IsIdentityPermutation(composed)) {
    return ReplaceWith(n, x, {inner, inner_perm_node, perm_node});
  }
  if (!Rewritable(*n) || x.node == nullptr ||
      x.node->output_type(x.port) != n->input_type(0)) {
    return false;
  }
  // One Transpose by the composed permutation; the new constant waits for
  // what the old one did, which keeps it in the same frame.
  const DataType tperm = n->input_type(1);
  Tensor value(tperm, TensorShape({static_cast<int64_t>(composed.size())}));
  for (size_t i = 0; i < composed.size(); ++i) {
    if (tperm == DT_INT32) {
      value.flat<int32_t>()(i) = static_cast<int32_t>(composed[i]);
    } else {
      value.flat<int64_t>()(i) = composed[i];
    }
  }
  NodeDef def;
  def.set_name(UniqueName(*graph_, n->name() + "/perm"));
  def.set_op("Const");
  def.set_device(n->requested_device());
  AddNodeAttr("dtype", tperm, &def);
  AttrValue attr;
  value.AsProtoTensorContent(attr.mutable_tensor());
  AddNodeAttr("value", attr, &def);
  StatusOr<Node*> added = graph_->AddNode(std::move(def));
  if (!added.ok()) return false;
  Node* new_perm = *added;
  new_perm->set_output_shapes({PartialTensorShape(value.shape())});
  for (Node* c : ControlSources({perm_node})) {
    graph_->AddControlEdge(c, new_perm);
  }
  values_.emplace(new_perm->id(), std::move(value));
  // n stops waiting for inner: it waits for what inner waited for.
  const std::vector<Node*> controls = ControlSources({inner, inner_perm_node});
  for (int i = 0; i < 2; ++i) {
    const Edge* e = nullptr;
    if (n->input_edge(i, &e).ok()) graph_->RemoveEdge(e);
  }
  graph_->AddEdge(x.node, x.port, n, 0);
  graph_->AddEdge(new_perm, 0, n, 1);
  for (Node* c : controls) graph_->AddControlEdge(c, n);
  for (Node* m : {inner, inner_perm_node, perm_node}) RemoveIfUnused(m);
  return true;
}

// Whether a Reshape of a tensor of shape `x` to `shape` surely gives `x`.
bool ReshapeKeepsShape(const PartialTensorShape& x,
                       const std::vector<int64_t>& shape) {
  if (x.unknown_rank() || x.dims() != static_cast<int>(shape.size())) {
    return false;
  }
  int inferred = 0;
  for (int i = 0; i < x.dims(); ++i) {
    if (shape[i] == -1) {
      ++inferred;
    } else if (shape[i] != x.dim_size(i) || shape[i] == 0) {
      // A zero dim would leave a -1 nothing to infer from (an error).
      return false;
    }
  }
  if (inferred > 1) return false;
  // With one -1, the other dims are x's, so it is inferred as x's own dim,
  // known or not.
  return true;
}

bool Simplifier::SimplifyReshape(Node* n) {
  if (!n->IsOp("Reshape")) return false;
  Node* shape_node = nullptr;
  std::vector<int64_t> shape;
  const Output in = Input(*n, 0);
  if (in.node == nullptr) return false;
  if (IntsInput(*n, 1, 1, &shape_node, &shape) &&
      ReshapeKeepsShape(in.node->output_shape(in.port), shape) &&
      ReplaceWith(n, in, {shape_node})) {
    return true;
  }
  // A Reshape of a Reshape or an ExpandDims (neither moves an element)
  // reshapes their input directly.
  Node* inner = InputOp(*n, 0, "Reshape");
  if (inner == nullptr) inner = InputOp(*n, 0, "ExpandDims");
  if (inner == nullptr || !Rewritable(*n)) return false;
  const Output inner_shape = Input(*inner, 1);
  if (inner_shape.node == nullptr || ConstValue(inner_shape.node) == nullptr) {
    return false;
  }
  return RewireInput(n, 0, Input(*inner, 0), {inner, inner_shape.node});
}

bool Simplifier::SimplifySqueeze(Node* n) {
  if (!n->IsOp("Squeeze")) return false;
  std::vector<int64_t> dims;
  if (!GetNodeAttr(AttrSlice(n->def()), "squeeze_dims", &dims).ok()) {
    return false;
  }
  const Output in = Input(*n, 0);
  if (in.node == nullptr) return false;
  const PartialTensorShape x = in.node->output_shape(in.port);
  if (dims.empty()) {
    // Squeezes every dim of size 1: none when every dim is known and not 1.
    if (!x.IsFullyDefined()) return false;
    for (int i = 0; i < x.dims(); ++i) {
      if (x.dim_size(i) == 1) return false;
    }
    return ReplaceWith(n, in, {});
  }
  // Squeeze(ExpandDims(y, axis), [axis]) is y.
  Node* inner = InputOp(*n, 0, "ExpandDims");
  if (inner == nullptr || dims.size() != 1 || x.unknown_rank()) return false;
  Node* axis_node = nullptr;
  std::vector<int64_t> axis;
  if (!IntsInput(*inner, 1, -1, &axis_node, &axis) || axis.size() != 1) {
    return false;
  }
  const int rank = x.dims();  // the ExpandDims' output rank
  const int64_t a = axis[0] < 0 ? axis[0] + rank : axis[0];
  const int64_t d = dims[0] < 0 ? dims[0] + rank : dims[0];
  if (a < 0 || a >= rank || a != d) return false;
  return ReplaceWith(n, Input(*inner, 0), {inner, axis_node});
}

bool Simplifier::SimplifyCast(Node* n) {
  if (!n->IsOp("Cast")) return false;
  DataType src = DT_INVALID;
  DataType dst = DT_INVALID;
  if (!GetNodeAttr(AttrSlice(n->def()), "SrcT", &src).ok() ||
      !GetNodeAttr(AttrSlice(n->def()), "DstT", &dst).ok()) {
    return false;
  }
  if (src == dst) return ReplaceWith(n, Input(*n, 0), {});
  Node* inner = InputOp(*n, 0, "Cast");
  DataType first = DT_INVALID;
  if (inner == nullptr ||
      !GetNodeAttr(AttrSlice(inner->def()), "SrcT", &first).ok() ||
      first != dst || !CastRoundTripsExactly(first, src)) {
    return false;
  }
  return ReplaceWith(n, Input(*inner, 0), {inner});
}

bool AllAre(const std::vector<int64_t>& values, int64_t v) {
  for (int64_t x : values) {
    if (x != v) return false;
  }
  return true;
}

// Ops that return their input when their constant operands say so.
bool Simplifier::SimplifyCopyLikeOp(Node* n) {
  if (n->IsOp("AddN") && n->num_inputs() == 1) {
    return ReplaceWith(n, Input(*n, 0), {});
  }
  std::vector<int64_t> values;
  Node* c = nullptr;
  if (n->IsOp("Pad") || n->IsOp("MirrorPad")) {
    if (!IntsInput(*n, 1, 2, &c, &values) || !AllAre(values, 0)) return false;
    return ReplaceWith(n, Input(*n, 0), {c});
  }
  if (n->IsOp("PadV2")) {
    Node* fill = nullptr;
    if (!IntsInput(*n, 1, 2, &c, &values) || !AllAre(values, 0) ||
        ConstInput(*n, 2, &fill) == nullptr) {
      return false;
    }
    return ReplaceWith(n, Input(*n, 0), {c, fill});
  }
  if (n->IsOp("Tile")) {
    if (!IntsInput(*n, 1, 1, &c, &values) || !AllAre(values, 1)) return false;
    return ReplaceWith(n, Input(*n, 0), {c});
  }
  if (n->IsOp("Slice")) {
    Node* size_node = nullptr;
    std::vector<int64_t> size;
    const Output x = Input(*n, 0);
    if (x.node == nullptr || !IntsInput(*n, 1, 1, &c, &values) ||
        !AllAre(values, 0) || !IntsInput(*n, 2, 1, &size_node, &size) ||
        values.size() != size.size()) {
      return false;
    }
    const PartialTensorShape shape = x.node->output_shape(x.port);
    if (shape.unknown_rank() || shape.dims() != static_cast<int>(size.size())) {
      return false;
    }
    for (int i = 0; i < shape.dims(); ++i) {
      if (size[i] != -1 && (size[i] != shape.dim_size(i) || size[i] < 0)) {
        return false;
      }
    }
    return ReplaceWith(n, x, {c, size_node});
  }
  return false;
}

bool Simplifier::SimplifyStridedSlice(Node* n) {
  if (!n->IsOp("StridedSlice")) return false;
  int64_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0,
          shrink_axis_mask = 0;
  const AttrSlice attrs(n->def());
  if (!GetNodeAttr(attrs, "begin_mask", &begin_mask).ok() ||
      !GetNodeAttr(attrs, "end_mask", &end_mask).ok() ||
      !GetNodeAttr(attrs, "ellipsis_mask", &ellipsis_mask).ok() ||
      !GetNodeAttr(attrs, "new_axis_mask", &new_axis_mask).ok() ||
      !GetNodeAttr(attrs, "shrink_axis_mask", &shrink_axis_mask).ok() ||
      ellipsis_mask != 0 || new_axis_mask != 0 || shrink_axis_mask != 0) {
    return false;
  }
  Node* begin_node = nullptr;
  Node* end_node = nullptr;
  Node* strides_node = nullptr;
  std::vector<int64_t> begin, end, strides;
  const Output x = Input(*n, 0);
  if (x.node == nullptr || !IntsInput(*n, 1, 1, &begin_node, &begin) ||
      !IntsInput(*n, 2, 1, &end_node, &end) ||
      !IntsInput(*n, 3, 1, &strides_node, &strides) ||
      begin.size() != end.size() || begin.size() != strides.size() ||
      !AllAre(strides, 1)) {
    return false;
  }
  const PartialTensorShape shape = x.node->output_shape(x.port);
  if (shape.unknown_rank() || static_cast<int>(begin.size()) > shape.dims()) {
    return false;
  }
  // Dims past the spec are taken whole; each in it must run from 0 (or the
  // masked start) to at least its known size (or the masked end).
  for (size_t i = 0; i < begin.size(); ++i) {
    const bool from_start = (begin_mask >> i & 1) != 0 || begin[i] == 0;
    const int64_t dim = shape.dim_size(static_cast<int>(i));
    const bool to_end = (end_mask >> i & 1) != 0 || (dim >= 0 && end[i] >= dim);
    if (!from_start || !to_end) return false;
  }
  return ReplaceWith(n, x, {begin_node, end_node, strides_node});
}

Status Simplifier::Run() {
  std::vector<Node*> order;
  MF_RETURN_IF_ERROR(TopologicalOrder(*graph_, &order));
  using Stage = bool (Simplifier::*)(Node*);
  static constexpr Stage kStages[] = {
      &Simplifier::SimplifyBinaryWithIdentityElement,
      &Simplifier::SimplifyInvolution,
      &Simplifier::SimplifyTranspose,
      &Simplifier::SimplifyReshape,
      &Simplifier::SimplifySqueeze,
      &Simplifier::SimplifyCast,
      &Simplifier::SimplifyCopyLikeOp,
      &Simplifier::SimplifyStridedSlice,
  };
  for (Node* n : order) {
    // A rewrite removes the nodes it made unused, some of them later in the
    // order: look each one up again.
    if (graph_->FindNodeId(n->id()) != n || !Rewritable(*n)) continue;
    for (Stage stage : kStages) {
      if ((this->*stage)(n)) break;
    }
  }
  return OkStatus();
}

Status ArithmeticOptimizerPass::Run(const GraphOptimizationContext& context,
                                    Graph* graph) const {
  Simplifier simplifier(context, graph);
  return simplifier.Run();
}

}  // namespace

REGISTER_GRAPH_OPTIMIZATION(kPrePlacement, 15, ArithmeticOptimizerPass);

}  // namespace minflow
