// `minflow dot GRAPH`: the graph in Graphviz's DOT language, optionally with
// the dtype and shape of every edge and the device of every node.
#include <iterator>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "minflow/config.pb.h"
#include "minflow/core/status.h"
#include "minflow/framework/device.h"
#include "minflow/framework/op.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/control_flow.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/graph/tensor_id.h"
#include "minflow/runtime/device_factory.h"
#include "minflow/runtime/session.h"
#include "tools/command.h"
#include "tools/graph_run_flags.h"
#include "tools/signature_flags.h"

namespace minflow {
namespace tools {

void DotHelp(std::ostream& os) {
  os << R"(Usage: minflow dot GRAPH [--shapes] [--devices] [--allow-soft-placement]
       minflow dot GRAPH --optimized [--shapes] [signature options]

Writes GRAPH (a GraphDef, binary .pb or text .pbtxt) as a Graphviz DOT
digraph on stdout: one box per node, labelled with its name and op; one arrow
per data edge, labelled NAME:K's port when K is not 0; control edges dashed.
TF1 while loops are drawn as nested clusters, one per frame ("frame NAME"),
with the loops' back edges (out of NextIteration) in blue.

Options:
  --shapes                Label data edges with the tensor's dtype and
                          inferred shape, e.g. "float [8,784]" ("?" an
                          unknown dim or rank).
  --devices               Place the graph as a Session would (device
                          requests, kernels, colocation) and show each
                          node's device; nodes are grouped and coloured by
                          device.
  --allow-soft-placement  With --devices or --optimized: place a node
                          elsewhere when its requested device does not
                          exist or has no kernel.
  --optimized             Draw the graph as the executor runs it for one
                          signature (what minflow optimize writes): feeds as
                          _Arg and fetches as _Retval nodes, pruned, after
                          the optimisation passes, placed (implies
                          --devices). Takes minflow optimize's --feed,
                          --fetch, --target and --disable.

Examples:
  minflow dot examples/graphs/digits_mlp.pbtxt --shapes | dot -Tsvg > g.svg
  minflow dot model.pb --devices --shapes > model.dot
  minflow dot model.pb --optimized --feed x --fetch probs --shapes

A graph that does not import (an op this process does not know, an input
naming no node, a dtype error) is drawn as written when neither --shapes,
--devices nor --optimized is given: its errors go to stderr, and the nodes
they name are red and marked 'op not registered' or 'invalid', with the
error as their tooltip; an input naming no node is a dashed box.

Exit codes: 0 success (also for a graph drawn as written); 1 the file cannot
be read or devices cannot be created; 2 usage error; 3 the graph does not
parse, or (with --shapes, --devices or --optimized) does not import, refine,
place or prepare; 'minflow validate GRAPH' lists every error.
)";
}

namespace {

struct DotFlags {
  std::string graph;
  bool shapes = false;
  bool devices = false;
  bool optimized = false;
  SignatureFlags signature;
};

Status ParseDotFlags(const std::vector<std::string>& args, DotFlags* flags) {
  bool signature_flags = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    MF_ASSIGN_OR_RETURN(const bool consumed,
                        ParseSignatureFlag(args, &i, &flags->signature));
    if (consumed) {
      signature_flags = signature_flags || arg != "--allow-soft-placement";
      continue;
    }
    if (arg == "--optimized") {
      flags->optimized = true;
    } else if (arg == "--shapes") {
      flags->shapes = true;
    } else if (arg == "--devices") {
      flags->devices = true;
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
  if (flags->signature.allow_soft_placement && !flags->devices &&
      !flags->optimized) {
    return errors::InvalidArgument(
        "--allow-soft-placement needs --devices or --optimized");
  }
  if (signature_flags && !flags->optimized) {
    return errors::InvalidArgument(
        "--feed, --fetch, --target and --disable need --optimized");
  }
  if (flags->optimized) flags->devices = true;
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
  bool shapes = false;
  bool devices = false;
};

std::string EdgeLabel(const Edge& e, bool shapes) {
  std::string label;
  if (e.src_output != 0) label = absl::StrCat(":", e.src_output);
  if (shapes && !e.src->output_shapes().empty()) {
    absl::StrAppend(&label, label.empty() ? "" : " ",
                    DataTypeString(e.src->output_type(e.src_output)), " ",
                    e.src->output_shape(e.src_output).DebugString());
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

// The nodes of TF1 frame `frame`, and its child frames nested in it as
// clusters (Note [Frames] in graph/control_flow.h).
void WriteFrame(const Graph& graph, const ControlFlowInfo& flow, int frame,
                const std::string& indent, std::ostream& os) {
  for (const Node* n : graph.nodes()) {
    if (flow.frame_of_node[n->id()] == frame) {
      WriteNode(*n, kPlainColor, false, indent, os);
    }
  }
  for (size_t child = 1; child < flow.frames.size(); ++child) {
    if (flow.frames[child].parent != frame) continue;
    os << indent << "subgraph " << Quote(absl::StrCat("cluster_frame_", child))
       << " {\n"
       << indent << "  label=" << Quote("frame " + flow.frames[child].name)
       << ";\n"
       << indent << "  style=rounded;\n"
       << indent << "  color=\"#3366cc\";\n";
    WriteFrame(graph, flow, static_cast<int>(child), indent + "  ", os);
    os << indent << "}\n";
  }
}

void WriteDot(const Graph& graph, const std::string& title,
              const Annotations& notes, std::ostream& os) {
  os << "digraph " << Quote(title) << " {\n"
     << "  node [shape=box, style=\"rounded,filled\", fontname=Helvetica, "
        "fontsize=11];\n"
     << "  edge [fontname=Helvetica, fontsize=9];\n";
  const std::vector<Node*> nodes = graph.nodes();
  ControlFlowInfo flow;
  const bool frames = !notes.devices &&
                      BuildControlFlowInfo(graph, &flow).ok() &&
                      flow.frames.size() > 1;
  if (frames) {
    WriteFrame(graph, flow, 0, "  ", os);
  } else if (!notes.devices) {
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
      if (e->IsBackEdge()) {
        // A loop's way back: drawn, but left out of the ranking.
        os << " [color=\"#3366cc\", constraint=false]";
      } else if (e->IsControlEdge()) {
        os << " [style=dashed]";
      } else {
        const std::string label = EdgeLabel(*e, notes.shapes);
        if (!label.empty()) os << " [label=" << Quote(label) << "]";
      }
      os << ";\n";
    }
  }
  os << "}\n";
}

// Note [Drawing a graph that does not import]
// A graph with an op this process does not know (a custom op without its
// --load, a newer TensorFlow op), a dangling input or a dtype error cannot
// be imported, yet its structure is what a user wants to see to find the
// problem. Without --shapes, --devices or --optimized, nothing needs the
// imported graph, so dot draws the GraphDef as written: every NodeDef, every
// input as an edge. The importer's errors, collected as `minflow validate`
// collects them, go to stderr, and the nodes they name are marked: red with
// "(op not registered)" for an unknown op, red with "(invalid)" otherwise,
// each with the error as its tooltip. An input naming no node is drawn as a
// dashed "(no such node)" box.

constexpr char kErrorColor[] = "#f4cccc";
constexpr char kErrorLineColor[] = "#cc0000";

// The node an error names in TensorFlow's "[[{{node NAME}} ...]]" context,
// or "" (a cycle, for example, names several in its own words).
std::string NodeNamedByError(absl::string_view message) {
  constexpr absl::string_view kMark = "{{node ";
  const size_t start = message.find(kMark);
  if (start == absl::string_view::npos) return "";
  const size_t name_start = start + kMark.size();
  const size_t end = message.find("}}", name_start);
  if (end == absl::string_view::npos) return "";
  return std::string(message.substr(name_start, end - name_start));
}

// See Note [Drawing a graph that does not import].
void WriteDotAsWritten(const GraphDef& graph_def, const std::string& title,
                       const std::vector<Status>& errors, std::ostream& os) {
  absl::flat_hash_map<std::string, std::string> error_of_node;
  for (const Status& error : errors) {
    const std::string node = NodeNamedByError(error.message());
    if (!node.empty())
      error_of_node.emplace(node, std::string(error.message()));
  }
  os << "digraph " << Quote(title) << " {\n"
     << "  node [shape=box, style=\"rounded,filled\", fontname=Helvetica, "
        "fontsize=11];\n"
     << "  edge [fontname=Helvetica, fontsize=9];\n";
  absl::flat_hash_set<std::string> names;
  for (const NodeDef& n : graph_def.node()) names.insert(n.name());
  for (const NodeDef& n : graph_def.node()) {
    std::string label = absl::StrCat(n.name(), "\n", n.op());
    const auto error = error_of_node.find(n.name());
    if (OpRegistry::Global()->LookUp(n.op()) == nullptr) {
      absl::StrAppend(&label, "\n(op not registered)");
    } else if (error != error_of_node.end()) {
      absl::StrAppend(&label, "\n(invalid)");
    }
    os << "  " << Quote(n.name()) << " [label=" << Quote(label);
    if (error != error_of_node.end()) {
      os << ", fillcolor=" << Quote(kErrorColor)
         << ", color=" << Quote(kErrorLineColor)
         << ", tooltip=" << Quote(error->second);
    } else {
      os << ", fillcolor=" << Quote(kPlainColor);
    }
    os << "];\n";
  }
  absl::flat_hash_set<std::string> missing;
  for (const NodeDef& n : graph_def.node()) {
    for (const std::string& input : n.input()) {
      TensorIdView id;
      if (!ParseNodeInput(input, &id).ok()) continue;
      const std::string source(id.node);
      if (!names.contains(source) && missing.insert(source).second) {
        os << "  " << Quote(source)
           << " [label=" << Quote(absl::StrCat(source, "\n(no such node)"))
           << ", style=\"rounded,dashed\", color=" << Quote(kErrorLineColor)
           << "];\n";
      }
      os << "  " << Quote(source) << " -> " << Quote(n.name());
      if (id.IsControl()) {
        os << " [style=dashed]";
      } else if (id.port != 0) {
        os << " [label=" << Quote(absl::StrCat(":", id.port)) << "]";
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
                "[--allow-soft-placement] [--optimized ...]\n";
    return kExitUsage;
  }
  GraphDef graph_def;
  s = ReadGraphOrSavedModel(flags.graph, &graph_def);
  if (!s.ok()) {
    *ctx.err << "minflow dot: " << s.message() << "\n";
    return ExitCodeForLoadError(s);
  }
  auto invalid = [&ctx, &flags](const Status& error) {
    *ctx.err << "minflow dot: " << error.message() << "\n(minflow validate "
             << flags.graph << " lists every error)\n";
    return kExitInvalidGraph;
  };

  Annotations notes;
  notes.shapes = flags.shapes;
  notes.devices = flags.devices;
  std::unique_ptr<GraphPipeline> pipeline;
  std::vector<std::unique_ptr<Device>> devices;
  PreparedGraph prepared;
  if (flags.optimized) {
    s = PrepareSignature(std::move(graph_def), flags.signature, &devices,
                         &pipeline, &prepared);
    if (!s.ok()) return invalid(s);
  } else {
    // A graph whose shapes do not refine can still be drawn, without them.
    GraphPipelineOptions options;
    options.tolerate_shape_errors = !flags.shapes && !flags.devices;
    s = GraphPipeline::Prepare(graph_def, options, &pipeline);
    if (!s.ok() && (flags.shapes || flags.devices)) {
      *ctx.err << "minflow dot: " << s.message() << "\n(minflow validate "
               << flags.graph << " lists every error; without --shapes and "
               << "--devices, minflow dot draws the graph as written)\n";
      return kExitInvalidGraph;
    }
    if (!s.ok()) {
      // See Note [Drawing a graph that does not import].
      std::vector<Status> errors;
      GraphPipelineOptions collecting;
      collecting.errors = &errors;
      collecting.tolerate_shape_errors = true;
      GraphPipeline::Prepare(graph_def, collecting, &pipeline).IgnoreError();
      if (errors.empty()) errors.push_back(s);
      for (const Status& error : errors) {
        *ctx.err << flags.graph << ": error: " << error.message() << "\n";
      }
      *ctx.err << "minflow dot: the graph does not import (" << errors.size()
               << (errors.size() == 1 ? " error" : " errors")
               << "): drawn as written, with the nodes in error marked red\n";
      WriteDotAsWritten(graph_def, GraphTitle(flags.graph), errors, *ctx.out);
      return kExitOk;
    }
  }
  if (flags.devices && !flags.optimized) {
    SessionOptions options;
    options.config.set_intra_op_parallelism_threads(1);
    s = CreateDevices(options, &devices);
    if (!s.ok()) {
      *ctx.err << "minflow dot: " << s.message() << "\n";
      return kExitFailure;
    }
    // The whole graph, placed as it is: no signature, no passes.
    SignatureOptions place;
    for (const auto& d : devices) place.devices.push_back(d.get());
    place.allow_soft_placement = flags.signature.allow_soft_placement;
    place.passes.rewriter.set_disable_meta_optimizer(true);
    s = pipeline->PrepareForSignature({}, {}, {}, place, &prepared);
    if (!s.ok()) return invalid(s);
  }
  const Graph& graph =
      prepared.graph != nullptr ? *prepared.graph : pipeline->graph();
  WriteDot(graph, GraphTitle(flags.graph), notes, *ctx.out);
  return kExitOk;
}

}  // namespace tools
}  // namespace minflow
