// `minflow freeze DIR -o frozen.pb`: one signature of a SavedModel as a
// self-contained GraphDef, its variables as Consts (FreezeSavedModel).
#include <ostream>
#include <string>
#include <unordered_set>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/text_format.h"
#include "minflow/core/status.h"
#include "minflow/saved_model/freeze.h"
#include "minflow/saved_model/loader.h"
#include "tools/command.h"
#include "tools/output_files.h"

namespace minflow {
namespace tools {

void FreezeHelp(std::ostream& os) {
  os << R"(Usage: minflow freeze DIR -o OUT [--signature KEY] [--tag_set TAGS]

Writes one signature of the SavedModel in DIR as a self-contained GraphDef,
as TensorFlow's convert_variables_to_constants does: the model is loaded
(variables restored, init op run), everything the signature's outputs do not
need is dropped, every function call is inlined and If/Case/While are lowered
to Switch/Merge and Enter/Exit loops, and each variable read becomes a Const
holding the variable's value. The result needs no variables, checkpoint or
function library. Prints each input and output key with the tensor it is in
OUT: inputs keep their Placeholders' names; an output of a function call
becomes an Identity named after its key.

Options:
  -o OUT                  Where to write (binary GraphDef; text if OUT ends
                          in .pbtxt).
  --signature KEY         The signature to freeze (default serving_default).
  --tag_set TAGS          The MetaGraph's tags, comma-separated (default
                          serve).

Refused, with the node named: a signature input that is not a Placeholder,
an output that needs a node changing a variable (an assign), a variable a
function creates.

Examples:
  minflow freeze tests/testdata/saved_models/saved_model_half_plus_two_tf2_cpu \
      -o half_plus_two.pb
  minflow run half_plus_two.pb --feed serving_default_x=[1,2,3] --fetch y

Exit codes: 0 success; 1 DIR cannot be loaded or frozen, or OUT cannot be
written; 2 usage error.
)";
}

namespace {

struct FreezeFlags {
  std::string dir;
  std::string output;
  std::string signature = "serving_default";
  std::string tag_set = "serve";
};

Status ParseFreezeFlags(const std::vector<std::string>& args,
                        FreezeFlags* flags) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::string* value = nullptr;
    std::string name;
    for (const auto& [flag, target] :
         {std::pair<const char*, std::string*>{"-o", &flags->output},
          {"--signature", &flags->signature},
          {"--tag_set", &flags->tag_set}}) {
      if (arg == flag || absl::StartsWith(arg, std::string(flag) + "=")) {
        value = target;
        name = flag;
      }
    }
    if (value != nullptr) {
      if (arg == name) {
        if (i + 1 >= args.size()) {
          return errors::InvalidArgument(name, " needs a value");
        }
        *value = args[++i];
      } else {
        *value = arg.substr(name.size() + 1);
      }
    } else if (absl::StartsWith(arg, "-")) {
      return errors::InvalidArgument("unknown flag '", arg, "'");
    } else if (flags->dir.empty()) {
      flags->dir = arg;
    } else {
      return errors::InvalidArgument("unexpected argument '", arg, "'");
    }
  }
  if (flags->dir.empty()) return errors::InvalidArgument("DIR needed");
  if (flags->output.empty()) return errors::InvalidArgument("-o OUT needed");
  return OkStatus();
}

}  // namespace

int FreezeMain(const CommandContext& ctx) {
  FreezeFlags flags;
  if (Status s = ParseFreezeFlags(ctx.args, &flags); !s.ok()) {
    *ctx.err << "minflow freeze: " << s.message()
             << "\nUsage: minflow freeze DIR -o OUT [--signature KEY] "
                "[--tag_set TAGS] (see minflow help freeze)\n";
    return kExitUsage;
  }
  if (!MaybeSavedModelDirectory(flags.dir)) {
    *ctx.err << "minflow freeze: '" << flags.dir
             << "' is not a SavedModel directory (no saved_model.pb or "
                "saved_model.pbtxt in it)\n";
    return kExitFailure;
  }
  std::unordered_set<std::string> tags;
  for (absl::string_view tag : absl::StrSplit(flags.tag_set, ',')) {
    if (!tag.empty()) tags.emplace(tag);
  }
  FrozenSignature frozen;
  if (Status s = FreezeSavedModel(flags.dir, tags, flags.signature, &frozen);
      !s.ok()) {
    *ctx.err << "minflow freeze: " << s.message() << "\n";
    return kExitFailure;
  }
  std::string bytes;
  if (absl::EndsWith(flags.output, ".pbtxt")) {
    google::protobuf::TextFormat::PrintToString(frozen.graph_def, &bytes);
  } else {
    frozen.graph_def.SerializeToString(&bytes);
  }
  if (Status s = WriteOutputFile(flags.output, bytes); !s.ok()) {
    *ctx.err << "minflow freeze: " << s.message() << "\n";
    return kExitFailure;
  }
  std::ostream& out = *ctx.out;
  out << "inputs:\n";
  for (const FrozenTensor& t : frozen.inputs) {
    out << "  " << t.key << ": " << t.tensor_name << "\n";
  }
  out << "outputs:\n";
  for (const FrozenTensor& t : frozen.outputs) {
    out << "  " << t.key << ": " << t.tensor_name << "\n";
  }
  out << "wrote " << flags.output << ": " << frozen.graph_def.node_size()
      << " nodes, " << frozen.num_variables << " variables as constants\n";
  return kExitOk;
}

}  // namespace tools
}  // namespace minflow
