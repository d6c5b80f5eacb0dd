// The `minflow` command line: a table of subcommands, each in its own
// <name>_command.cc. To add one, write that file and add a row to kCommands
// (and the file to tools/CMakeLists.txt).
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "minflow/core/memory_limit.h"
#include "minflow/framework/op.h"
#include "tools/command.h"
#include "tools/load_flags.h"

namespace minflow {
namespace tools {

// Entry points, defined in the <name>_command.cc files.
int OpsMain(const CommandContext& ctx);
void OpsHelp(std::ostream& os);
int InferOpMain(const CommandContext& ctx);
void InferOpHelp(std::ostream& os);
int InferMain(const CommandContext& ctx);
void InferHelp(std::ostream& os);
int RunMain(const CommandContext& ctx);
void RunHelp(std::ostream& os);
int BenchMain(const CommandContext& ctx);
void BenchHelp(std::ostream& os);
int ValidateMain(const CommandContext& ctx);
void ValidateHelp(std::ostream& os);
int DotMain(const CommandContext& ctx);
void DotHelp(std::ostream& os);
int OptimizeMain(const CommandContext& ctx);
void OptimizeHelp(std::ostream& os);
int SummaryMain(const CommandContext& ctx);
void SummaryHelp(std::ostream& os);
int ConvertMain(const CommandContext& ctx);
void ConvertHelp(std::ostream& os);
int ShowMain(const CommandContext& ctx);
void ShowHelp(std::ostream& os);
int FreezeMain(const CommandContext& ctx);
void FreezeHelp(std::ostream& os);

namespace {

constexpr Command kCommands[] = {
    {"ops", "list, show, validate and compare op definitions", OpsMain,
     OpsHelp},
    {"infer-op", "output shapes of one op for given input shapes", InferOpMain,
     InferOpHelp},
    {"infer", "output dtypes and shapes of every node of a GraphDef", InferMain,
     InferHelp},
    {"run", "run a graph: feed tensors, print or save the fetched ones",
     RunMain, RunHelp},
    {"bench", "measure a graph: init, latency percentiles, memory, op profile",
     BenchMain, BenchHelp},
    {"validate", "check a graph without running it; report every error",
     ValidateMain, ValidateHelp},
    {"dot", "draw a graph: Graphviz DOT with shapes and devices", DotMain,
     DotHelp},
    {"optimize", "write a graph as the executor runs it: rewritten, optimised",
     OptimizeMain, OptimizeHelp},
    {"summary",
     "inputs, outputs, op counts, parameters; what this binary lacks",
     SummaryMain, SummaryHelp},
    {"convert", "convert a GraphDef between binary (.pb) and text (.pbtxt)",
     ConvertMain, ConvertHelp},
    {"show", "a SavedModel's tag-sets and signatures (inputs, outputs)",
     ShowMain, ShowHelp},
    {"freeze", "a SavedModel signature as one GraphDef, variables as Consts",
     FreezeMain, FreezeHelp},
};

void PrintUsage(std::ostream& os) {
  os << "Usage: minflow <command> [args...]\n"
        "       minflow help <command>\n"
        "       minflow --help | --version\n\n"
        "Commands:\n";
  for (const Command& command : kCommands) {
    os << "  " << std::left << std::setw(12) << command.name << command.summary
       << "\n";
  }
  // README.md has the same table; cli_exit_codes_match_readme checks it.
  os << "\nExit codes (every command):\n"
     << "  " << kExitOk << "  success\n"
     << "  " << kExitFailure
     << "  a run failed, or a file could not be read or written\n"
     << "  " << kExitUsage
     << "  usage error: an unknown flag, a missing or malformed argument "
        "(such\n"
        "     as a --feed value that does not parse) or environment variable\n"
     << "  " << kExitInvalidGraph
     << "  invalid graph: it does not parse, import, refine or place; nothing\n"
        "     ran\n"
     << "\nEvery command also takes:\n"
     << kLoadFlagHelp
     << "\nEnvironment:\n"
        "  MINFLOW_CPU_MEMORY_LIMIT=SIZE  Cap the host allocator at SIZE "
        "bytes, "
        "or with\n"
        "                                 KiB, MiB or GiB (65536, 512MiB); "
        "unset, empty\n"
        "                                 or 0: no limit. Allocations past it "
        "fail with\n"
        "                                 an out-of-memory error.\n"
        "  MINFLOW_CPU_ALLOCATOR_CACHE=SIZE  Freed host memory kept for "
        "reuse (default\n"
        "                                 1GiB; 0: none).\n";
}

const Command* FindCommand(const std::string& name) {
  for (const Command& command : kCommands) {
    if (name == command.name) return &command;
  }
  return nullptr;
}

bool IsHelpFlag(const std::string& arg) {
  return arg == "-h" || arg == "--help";
}

// Ops whose registration failed are missing from this process; say so up
// front rather than letting a later "Op type not registered" puzzle anyone.
void ReportRegistrationErrors(std::ostream& err) {
  for (const OpRegistrationError& e :
       OpRegistry::Global()->registration_errors()) {
    err << "minflow: error: " << e.status.message() << "\n";
  }
}

int Main(std::vector<std::string> args) {
  ReportRegistrationErrors(std::cerr);
  // Libraries load before dispatch, so every subcommand sees their ops.
  const int loaded = LoadLibrariesFromArgs(&args, std::cerr);
  if (loaded != kExitOk) return loaded;
  if (args.empty()) {
    PrintUsage(std::cerr);
    return kExitUsage;
  }
  const std::string& first = args[0];
  if (IsHelpFlag(first)) {
    PrintUsage(std::cout);
    return kExitOk;
  }
  if (first == "--version") {
    std::cout << "minflow " << MINFLOW_VERSION << "\n";
    return kExitOk;
  }
  if (first == "help") {
    if (args.size() == 1) {
      PrintUsage(std::cout);
      return kExitOk;
    }
    const Command* command = FindCommand(args[1]);
    if (command == nullptr) {
      std::cerr << "minflow: unknown command '" << args[1] << "'\n\n";
      PrintUsage(std::cerr);
      return kExitUsage;
    }
    command->help(std::cout);
    return kExitOk;
  }
  const Command* command = FindCommand(first);
  if (command == nullptr) {
    std::cerr << "minflow: unknown command '" << first << "'\n\n";
    PrintUsage(std::cerr);
    return kExitUsage;
  }
  // A limit that does not parse would otherwise be no limit, in silence.
  if (StatusOr<int64_t> limit = CpuMemoryLimitFromEnv(); !limit.ok()) {
    std::cerr << "minflow: " << limit.status().message() << "\n";
    return kExitUsage;
  }
  if (StatusOr<int64_t> cache = CpuAllocatorCacheFromEnv(0); !cache.ok()) {
    std::cerr << "minflow: " << cache.status().message() << "\n";
    return kExitUsage;
  }
  CommandContext ctx{{args.begin() + 1, args.end()}, &std::cout, &std::cerr};
  if (!ctx.args.empty() && IsHelpFlag(ctx.args[0])) {
    command->help(std::cout);
    return kExitOk;
  }
  return command->run(ctx);
}

}  // namespace
}  // namespace tools
}  // namespace minflow

int main(int argc, char** argv) {
  return minflow::tools::Main(std::vector<std::string>(argv + 1, argv + argc));
}
