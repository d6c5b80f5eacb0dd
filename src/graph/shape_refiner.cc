#include "minflow/graph/shape_refiner.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"
#include "minflow/tensor.pb.h"
#include "src/graph/shape_constant_folding.h"

namespace minflow {

using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

ShapeRefinerGraphView::~ShapeRefinerGraphView() = default;

// ---------------------------------------------------------------------------
// GraphDefView

Status GraphDefView::Create(const GraphDef& graph,
                            std::unique_ptr<GraphDefView>* out) {
  std::unique_ptr<GraphDefView> view(new GraphDefView);
  const int n = graph.node_size();
  view->nodes_.reserve(n);
  view->index_.reserve(n);
  for (int i = 0; i < n; ++i) {
    const NodeDef& node = graph.node(i);
    if (node.name().empty()) {
      return errors::InvalidArgument("Node ", i, " (op '", node.op(),
                                     "') has no name");
    }
    if (!view->index_.emplace(node.name(), i).second) {
      return errors::InvalidArgument("Node '", node.name(),
                                     "' is not unique in the graph");
    }
    view->nodes_.push_back(&node);
  }
  view->data_begin_.reserve(n + 1);
  view->control_begin_.reserve(n + 1);
  for (int i = 0; i < n; ++i) {
    const NodeDef& node = graph.node(i);
    view->data_begin_.push_back(static_cast<int>(view->data_.size()));
    view->control_begin_.push_back(static_cast<int>(view->control_.size()));
    for (const std::string& input : node.input()) {
      absl::string_view name = input;
      if (!name.empty() && name[0] == '^') {
        name.remove_prefix(1);
        const int src = view->FindNode(name);
        if (src < 0) {
          return errors::AttachNodeContext(
              errors::InvalidArgument("Node '", node.name(),
                                      "': unknown control input '", name, "'"),
              node.name(), node.op());
        }
        view->control_.push_back(src);
        continue;
      }
      if (view->control_.size() >
          static_cast<size_t>(view->control_begin_.back())) {
        return errors::AttachNodeContext(
            errors::InvalidArgument("Node '", node.name(), "': data input '",
                                    input, "' after a control input"),
            node.name(), node.op());
      }
      int port = 0;
      const size_t colon = name.rfind(':');
      if (colon != absl::string_view::npos) {
        if (!absl::SimpleAtoi(name.substr(colon + 1), &port) || port < 0) {
          return errors::AttachNodeContext(
              errors::InvalidArgument("Node '", node.name(),
                                      "': malformed input '", input, "'"),
              node.name(), node.op());
        }
        name = name.substr(0, colon);
      }
      const int src = view->FindNode(name);
      if (src < 0) {
        return errors::AttachNodeContext(
            errors::InvalidArgument("Node '", node.name(), "': unknown input '",
                                    input, "'"),
            node.name(), node.op());
      }
      view->data_.push_back({src, port});
    }
  }
  view->data_begin_.push_back(static_cast<int>(view->data_.size()));
  view->control_begin_.push_back(static_cast<int>(view->control_.size()));
  *out = std::move(view);
  return OkStatus();
}

absl::Span<const OutputRef> GraphDefView::data_inputs(int node) const {
  return absl::MakeConstSpan(data_.data() + data_begin_[node],
                             data_begin_[node + 1] - data_begin_[node]);
}

absl::Span<const int> GraphDefView::control_inputs(int node) const {
  return absl::MakeConstSpan(control_.data() + control_begin_[node],
                             control_begin_[node + 1] - control_begin_[node]);
}

int GraphDefView::FindNode(absl::string_view name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? -1 : it->second;
}

// ---------------------------------------------------------------------------
// GraphView

GraphView::GraphView(const Graph& graph) {
  const int n = graph.num_node_ids();
  nodes_.assign(n, nullptr);
  data_begin_.reserve(n + 1);
  control_begin_.reserve(n + 1);
  for (int id = 0; id < n; ++id) {
    data_begin_.push_back(static_cast<int>(data_.size()));
    control_begin_.push_back(static_cast<int>(control_.size()));
    const Node* node = graph.FindNodeId(id);
    if (node == nullptr) continue;
    nodes_[id] = &node->def();
    // Data edges go in input-port order; an imported graph has exactly one
    // edge per input port.
    const size_t first = data_.size();
    data_.resize(first + node->num_inputs());
    for (const Edge* e : node->in_edges()) {
      if (e->IsControlEdge()) {
        control_.push_back(e->src->id());
      } else if (e->dst_input >= 0 && e->dst_input < node->num_inputs()) {
        data_[first + e->dst_input] = {e->src->id(), e->src_output};
      }
    }
  }
  data_begin_.push_back(static_cast<int>(data_.size()));
  control_begin_.push_back(static_cast<int>(control_.size()));
}

absl::Span<const OutputRef> GraphView::data_inputs(int node) const {
  return absl::MakeConstSpan(data_.data() + data_begin_[node],
                             data_begin_[node + 1] - data_begin_[node]);
}

absl::Span<const int> GraphView::control_inputs(int node) const {
  return absl::MakeConstSpan(control_.data() + control_begin_[node],
                             control_begin_[node + 1] - control_begin_[node]);
}

// ---------------------------------------------------------------------------
// ShapeRefiner

struct ShapeRefiner::OutputInfo {
  ShapeHandle shape;
  DataType dtype = DT_INVALID;
  int value = -1;  // index into values_, or -1
  ShapeHandle partial;
  bool scalar = false;
};

ShapeRefiner::ShapeRefiner(int graph_def_version,
                           const OpRegistryInterface* ops)
    : graph_def_version_(graph_def_version), ops_(ops) {}

ShapeRefiner::~ShapeRefiner() = default;

Status ShapeRefiner::RefineGraphDef(const GraphDef& graph_def) {
  MF_RETURN_IF_ERROR(GraphDefView::Create(graph_def, &own_view_));
  return RefineGraph(*own_view_);
}

// Kahn's algorithm over data and control edges. A node left over lies on a
// cycle or downstream of one; following unprocessed inputs from it must
// revisit a node, which is on a cycle.
Status ShapeRefiner::TopologicalOrder(const ShapeRefinerGraphView& graph,
                                      std::vector<int>* order) const {
  const int n = graph.num_nodes();
  std::vector<int> pending(n, 0);
  std::vector<int> out_count(n + 1, 0);
  for (int i = 0; i < n; ++i) {
    if (graph.node_def(i) == nullptr) continue;
    for (const OutputRef& in : graph.data_inputs(i)) {
      ++pending[i];
      ++out_count[in.node];
    }
    for (int in : graph.control_inputs(i)) {
      ++pending[i];
      ++out_count[in];
    }
  }
  // Consumers of each node in one flat array (CSR).
  std::vector<int> begin(n + 1, 0);
  for (int i = 0; i < n; ++i) begin[i + 1] = begin[i] + out_count[i];
  std::vector<int> consumers(begin[n]);
  std::vector<int> fill(begin.begin(), begin.end() - 1);
  for (int i = 0; i < n; ++i) {
    if (graph.node_def(i) == nullptr) continue;
    for (const OutputRef& in : graph.data_inputs(i)) {
      consumers[fill[in.node]++] = i;
    }
    for (int in : graph.control_inputs(i)) consumers[fill[in]++] = i;
  }
  order->clear();
  order->reserve(n);
  int live = 0;
  for (int i = 0; i < n; ++i) {
    if (graph.node_def(i) == nullptr) continue;
    ++live;
    if (pending[i] == 0) order->push_back(i);
  }
  for (size_t head = 0; head < order->size(); ++head) {
    const int node = (*order)[head];
    for (int k = begin[node]; k < begin[node + 1]; ++k) {
      if (--pending[consumers[k]] == 0) order->push_back(consumers[k]);
    }
  }
  if (static_cast<int>(order->size()) == live) return OkStatus();

  int node = -1;
  for (int i = 0; i < n && node < 0; ++i) {
    if (graph.node_def(i) != nullptr && pending[i] > 0) node = i;
  }
  std::vector<bool> visited(n, false);
  while (!visited[node]) {
    visited[node] = true;
    int next = -1;
    for (const OutputRef& in : graph.data_inputs(node)) {
      if (pending[in.node] > 0) {
        next = in.node;
        break;
      }
    }
    if (next < 0) {
      for (int in : graph.control_inputs(node)) {
        if (pending[in] > 0) {
          next = in;
          break;
        }
      }
    }
    if (next < 0) break;  // cannot happen: a pending node has a pending input
    node = next;
  }
  const NodeDef& def = *graph.node_def(node);
  return errors::AttachNodeContext(
      errors::InvalidArgument("Graph has a cycle through node '", def.name(),
                              "'; shapes need an acyclic graph"),
      def.name(), def.op());
}

// A node missing attrs its op defaults gets a copy with them (most nodes
// from TensorFlow carry every attr, so copies are rare).
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

Status ShapeRefiner::RefineGraph(const ShapeRefinerGraphView& graph) {
  return Refine(graph, nullptr);
}

Status ShapeRefiner::RefineGraphCollectingErrors(
    const ShapeRefinerGraphView& graph, std::vector<Status>* errors) {
  const size_t first_error = errors->size();
  Refine(graph, errors).IgnoreError();
  return errors->size() > first_error ? (*errors)[first_error] : OkStatus();
}

// `errors` null: stop at the first error. Otherwise collect; see
// RefineGraphCollectingErrors.
Status ShapeRefiner::Refine(const ShapeRefinerGraphView& graph,
                            std::vector<Status>* errors) {
  const int n = graph.num_nodes();
  first_output_.assign(n, -1);
  num_outputs_.assign(n, 0);
  outputs_.clear();
  std::vector<int> order;
  // On a cycle, `order` still holds every node not on or after one.
  Status ordered = TopologicalOrder(graph, &order);
  if (!ordered.ok()) {
    if (errors == nullptr) return ordered;
    errors->push_back(std::move(ordered));
  }
  for (int node : order) {
    if (errors != nullptr && !DataInputsRefined(graph, node)) continue;
    Status refined = RefineNode(graph, node);
    if (!refined.ok()) {
      if (errors == nullptr) return refined;
      errors->push_back(std::move(refined));
      continue;
    }
    ++num_refined_;
  }
  return OkStatus();
}

bool ShapeRefiner::DataInputsRefined(const ShapeRefinerGraphView& graph,
                                     int node) const {
  for (const OutputRef& in : graph.data_inputs(node)) {
    if (first_output_[in.node] < 0) return false;
  }
  return true;
}

Status ShapeRefiner::RefineNode(const ShapeRefinerGraphView& graph, int node) {
  const NodeDef& raw = *graph.node_def(node);
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

  DataTypeVector input_types;
  DataTypeVector output_types;
  MF_RETURN_IF_ERROR(errors::AttachNodeContext(
      InOutTypesForNode(def, reg->op_def, &input_types, &output_types),
      def.name(), def.op()));

  const absl::Span<const OutputRef> inputs = graph.data_inputs(node);
  std::vector<ShapeHandle> input_shapes(inputs.size());
  std::vector<const Tensor*> input_tensors(inputs.size(), nullptr);
  std::vector<ShapeHandle> input_partials(inputs.size());
  std::vector<internal::KnownValue> known(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const OutputRef& in = inputs[i];
    if (in.index >= num_outputs_[in.node]) {
      return errors::AttachNodeContext(
          errors::InvalidArgument(
              "Node '", def.name(), "' input ", i, " refers to output ",
              in.index, " of '", graph.node_def(in.node)->name(),
              "', which has ", num_outputs_[in.node], " outputs"),
          def.name(), def.op());
    }
    const OutputInfo& src = outputs_[first_output_[in.node] + in.index];
    if (i < input_types.size() &&
        BaseType(input_types[i]) != BaseType(src.dtype)) {
      return errors::AttachNodeContext(
          errors::InvalidArgument("Input ", i, " of node ", def.name(),
                                  " was passed ", DataTypeString(src.dtype),
                                  " from ", graph.node_def(in.node)->name(),
                                  ":", in.index, " incompatible with expected ",
                                  DataTypeString(input_types[i]), "."),
          def.name(), def.op());
    }
    input_shapes[i] = src.shape;
    if (src.value >= 0) {
      input_tensors[i] = &values_[src.value];
      known[i].tensor = input_tensors[i];
    }
    known[i].partial = src.partial;
    known[i].scalar = src.scalar;
    // Shape functions read vectors as partial shapes; scalars they read
    // through input_tensor only.
    if (src.value < 0 && !src.scalar) input_partials[i] = src.partial;
  }

  InferenceContext c(graph_def_version_, def, reg->op_def, input_shapes,
                     input_tensors, input_partials, &manager_);
  MF_RETURN_IF_ERROR(c.Run(reg->shape_inference_fn));
  if (c.num_outputs() != static_cast<int>(output_types.size())) {
    return errors::AttachNodeContext(
        errors::Internal("Shape function gave ", c.num_outputs(),
                         " outputs but the node has ", output_types.size()),
        def.name(), def.op());
  }

  first_output_[node] = static_cast<int>(outputs_.size());
  num_outputs_[node] = c.num_outputs();
  for (int i = 0; i < c.num_outputs(); ++i) {
    OutputInfo info;
    info.shape = c.output(i);
    info.dtype = output_types[i];
    outputs_.push_back(info);
  }

  // Values of small integer computations, for the shape functions
  // downstream.
  if (output_types.empty() ||
      (output_types[0] != DT_INT32 && output_types[0] != DT_INT64)) {
    return OkStatus();
  }
  if (def.op() == "Const") {
    const TensorProto* proto = nullptr;
    if (TryGetNodeAttr(AttrSlice(def), "value", &proto)) {
      PartialTensorShape shape;
      if (PartialTensorShape::BuildPartialTensorShape(proto->tensor_shape(),
                                                      &shape)
              .ok() &&
          shape.IsFullyDefined() &&
          shape.num_elements() <= kMaxConstantElements) {
        Tensor t;
        if (TensorFromProto(*proto, &t).ok() && t.dtype() == output_types[0]) {
          values_.push_back(std::move(t));
          outputs_[first_output_[node]].value =
              static_cast<int>(values_.size()) - 1;
        }
      }
    }
    return OkStatus();
  }
  std::vector<internal::FoldedValue> folded;
  internal::FoldShapeComputation(def, known, output_types, kMaxConstantElements,
                                 &c, &folded);
  for (size_t i = 0; i < folded.size(); ++i) {
    OutputInfo& info = outputs_[first_output_[node] + i];
    if (folded[i].has_tensor) {
      values_.push_back(std::move(folded[i].tensor));
      info.value = static_cast<int>(values_.size()) - 1;
    }
    info.partial = folded[i].partial;
    info.scalar = folded[i].scalar;
  }
  return OkStatus();
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

}  // namespace minflow
