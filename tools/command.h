// What a `minflow` subcommand looks like: an entry point, a help text, and
// the exit codes every subcommand uses.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace minflow {
namespace tools {

// Exit codes of the `minflow` command line.
inline constexpr int kExitOk = 0;       // success
inline constexpr int kExitFailure = 1;  // the run failed, or other bad input
inline constexpr int kExitUsage = 2;    // bad command line
// The graph does not import, refine or place (reading it, its nodes, attrs,
// edges or shapes); nothing ran.
inline constexpr int kExitInvalidGraph = 3;

// A subcommand's arguments (after the subcommand's name) and where it
// writes.
struct CommandContext {
  std::vector<std::string> args;
  std::ostream* out;
  std::ostream* err;
};

// One row of the subcommand table in minflow_main.cc.
struct Command {
  const char* name;
  const char* summary;                // one line, for `minflow --help`
  int (*run)(const CommandContext&);  // returns an exit code above
  void (*help)(std::ostream&);        // full help, for `minflow help NAME`
};

}  // namespace tools
}  // namespace minflow
