// `minflow optimize GRAPH -o OUT`: the graph as the executor will run it for
// a signature, after the feed/fetch rewrite, the optimisation passes and
// placement; `--passes` lists the registered passes.
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "google/protobuf/text_format.h"
#include "minflow/core/status.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/optimization_registry.h"
#include "tools/command.h"
#include "tools/graph_run_flags.h"
#include "tools/output_files.h"
#include "tools/signature_flags.h"

namespace minflow {
namespace tools {

void OptimizeHelp(std::ostream& os) {
  os << R"(Usage: minflow optimize GRAPH -o OUT [options]
       minflow optimize --passes

Prepares GRAPH (a GraphDef, binary .pb or text .pbtxt) for one signature
exactly as a Session does for Run: import and shape refinement, the
feed/fetch rewrite (feeds become _Arg nodes, fetches _Retval nodes, what
they do not need is pruned), the optimisation passes, and placement on this
process's devices. Writes the result to OUT (text format when OUT ends in
.pbtxt, binary otherwise) with every node's assigned device and inferred
shapes (TensorFlow's `_output_shapes` attr), and prints one line per pass:
nodes before and after, and time.

Options:
  -o, --output OUT        Where to write the graph (required).
)";
  PrintSignatureFlagsHelp(os);
  os << R"(  --passes                List the registered passes in the order they run,
                          with their phase and what each preserves; nothing
                          else is done.

Passes are also switched by SessionOptions.config.graph_options
.rewrite_options (TensorFlow's RewriterConfig: constant_folding = OFF, ...,
disable_meta_optimizer, optimizers).

Examples:
  minflow optimize model.pb --feed x --fetch probs -o model.opt.pbtxt
  minflow optimize model.pb -o raw.pb --disable constant_folding
  minflow dot model.pb --optimized --fetch probs | dot -Tsvg > opt.svg

Exit codes: 0 success; 1 the file cannot be read or written; 2 usage error;
3 the graph does not parse, import, refine, rewrite, optimise or place.
)";
}

namespace {

void ListPasses(std::ostream& os) {
  const auto passes = OptimizationPassRegistry::Global()->Passes();
  if (passes.empty()) os << "(no passes registered)\n";
  for (const OptimizationPassRegistry::Entry* e : passes) {
    os << e->pass->name() << "  (" << OptimizationPhaseName(e->phase)
       << ", order " << e->order << ")\n    preserves: " << e->pass->preserves()
       << "\n";
  }
}

}  // namespace

int OptimizeMain(const CommandContext& ctx) {
  std::string graph_path;
  std::string output;
  SignatureFlags flags;
  bool list = false;
  auto usage = [&ctx](const std::string& message) {
    *ctx.err << "minflow optimize: " << message
             << "\nUsage: minflow optimize GRAPH -o OUT [options] (see "
                "minflow help optimize)\n";
    return kExitUsage;
  };
  for (size_t i = 0; i < ctx.args.size(); ++i) {
    const std::string& arg = ctx.args[i];
    StatusOr<bool> signature = ParseSignatureFlag(ctx.args, &i, &flags);
    if (!signature.ok())
      return usage(std::string(signature.status().message()));
    if (*signature) continue;
    if (arg == "--passes") {
      list = true;
    } else if (arg == "-o" || arg == "--output") {
      if (i + 1 >= ctx.args.size()) return usage(arg + " needs a value");
      output = ctx.args[++i];
    } else if (absl::StartsWith(arg, "--output=")) {
      output = arg.substr(strlen("--output="));
    } else if (absl::StartsWith(arg, "-")) {
      return usage("unknown flag '" + arg + "'");
    } else if (!graph_path.empty()) {
      return usage("more than one GRAPH: '" + graph_path + "' and '" + arg +
                   "'");
    } else {
      graph_path = arg;
    }
  }
  if (list) {
    if (!graph_path.empty() || !output.empty()) {
      return usage("--passes takes no GRAPH or output");
    }
    ListPasses(*ctx.out);
    return kExitOk;
  }
  if (graph_path.empty()) return usage("GRAPH is missing");
  if (output.empty()) return usage("-o OUT is missing");

  GraphDef graph_def;
  Status s = ReadGraphOrSavedModel(graph_path, &graph_def);
  if (!s.ok()) {
    *ctx.err << "minflow optimize: " << s.message() << "\n";
    return ExitCodeForLoadError(s);
  }
  std::vector<std::unique_ptr<Device>> devices;
  std::unique_ptr<GraphPipeline> pipeline;
  PreparedGraph prepared;
  s = PrepareSignature(std::move(graph_def), flags, &devices, &pipeline,
                       &prepared);
  if (!s.ok()) {
    *ctx.err << "minflow optimize: " << s.message() << "\n";
    return kExitInvalidGraph;
  }
  GraphDef optimized;
  prepared.graph->ToGraphDef(&optimized, /*add_shapes=*/true);
  std::string bytes;
  if (absl::EndsWith(output, ".pbtxt")) {
    google::protobuf::TextFormat::PrintToString(optimized, &bytes);
  } else {
    optimized.SerializeToString(&bytes);
  }
  s = WriteOutputFile(output, bytes);
  if (!s.ok()) {
    *ctx.err << "minflow optimize: " << s.message() << "\n";
    return kExitFailure;
  }
  PrintPassRecords(prepared.passes, *ctx.out);
  *ctx.out << "wrote " << output << ": " << prepared.graph->num_nodes()
           << " nodes (" << pipeline->graph().num_nodes() << " before)\n";
  return kExitOk;
}

}  // namespace tools
}  // namespace minflow
