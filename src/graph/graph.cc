#include "minflow/graph/graph.h"

#include <algorithm>
#include <deque>

#include "absl/container/node_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "minflow/attr_value.pb.h"
#include "minflow/core/logging.h"
#include "minflow/framework/function.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/graph/control_flow.h"
#include "minflow/op_def.pb.h"

namespace minflow {

bool Node::IsStateful() const { return op_def_->is_stateful(); }

const std::string Node::kNoDevice;

void Node::set_assigned_device_name(absl::string_view name) {
  if (name.empty()) {
    assigned_device_ = &kNoDevice;
    return;
  }
  // Placement sets the same few names on every node: the last one is
  // remembered per thread, so the lock is rare.
  thread_local const std::string* last = nullptr;
  if (last != nullptr && *last == name) {
    assigned_device_ = last;
    return;
  }
  static absl::Mutex mu(absl::kConstInit);
  static auto* names = new absl::node_hash_set<std::string>();
  absl::MutexLock lock(&mu);
  last = &*names->emplace(name).first;
  assigned_device_ = last;
}

Status Node::input_edge(int index, const Edge** edge) const {
  for (const Edge* e : in_edges_) {
    if (e->dst_input == index) {
      *edge = e;
      return OkStatus();
    }
  }
  return errors::InvalidArgument("Node ", name(), " has no edge into input ",
                                 index);
}

PartialTensorShape Node::output_shape(int index) const {
  return index >= 0 && index < static_cast<int>(output_shapes_.size())
             ? output_shapes_[index]
             : PartialTensorShape();
}

Graph::Graph(const OpRegistryInterface* ops) : ops_(ops) {}

void Graph::set_flib_def(
    std::shared_ptr<const FunctionLibraryDefinition> library) {
  if (library != nullptr) {
    ops_ = library.get();
  } else if (flib_def_ != nullptr) {
    ops_ = flib_def_->default_registry();
  }
  flib_def_ = std::move(library);
}

Graph::~Graph() = default;

Node* Graph::NewNode() {
  if (used_in_last_block_ == last_block_size_) {
    // Blocks grow with the graph, so small graphs stay small.
    last_block_size_ = std::min(4096, std::max(16, num_node_ids()));
    node_blocks_.push_back(std::unique_ptr<Node[]>(new Node[last_block_size_]));
    used_in_last_block_ = 0;
  }
  return &node_blocks_.back()[used_in_last_block_++];
}

void Graph::Reserve(int num_nodes, int num_edges) {
  nodes_.reserve(nodes_.size() + std::max(0, num_nodes));
  edges_.reserve(edges_.size() + std::max(0, num_edges));
  name_index_.reserve(name_index_.size() + std::max(0, num_nodes));
}

StatusOr<Node*> Graph::AddNode(NodeDef node_def) {
  const OpDef* op_def = nullptr;
  MF_RETURN_IF_ERROR(ops_->LookUpOpDef(node_def.op(), &op_def));
  DataTypeVector inputs, outputs;
  MF_RETURN_IF_ERROR(InOutTypesForNode(node_def, *op_def, &inputs, &outputs));
  return AddNode(std::move(node_def), op_def, std::move(inputs),
                 std::move(outputs));
}

StatusOr<Node*> Graph::AddNode(NodeDef&& node_def, const OpDef* op_def,
                               DataTypeVector input_types,
                               DataTypeVector output_types) {
  auto def = std::make_shared<NodeDef>(std::move(node_def));
  StatusOr<Node*> added =
      AddNode(def, op_def, std::move(input_types), std::move(output_types));
  if (!added.ok()) node_def = std::move(*def);  // taken only on success
  return added;
}

StatusOr<Node*> Graph::AddNode(std::shared_ptr<const NodeDef> node_def,
                               const OpDef* op_def, DataTypeVector input_types,
                               DataTypeVector output_types) {
  MF_CHECK(op_def != nullptr && node_def != nullptr);
  Node* node = NewNode();
  node->def_ = std::move(node_def);
  // One lookup: the key views the name where the node now keeps it.
  if (!name_index_.try_emplace(node->name(), node).second) {
    Status taken = errors::InvalidArgument("Node name '", node->name(),
                                           "' is used by more than one node");
    node->def_.reset();
    --used_in_last_block_;  // hand the unused slot back
    return taken;
  }
  node->id_ = static_cast<int>(nodes_.size());
  node->op_def_ = op_def;
  node->is_control_flow_ = IsControlFlowOp(node->type_string());
  node->is_next_iteration_ =
      node->is_control_flow_ && IsNextIterationOp(node->type_string());
  node->input_types_ = std::move(input_types);
  node->output_types_ = std::move(output_types);
  nodes_.push_back(node);
  ++num_nodes_;
  return node;
}

std::shared_ptr<NodeDef> Graph::NewNodeDef() {
  if (node_def_arena_ == nullptr) {
    google::protobuf::ArenaOptions options;
    // Blocks grow to 1 MiB: a large graph's NodeDefs take few blocks.
    options.start_block_size = 4096;
    options.max_block_size = 1 << 20;
    node_def_arena_ = std::make_shared<google::protobuf::Arena>(options);
  }
  NodeDef* def =
      google::protobuf::Arena::CreateMessage<NodeDef>(node_def_arena_.get());
  // Shares the arena's ownership: no allocation per NodeDef.
  return std::shared_ptr<NodeDef>(node_def_arena_, def);
}

std::unique_ptr<Graph> Graph::Clone() const {
  auto copy = std::make_unique<Graph>(ops_);
  copy->flib_def_ = flib_def_;
  copy->versions_ = versions_;
  copy->node_def_arena_ = node_def_arena_;
  copy->Reserve(num_nodes_, num_edges_);
  copy->nodes_.assign(nodes_.size(), nullptr);
  for (const Node* n : nodes_) {
    if (n == nullptr) continue;
    Node* c = copy->NewNode();
    c->id_ = n->id_;
    c->def_ = n->def_;
    c->op_def_ = n->op_def_;
    c->is_next_iteration_ = n->is_next_iteration_;
    c->is_control_flow_ = n->is_control_flow_;
    c->input_types_ = n->input_types_;
    c->output_types_ = n->output_types_;
    c->assigned_device_ = n->assigned_device_;
    c->output_shapes_ = n->output_shapes_;
    c->in_edges_.reserve(n->in_edges_.size());
    c->out_edges_.reserve(n->out_edges_.size());
    copy->nodes_[c->id_] = c;
    copy->name_index_.emplace(c->name(), c);
    ++copy->num_nodes_;
  }
  // In id order, so every node's edge lists keep their order.
  for (const Edge* e : edges_) {
    if (e == nullptr) continue;
    copy->AddEdge(copy->nodes_[e->src->id_], e->src_output,
                  copy->nodes_[e->dst->id_], e->dst_input);
  }
  return copy;
}

void Graph::RemoveNode(Node* node) {
  MF_CHECK(node != nullptr && FindNodeId(node->id()) == node);
  // Copies: RemoveEdge edits the vectors being walked. The out-edges are
  // copied after the in-edges went, as a self-loop is in both lists.
  const std::vector<const Edge*> in = node->in_edges_;
  for (const Edge* e : in) RemoveEdge(e);
  const std::vector<const Edge*> out = node->out_edges_;
  for (const Edge* e : out) RemoveEdge(e);
  name_index_.erase(node->name());
  nodes_[node->id()] = nullptr;
  // The node's memory stays in its block; drop what it holds (a Const's
  // NodeDef may carry a large tensor).
  node->def_.reset();
  node->input_types_.clear();
  node->output_types_.clear();
  node->output_shapes_.clear();
  node->in_edges_ = {};
  node->out_edges_ = {};
  --num_nodes_;
}

const Edge* Graph::AddEdge(Node* src, int src_output, Node* dst,
                           int dst_input) {
  const bool control = src_output == kControlSlot;
  MF_CHECK_EQ(control, dst_input == kControlSlot);
  if (!control) {
    MF_CHECK(src_output >= 0 && src_output < src->num_outputs());
    MF_CHECK(dst_input >= 0 && dst_input < dst->num_inputs());
  }
  Edge* edge = &edge_pool_.emplace_back();
  edge->src = src;
  edge->src_output = src_output;
  edge->dst = dst;
  edge->dst_input = dst_input;
  edge->id = static_cast<int>(edges_.size());
  src->out_edges_.push_back(edge);
  dst->in_edges_.push_back(edge);
  edges_.push_back(edge);
  ++num_edges_;
  return edge;
}

const Edge* Graph::AddControlEdge(Node* src, Node* dst) {
  for (const Edge* e : dst->in_edges_) {
    if (e->IsControlEdge() && e->src == src) return e;  // already there
  }
  return AddEdge(src, kControlSlot, dst, kControlSlot);
}

void Graph::RemoveEdge(const Edge* edge) {
  auto erase = [edge](std::vector<const Edge*>* v) {
    v->erase(std::remove(v->begin(), v->end(), edge), v->end());
  };
  erase(&edge->src->out_edges_);
  erase(&edge->dst->in_edges_);
  edges_[edge->id] = nullptr;
  --num_edges_;
}

Node* Graph::FindNodeByName(absl::string_view name) const {
  auto it = name_index_.find(name);
  return it == name_index_.end() ? nullptr : it->second;
}

std::vector<Node*> Graph::nodes() const {
  std::vector<Node*> result;
  result.reserve(num_nodes_);
  for (Node* n : nodes_) {
    if (n != nullptr) result.push_back(n);
  }
  return result;
}

Node* Graph::FindNodeId(int id) const {
  if (id < 0 || id >= num_node_ids()) return nullptr;
  return nodes_[id];
}

void Graph::ToGraphDef(GraphDef* graph_def, bool add_shapes) const {
  graph_def->Clear();
  *graph_def->mutable_versions() = versions_;
  if (flib_def_ != nullptr && !flib_def_->empty()) {
    flib_def_->ToProto(graph_def->mutable_library());
  }
  for (const Node* n : nodes_) {
    if (n == nullptr) continue;
    NodeDef* def = graph_def->add_node();
    *def = *n->def_;
    def->clear_input();
    std::vector<const Edge*> data(n->num_inputs(), nullptr);
    std::vector<const Edge*> control;
    for (const Edge* e : n->in_edges_) {
      if (e->IsControlEdge()) {
        control.push_back(e);
      } else {
        data[e->dst_input] = e;
      }
    }
    for (const Edge* e : data) {
      if (e == nullptr) continue;  // an input not connected yet
      def->add_input(e->src_output == 0
                         ? e->src->name()
                         : absl::StrCat(e->src->name(), ":", e->src_output));
    }
    for (const Edge* e : control) def->add_input("^" + e->src->name());
    if (!n->assigned_device_->empty()) def->set_device(*n->assigned_device_);
    if (add_shapes && !n->output_shapes_.empty()) {
      AttrValue shapes;
      for (const PartialTensorShape& shape : n->output_shapes_) {
        shape.AsProto(shapes.mutable_list()->add_shape());
      }
      (*def->mutable_attr())["_output_shapes"] = std::move(shapes);
    }
  }
}

Status TopologicalOrder(const Graph& graph, std::vector<Node*>* order) {
  order->clear();
  order->reserve(graph.num_nodes());
  std::vector<int> pending(graph.num_node_ids(), 0);
  // Back edges need a look at every in-edge; most graphs have none.
  bool has_loops = false;
  for (int id = 0; id < graph.num_node_ids() && !has_loops; ++id) {
    const Node* n = graph.FindNodeId(id);
    has_loops = n != nullptr && n->IsNextIteration();
  }
  for (int id = 0; id < graph.num_node_ids(); ++id) {
    Node* n = graph.FindNodeId(id);
    if (n == nullptr) continue;
    int count = static_cast<int>(n->in_edges().size());
    if (has_loops) {
      for (const Edge* e : n->in_edges()) count -= e->IsBackEdge();
    }
    pending[id] = count;
    if (count == 0) order->push_back(n);
  }
  // `order` is its own queue: nodes join it as they become ready.
  for (size_t head = 0; head < order->size(); ++head) {
    const Node* n = (*order)[head];
    if (n->IsNextIteration()) continue;  // its edges are back edges
    for (const Edge* e : n->out_edges()) {
      if (--pending[e->dst->id()] == 0) order->push_back(e->dst);
    }
  }
  if (static_cast<int>(order->size()) == graph.num_nodes()) return OkStatus();
  // Some node never became ready: it is on a cycle or downstream of one.
  // Walk back along unfinished inputs until a node repeats: that one is on
  // the cycle.
  Node* start = nullptr;
  for (Node* n : graph.nodes()) {
    if (pending[n->id()] > 0) {
      start = n;
      break;
    }
  }
  std::vector<bool> seen(graph.num_node_ids(), false);
  Node* n = start;
  while (!seen[n->id()]) {
    seen[n->id()] = true;
    for (const Edge* e : n->in_edges()) {
      if (!e->IsBackEdge() && pending[e->src->id()] > 0) {
        n = e->src;
        break;
      }
    }
  }
  return errors::InvalidArgument("Graph has a cycle: node '", n->name(), "' (",
                                 n->type_string(), ") is its own ancestor");
}

}  // namespace minflow
