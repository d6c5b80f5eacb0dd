// `minflow infer`: every node's output dtypes and shapes for a GraphDef.
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "minflow/core/status.h"
#include "minflow/framework/op.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/node_def.pb.h"
#include "tools/command.h"
#include "tools/graph_run_flags.h"

namespace minflow {
namespace tools {

void InferHelp(std::ostream& os) {
  os << "Usage: minflow infer GRAPH\n"
        "\n"
        "Infers the output dtypes and shapes of every node of GRAPH (a\n"
        "GraphDef, binary .pb or text .pbtxt, told apart by content) and\n"
        "prints one line per node, in the file's order:\n"
        "\n"
        "  NAME = OP -> DTYPE SHAPE[, DTYPE SHAPE]...\n"
        "\n"
        "Shapes are written [2,?] ('?' an unknown dim) or ? (unknown rank).\n"
        "Small integer computations on shapes (Shape, StridedSlice, Pack,\n"
        "ConcatV2, arithmetic, ...) are evaluated, as TensorFlow does, so a\n"
        "Reshape fed a computed shape gets a known output. On the first error\n"
        "(an unknown op, a cycle, incompatible shapes) the message, naming "
        "the\n"
        "node and its op, goes to stderr.\n"
        "\n"
        "Examples:\n"
        "  minflow infer model.pb\n"
        "  minflow infer graph.pbtxt | grep MatMul\n"
        "\n"
        "Exit codes: "
     << kExitOk << " success, " << kExitFailure << " unreadable file, "
     << kExitUsage << " usage error, " << kExitInvalidGraph
     << " the graph does not parse or has an inference error.\n";
}

int InferMain(const CommandContext& ctx) {
  if (ctx.args.size() != 1 || absl::StartsWith(ctx.args[0], "-")) {
    if (!ctx.args.empty() && absl::StartsWith(ctx.args[0], "-")) {
      *ctx.err << "minflow infer: unknown flag '" << ctx.args[0] << "'\n";
    }
    *ctx.err << "Usage: minflow infer GRAPH\n";
    return kExitUsage;
  }
  GraphDef graph;
  Status s = ReadGraphOrSavedModel(ctx.args[0], &graph);
  if (!s.ok()) {
    *ctx.err << "minflow infer: " << s.message() << "\n";
    return ExitCodeForLoadError(s);
  }
  std::unique_ptr<GraphPipeline> pipeline;
  s = GraphPipeline::Prepare(std::move(graph), GraphPipelineOptions(),
                             &pipeline);
  if (!s.ok()) {
    *ctx.err << "minflow infer: " << s.message() << "\n";
    return kExitInvalidGraph;
  }
  // Node ids follow the file's order.
  for (const Node* node : pipeline->graph().nodes()) {
    std::vector<std::string> outputs;
    for (int j = 0; j < node->num_outputs(); ++j) {
      outputs.push_back(absl::StrCat(DataTypeString(node->output_type(j)), " ",
                                     node->output_shape(j).DebugString()));
    }
    *ctx.out << node->name() << " = " << node->type_string() << " -> "
             << (outputs.empty() ? "(no outputs)"
                                 : absl::StrJoin(outputs, ", "))
             << "\n";
  }
  return kExitOk;
}

}  // namespace tools
}  // namespace minflow
