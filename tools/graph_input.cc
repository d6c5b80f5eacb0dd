#include "tools/graph_input.h"

#include <ostream>

#include "minflow/core/status.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_constructor.h"

namespace minflow {
namespace tools {

int ReadGraphArgument(const char* command, const std::string& path,
                      const CommandContext& ctx, GraphDef* graph) {
  const Status s = ReadGraphDefFile(path, graph);
  if (s.ok()) return kExitOk;
  *ctx.err << "minflow " << command << ": " << s.message() << "\n";
  // ReadGraphDefFile: NotFound / DataLoss when the file cannot be read,
  // InvalidArgument when its bytes do not parse.
  return s.code() == absl::StatusCode::kInvalidArgument ? kExitInvalidGraph
                                                        : kExitFailure;
}

}  // namespace tools
}  // namespace minflow
