// `minflow convert IN OUT`: a GraphDef between TensorFlow's binary (.pb) and
// text (.pbtxt) forms, in either direction.
#include <ostream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "minflow/core/status.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_constructor.h"
#include "tools/command.h"
#include "tools/graph_run_flags.h"
#include "tools/output_files.h"

namespace minflow {
namespace tools {

void ConvertHelp(std::ostream& os) {
  os << R"(Usage: minflow convert IN OUT [--to pb|pbtxt]

Reads the GraphDef IN (binary or text, told apart by content) and writes it
to OUT in the other form, or the same one: binary when OUT ends in .pb, text
when it ends in .pbtxt, or as --to says (needed for any other name). Nodes,
attrs and tensors are kept exactly; the text form is protobuf's text format,
so comments and layout of a hand-written .pbtxt are not.

Options:
  --to pb|pbtxt           The form to write, whatever OUT is called.

Examples:
  minflow convert examples/graphs/digits_mlp.pbtxt digits_mlp.pb
  minflow convert model.pb model.pbtxt
  minflow convert model.pb - --to pbtxt | less     # "-": stdout

Exit codes: 0 success; 1 IN cannot be read or OUT cannot be written; 2 usage
error; 3 IN is not a GraphDef.
)";
}

namespace {

struct ConvertFlags {
  std::string in;
  std::string out;
  std::string to;  // "pb" or "pbtxt"
};

Status ParseConvertFlags(const std::vector<std::string>& args,
                         ConvertFlags* flags) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--to" || absl::StartsWith(arg, "--to=")) {
      if (arg == "--to") {
        if (i + 1 >= args.size()) {
          return errors::InvalidArgument("--to needs a value");
        }
        flags->to = args[++i];
      } else {
        flags->to = arg.substr(5);
      }
      if (flags->to != "pb" && flags->to != "pbtxt") {
        return errors::InvalidArgument("--to must be pb or pbtxt, but got '",
                                       flags->to, "'");
      }
    } else if (absl::StartsWith(arg, "-") && arg != "-") {
      return errors::InvalidArgument("unknown flag '", arg, "'");
    } else if (flags->in.empty()) {
      flags->in = arg;
    } else if (flags->out.empty()) {
      flags->out = arg;
    } else {
      return errors::InvalidArgument("unexpected argument '", arg, "'");
    }
  }
  if (flags->out.empty()) return errors::InvalidArgument("IN and OUT needed");
  if (flags->to.empty()) {
    if (absl::EndsWith(flags->out, ".pbtxt")) {
      flags->to = "pbtxt";
    } else if (absl::EndsWith(flags->out, ".pb")) {
      flags->to = "pb";
    } else {
      return errors::InvalidArgument(
          "cannot tell the form to write from '", flags->out,
          "': name it .pb or .pbtxt, or say --to pb or --to pbtxt");
    }
  }
  return OkStatus();
}

}  // namespace

int ConvertMain(const CommandContext& ctx) {
  ConvertFlags flags;
  Status s = ParseConvertFlags(ctx.args, &flags);
  if (!s.ok()) {
    *ctx.err << "minflow convert: " << s.message()
             << "\nUsage: minflow convert IN OUT [--to pb|pbtxt]\n";
    return kExitUsage;
  }
  GraphDef graph_def;
  s = ReadGraphDefFile(flags.in, &graph_def);
  if (!s.ok()) {
    *ctx.err << "minflow convert: " << s.message() << "\n";
    return ExitCodeForLoadError(s);
  }
  std::string bytes;
  const bool text = flags.to == "pbtxt";
  const bool printed =
      text ? google::protobuf::TextFormat::PrintToString(graph_def, &bytes)
           : graph_def.SerializeToString(&bytes);
  if (!printed) {
    *ctx.err << "minflow convert: cannot serialise the graph (a binary "
                "GraphDef is limited to 2 GiB)\n";
    return kExitFailure;
  }
  if (flags.out == "-") {
    *ctx.out << bytes;
    return kExitOk;
  }
  s = WriteOutputFile(flags.out, bytes);
  if (!s.ok()) {
    *ctx.err << "minflow convert: " << s.message() << "\n";
    return kExitFailure;
  }
  *ctx.out << "wrote " << flags.out << ": " << graph_def.node_size()
           << (graph_def.node_size() == 1 ? " node, " : " nodes, ")
           << (text ? "text" : "binary") << ", " << bytes.size() << " bytes\n";
  return kExitOk;
}

}  // namespace tools
}  // namespace minflow
