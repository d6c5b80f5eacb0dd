#include "minflow/graph/graph_constructor.h"

#include <algorithm>
#include <filesystem>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "minflow/core/file_util.h"
#include "minflow/core/proto_limits.h"
#include "minflow/framework/function.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/node_name.h"
#include "minflow/framework/op.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/tensor_id.h"
#include "minflow/op_def.pb.h"
#include "src/graph/foreign_model_format.h"

namespace minflow {
namespace {

// A ref output may feed a non-ref input of the same base type.
bool TypesCompatible(DataType expected, DataType actual) {
  return expected == actual || expected == BaseType(actual);
}

Status NodeError(const Status& s, const NodeDef& def) {
  return errors::AttachNodeContext(s, def.name(), def.op());
}

Status CheckVersions(const VersionDef& versions) {
  if (versions.producer() < kGraphDefVersionMinProducer) {
    return errors::InvalidArgument("GraphDef producer version ",
                                   versions.producer(),
                                   " is below the oldest minflow reads (",
                                   kGraphDefVersionMinProducer, ")");
  }
  if (versions.min_consumer() > kGraphDefVersion) {
    return errors::InvalidArgument(
        "GraphDef min_consumer version ", versions.min_consumer(),
        " is above minflow's GraphDef version ", kGraphDefVersion,
        ": the graph needs a newer runtime");
  }
  for (int bad : versions.bad_consumers()) {
    if (bad == kGraphDefVersion) {
      return errors::InvalidArgument("GraphDef disallows consumer version ",
                                     kGraphDefVersion);
    }
  }
  return OkStatus();
}

// OpDefs found so far in one import, keyed by the registry's own name
// strings: a graph repeats a few ops many times, and the registry's lookup
// takes a lock.
using OpDefCache = absl::flat_hash_map<absl::string_view, const OpDef*>;

// options.input_map by "node:port" of the key: the value's input string.
using InputMap = absl::flat_hash_map<std::string, std::string>;

// Pass 1 for one NodeDef: name, op, attrs; adds the node without edges.
// `movable`, when not null, is `original` itself and may be moved from.
Status AddNodeFromDef(const GraphConstructorOptions& options,
                      const InputMap& input_map, const OpRegistryInterface& ops,
                      OpDefCache* op_defs, const NodeDef& original,
                      NodeDef* movable, Graph* graph, Node** node) {
  if (!IsValidNodeName(original.name())) {
    return errors::InvalidArgument(
        "Node name '", original.name(), "' (op ", original.op(),
        ") is not valid: it must match [A-Za-z0-9.][A-Za-z0-9_./>-]*");
  }
  if (!options.prefix.empty() &&
      !IsValidNodeName(options.prefix + original.name())) {
    return errors::InvalidArgument(
        "The import prefix '", options.prefix, "' makes node name '",
        options.prefix, original.name(),
        "' invalid: it must match [A-Za-z0-9.][A-Za-z0-9_./>-]*");
  }
  const OpDef* op_def = nullptr;
  if (auto cached = op_defs->find(original.op()); cached != op_defs->end()) {
    op_def = cached->second;
  } else {
    Status lookup = ops.LookUpOpDef(original.op(), &op_def);
    if (!lookup.ok()) return NodeError(lookup, original);
    op_defs->emplace(op_def->name(), op_def);
  }
  // A copy goes into the graph's arena (no allocation per field); a movable
  // NodeDef keeps its own memory.
  std::shared_ptr<NodeDef> def;
  if (movable != nullptr) {
    def = std::make_shared<NodeDef>(std::move(*movable));
  } else {
    def = graph->NewNodeDef();
    *def = original;
  }
  // From here on `original` may be empty: errors name the node from `def`,
  // without the prefix, as the user wrote it.
  auto error = [&](const Status& s) {
    absl::string_view name = def->name();
    absl::ConsumePrefix(&name, options.prefix);
    return errors::AttachNodeContext(s, name, def->op());
  };
  if (!options.prefix.empty() || !input_map.empty()) {
    def->set_name(options.prefix + def->name());
    for (std::string& in : *def->mutable_input()) {
      const bool control = absl::StartsWith(in, "^");
      if (!control && !input_map.empty()) {
        TensorIdView ref;
        if (ParseNodeInput(in, &ref).ok()) {
          auto mapped = input_map.find(absl::StrCat(ref.node, ":", ref.port));
          if (mapped != input_map.end()) {
            in = mapped->second;  // names a node already in the graph
            continue;
          }
        }
      }
      in = control ? absl::StrCat("^", options.prefix, in.substr(1))
                   : options.prefix + in;
    }
  }
  if (options.add_default_attributes) AddDefaultsToNodeDef(*op_def, def.get());
  Status valid = ValidateNodeDef(*def, *op_def);
  if (!valid.ok()) return error(valid);
  DataTypeVector inputs, outputs;
  Status typed = InOutTypesForNode(*def, *op_def, &inputs, &outputs);
  if (!typed.ok()) return error(typed);
  StatusOr<Node*> added =
      graph->AddNode(def, op_def, std::move(inputs), std::move(outputs));
  if (!added.ok()) {
    absl::string_view name = def->name();
    absl::ConsumePrefix(&name, options.prefix);
    return error(errors::InvalidArgument("Node name '", name,
                                         "' is used by more than one node"));
  }
  *node = *added;
  return OkStatus();
}

// Pass 2 for one node: its edges. ValidateNodeDef has checked input counts
// and that data inputs come before control inputs. An input naming a node
// in `left_out` (nodes pass 1 rejected, collecting mode only) stops the
// node without an error and sets `*depends_on_left_out`.
Status ConnectInputs(const absl::flat_hash_set<std::string>& left_out,
                     Node* node, Graph* graph, bool* depends_on_left_out) {
  const NodeDef& def = node->def();
  int data_index = 0;
  for (const std::string& input : def.input()) {
    TensorIdView ref;
    Status parsed = ParseNodeInput(input, &ref);
    if (!parsed.ok()) return NodeError(parsed, def);
    Node* src = graph->FindNodeByName(ref.node);
    if (src == nullptr) {
      if (!left_out.empty() && left_out.contains(ref.node)) {
        *depends_on_left_out = true;
        return OkStatus();
      }
      return NodeError(
          errors::InvalidArgument("Node '", def.name(),
                                  "': Unknown input node '", input, "'"),
          def);
    }
    if (ref.port == kControlSlot) {
      graph->AddControlEdge(src, node);
      continue;
    }
    if (ref.port >= src->num_outputs()) {
      return NodeError(
          errors::InvalidArgument(
              "Node '", def.name(), "': Connecting to invalid output ",
              ref.port, " of source node ", src->name(), " which has ",
              src->num_outputs(), " outputs."),
          def);
    }
    const DataType expected = node->input_type(data_index);
    const DataType actual = src->output_type(ref.port);
    if (!TypesCompatible(expected, actual)) {
      return NodeError(
          errors::InvalidArgument(
              "Input ", data_index, " of node ", def.name(), " was passed ",
              DataTypeString(actual), " from ", src->name(), ":", ref.port,
              " incompatible with expected ", DataTypeString(expected), "."),
          def);
    }
    graph->AddEdge(src, ref.port, node, data_index);
    ++data_index;
  }
  return OkStatus();
}

// Removes `roots` and every node downstream of them.
void RemoveWithDescendants(std::vector<Node*> roots, Graph* graph) {
  std::vector<bool> doomed(graph->num_node_ids(), false);
  for (Node* n : roots) doomed[n->id()] = true;
  for (size_t i = 0; i < roots.size(); ++i) {
    for (const Edge* e : roots[i]->out_edges()) {
      if (!doomed[e->dst->id()]) {
        doomed[e->dst->id()] = true;
        roots.push_back(e->dst);
      }
    }
  }
  for (Node* n : roots) graph->RemoveNode(n);
}

// The strongly connected components among the nodes marked in `member`
// (following in-edges) that are cycles: more than one node, or one node
// with an edge to itself. Tarjan's algorithm with an explicit stack.
std::vector<std::vector<Node*>> Cycles(const Graph& graph,
                                       const std::vector<bool>& member) {
  const int n = graph.num_node_ids();
  std::vector<int> index(n, -1);
  std::vector<int> low(n, 0);
  std::vector<bool> on_stack(n, false);
  std::vector<Node*> stack;
  std::vector<std::pair<Node*, size_t>> calls;  // node, next in-edge
  std::vector<std::vector<Node*>> cycles;
  int counter = 0;
  auto visit = [&](Node* v) {
    index[v->id()] = low[v->id()] = counter++;
    stack.push_back(v);
    on_stack[v->id()] = true;
    calls.emplace_back(v, 0);
  };
  for (Node* root : graph.nodes()) {
    if (!member[root->id()] || index[root->id()] >= 0) continue;
    visit(root);
    while (!calls.empty()) {
      Node* v = calls.back().first;
      const size_t next = calls.back().second++;
      if (next < v->in_edges().size()) {
        const Edge* in = v->in_edges()[next];
        Node* w = in->src;
        if (!member[w->id()] || in->IsBackEdge()) continue;
        if (index[w->id()] < 0) {
          visit(w);
        } else if (on_stack[w->id()]) {
          low[v->id()] = std::min(low[v->id()], index[w->id()]);
        }
        continue;
      }
      calls.pop_back();
      if (!calls.empty()) {
        Node* parent = calls.back().first;
        low[parent->id()] = std::min(low[parent->id()], low[v->id()]);
      }
      if (low[v->id()] != index[v->id()]) continue;
      std::vector<Node*> component;
      Node* w = nullptr;
      do {
        w = stack.back();
        stack.pop_back();
        on_stack[w->id()] = false;
        component.push_back(w);
      } while (w != v);
      bool self_loop = false;
      for (const Edge* e : v->in_edges()) {
        self_loop |= e->src == v && !e->IsBackEdge();
      }
      if (component.size() > 1 || self_loop) {
        cycles.push_back(std::move(component));
      }
    }
  }
  return cycles;
}

bool ById(const Node* a, const Node* b) { return a->id() < b->id(); }

Status CycleError(const Node& n) {
  return errors::InvalidArgument("Graph has a cycle: node '", n.name(), "' (",
                                 n.type_string(), ") is its own ancestor");
}

// Collecting mode's last step: one error per cycle, naming its first node
// in id order (errors in that order too); nodes on or downstream of a cycle are
// removed.
void ReportAndRemoveCycles(Graph* graph, std::vector<Status>* errors) {
  std::vector<Node*> order;
  if (TopologicalOrder(*graph, &order).ok()) return;
  std::vector<bool> unordered(graph->num_node_ids(), true);
  for (Node* n : order) unordered[n->id()] = false;
  std::vector<const Node*> firsts;
  for (const std::vector<Node*>& cycle : Cycles(*graph, unordered)) {
    firsts.push_back(*std::min_element(cycle.begin(), cycle.end(), ById));
  }
  std::sort(firsts.begin(), firsts.end(), ById);
  for (const Node* first : firsts) errors->push_back(CycleError(*first));
  std::vector<Node*> doomed;
  for (Node* n : graph->nodes()) {
    if (unordered[n->id()]) doomed.push_back(n);
  }
  for (Node* n : doomed) graph->RemoveNode(n);
}

}  // namespace

// Note [Collecting import errors]
// The fail-fast import (options.errors == null) is the hot path (a session
// imports every graph once, 100k-node graphs included): it pays nothing for
// the collecting mode beyond a branch at each error. In collecting mode a
// node with an error is left out of the graph in pass 1, or removed with
// everything downstream after pass 2; its consumers are then silent, so
// each error printed is one the user must fix.
namespace {

// The body of ImportGraphDef. `movable`, when not null, is `graph_def`
// itself; its nodes may be moved from (fail-fast mode only: collecting mode
// needs them intact). Fail-fast, it leaves the nodes it added in `*added`
// even when it fails, for the caller to remove.
// Gives `graph` a library holding its own functions (if any) and
// `library`'s; the graph keeps its old one on error.
Status AddFunctionLibrary(const FunctionDefLibrary& library, Graph* graph) {
  const FunctionLibraryDefinition* old = graph->flib_def();
  auto merged = std::make_shared<FunctionLibraryDefinition>(
      old != nullptr ? old->default_registry() : graph->op_registry());
  if (old != nullptr) {
    FunctionDefLibrary existing;
    old->ToProto(&existing);
    MF_RETURN_IF_ERROR(merged->AddLibrary(existing));
  }
  MF_RETURN_IF_ERROR(merged->AddLibrary(library));
  graph->set_flib_def(std::move(merged));
  return OkStatus();
}

// Kahn's algorithm over `nodes` and the edges among them, back edges left
// out as TopologicalOrder leaves them out.
bool NewNodesAreAcyclic(const Graph& graph, const std::vector<Node*>& nodes) {
  std::vector<int> pending(graph.num_node_ids(), -1);  // -1: not new
  for (const Node* n : nodes) pending[n->id()] = 0;
  for (const Node* n : nodes) {
    for (const Edge* e : n->in_edges()) {
      if (pending[e->src->id()] >= 0 && !e->IsBackEdge()) ++pending[n->id()];
    }
  }
  std::vector<const Node*> ready;
  for (const Node* n : nodes) {
    if (pending[n->id()] == 0) ready.push_back(n);
  }
  for (size_t head = 0; head < ready.size(); ++head) {
    const Node* n = ready[head];
    for (const Edge* e : n->out_edges()) {
      if (e->IsBackEdge() || pending[e->dst->id()] < 0) continue;
      if (--pending[e->dst->id()] == 0) ready.push_back(e->dst);
    }
  }
  return ready.size() == nodes.size();
}

Status AddGraphDefNodes(const GraphConstructorOptions& options,
                        const GraphDef& graph_def, GraphDef* movable,
                        Graph* graph, std::vector<Node*>* added) {
  const bool was_empty = graph->num_nodes() == 0;
  std::vector<Status>* const collected = options.errors;
  const size_t first_error = collected ? collected->size() : 0;
  // Fail-fast: returns `s`. Collecting: keeps `s` and returns OK.
  auto report = [collected](Status s) {
    if (collected == nullptr) return s;
    collected->push_back(std::move(s));
    return OkStatus();
  };
  Status versions = CheckVersions(graph_def.versions());
  if (!versions.ok()) MF_RETURN_IF_ERROR(report(std::move(versions)));
  if (was_empty) graph->set_versions(graph_def.versions());
  if (graph_def.library().function_size() > 0 ||
      graph_def.library().gradient_size() > 0) {
    Status library = AddFunctionLibrary(graph_def.library(), graph);
    if (!library.ok()) MF_RETURN_IF_ERROR(report(std::move(library)));
  }
  const OpRegistryInterface* ops = graph->op_registry();

  // Pass 1: nodes.
  int64_t num_inputs = 0;
  for (const NodeDef& n : graph_def.node()) num_inputs += n.input_size();
  graph->Reserve(graph_def.node_size(),
                 static_cast<int>(std::min<int64_t>(num_inputs, INT32_MAX)));
  if (collected != nullptr) movable = nullptr;
  std::vector<Node*>& nodes = *added;
  nodes.reserve(graph_def.node_size());
  absl::flat_hash_set<std::string> left_out;  // stays empty when fail-fast
  OpDefCache op_defs;
  InputMap input_map;
  for (const auto& [key, value] : options.input_map) {
    input_map[key.ToString()] = value.ToString();
  }
  // Names of graph_def's nodes that input_map keys name (pass 1 may move
  // the NodeDefs).
  absl::flat_hash_set<std::string> keyed_nodes;
  if (options.missing_unused_input_map_keys != nullptr) {
    for (const auto& [key, value] : options.input_map) {
      keyed_nodes.insert(key.node);
    }
    absl::flat_hash_set<std::string> found;
    for (const NodeDef& n : graph_def.node()) {
      if (keyed_nodes.contains(n.name())) found.insert(n.name());
    }
    keyed_nodes = std::move(found);
  }
  for (int i = 0; i < graph_def.node_size(); ++i) {
    const NodeDef& original = graph_def.node(i);
    Node* node = nullptr;
    Status added = AddNodeFromDef(
        options, input_map, *ops, &op_defs, original,
        movable != nullptr ? movable->mutable_node(i) : nullptr, graph, &node);
    if (!added.ok()) {
      MF_RETURN_IF_ERROR(report(std::move(added)));
      left_out.insert(options.prefix + original.name());
      continue;
    }
    nodes.push_back(node);
  }

  // As TensorFlow: a key is missing when its node is not in graph_def or
  // has no such output.
  if (options.missing_unused_input_map_keys != nullptr) {
    for (const auto& [key, value] : options.input_map) {
      const Node* n = keyed_nodes.contains(key.node)
                          ? graph->FindNodeByName(options.prefix + key.node)
                          : nullptr;
      if (n == nullptr || key.port >= n->num_outputs()) {
        options.missing_unused_input_map_keys->push_back(key);
      }
    }
  }

  // Pass 2: edges.
  std::vector<Node*> broken;
  for (Node* node : nodes) {
    bool depends_on_left_out = false;
    Status connected =
        ConnectInputs(left_out, node, graph, &depends_on_left_out);
    if (!connected.ok()) {
      MF_RETURN_IF_ERROR(report(std::move(connected)));
      broken.push_back(node);
    } else if (depends_on_left_out) {
      broken.push_back(node);
    }
  }

  if (collected == nullptr) {
    // Nodes already in the graph cannot name the new ones, so a cycle runs
    // through new nodes only, and only they are ordered: adding one node
    // to a large graph (the C API builds graphs so) must not cost the whole
    // graph. A cycle found is reported by ordering the whole graph, which
    // names a node on it.
    if (NewNodesAreAcyclic(*graph, nodes)) return OkStatus();
    std::vector<Node*> order;
    return TopologicalOrder(*graph, &order);
  }
  RemoveWithDescendants(std::move(broken), graph);
  ReportAndRemoveCycles(graph, collected);
  return collected->size() > first_error ? (*collected)[first_error]
                                         : OkStatus();
}

// Fail-fast, an error removes what was added, leaving `*graph` as it was.
Status ImportGraphDefImpl(const GraphConstructorOptions& options,
                          const GraphDef& graph_def, GraphDef* movable,
                          Graph* graph, std::vector<Node*>* added) {
  const bool was_empty = graph->num_nodes() == 0;
  const VersionDef versions = graph->versions();
  const std::shared_ptr<const FunctionLibraryDefinition> library =
      graph->shared_flib_def();
  std::vector<Node*> nodes;
  Status s = AddGraphDefNodes(options, graph_def, movable, graph, &nodes);
  if (!s.ok()) {
    if (options.errors == nullptr) {
      graph->set_flib_def(library);
      for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
        graph->RemoveNode(*it);
      }
      if (was_empty) graph->set_versions(versions);
    }
    return s;
  }
  if (added != nullptr) *added = std::move(nodes);
  return OkStatus();
}

Status CheckEmpty(const Graph& graph) {
  if (graph.num_nodes() == 0) return OkStatus();
  return errors::FailedPrecondition(
      "ConvertGraphDefToGraph needs an empty Graph (ImportGraphDef adds to "
      "one that is not)");
}

}  // namespace

Status ConvertGraphDefToGraph(const GraphConstructorOptions& options,
                              const GraphDef& graph_def, Graph* graph) {
  MF_RETURN_IF_ERROR(CheckEmpty(*graph));
  return ImportGraphDefImpl(options, graph_def, nullptr, graph, nullptr);
}

Status ConvertGraphDefToGraph(const GraphConstructorOptions& options,
                              GraphDef&& graph_def, Graph* graph) {
  MF_RETURN_IF_ERROR(CheckEmpty(*graph));
  return ImportGraphDefImpl(options, graph_def, &graph_def, graph, nullptr);
}

Status ImportGraphDef(const GraphConstructorOptions& options,
                      const GraphDef& graph_def, Graph* graph,
                      std::vector<Node*>* added) {
  return ImportGraphDefImpl(options, graph_def, nullptr, graph, added);
}

Status ParseGraphDef(absl::string_view bytes, GraphDef* graph_def) {
  // Some of these would even parse, as a GraphDef of unknown fields.
  MF_RETURN_IF_ERROR(internal::RejectForeignModelBytes(bytes));
  // Text format is printable; a serialized GraphDef almost never is (its
  // first byte is a field tag, and names carry length prefixes).
  bool printable = true;
  for (unsigned char c : bytes) {
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') {
      printable = false;
      break;
    }
  }
  // Both parsers recurse once per nested message: see kProtoRecursionLimit.
  const auto parse_binary = [&] {
    if (bytes.size() > static_cast<size_t>(INT32_MAX)) return false;
    google::protobuf::io::CodedInputStream input(
        reinterpret_cast<const uint8_t*>(bytes.data()),
        static_cast<int>(bytes.size()));
    input.SetRecursionLimit(kProtoRecursionLimit);
    return graph_def->ParseFromCodedStream(&input);
  };
  graph_def->Clear();
  if (printable && !bytes.empty()) {
    google::protobuf::TextFormat::Parser parser;
    parser.SetRecursionLimit(kProtoRecursionLimit);
    struct Collector : google::protobuf::io::ErrorCollector {
      std::string errors;
      void AddError(int line, int column, const std::string& message) override {
        absl::StrAppend(&errors, errors.empty() ? "" : "; ", "line ", line + 1,
                        " column ", column + 1, ": ", message);
        // The tokenizer's end-of-input token has no text: "got: " then
        // ends the message, which reads as if something were cut off.
        if (absl::EndsWith(message, "got: ")) {
          absl::StrAppend(&errors, "end of file");
        }
      }
    } collector;
    parser.RecordErrorsTo(&collector);
    google::protobuf::io::ArrayInputStream stream(
        bytes.data(), static_cast<int>(bytes.size()));
    if (parser.Parse(&stream, graph_def)) return OkStatus();
    graph_def->Clear();
    if (parse_binary()) return OkStatus();
    return errors::InvalidArgument("Could not parse the GraphDef as text: ",
                                   collector.errors);
  }
  if (!parse_binary()) {
    graph_def->Clear();
    if (ProtoNestsDeeperThan(bytes, *GraphDef::descriptor(),
                             kProtoRecursionLimit)) {
      return errors::InvalidArgument(
          "Could not parse the GraphDef: it nests messages more than ",
          kProtoRecursionLimit, " levels deep, the most minflow reads");
    }
    return errors::InvalidArgument(
        "Could not parse the GraphDef: the bytes are neither a binary nor a "
        "text-format GraphDef (truncated or corrupt file?)");
  }
  return OkStatus();
}

Status ReadGraphDefFile(const std::string& path, GraphDef* graph_def) {
  // A directory opens as a stream that reads nothing: an empty graph.
  std::error_code error;
  const std::filesystem::file_status status =
      std::filesystem::status(path, error);
  if (std::filesystem::is_directory(status)) {
    return internal::RejectDirectory(path);
  }
  // A device or a pipe reads as anything or nothing; /dev/null would be an
  // empty graph that "validates".
  if (std::filesystem::exists(status) &&
      !std::filesystem::is_regular_file(status)) {
    return errors::FailedPrecondition(
        "Cannot open graph file '", path, "': it is not a regular file (",
        std::filesystem::is_character_file(status) ? "a character device"
        : std::filesystem::is_block_file(status)   ? "a block device"
        : std::filesystem::is_fifo(status)         ? "a pipe"
        : std::filesystem::is_socket(status)       ? "a socket"
                                                   : "not a file",
        ")");
  }
  // "Cannot open graph file": the CLI's exit codes key on it (see
  // ExitCodeForLoadError).
  std::string contents;
  MF_RETURN_IF_ERROR(ReadFileToString(path, &contents, "graph file"));
  return errors::Prefix(ParseGraphDef(contents, graph_def), path, ": ");
}

}  // namespace minflow
