// `--load LIB`, accepted by every `minflow` subcommand: custom-op libraries
// to load before the subcommand runs.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace minflow {
namespace tools {

// Help text for --load, for subcommands' help and the usage summary.
extern const char kLoadFlagHelp[];

// Removes every `--load LIB` and `--load=LIB` from `*args` (in place, the
// other arguments keep their order) and loads each library with
// LoadOpLibrary, in order. Returns kExitOk, or reports to `err` and returns
// kExitUsage (--load without a value) or kExitFailure (a library that does
// not load; the rest are not tried).
int LoadLibrariesFromArgs(std::vector<std::string>* args, std::ostream& err);

}  // namespace tools
}  // namespace minflow
