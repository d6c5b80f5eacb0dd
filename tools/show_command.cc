// `minflow show DIR`: what a SavedModel directory holds, as TensorFlow's
// `saved_model_cli show` prints it: its MetaGraphs' tag-sets, and each
// signature's method and its inputs and outputs with dtype, shape and the
// graph tensor behind them.
#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "minflow/core/status.h"
#include "minflow/meta_graph.pb.h"
#include "minflow/saved_model.pb.h"
#include "minflow/saved_model/loader.h"
#include "minflow/saved_model/signature.h"
#include "tools/command.h"

namespace minflow {
namespace tools {

void ShowHelp(std::ostream& os) {
  os << R"(Usage: minflow show DIR [--tag_set TAGS] [--signature_def KEY]

Prints what the SavedModel in DIR (its saved_model.pb) holds: every
MetaGraph's tag-set and, for each of its signatures, the method, and every
input and output with its dtype, shape (-1 for an unknown dimension) and
the graph tensor it names. The variables are not read.

Options:
  --tag_set TAGS          Only the MetaGraph with exactly these tags
                          (comma-separated, any order), e.g. serve.
  --signature_def KEY     Only this signature (with --tag_set, or of the
                          only MetaGraph).

Examples:
  minflow show tests/testdata/saved_models/saved_model_half_plus_two_tf2_cpu
  minflow show model_dir --tag_set serve --signature_def serving_default

Exit codes: 0 success; 1 DIR has no readable saved_model.pb, or no
MetaGraph or signature matches; 2 usage error.
)";
}

namespace {

struct ShowFlags {
  std::string dir;
  std::string tag_set;
  std::string signature;
};

Status ParseShowFlags(const std::vector<std::string>& args, ShowFlags* flags) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::string* value = nullptr;
    std::string name;
    for (const auto& [flag, target] :
         {std::pair<const char*, std::string*>{"--tag_set", &flags->tag_set},
          {"--signature_def", &flags->signature}}) {
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
  return OkStatus();
}

std::vector<std::string> SortedTags(const MetaGraphDef& meta_graph) {
  std::vector<std::string> tags(meta_graph.meta_info_def().tags().begin(),
                                meta_graph.meta_info_def().tags().end());
  std::sort(tags.begin(), tags.end());
  return tags;
}

std::string ShapeString(const PartialTensorShape& shape) {
  if (shape.unknown_rank()) return "unknown rank";
  std::vector<int64_t> dims;
  for (int i = 0; i < shape.dims(); ++i) dims.push_back(shape.dim_size(i));
  return "(" + absl::StrJoin(dims, ", ") + (dims.size() == 1 ? ",)" : ")");
}

void PrintTensors(std::ostream& out, const char* what,
                  const std::vector<SignatureTensor>& tensors) {
  out << "  " << what << ":\n";
  if (tensors.empty()) out << "    (none)\n";
  for (const SignatureTensor& t : tensors) {
    // An op to run rather than a tensor (__saved_model_init_op) has none.
    out << "    " << t.key << ": "
        << (t.dtype == DT_INVALID ? "no dtype" : DataTypeString(t.dtype)) << " "
        << ShapeString(t.shape) << ", tensor " << t.tensor_name << "\n";
  }
}

}  // namespace

int ShowMain(const CommandContext& ctx) {
  ShowFlags flags;
  if (Status s = ParseShowFlags(ctx.args, &flags); !s.ok()) {
    *ctx.err << "minflow show: " << s.message()
             << "\nUsage: minflow show DIR [--tag_set TAGS] [--signature_def "
                "KEY] (see minflow help show)\n";
    return kExitUsage;
  }
  SavedModel saved_model;
  if (Status s = ReadSavedModel(flags.dir, &saved_model); !s.ok()) {
    *ctx.err << "minflow show: " << s.message() << "\n";
    return kExitFailure;
  }
  if (saved_model.meta_graphs_size() == 0) {
    *ctx.err << "minflow show: the SavedModel in " << flags.dir
             << " holds no MetaGraph (an empty or truncated saved_model.pb?)\n";
    return kExitFailure;
  }
  std::vector<std::string> wanted_tags;
  if (!flags.tag_set.empty()) {
    for (absl::string_view tag : absl::StrSplit(flags.tag_set, ',')) {
      wanted_tags.emplace_back(tag);
    }
    std::sort(wanted_tags.begin(), wanted_tags.end());
  }
  std::vector<const MetaGraphDef*> shown;
  std::vector<std::string> available;
  for (const MetaGraphDef& meta_graph : saved_model.meta_graphs()) {
    const std::vector<std::string> tags = SortedTags(meta_graph);
    available.push_back("'" + absl::StrJoin(tags, ",") + "'");
    if (wanted_tags.empty() || tags == wanted_tags)
      shown.push_back(&meta_graph);
  }
  if (shown.empty()) {
    *ctx.err << "minflow show: no MetaGraph in " << flags.dir
             << " has the tag-set '" << flags.tag_set
             << "'; its tag-sets: " << absl::StrJoin(available, " ") << "\n";
    return kExitFailure;
  }
  if (!flags.signature.empty() && shown.size() > 1) {
    *ctx.err << "minflow show: " << flags.dir << " has " << shown.size()
             << " MetaGraphs (" << absl::StrJoin(available, " ")
             << "): choose one with --tag_set\n";
    return kExitUsage;
  }
  std::ostream& out = *ctx.out;
  for (const MetaGraphDef* meta_graph : shown) {
    out << "MetaGraph with tag-set '"
        << absl::StrJoin(SortedTags(*meta_graph), ",")
        << "': " << meta_graph->graph_def().node_size() << " nodes, "
        << meta_graph->graph_def().library().function_size() << " functions\n";
    std::vector<std::string> keys;
    for (const auto& [key, unused] : meta_graph->signature_def()) {
      keys.push_back(key);
    }
    std::sort(keys.begin(), keys.end());
    if (!flags.signature.empty()) {
      if (std::find(keys.begin(), keys.end(), flags.signature) == keys.end()) {
        *ctx.err << "minflow show: no signature '" << flags.signature
                 << "'; the signatures: " << absl::StrJoin(keys, ", ") << "\n";
        return kExitFailure;
      }
      keys = {flags.signature};
    }
    for (const std::string& key : keys) {
      out << "\nsignature_def['" << key << "']";
      StatusOr<SignatureTensors> tensors =
          GetSignatureTensors(meta_graph->signature_def().at(key));
      if (!tensors.ok()) {
        out << ": cannot be read: " << tensors.status().message() << "\n";
        continue;
      }
      out << ", method " << tensors->method_name << "\n";
      PrintTensors(out, "inputs", tensors->inputs);
      PrintTensors(out, "outputs", tensors->outputs);
    }
    out << "\n";
  }
  return kExitOk;
}

}  // namespace tools
}  // namespace minflow
