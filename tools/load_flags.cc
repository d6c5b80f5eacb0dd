#include "tools/load_flags.h"

#include "absl/strings/match.h"
#include "minflow/core/status.h"
#include "minflow/framework/load_library.h"
#include "minflow/op_def.pb.h"
#include "tools/command.h"

namespace minflow {
namespace tools {

const char kLoadFlagHelp[] =
    "  --load LIB              Load a custom-op library (built with\n"
    "                          minflow_add_op_library) first; repeatable.\n";

int LoadLibrariesFromArgs(std::vector<std::string>* args, std::ostream& err) {
  constexpr absl::string_view kFlag = "--load";
  std::vector<std::string> libraries;
  std::vector<std::string> rest;
  for (size_t i = 0; i < args->size(); ++i) {
    const std::string& arg = (*args)[i];
    if (arg == kFlag) {
      if (i + 1 >= args->size()) {
        err << "minflow: --load needs a library path\n";
        return kExitUsage;
      }
      libraries.push_back((*args)[++i]);
    } else if (absl::StartsWith(arg, "--load=")) {
      libraries.push_back(arg.substr(kFlag.size() + 1));
    } else {
      rest.push_back(arg);
    }
  }
  args->swap(rest);
  for (const std::string& library : libraries) {
    OpList ops;
    const Status s = LoadOpLibrary(library, &ops);
    if (!s.ok()) {
      err << "minflow: error: " << s.message() << "\n";
      return kExitFailure;
    }
  }
  return kExitOk;
}

}  // namespace tools
}  // namespace minflow
