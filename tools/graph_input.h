// Reading the GRAPH argument of a subcommand, with the exit codes of
// command.h: an unreadable file is kExitFailure, bytes that are not a
// GraphDef are kExitInvalidGraph.
#pragma once

#include <string>

#include "tools/command.h"

namespace minflow {

class GraphDef;

namespace tools {

// Reads `path` (binary or text GraphDef) into `*graph`. On failure writes
// "minflow <command>: <message>" to ctx.err and returns the exit code;
// kExitOk on success.
int ReadGraphArgument(const char* command, const std::string& path,
                      const CommandContext& ctx, GraphDef* graph);

}  // namespace tools
}  // namespace minflow
