#include "minflow/graph/shape_refiner.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "minflow/framework/function.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/graph/constant_evaluator.h"
#include "minflow/graph/control_flow.h"
#include "minflow/graph/function_body.h"
#include "minflow/graph/graph.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"
#include "minflow/tensor.pb.h"

namespace minflow {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

// In inputs_scratch_: the input comes over a back edge whose source is not
// refined yet.
constexpr int kBackEdgeNotRefined = -2;

bool IsIntType(DataType t) { return t == DT_INT32 || t == DT_INT64; }

// An integer tensor's elements as int64.
std::vector<int64_t> IntValues(const Tensor& t) {
  std::vector<int64_t> out;
  if (t.dtype() == DT_INT32) {
    auto flat = t.flat<int32_t>();
    out.assign(flat.data(), flat.data() + flat.size());
  } else if (t.dtype() == DT_INT64) {
    auto flat = t.flat<int64_t>();
    out.assign(flat.data(), flat.data() + flat.size());
  }
  return out;
}

// A tensor of integer `dtype` and `shape` holding `values`; false when a
// value does not fit.
bool MakeIntTensor(DataType dtype, const TensorShape& shape,
                   const std::vector<int64_t>& values, Tensor* out) {
  Tensor t(dtype, shape);
  if (dtype == DT_INT32) {
    auto flat = t.flat<int32_t>();
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i] < std::numeric_limits<int32_t>::min() ||
          values[i] > std::numeric_limits<int32_t>::max()) {
        return false;
      }
      flat(i) = static_cast<int32_t>(values[i]);
    }
  } else {
    auto flat = t.flat<int64_t>();
    for (size_t i = 0; i < values.size(); ++i) flat(i) = values[i];
  }
  *out = std::move(t);
  return true;
}

// Note [Values through kernels]
// Shape functions read the values of small integer tensors (a Reshape's
// shape, a Fill's dims). Those values are computed by running the
// producing op's own CPU kernel (ConstantEvaluator) once all its inputs are
// known, so every op's semantics live in one place, its kernel. Shapes are
// often only partly known ([?, 3]), and TensorFlow still propagates their
// known elements through the ops that only move elements around (slice,
// stack, concatenate, reshape, gather, cast). Those ops get the same kernel
// run on stand-ins: each element of a partly known input is replaced by a
// distinct integer id, the kernel moves the ids, and each output id is
// mapped back to the element (a known or unknown dim) it stands for. The
// table below says which inputs of such ops carry elements; the others
// (begin, axis, indices) must be fully known.
struct ElementMovingOp {
  const char* op;
  int first;  // element-carrying inputs are [first, num_inputs - tail)
  int tail;
};
constexpr ElementMovingOp kElementMovingOps[] = {
    {"Identity", 0, 0}, {"StopGradient", 0, 0}, {"Snapshot", 0, 0},
    {"Cast", 0, 0},     {"ExpandDims", 0, 1},   {"Reshape", 0, 1},
    {"Squeeze", 0, 0},  {"StridedSlice", 0, 3}, {"Slice", 0, 2},
    {"Pack", 0, 0},     {"ConcatV2", 0, 1},     {"Concat", 1, 0},
    {"GatherV2", 0, 2}, {"Gather", 0, 1},       {"ReverseV2", 0, 1},
    {"Tile", 0, 1},
};

const ElementMovingOp* FindElementMovingOp(const std::string& op) {
  for (const ElementMovingOp& e : kElementMovingOps) {
    if (op == e.op) return &e;
  }
  return nullptr;
}

}  // namespace

struct ShapeRefiner::OutputInfo {
  ShapeHandle shape;
  DataType dtype = DT_INVALID;
  int value = -1;  // index into values_, or -1
  // Part of an integer value: a vector's elements as a shape's dims (rank
  // known), or for a scalar a one-dim shape holding it (`scalar`).
  ShapeHandle partial;
  bool scalar = false;
  // What a resource or variant output holds (a variable's dtype and shape,
  // a TensorList's elements), index into handle_data_, or -1.
  int handle = -1;
};

ShapeRefiner::ShapeRefiner(int graph_def_version,
                           const OpRegistryInterface* ops)
    : graph_def_version_(graph_def_version), ops_(ops) {}

ShapeRefiner::~ShapeRefiner() = default;

// A node missing attrs its op defaults gets a copy with them (the importer
// adds defaults, so copies are rare).
const NodeDef* ShapeRefiner::WithDefaults(const NodeDef& node_def,
                                          const OpRegistrationData& reg) {
  for (const OpDef_AttrDef& attr : reg.op_def.attr()) {
    if (attr.has_default_value() &&
        node_def.attr().find(attr.name()) == node_def.attr().end()) {
      defaulted_nodes_.push_back(node_def);
      AddDefaultsToNodeDef(reg.op_def, &defaulted_nodes_.back());
      return &defaulted_nodes_.back();
    }
  }
  return &node_def;
}

Status ShapeRefiner::RefineGraph(const Graph& graph) {
  return Refine(graph, nullptr);
}

Status ShapeRefiner::RefineGraphCollectingErrors(const Graph& graph,
                                                 std::vector<Status>* errors) {
  const size_t first_error = errors->size();
  Refine(graph, errors).IgnoreError();
  return errors->size() > first_error ? (*errors)[first_error] : OkStatus();
}

Status ShapeRefiner::AddNode(const Graph& graph, const Node& node) {
  MF_CHECK(graph_ == nullptr || graph_ == &graph)
      << "ShapeRefiner::AddNode: a refiner serves one graph";
  graph_ = &graph;
  const size_t n = graph.num_node_ids();
  if (first_output_.size() < n) {
    first_output_.resize(n, -1);
    num_outputs_.resize(n, 0);
  }
  MF_RETURN_IF_ERROR(RefineNode(node));
  ++num_refined_;
  return OkStatus();
}

// `errors` null: stop at the first error. Otherwise collect; see
// RefineGraphCollectingErrors.
Status ShapeRefiner::Refine(const Graph& graph, std::vector<Status>* errors) {
  graph_ = &graph;
  const int n = graph.num_node_ids();
  first_output_.assign(n, -1);
  num_outputs_.assign(n, 0);
  outputs_.clear();
  outputs_.reserve(graph.num_nodes());
  std::vector<Node*> order;
  // On a cycle, `order` still holds every node not on or after one.
  Status ordered = TopologicalOrder(graph, &order);
  if (!ordered.ok()) {
    if (errors == nullptr) return ordered;
    errors->push_back(std::move(ordered));
  }
  bool has_loops = false;
  for (const Node* node : order) {
    has_loops |= node->IsNextIteration();
    if (errors != nullptr && !DataInputsRefined(*node)) continue;
    Status refined = RefineNode(*node);
    if (!refined.ok()) {
      if (errors == nullptr) return refined;
      errors->push_back(std::move(refined));
      continue;
    }
    ++num_refined_;
  }
  if (has_loops) return RefineLoops(order, errors);
  return OkStatus();
}

namespace {

bool HasBackEdgeInput(const Node& node) {
  for (const Edge* e : node.in_edges()) {
    if (e->IsBackEdge()) return true;
  }
  return false;
}

}  // namespace

// Note [Loops]
// The first pass meets a TF1 loop's Merge before the NextIteration that
// feeds it back, and gives that input the entry's shape: as if every
// iteration kept the shapes the loop starts with. Later passes re-refine
// every node with the back edges' real shapes, and each such Merge's
// output is relaxed with what it was (a dim that differs becomes unknown,
// then the rank), until no Merge changes: loop variables whose shapes
// change across iterations end with the shape every iteration has.
// Relaxing only ever loses detail, so the passes end; past kMaxPasses the
// Merges that still move are given an unknown shape.
Status ShapeRefiner::RefineLoops(const std::vector<Node*>& order,
                                 std::vector<Status>* errors) {
  std::vector<const Node*> merges;
  for (const Node* node : order) {
    if (IsMergeOp(node->type_string()) && HasBackEdgeInput(*node) &&
        has_node(node->id())) {
      merges.push_back(node);
    }
  }
  constexpr int kMaxPasses = 32;
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    absl::flat_hash_map<int, PartialTensorShape> before;
    for (const Node* m : merges)
      before[m->id()] = OutputPartialShape(m->id(), 0);
    bool changed = false;
    for (const Node* node : order) {
      if (!has_node(node->id())) continue;  // left out in collecting mode
      Status refined = RefineNode(*node);
      if (!refined.ok()) {
        if (errors == nullptr) return refined;
        errors->push_back(std::move(refined));
        return OkStatus();
      }
      auto it = before.find(node->id());
      if (it == before.end()) continue;
      PartialTensorShape now = OutputPartialShape(node->id(), 0);
      // The last pass gives up on shapes that still move.
      PartialTensorShape relaxed = pass + 1 == kMaxPasses
                                       ? PartialTensorShape()
                                       : RelaxShape(it->second, now);
      if (!relaxed.IsIdenticalTo(now)) {
        outputs_[first_output_[node->id()]].shape = MakeShape(relaxed);
      }
      changed |= !relaxed.IsIdenticalTo(it->second);
    }
    if (!changed) break;
  }
  return OkStatus();
}

shape_inference::ShapeHandle ShapeRefiner::MakeShape(
    const PartialTensorShape& shape) {
  if (shape.unknown_rank()) return manager_.UnknownShape();
  std::vector<shape_inference::DimensionHandle> dims;
  for (int64_t d : shape.dim_sizes()) dims.push_back(manager_.MakeDim(d));
  return manager_.MakeShape(dims);
}

bool ShapeRefiner::DataInputsRefined(const Node& node) const {
  for (const Edge* e : node.in_edges()) {
    if (!e->IsControlEdge() && !e->IsBackEdge() &&
        first_output_[e->src->id()] < 0) {
      return false;
    }
  }
  return true;
}

void ShapeRefiner::AttachShapes(Graph* graph) const {
  for (Node* node : graph->nodes()) {
    if (!has_node(node->id())) continue;
    std::vector<PartialTensorShape> shapes;
    shapes.reserve(num_outputs_[node->id()]);
    for (int i = 0; i < num_outputs_[node->id()]; ++i) {
      shapes.push_back(OutputPartialShape(node->id(), i));
    }
    node->set_output_shapes(std::move(shapes));
  }
}

Status ShapeRefiner::RefineNode(const Node& node) {
  const NodeDef& raw = node.def();
  const OpRegistrationData* reg = nullptr;
  auto cached = op_cache_.find(raw.op());
  if (cached != op_cache_.end()) {
    reg = cached->second;
  } else {
    MF_RETURN_IF_ERROR(errors::AttachNodeContext(ops_->LookUp(raw.op(), &reg),
                                                 raw.name(), raw.op()));
    op_cache_.emplace(raw.op(), reg);
  }
  const NodeDef& def = *WithDefaults(raw, *reg);

  // The importer connects every data input exactly once, and checked its
  // port and dtype.
  const int num_inputs = node.num_inputs();
  inputs_scratch_.assign(num_inputs, {-1, 0});
  for (const Edge* e : node.in_edges()) {
    if (e->IsControlEdge()) continue;
    const bool unrefined_back_edge =
        e->IsBackEdge() && first_output_[e->src->id()] < 0;
    inputs_scratch_[e->dst_input] = {
        unrefined_back_edge ? kBackEdgeNotRefined : e->src->id(),
        e->src_output};
  }
  // Scratch kept across nodes: no allocation per node.
  std::vector<ShapeHandle>& input_shapes = scratch_shapes_;
  std::vector<const Tensor*>& input_tensors = scratch_tensors_;
  std::vector<ShapeHandle>& input_partials = scratch_partials_;
  input_shapes.assign(num_inputs, ShapeHandle());
  input_tensors.assign(num_inputs, nullptr);
  input_partials.assign(num_inputs, ShapeHandle());
  int back_edges = 0;
  absl::InlinedVector<std::pair<int, int>, 2> input_handles;
  for (int i = 0; i < num_inputs; ++i) {
    const auto [src, port] = inputs_scratch_[i];
    if (src == kBackEdgeNotRefined) {
      ++back_edges;  // see Note [Loops]
      continue;
    }
    if (src < 0 || first_output_[src] < 0) {
      return errors::AttachNodeContext(
          errors::Internal("Input ", i, " of node '", def.name(),
                           "' is not connected or not refined"),
          def.name(), def.op());
    }
    const OutputInfo& info = outputs_[first_output_[src] + port];
    input_shapes[i] = info.shape;
    if (info.handle >= 0) input_handles.emplace_back(i, info.handle);
    if (info.value >= 0) input_tensors[i] = &values_[info.value];
    // Shape functions read vectors as partial shapes; scalars they read
    // through input_tensor only.
    if (info.value < 0 && !info.scalar) input_partials[i] = info.partial;
  }

  if (back_edges > 0) {
    // A loop's back edge, from a NextIteration not refined yet: a Merge
    // first sees its entry's shape there (Note [Loops]); other nodes an
    // unknown shape.
    ShapeHandle entry = manager_.UnknownShape();
    if (IsMergeOp(def.op())) {
      for (int i = 0; i < num_inputs; ++i) {
        if (inputs_scratch_[i].first >= 0) {
          entry = input_shapes[i];
          break;
        }
      }
    }
    for (int i = 0; i < num_inputs; ++i) {
      if (inputs_scratch_[i].first == kBackEdgeNotRefined) {
        input_shapes[i] = entry;
      }
    }
  }

  InferenceContext c(graph_def_version_, def, reg->op_def, input_shapes,
                     input_tensors, input_partials, &manager_);
  for (const auto& [input, handle] : input_handles) {
    c.set_input_handle_shapes_and_types(input, handle_data_[handle]);
  }
  MF_RETURN_IF_ERROR(c.Run(reg->shape_inference_fn));
  if (def.op() == "_Arg" && !arg_shapes_.empty()) {
    int64_t index = -1;
    if (GetNodeAttr(AttrSlice(def), "index", &index).ok() && index >= 0 &&
        index < static_cast<int64_t>(arg_shapes_.size())) {
      c.set_output(0, MakeShape(arg_shapes_[index]));
    }
  } else if (RunsFunctions(*reg)) {
    std::vector<PartialTensorShape> shapes;
    bool handled = false;
    MF_RETURN_IF_ERROR(errors::AttachNodeContext(
        FunctionCallShapes(node, def, &shapes, &handled), def.name(),
        def.op()));
    for (size_t i = 0; handled && i < shapes.size(); ++i) {
      c.set_output(static_cast<int>(i), MakeShape(shapes[i]));
    }
  }
  const DataTypeVector& output_types = node.output_types();
  if (c.num_outputs() != static_cast<int>(output_types.size())) {
    return errors::AttachNodeContext(
        errors::Internal("Shape function gave ", c.num_outputs(),
                         " outputs but the node has ", output_types.size()),
        def.name(), def.op());
  }

  first_output_[node.id()] = static_cast<int>(outputs_.size());
  num_outputs_[node.id()] = c.num_outputs();
  for (int i = 0; i < c.num_outputs(); ++i) {
    OutputInfo info;
    info.shape = c.output(i);
    info.dtype = output_types[i];
    if (const auto* handle = c.output_handle_shapes_and_types(i)) {
      handle_data_.push_back(*handle);
      info.handle = static_cast<int>(handle_data_.size()) - 1;
    }
    outputs_.push_back(info);
  }
  if (!output_types.empty() && IsIntType(output_types[0])) {
    ComputeValues(node, def, &c);
  }
  return OkStatus();
}

// See Note [Values through kernels].
void ShapeRefiner::ComputeValues(const Node& node, const NodeDef& def,
                                 InferenceContext* c) {
  const std::string& op = def.op();
  // Values do not flow through control flow: a Merge's value depends on
  // which input is live, a loop's on its iteration.
  if (node.IsControlFlow()) return;
  const DataTypeVector& output_types = node.output_types();
  const DataType out_type = output_types[0];
  OutputInfo* out = &outputs_[first_output_[node.id()]];
  auto keep_value = [this](OutputInfo* info, Tensor t) {
    values_.push_back(std::move(t));
    info->value = static_cast<int>(values_.size()) - 1;
  };
  // Output shapes, when every one is known and small enough to evaluate.
  std::vector<PartialTensorShape> shapes;
  for (int i = 0; i < c->num_outputs(); ++i) {
    const PartialTensorShape s =
        InferenceContext::AsPartialTensorShape(c->output(i));
    if (!s.IsFullyDefined() || s.num_elements() > kMaxConstantElements) return;
    shapes.push_back(s);
  }

  // Sources: a Const's value, and what the input's shape tells of Shape,
  // Size and Rank.
  if (op == "Const") {
    const TensorProto* proto = nullptr;
    Tensor t;
    if (TryGetNodeAttr(AttrSlice(def), "value", &proto) &&
        TensorFromProto(*proto, &t).ok() && t.dtype() == out_type &&
        t.NumElements() <= kMaxConstantElements) {
      keep_value(out, std::move(t));
    }
    return;
  }
  if (op == "Shape" || op == "Size" || op == "Rank") {
    const ShapeHandle s = c->input(0);
    if (!c->RankKnown(s)) return;
    Tensor t;
    if (op == "Rank") {
      if (MakeIntTensor(out_type, TensorShape(), {c->Rank(s)}, &t)) {
        keep_value(out, std::move(t));
      }
      return;
    }
    if (op == "Shape") out->partial = s;  // its dims, known or not
    if (!c->FullyDefined(s)) return;
    std::vector<int64_t> dims;
    int64_t size = 1;
    for (int i = 0; i < c->Rank(s); ++i) {
      dims.push_back(c->Value(c->Dim(s, i)));
      if (__builtin_mul_overflow(size, dims.back(), &size)) return;
    }
    if (op == "Size") {
      dims = {size};
    }
    TensorShape shape;
    if (shapes[0].AsTensorShape(&shape) &&
        shape.num_elements() == static_cast<int64_t>(dims.size()) &&
        MakeIntTensor(out_type, shape, dims, &t)) {
      keep_value(out, std::move(t));
    }
    return;
  }

  const int num_inputs = node.num_inputs();
  bool all_known = true;
  for (int i = 0; i < num_inputs; ++i) {
    const auto [src, port] = inputs_scratch_[i];
    if (src < 0) return;  // an unrefined back edge
    all_known = all_known && outputs_[first_output_[src] + port].value >= 0;
  }
  if (!evaluator_) {
    evaluator_ = std::make_unique<ConstantEvaluator>(graph_def_version_);
  }
  if (all_known) {
    if (!ConstantEvaluator::CanEvaluate(def)) return;
    std::vector<Tensor> inputs;
    for (int i = 0; i < num_inputs; ++i) {
      const auto [src, port] = inputs_scratch_[i];
      inputs.push_back(values_[outputs_[first_output_[src] + port].value]);
    }
    std::vector<Tensor> results;
    // Anything the kernel rejects stays unknown; the kernel reports it
    // again when the graph runs.
    if (!evaluator_
             ->Evaluate(def, inputs, shapes,
                        kMaxConstantElements * sizeof(int64_t), &results)
             .ok()) {
      return;
    }
    for (size_t i = 0; i < results.size(); ++i) {
      if (IsIntType(results[i].dtype())) {
        keep_value(&outputs_[first_output_[node.id()] + i],
                   std::move(results[i]));
      }
    }
    return;
  }

  // Partly known elements, through an element-moving op.
  const ElementMovingOp* moving = FindElementMovingOp(op);
  if (moving == nullptr || output_types.size() != 1) return;
  const int data_end = num_inputs - moving->tail;
  std::vector<DimensionHandle> symbols;
  std::vector<Tensor> inputs;
  for (int i = 0; i < num_inputs; ++i) {
    const auto [src, port] = inputs_scratch_[i];
    const OutputInfo& in = outputs_[first_output_[src] + port];
    const bool carries_elements = i >= moving->first && i < data_end;
    if (in.value >= 0) {
      if (!carries_elements) {
        inputs.push_back(values_[in.value]);
        continue;
      }
      const Tensor& v = values_[in.value];
      std::vector<int64_t> ids;
      for (int64_t x : IntValues(v)) {
        ids.push_back(static_cast<int64_t>(symbols.size()));
        symbols.push_back(c->MakeDim(x < -1 ? -1 : x));
      }
      Tensor t;
      if (!MakeIntTensor(v.dtype(), v.shape(), ids, &t)) return;
      inputs.push_back(std::move(t));
      continue;
    }
    if (!carries_elements || !in.partial.IsSet() || !c->RankKnown(in.partial) ||
        !IsIntType(in.dtype)) {
      return;
    }
    std::vector<int64_t> ids;
    for (int d = 0; d < c->Rank(in.partial); ++d) {
      ids.push_back(static_cast<int64_t>(symbols.size()));
      symbols.push_back(c->Dim(in.partial, d));
    }
    TensorShape shape;
    if (!in.scalar) shape.AddDim(static_cast<int64_t>(ids.size()));
    if (in.scalar && ids.size() != 1) return;
    Tensor t;
    if (!MakeIntTensor(in.dtype, shape, ids, &t)) return;
    inputs.push_back(std::move(t));
  }
  if (!ConstantEvaluator::CanEvaluate(def)) return;
  std::vector<Tensor> results;
  if (!evaluator_
           ->Evaluate(def, inputs, shapes,
                      kMaxConstantElements * sizeof(int64_t), &results)
           .ok() ||
      results.size() != 1 || results[0].dims() > 1) {
    return;
  }
  std::vector<DimensionHandle> dims;
  std::vector<int64_t> values;
  bool fully_known = true;
  for (int64_t id : IntValues(results[0])) {
    if (id < 0 || id >= static_cast<int64_t>(symbols.size())) return;
    dims.push_back(symbols[id]);
    fully_known = fully_known && c->ValueKnown(symbols[id]);
    values.push_back(c->Value(symbols[id]));
  }
  if (results[0].dims() == 0) {
    out->scalar = true;
  } else if (dims.size() > static_cast<size_t>(kMaxTensorRank)) {
    return;
  }
  out->partial = c->MakeShape(dims);
  Tensor t;
  if (fully_known && MakeIntTensor(out_type, results[0].shape(), values, &t)) {
    keep_value(out, std::move(t));
  }
}

bool ShapeRefiner::has_node(int node) const {
  return node >= 0 && node < static_cast<int>(first_output_.size()) &&
         first_output_[node] >= 0;
}

int ShapeRefiner::num_outputs(int node) const {
  return has_node(node) ? num_outputs_[node] : 0;
}

DataType ShapeRefiner::output_type(int node, int index) const {
  return outputs_[first_output_[node] + index].dtype;
}

ShapeHandle ShapeRefiner::output_shape(int node, int index) const {
  return outputs_[first_output_[node] + index].shape;
}

PartialTensorShape ShapeRefiner::OutputPartialShape(int node, int index) const {
  return InferenceContext::AsPartialTensorShape(output_shape(node, index));
}

const Tensor* ShapeRefiner::output_value(int node, int index) const {
  const int v = outputs_[first_output_[node] + index].value;
  return v < 0 ? nullptr : &values_[v];
}

std::string ShapeRefiner::ShapeString(ShapeHandle s) const {
  return InferenceContext::DebugString(s);
}

int64_t ShapeRefiner::num_values_evaluated() const {
  return evaluator_ ? evaluator_->num_evaluated() : 0;
}

// Note [Shapes through functions]
// A node that calls a function gets the shapes its body returns for its
// inputs' shapes: the body is instantiated for the call's attrs and refined
// by a refiner of its own whose `_Arg`s have the inputs' shapes (results are
// cached per function, attrs and shapes). If and Case relax what their
// branches return; While starts from its inputs' shapes and relaxes them
// with what the body returns until they stop changing, as the refiner does
// for TF1 loops (Note [Loops]). Functional ops whose `output_shapes` attr is
// set keep it (their shape functions read it), as TensorFlow does. Calls
// nest at most kMaxFunctionCallDepth deep: a function that calls itself is
// an error here, not a stack overflow.

Status ShapeRefiner::FunctionCallShapes(
    const Node& node, const NodeDef& def,
    std::vector<PartialTensorShape>* outputs, bool* handled) {
  *handled = false;
  const std::string& op = def.op();
  const AttrSlice attrs(def);
  std::vector<PartialTensorShape> inputs(node.num_inputs());
  for (int i = 0; i < node.num_inputs(); ++i) {
    const auto [src, port] = inputs_scratch_[i];
    if (src >= 0) inputs[i] = OutputPartialShape(src, port);
  }
  const DataTypeVector& in_types = node.input_types();
  const DataTypeVector& out_types = node.output_types();
  if (IsFunctionalControlFlowOp(op)) {
    std::vector<PartialTensorShape> given;
    if (GetNodeAttr(attrs, "output_shapes", &given).ok() && !given.empty()) {
      return OkStatus();
    }
  }
  auto relax_into = [](const std::vector<PartialTensorShape>& branch,
                       bool first, std::vector<PartialTensorShape>* out) {
    if (first) {
      *out = branch;
      return;
    }
    for (size_t i = 0; i < out->size(); ++i) {
      (*out)[i] = RelaxShape((*out)[i], branch[i]);
    }
  };
  if (IsIfOp(op) || IsCaseOp(op)) {
    std::vector<NameAttrList> branches;
    if (IsIfOp(op)) {
      branches.resize(2);
      MF_RETURN_IF_ERROR(GetNodeAttr(attrs, "then_branch", &branches[0]));
      MF_RETURN_IF_ERROR(GetNodeAttr(attrs, "else_branch", &branches[1]));
    } else {
      MF_RETURN_IF_ERROR(GetNodeAttr(attrs, "branches", &branches));
    }
    const std::vector<PartialTensorShape> args(inputs.begin() + 1,
                                               inputs.end());
    const DataTypeVector arg_types(in_types.begin() + 1, in_types.end());
    for (size_t b = 0; b < branches.size(); ++b) {
      std::vector<PartialTensorShape> rets;
      MF_RETURN_IF_ERROR(
          CallShapes(branches[b], args, arg_types, out_types, &rets));
      relax_into(rets, b == 0, outputs);
    }
  } else if (IsWhileOp(op)) {
    NameAttrList cond;
    NameAttrList body;
    MF_RETURN_IF_ERROR(GetNodeAttr(attrs, "cond", &cond));
    MF_RETURN_IF_ERROR(GetNodeAttr(attrs, "body", &body));
    std::vector<PartialTensorShape> shapes = inputs;
    std::vector<PartialTensorShape> pred;
    MF_RETURN_IF_ERROR(CallShapes(cond, shapes, in_types, {}, &pred));
    if (pred.size() != 1) {
      return errors::InvalidArgument("While's cond '", cond.name(),
                                     "' returns ", pred.size(),
                                     " tensors; it must return one");
    }
    constexpr int kMaxPasses = 8;
    for (int pass = 0; pass < kMaxPasses; ++pass) {
      std::vector<PartialTensorShape> next;
      MF_RETURN_IF_ERROR(CallShapes(body, shapes, in_types, in_types, &next));
      bool changed = false;
      for (size_t i = 0; i < shapes.size(); ++i) {
        PartialTensorShape relaxed = pass + 1 == kMaxPasses
                                         ? PartialTensorShape()
                                         : RelaxShape(shapes[i], next[i]);
        changed |= !relaxed.IsIdenticalTo(shapes[i]);
        shapes[i] = std::move(relaxed);
      }
      if (!changed) break;
    }
    *outputs = std::move(shapes);
  } else {
    NameAttrList call;
    if (!GetFunctionCall(node, graph_->flib_def(), &call)) return OkStatus();
    MF_RETURN_IF_ERROR(CallShapes(call, inputs, in_types, out_types, outputs));
  }
  *handled = true;
  return OkStatus();
}

Status ShapeRefiner::CallShapes(
    const NameAttrList& call, const std::vector<PartialTensorShape>& arg_shapes,
    const DataTypeVector& arg_types, const DataTypeVector& ret_types,
    std::vector<PartialTensorShape>* ret_shapes) {
  std::vector<std::string> shape_strings;
  for (const PartialTensorShape& s : arg_shapes) {
    shape_strings.push_back(s.DebugString());
  }
  const std::string key = absl::StrCat(
      FunctionInstantiationKey(call.name(), AttrSlice(&call.attr())), "(",
      absl::StrJoin(shape_strings, ","), ")");
  auto cached = call_cache_.find(key);
  if (cached != call_cache_.end()) {
    *ret_shapes = cached->second;
    return OkStatus();
  }
  if (call_depth_ >= kMaxFunctionCallDepth) {
    return errors::InvalidArgument(
        "Function calls nest more than ", kMaxFunctionCallDepth,
        " deep at a call of '", call.name(),
        "': a function that calls itself without end cannot be run");
  }
  FunctionBody body;
  MF_RETURN_IF_ERROR(InstantiateFunctionBody(graph_->shared_flib_def(), call,
                                             graph_->versions(), &body));
  auto types_error = [&](const char* what, const DataTypeVector& expected,
                         const DataTypeVector& actual) {
    return errors::InvalidArgument("Function '", call.name(), "' ", what, " (",
                                   DataTypeSliceString(actual),
                                   ") but the call has (",
                                   DataTypeSliceString(expected), ")");
  };
  if (body.arg_nodes.size() != arg_shapes.size() ||
      (!arg_types.empty() && body.arg_types != arg_types)) {
    return types_error("takes", arg_types, body.arg_types);
  }
  if (!ret_types.empty() && body.ret_types != ret_types) {
    return types_error("returns", ret_types, body.ret_types);
  }
  ShapeRefiner refiner(graph_def_version_, body.graph->op_registry());
  refiner.SetFunctionArgs(arg_shapes, call_depth_ + 1);
  Status refined = refiner.RefineGraph(*body.graph);
  if (!refined.ok()) {
    if (absl::StartsWith(refined.message(), "In function '") ||
        absl::StartsWith(refined.message(), "Function calls nest")) {
      return refined;  // said where already
    }
    return Status(refined.code(), absl::StrCat("In function '", call.name(),
                                               "': ", refined.message()));
  }
  ret_shapes->clear();
  for (const Node* ret : body.ret_nodes) {
    const Edge* in = nullptr;
    MF_RETURN_IF_ERROR(ret->input_edge(0, &in));
    ret_shapes->push_back(
        refiner.OutputPartialShape(in->src->id(), in->src_output));
  }
  call_cache_.emplace(key, *ret_shapes);
  return OkStatus();
}

}  // namespace minflow
