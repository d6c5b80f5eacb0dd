// `minflow dot GRAPH`: the graph in Graphviz's DOT language, optionally with
// the dtype and shape of every edge and the device of every node.
#include <iterator>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "minflow/config.pb.h"
#include "minflow/core/status.h"
#include "minflow/framework/device.h"
#include "minflow/framework/op.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/placer.h"
#include "minflow/graph/shape_refiner.h"
#include "minflow/runtime/device_factory.h"
#include "minflow/runtime/session.h"
#include "tools/command.h"
#include "tools/graph_run_flags.h"

namespace minflow {
namespace tools {

void DotHelp(std::ostream& os) {
  os << R"(Usage: minflow dot GRAPH [--shapes] [--devices] [--allow-soft-placement]

Writes GRAPH (a GraphDef, binary .pb or text .pbtxt) as a Graphviz DOT
digraph on stdout: one box per node, labelled with its name and op; one arrow
per data edge, labelled NAME:K's port when K is not 0; control edges dashed.

Options:
  --shapes                Label data edges with the tensor's dtype and
                          inferred shape, e.g. "float [8,784]" ("?" an
                          unknown dim or rank).
  --devices               Place the graph as a Session would (device
                          requests, kernels, colocation) and show each
                          node's device; nodes are grouped and coloured by
                          device.
  --allow-soft-placement  With --devices: place a node elsewhere when its
                          requested device does not exist or has no kernel.

Examples:
  minflow dot examples/graphs/digits_mlp.pbtxt --shapes | dot -Tsvg > g.svg
  minflow dot model.pb --devices --shapes > model.dot

Exit codes: 0 success; 1 the file cannot be read or devices cannot be
created; 2 usage error; 3 the graph does not parse, import, refine (with
--shapes) or place (with --devices); 'minflow validate GRAPH' lists every
error.
)";
}

namespace {

struct DotFlags {
  std::string graph;
  bool shapes = false;
  bool devices = false;
  bool soft_placement = false;
};

Status ParseDotFlags(const std::vector<std::string>& args, DotFlags* flags) {
  for (const std::string& arg : args) {
    if (arg == "--shapes") {
      flags->shapes = true;
    } else if (arg == "--devices") {
      flags->devices = true;
    } else if (arg == "--allow-soft-placement") {
      flags->soft_placement = true;
    } else if (absl::StartsWith(arg, "-")) {
      return errors::InvalidArgument("unknown flag '", arg, "'");
    } else if (!flags->graph.empty()) {
      return errors::InvalidArgument("more than one GRAPH: '", flags->graph,
                                     "' and '", arg, "'");
    } else {
      flags->graph = arg;
    }
  }
  if (flags->graph.empty()) return errors::InvalidArgument("GRAPH is missing");
  if (flags->soft_placement && !flags->devices) {
    return errors::InvalidArgument("--allow-soft-placement needs --devices");
  }
  return OkStatus();
}

// A DOT quoted string: '"' and '\' escaped, so neither ends the string
// early, and newlines written as DOT's centred line break.
std::string Quote(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

// "/job:localhost/replica:0/task:0/device:CPU:0" -> "/device:CPU:0".
std::string ShortDeviceName(const std::string& device) {
  const size_t at = device.find("/device:");
  return at == std::string::npos ? device : device.substr(at);
}

// Fill colours for devices, in order of first use.
constexpr const char* kDeviceColors[] = {"#dbe9f6", "#fde3c8", "#d9f0d3",
                                         "#ece2f0", "#fbe0e6", "#f6f2c8"};
constexpr char kPlainColor[] = "#f2f2f2";

// What the optional passes add to the drawing.
struct Annotations {
  const ShapeRefiner* refiner = nullptr;  // with --shapes
  bool devices = false;
};

std::string EdgeLabel(const Edge& e, const ShapeRefiner* refiner) {
  std::string label;
  if (e.src_output != 0) label = absl::StrCat(":", e.src_output);
  const int src = e.src->id();
  if (refiner != nullptr && refiner->has_node(src) &&
      e.src_output < refiner->num_outputs(src)) {
    absl::StrAppend(
        &label, label.empty() ? "" : " ",
        DataTypeString(refiner->output_type(src, e.src_output)), " ",
        refiner->ShapeString(refiner->output_shape(src, e.src_output)));
  }
  return label;
}

void WriteNode(const Node& n, const std::string& color, bool devices,
               const std::string& indent, std::ostream& os) {
  std::string label = absl::StrCat(n.name(), "\n", n.type_string());
  if (devices) {
    absl::StrAppend(&label, "\n", ShortDeviceName(n.assigned_device_name()));
  }
  os << indent << Quote(n.name()) << " [label=" << Quote(label)
     << ", fillcolor=" << Quote(color) << "];\n";
}

void WriteDot(const Graph& graph, const std::string& title,
              const Annotations& notes, std::ostream& os) {
  os << "digraph " << Quote(title) << " {\n"
     << "  node [shape=box, style=\"rounded,filled\", fontname=Helvetica, "
        "fontsize=11];\n"
     << "  edge [fontname=Helvetica, fontsize=9];\n";
  const std::vector<Node*> nodes = graph.nodes();
  if (!notes.devices) {
    for (const Node* n : nodes) WriteNode(*n, kPlainColor, false, "  ", os);
  } else {
    // One cluster per device, in order of first use.
    std::vector<std::string> devices;
    absl::flat_hash_map<std::string, std::vector<const Node*>> by_device;
    for (const Node* n : nodes) {
      std::vector<const Node*>& members = by_device[n->assigned_device_name()];
      if (members.empty()) devices.push_back(n->assigned_device_name());
      members.push_back(n);
    }
    for (size_t i = 0; i < devices.size(); ++i) {
      const char* color = kDeviceColors[i % std::size(kDeviceColors)];
      os << "  subgraph " << Quote(absl::StrCat("cluster_", i)) << " {\n"
         << "    label=" << Quote(ShortDeviceName(devices[i]))
         << ";\n    style=dashed;\n    color=\"#888888\";\n";
      for (const Node* n : by_device[devices[i]]) {
        WriteNode(*n, color, true, "    ", os);
      }
      os << "  }\n";
    }
  }
  for (const Node* n : nodes) {
    for (const Edge* e : n->in_edges()) {
      os << "  " << Quote(e->src->name()) << " -> " << Quote(n->name());
      if (e->IsControlEdge()) {
        os << " [style=dashed]";
      } else {
        const std::string label = EdgeLabel(*e, notes.refiner);
        if (!label.empty()) os << " [label=" << Quote(label) << "]";
      }
      os << ";\n";
    }
  }
  os << "}\n";
}

// The title: the file name without folders and extension.
std::string GraphTitle(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  const size_t dot = name.find('.');
  if (dot != std::string::npos && dot > 0) name.resize(dot);
  return name;
}

}  // namespace

int DotMain(const CommandContext& ctx) {
  DotFlags flags;
  Status s = ParseDotFlags(ctx.args, &flags);
  if (!s.ok()) {
    *ctx.err << "minflow dot: " << s.message()
             << "\nUsage: minflow dot GRAPH [--shapes] [--devices] "
                "[--allow-soft-placement]\n";
    return kExitUsage;
  }
  GraphDef graph_def;
  s = ReadGraphDefFile(flags.graph, &graph_def);
  if (!s.ok()) {
    *ctx.err << "minflow dot: " << s.message() << "\n";
    return ExitCodeForLoadError(s);
  }
  auto invalid = [&ctx, &flags](const Status& error) {
    *ctx.err << "minflow dot: " << error.message() << "\n(minflow validate "
             << flags.graph << " lists every error)\n";
    return kExitInvalidGraph;
  };

  Graph graph(OpRegistry::Global());
  s = ConvertGraphDefToGraph(GraphConstructorOptions(), graph_def, &graph);
  if (!s.ok()) return invalid(s);
  Annotations notes;
  // Refined before placement: placement may add copy nodes, which are
  // drawn without shapes.
  ShapeRefiner refiner(graph.versions().producer(), OpRegistry::Global());
  std::unique_ptr<GraphView> view;
  if (flags.shapes) {
    view = std::make_unique<GraphView>(graph);
    s = refiner.RefineGraph(*view);
    if (!s.ok()) return invalid(s);
    notes.refiner = &refiner;
  }
  std::vector<std::unique_ptr<Device>> devices;
  if (flags.devices) {
    SessionOptions options;
    options.config.set_intra_op_parallelism_threads(1);
    s = CreateDevices(options, &devices);
    if (!s.ok()) {
      *ctx.err << "minflow dot: " << s.message() << "\n";
      return kExitFailure;
    }
    std::vector<Device*> device_ptrs;
    for (const auto& d : devices) device_ptrs.push_back(d.get());
    PlacerOptions placer;
    placer.allow_soft_placement = flags.soft_placement;
    s = PlaceGraph(device_ptrs, placer, &graph);
    if (!s.ok()) return invalid(s);
    notes.devices = true;
  }
  WriteDot(graph, GraphTitle(flags.graph), notes, *ctx.out);
  return kExitOk;
}

}  // namespace tools
}  // namespace minflow
