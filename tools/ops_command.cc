// `minflow ops`: list, show, validate and compare op definitions.
#include <algorithm>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "minflow/core/file_util.h"
#include "minflow/core/proto_limits.h"
#include "minflow/core/status.h"
#include "minflow/framework/attr_value_util.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_def_util.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/kernel_def.pb.h"
#include "minflow/op_def.pb.h"
#include "tools/command.h"
#include "tools/graph_run_flags.h"

namespace minflow {
namespace tools {
namespace {

// Stands for the ops registered in this process wherever a file is expected.
constexpr char kRegistryName[] = "@registry";

void PrintOpsUsage(std::ostream& os) {
  os << "Usage: minflow ops list [--internal] [--summary | --pbtxt]\n"
        "       minflow ops show NAME...\n"
        "       minflow ops validate [--strict] FILE\n"
        "       minflow ops compat [--allow-removed] [--verbose] OLD NEW\n"
        "       minflow ops required [--list] GRAPH...\n";
}

class ParseErrors : public google::protobuf::io::ErrorCollector {
 public:
  explicit ParseErrors(std::string path) : path_(std::move(path)) {}
  void AddError(int line, int column, const std::string& message) override {
    // The tokenizer's end-of-input token has no text, so "got: " would end
    // the message with nothing after it.
    absl::StrAppend(
        &text_, path_, ":", line + 1, ":", column + 1, ": ", message,
        absl::EndsWith(message, "got: ") ? "end of file" : "", "\n");
  }
  const std::string& text() const { return text_; }

 private:
  std::string path_;
  std::string text_;
};

// Reads an OpList: protobuf text format, or binary for a ".pb" file, or the
// registered ops for "@registry". Unknown fields are errors.
Status ReadOpList(const std::string& path, OpList* ops) {
  if (path == kRegistryName) {
    OpRegistry::Global()->Export(/*include_internal=*/true, ops);
    return OkStatus();
  }
  std::string content;
  MF_RETURN_IF_ERROR(ReadFileToString(path, &content));
  if (absl::EndsWith(path, ".pb")) {
    if (!ops->ParseFromString(content)) {
      return errors::InvalidArgument(path, ": not a binary OpList");
    }
    return OkStatus();
  }
  google::protobuf::TextFormat::Parser parser;
  parser.SetRecursionLimit(kProtoRecursionLimit);
  ParseErrors errors(path);
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(content, ops)) {
    return errors::InvalidArgument(errors.text().empty()
                                       ? absl::StrCat(path, ": parse error")
                                       : errors.text());
  }
  return OkStatus();
}

// Parses leading --flags among `known`; the rest are operands. Returns false
// (after saying why) for an unknown flag.
bool SplitFlags(const std::vector<std::string>& args,
                const std::vector<std::string>& known,
                absl::flat_hash_set<std::string>* flags,
                std::vector<std::string>* operands, std::ostream& err) {
  for (const std::string& arg : args) {
    if (absl::StartsWith(arg, "--") ||
        (absl::StartsWith(arg, "-") && arg.size() > 1)) {
      if (std::find(known.begin(), known.end(), arg) == known.end()) {
        err << "minflow ops: unknown flag '" << arg << "'\n";
        return false;
      }
      flags->insert(arg);
    } else {
      operands->push_back(arg);
    }
  }
  return true;
}

int List(const CommandContext& ctx, const std::vector<std::string>& args) {
  absl::flat_hash_set<std::string> flags;
  std::vector<std::string> operands;
  if (!SplitFlags(args, {"--internal", "--summary", "--pbtxt"}, &flags,
                  &operands, *ctx.err) ||
      !operands.empty() ||
      (flags.contains("--summary") && flags.contains("--pbtxt"))) {
    PrintOpsUsage(*ctx.err);
    return kExitUsage;
  }
  const bool internal = flags.contains("--internal");
  if (flags.contains("--pbtxt")) {
    *ctx.out << OpRegistry::Global()->ExportText(internal);
    return kExitOk;
  }
  OpList ops;
  OpRegistry::Global()->Export(internal, &ops);
  for (const OpDef& op : ops.op()) {
    *ctx.out << (flags.contains("--summary") ? SummarizeOpDef(op) : op.name())
             << "\n";
  }
  return kExitOk;
}

// One kernel a node needs: "CPU{T=float}" from the registration's
// constraints and the node's attrs.
std::string KernelSignature(const DeviceType& device, const KernelDef& def,
                            const NodeDef& node) {
  std::vector<std::string> constraints;
  for (const KernelDef::AttrConstraint& c : def.constraint()) {
    auto it = node.attr().find(c.name());
    std::string value = "?";
    if (it != node.attr().end()) {
      value = it->second.value_case() == AttrValue::kType
                  ? DataTypeString(it->second.type())
                  : SummarizeAttrValue(it->second);
    }
    constraints.push_back(absl::StrCat(c.name(), "=", value));
  }
  return absl::StrCat(device, "{", absl::StrJoin(constraints, ", "), "}");
}

// `minflow ops required`: what a selective build must keep for `graphs`.
int Required(const CommandContext& ctx, const std::vector<std::string>& args) {
  absl::flat_hash_set<std::string> flags;
  std::vector<std::string> graphs;
  if (!SplitFlags(args, {"--list"}, &flags, &graphs, *ctx.err) ||
      graphs.empty()) {
    PrintOpsUsage(*ctx.err);
    return kExitUsage;
  }
  // op -> the kernels its nodes need; ops no registry entry matches.
  std::map<std::string, std::set<std::string>> required;
  std::set<std::string> unknown;
  for (const std::string& path : graphs) {
    GraphDef graph_def;
    Status s = ReadGraphDefFile(path, &graph_def);
    if (!s.ok()) {
      *ctx.err << "minflow ops required: " << s.message() << "\n";
      return ExitCodeForLoadError(s);
    }
    for (NodeDef node : graph_def.node()) {
      const OpDef* op_def = nullptr;
      if (!OpRegistry::Global()->LookUpOpDef(node.op(), &op_def).ok()) {
        unknown.insert(node.op());
        continue;
      }
      AddDefaultsToNodeDef(*op_def, &node);
      std::set<std::string>& kernels = required[node.op()];
      for (const DeviceType& device :
           {DeviceType(DEVICE_CPU), DeviceType(DEVICE_GPU)}) {
        const KernelDef* def = nullptr;
        if (FindKernelDef(device, node, &def, nullptr).ok()) {
          kernels.insert(KernelSignature(device, *def, node));
        }
      }
    }
  }
  if (flags.contains("--list")) {
    *ctx.out << "# ops required by " << absl::StrJoin(graphs, " ") << "\n";
    for (const auto& [op, kernels] : required) *ctx.out << op << "\n";
  } else {
    for (const auto& [op, kernels] : required) {
      *ctx.out << op << "  "
               << (kernels.empty() ? std::string("(no kernel)")
                                   : absl::StrJoin(kernels, " "))
               << "\n";
    }
    *ctx.out << required.size() << " ops from " << graphs.size()
             << (graphs.size() == 1 ? " graph" : " graphs") << "\n";
  }
  for (const std::string& op : unknown) {
    *ctx.err << "minflow ops required: op '" << op
             << "' is not registered in this process (load its library with "
                "--load)\n";
  }
  return unknown.empty() ? kExitOk : kExitInvalidGraph;
}

int Show(const CommandContext& ctx, const std::vector<std::string>& args) {
  if (args.empty()) {
    PrintOpsUsage(*ctx.err);
    return kExitUsage;
  }
  int rc = kExitOk;
  for (const std::string& name : args) {
    const OpRegistrationData* data = nullptr;
    const Status s = OpRegistry::Global()->LookUp(name, &data);
    if (!s.ok()) {
      *ctx.err << "minflow ops show: " << s.message() << "\n";
      rc = kExitFailure;
      continue;
    }
    std::string text;
    google::protobuf::TextFormat::PrintToString(data->op_def, &text);
    *ctx.out << "# " << name << ", registered by " << data->owner << "\n"
             << "op {\n";
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      if (!line.empty()) *ctx.out << "  " << line << "\n";
    }
    *ctx.out << "}\n";
  }
  return rc;
}

int Validate(const CommandContext& ctx, const std::vector<std::string>& args) {
  absl::flat_hash_set<std::string> flags;
  std::vector<std::string> operands;
  if (!SplitFlags(args, {"--strict"}, &flags, &operands, *ctx.err) ||
      operands.size() != 1) {
    PrintOpsUsage(*ctx.err);
    return kExitUsage;
  }
  const std::string& path = operands[0];
  OpList ops;
  const Status read = ReadOpList(path, &ops);
  if (!read.ok()) {
    *ctx.err << "minflow ops validate: " << read.message() << "\n";
    return kExitFailure;
  }
  int invalid = 0;
  absl::flat_hash_set<std::string> seen;
  for (const OpDef& op : ops.op()) {
    // The same checks as OpRegistry applies to a registration.
    std::vector<std::string> problems;
    const Status s = ValidateOpDef(op);
    if (!s.ok()) problems.emplace_back(s.message());
    if (!seen.insert(op.name()).second) {
      problems.push_back(
          absl::StrCat("Op with name ", op.name(), " appears more than once"));
    }
    if (flags.contains("--strict")) {
      for (std::string& advice : LintOpDef(op)) {
        problems.push_back(std::move(advice));
      }
    }
    if (!problems.empty()) {
      ++invalid;
      *ctx.out << "FAIL " << (op.name().empty() ? "<unnamed>" : op.name())
               << ": " << absl::StrJoin(problems, "\n  ") << "\n";
    }
  }
  *ctx.out << path << ": " << ops.op_size() << " ops, " << invalid
           << " invalid\n";
  return invalid == 0 ? kExitOk : kExitFailure;
}

int Compat(const CommandContext& ctx, const std::vector<std::string>& args) {
  absl::flat_hash_set<std::string> flags;
  std::vector<std::string> operands;
  if (!SplitFlags(args, {"--allow-removed", "--verbose"}, &flags, &operands,
                  *ctx.err) ||
      operands.size() != 2) {
    PrintOpsUsage(*ctx.err);
    return kExitUsage;
  }
  OpList old_ops, new_ops;
  for (const auto& [path, ops] :
       {std::pair{operands[0], &old_ops}, std::pair{operands[1], &new_ops}}) {
    const Status s = ReadOpList(path, ops);
    if (!s.ok()) {
      *ctx.err << "minflow ops compat: " << s.message() << "\n";
      return kExitFailure;
    }
  }
  std::map<std::string, const OpDef*> old_by_name, new_by_name;
  for (const OpDef& op : old_ops.op()) old_by_name.emplace(op.name(), &op);
  for (const OpDef& op : new_ops.op()) new_by_name.emplace(op.name(), &op);

  const bool verbose = flags.contains("--verbose");
  int compatible = 0, incompatible = 0, removed = 0, added = 0;
  for (const auto& [name, old_op] : old_by_name) {
    const auto it = new_by_name.find(name);
    if (it == new_by_name.end()) {
      ++removed;
      *ctx.out << "REMOVED " << name << "\n";
      continue;
    }
    const std::vector<std::string> reasons =
        OpDefIncompatibilities(*old_op, *it->second);
    if (reasons.empty()) {
      ++compatible;
      if (verbose) *ctx.out << "ok " << name << "\n";
    } else {
      ++incompatible;
      *ctx.out << "INCOMPATIBLE " << name << ": "
               << absl::StrJoin(reasons, "\n  ") << "\n";
    }
  }
  for (const auto& [name, new_op] : new_by_name) {
    if (old_by_name.count(name) == 0) {
      ++added;
      if (verbose) *ctx.out << "ADDED " << name << "\n";
    }
  }
  *ctx.out << old_by_name.size() << " old ops: " << compatible
           << " compatible, " << incompatible << " incompatible, " << removed
           << " removed; " << added << " added\n";
  const bool ok =
      incompatible == 0 && (removed == 0 || flags.contains("--allow-removed"));
  return ok ? kExitOk : kExitFailure;
}

}  // namespace

void OpsHelp(std::ostream& os) {
  os << "minflow ops: list, show, validate and compare op definitions.\n\n";
  PrintOpsUsage(os);
  os << R"(
Subcommands:
  list      Names of the registered ops, sorted. --internal includes ops whose
            names start with '_'; --summary prints one signature line per op;
            --pbtxt prints the whole registry as a text OpList (an ops.pbtxt).
  show      Each named op's OpDef in protobuf text format, and who registered
            it. The OpDef carries the op's documentation: summary,
            description, and a description per input, output and attr where
            one was written. Unknown names fail, suggesting close names.
  validate  Reads an OpList (text format; binary if FILE ends in .pb) and
            checks every OpDef as the registry would (names, attr types,
            defaults against constraints, arg typing, duplicates). Prints
            each failure and a count. --strict also fails on advice such as
            a type attr no input or output uses.
  compat    Compares two OpLists op by op: whether graphs written against OLD
            still import under NEW (TensorFlow's compatibility rules). Prints
            each incompatible or removed op with its reasons and a count;
            --verbose also lists compatible and added ops. Ops missing from
            NEW are failures unless --allow-removed.
  required  The ops the GRAPHs use and, per op, the kernels their nodes need
            on each device that has one (constraint values from the nodes).
            --list prints op names only, one per line: the file
            minflow_add_selective_library takes (see README, "Selective
            builds"). Ops not registered here are reported (exit 3).

FILE, OLD or NEW may be @registry: the ops registered in this process.
--load LIB (repeatable) first loads a custom-op library, whose ops then
count as registered.

Exit codes: 0 success; 1 an op is invalid, incompatible or unknown, or a
file cannot be read; 2 usage error; 3 (required) a graph does not parse or
uses ops not registered.

Examples:
  minflow ops list --summary
  minflow ops show MatMul Conv2D
  minflow ops list --pbtxt > ops.pbtxt
  minflow ops validate tf_ops.pbtxt
  minflow ops compat tf_ops.pbtxt @registry --allow-removed
  minflow ops required model.pb
  minflow ops required --list a.pb b.pbtxt > my_ops.txt
  minflow ops list --load build/libzero_out.so
)";
}

int OpsMain(const CommandContext& ctx) {
  if (ctx.args.empty()) {
    PrintOpsUsage(*ctx.err);
    return kExitUsage;
  }
  const std::string& sub = ctx.args[0];
  const std::vector<std::string> rest(ctx.args.begin() + 1, ctx.args.end());
  if (!rest.empty() && (rest[0] == "--help" || rest[0] == "-h")) {
    OpsHelp(*ctx.out);
    return kExitOk;
  }
  if (sub == "list") return List(ctx, rest);
  if (sub == "show") return Show(ctx, rest);
  if (sub == "validate") return Validate(ctx, rest);
  if (sub == "compat") return Compat(ctx, rest);
  if (sub == "required") return Required(ctx, rest);
  *ctx.err << "minflow ops: unknown subcommand '" << sub << "'\n";
  PrintOpsUsage(*ctx.err);
  return kExitUsage;
}

}  // namespace tools
}  // namespace minflow
