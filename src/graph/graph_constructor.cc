#include "minflow/graph/graph_constructor.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/op_def.pb.h"

namespace minflow {
namespace {

// TensorFlow's node-name syntax: [A-Za-z0-9.][A-Za-z0-9_./>-]*
bool IsValidNodeName(absl::string_view name) {
  if (name.empty()) return false;
  auto first_ok = [](char c) { return absl::ascii_isalnum(c) || c == '.'; };
  auto rest_ok = [](char c) {
    return absl::ascii_isalnum(c) || c == '_' || c == '.' || c == '/' ||
           c == '>' || c == '-';
  };
  if (!first_ok(name[0])) return false;
  for (char c : name.substr(1)) {
    if (!rest_ok(c)) return false;
  }
  return true;
}

// One parsed entry of NodeDef.input.
struct InputRef {
  absl::string_view node;
  int port = 0;  // kControlSlot for "^node"
};

Status ParseInput(absl::string_view input, InputRef* ref) {
  if (absl::ConsumePrefix(&input, "^")) {
    ref->node = input;
    ref->port = kControlSlot;
    return input.empty() ? errors::InvalidArgument("Empty control input '^'")
                         : OkStatus();
  }
  const size_t colon = input.rfind(':');
  ref->node = input;
  ref->port = 0;
  if (colon != absl::string_view::npos) {
    int port = 0;
    if (!absl::SimpleAtoi(input.substr(colon + 1), &port) || port < 0) {
      return errors::InvalidArgument("Input '", input,
                                     "' has a malformed output port");
    }
    ref->node = input.substr(0, colon);
    ref->port = port;
  }
  if (ref->node.empty()) {
    return errors::InvalidArgument("Input '", input, "' names no node");
  }
  return OkStatus();
}

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

// The body of ImportGraphDef; leaves the nodes it added in `*nodes` even
// when it fails, for the caller to remove.
Status AddGraphDefNodes(const GraphConstructorOptions& options,
                        const GraphDef& graph_def, Graph* graph,
                        std::vector<Node*>* nodes_out) {
  MF_RETURN_IF_ERROR(CheckVersions(graph_def.versions()));
  const OpRegistryInterface* ops = graph->op_registry();

  // Pass 1: nodes.
  std::vector<Node*>& nodes = *nodes_out;
  nodes.reserve(graph_def.node_size());
  for (const NodeDef& original : graph_def.node()) {
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
    if (graph->FindNodeByName(options.prefix + original.name()) != nullptr) {
      return NodeError(errors::InvalidArgument("Node name '", original.name(),
                                               "' is used by more than one "
                                               "node"),
                       original);
    }
    const OpDef* op_def = nullptr;
    Status lookup = ops->LookUpOpDef(original.op(), &op_def);
    if (!lookup.ok()) return NodeError(lookup, original);
    NodeDef def = original;
    if (!options.prefix.empty()) {
      def.set_name(options.prefix + def.name());
      for (std::string& in : *def.mutable_input()) {
        const bool control = absl::StartsWith(in, "^");
        in = control ? absl::StrCat("^", options.prefix, in.substr(1))
                     : options.prefix + in;
      }
    }
    if (options.add_default_attributes) AddDefaultsToNodeDef(*op_def, &def);
    Status valid = ValidateNodeDef(def, *op_def);
    if (!valid.ok()) return NodeError(valid, original);
    StatusOr<Node*> node = graph->AddNode(std::move(def));
    if (!node.ok()) return NodeError(node.status(), original);
    nodes.push_back(*node);
  }

  // Pass 2: edges. ValidateNodeDef has checked input counts and that data
  // inputs come before control inputs.
  for (Node* node : nodes) {
    const NodeDef& def = node->def();
    int data_index = 0;
    for (const std::string& input : def.input()) {
      InputRef ref;
      Status parsed = ParseInput(input, &ref);
      if (!parsed.ok()) return NodeError(parsed, def);
      Node* src = graph->FindNodeByName(ref.node);
      if (src == nullptr) {
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
  }

  // Nodes already in the graph cannot name the new ones, so a cycle runs
  // through new nodes only; the whole graph is ordered for simplicity.
  std::vector<Node*> order;
  return TopologicalOrder(*graph, &order);
}

}  // namespace

Status ImportGraphDef(const GraphConstructorOptions& options,
                      const GraphDef& graph_def, Graph* graph,
                      std::vector<Node*>* added) {
  const bool was_empty = graph->num_nodes() == 0;
  std::vector<Node*> nodes;
  Status s = AddGraphDefNodes(options, graph_def, graph, &nodes);
  if (!s.ok()) {
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      graph->RemoveNode(*it);
    }
    return s;
  }
  if (was_empty) graph->set_versions(graph_def.versions());
  if (added != nullptr) *added = std::move(nodes);
  return OkStatus();
}

Status ConvertGraphDefToGraph(const GraphConstructorOptions& options,
                              const GraphDef& graph_def, Graph* graph) {
  if (graph->num_nodes() != 0) {
    return errors::FailedPrecondition(
        "ConvertGraphDefToGraph needs an empty Graph");
  }
  return ImportGraphDef(options, graph_def, graph);
}

Status ParseGraphDef(absl::string_view bytes, GraphDef* graph_def) {
  // Text format is printable; a serialized GraphDef almost never is (its
  // first byte is a field tag, and names carry length prefixes).
  bool printable = true;
  for (unsigned char c : bytes) {
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') {
      printable = false;
      break;
    }
  }
  graph_def->Clear();
  if (printable && !bytes.empty()) {
    google::protobuf::TextFormat::Parser parser;
    struct Collector : google::protobuf::io::ErrorCollector {
      std::string errors;
      void AddError(int line, int column, const std::string& message) override {
        absl::StrAppend(&errors, errors.empty() ? "" : "; ", "line ", line + 1,
                        " column ", column + 1, ": ", message);
      }
    } collector;
    parser.RecordErrorsTo(&collector);
    google::protobuf::io::ArrayInputStream stream(
        bytes.data(), static_cast<int>(bytes.size()));
    if (parser.Parse(&stream, graph_def)) return OkStatus();
    graph_def->Clear();
    if (graph_def->ParseFromArray(bytes.data(),
                                  static_cast<int>(bytes.size()))) {
      return OkStatus();
    }
    return errors::InvalidArgument("Could not parse the GraphDef as text: ",
                                   collector.errors);
  }
  if (bytes.size() > static_cast<size_t>(INT32_MAX) ||
      !graph_def->ParseFromArray(bytes.data(),
                                 static_cast<int>(bytes.size()))) {
    return errors::InvalidArgument(
        "Could not parse the GraphDef: the bytes are neither a binary nor a "
        "text-format GraphDef (truncated or corrupt file?)");
  }
  return OkStatus();
}

Status ReadGraphDefFile(const std::string& path, GraphDef* graph_def) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return errors::NotFound("Cannot open graph file '", path, "'");
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad()) return errors::DataLoss("Error reading '", path, "'");
  return errors::Prefix(ParseGraphDef(contents.str(), graph_def), path, ": ");
}

}  // namespace minflow
