// `minflow validate GRAPH`: imports and shape-refines a GraphDef without
// running it and reports every independent error.
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "minflow/core/status.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/graph_pipeline.h"
#include "tools/command.h"
#include "tools/graph_run_flags.h"

namespace minflow {
namespace tools {

void ValidateHelp(std::ostream& os) {
  os << R"(Usage: minflow validate GRAPH

Checks GRAPH (a GraphDef, binary .pb or text .pbtxt, told apart by content)
without running it: versions, node names, ops (with suggestions for unknown
ones), attrs, input counts, input nodes and ports, dtypes of every edge,
cycles, and then the shapes of every node (ShapeRefiner, as Session::Create
does). Every independent error is reported, each naming its node and op; a
node that only fails because an input comes from a broken node is not
reported again. Errors go to stderr; the last line, on stdout, is

  GRAPH: N nodes, K errors

Examples:
  minflow validate model.pb
  minflow validate examples/graphs/digits_mlp.pbtxt && echo clean
  minflow validate graph.pbtxt 2>&1 | grep -A1 'error:'

Exit codes: 0 the graph is valid; 1 the file cannot be read; 2 usage error;
3 the graph has errors (or does not parse).
)";
}

int ValidateMain(const CommandContext& ctx) {
  if (ctx.args.size() != 1 || absl::StartsWith(ctx.args[0], "-")) {
    for (const std::string& arg : ctx.args) {
      if (absl::StartsWith(arg, "-")) {
        *ctx.err << "minflow validate: unknown flag '" << arg << "'\n";
        break;
      }
    }
    *ctx.err << "Usage: minflow validate GRAPH (see minflow help validate)\n";
    return kExitUsage;
  }
  const std::string& path = ctx.args[0];
  GraphDef graph_def;
  const Status read = ReadGraphOrSavedModel(path, &graph_def);
  if (!read.ok()) {
    *ctx.err << "minflow validate: " << read.message() << "\n";
    return ExitCodeForLoadError(read);
  }

  // Import what is valid, then refine that; each stage skips what depends
  // on an earlier error. See Note [Collecting import errors].
  std::vector<Status> errors;
  GraphPipelineOptions options;
  options.errors = &errors;
  std::unique_ptr<GraphPipeline> pipeline;
  GraphPipeline::Prepare(graph_def, options, &pipeline).IgnoreError();

  for (const Status& error : errors) {
    *ctx.err << path << ": error: " << error.message() << "\n";
  }
  const int n = graph_def.node_size();
  const size_t k = errors.size();
  *ctx.out << path << ": " << n << (n == 1 ? " node, " : " nodes, ") << k
           << (k == 1 ? " error" : " errors") << "\n";
  return errors.empty() ? kExitOk : kExitInvalidGraph;
}

}  // namespace tools
}  // namespace minflow
