// `minflow summary GRAPH`: what TensorFlow's summarize_graph tells about a
// GraphDef before anyone runs it: inputs, outputs, op counts, parameters,
// producer version, and what this binary lacks to run it.
#include <algorithm>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/types.h"
#include "minflow/framework/function.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/function_body.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/tensor.pb.h"
#include "tools/command.h"
#include "tools/graph_run_flags.h"

namespace minflow {
namespace tools {

void SummaryHelp(std::ostream& os) {
  os << R"(Usage: minflow summary GRAPH

Summarises a GraphDef (binary .pb or text .pbtxt) without importing or
running it, so it works on graphs this binary cannot run:
  inputs      every Placeholder: name, dtype and declared shape
  outputs     every node nothing consumes (NoOps aside): what minflow run
              fetches by default
  ops         node counts per op type, most frequent first
  parameters  the values held by Const nodes, and their bytes
  producer    the TensorFlow graph version that wrote it (versions.producer)
  functions   how many functions the graph's library defines
  missing     ops this binary does not register, and nodes (of the graph
              and of its functions) whose op has no CPU kernel for their
              attrs (load a library with --load); function calls and
              If/Case/While need none: they run as their functions' bodies

Examples:
  minflow summary examples/graphs/digits_mlp.pbtxt
  minflow summary model.pb --load libcustom_ops.so

Exit codes: 0 success (also when ops or kernels are missing); 1 the file
cannot be read; 2 usage error; 3 the file is not a GraphDef.
)";
}

namespace {

// A Const's value count and bytes, from its "value" attr's shape (without
// decoding the tensor, which may be large); false when it has none.
bool ConstSize(const NodeDef& node, int64_t* values, int64_t* bytes) {
  const auto value = node.attr().find("value");
  if (value == node.attr().end() || !value->second.has_tensor()) return false;
  const TensorProto& tensor = value->second.tensor();
  TensorShape shape;
  if (!TensorShape::BuildTensorShape(tensor.tensor_shape(), &shape).ok()) {
    return false;
  }
  *values = shape.num_elements();
  if (tensor.dtype() == DT_STRING) {
    *bytes = 0;
    for (const std::string& s : tensor.string_val()) *bytes += s.size();
  } else {
    *bytes = *values * DataTypeSize(tensor.dtype());
  }
  return true;
}

std::string DeclaredShape(const NodeDef& node) {
  const auto shape = node.attr().find("shape");
  if (shape == node.attr().end()) return "?";
  PartialTensorShape declared;
  if (!PartialTensorShape::BuildPartialTensorShape(shape->second.shape(),
                                                   &declared)
           .ok()) {
    return "(invalid shape)";
  }
  return declared.DebugString();
}

std::string ByteCount(int64_t bytes) {
  if (bytes < 1024) return absl::StrCat(bytes, " bytes");
  if (bytes < 1024 * 1024) return absl::StrFormat("%.2f KiB", bytes / 1024.0);
  return absl::StrFormat("%.2f MiB", bytes / (1024.0 * 1024.0));
}

}  // namespace

int SummaryMain(const CommandContext& ctx) {
  if (ctx.args.size() != 1 || ctx.args[0].empty() || ctx.args[0][0] == '-') {
    if (!ctx.args.empty() && !ctx.args[0].empty() && ctx.args[0][0] == '-') {
      *ctx.err << "minflow summary: unknown flag '" << ctx.args[0] << "'\n";
    }
    *ctx.err << "Usage: minflow summary GRAPH (see minflow help summary)\n";
    return kExitUsage;
  }
  const std::string& path = ctx.args[0];
  GraphDef graph_def;
  const Status read = ReadGraphOrSavedModel(path, &graph_def);
  if (!read.ok()) {
    *ctx.err << "minflow summary: " << read.message() << "\n";
    return ExitCodeForLoadError(read);
  }
  std::ostream& os = *ctx.out;
  os << "graph: " << path << "\n";
  os << "nodes: " << graph_def.node_size() << "\n";
  if (graph_def.has_versions()) {
    os << "producer: " << graph_def.versions().producer() << " (min consumer "
       << graph_def.versions().min_consumer() << ")\n";
  } else {
    os << "producer: not recorded (no versions)\n";
  }

  absl::flat_hash_map<std::string, const NodeDef*> by_name;
  for (const NodeDef& n : graph_def.node()) by_name.emplace(n.name(), &n);

  os << "inputs:\n";
  int num_inputs = 0;
  for (const NodeDef& n : graph_def.node()) {
    if (n.op() != "Placeholder" && n.op() != "PlaceholderWithDefault") {
      continue;
    }
    const auto dtype = n.attr().find("dtype");
    os << "  " << n.name() << "  "
       << (dtype == n.attr().end() ? "?" : DataTypeString(dtype->second.type()))
       << " " << DeclaredShape(n)
       << (n.op() == "PlaceholderWithDefault" ? "  (has a default)" : "")
       << "\n";
    ++num_inputs;
  }
  if (num_inputs == 0) os << "  (none)\n";

  os << "outputs:\n";
  const std::vector<std::string> outputs = DefaultFetches(graph_def);
  for (const std::string& name : outputs) {
    os << "  " << name << "  " << by_name.at(name)->op() << "\n";
  }
  if (outputs.empty()) os << "  (none)\n";

  std::map<std::string, int> op_counts;
  for (const NodeDef& n : graph_def.node()) ++op_counts[n.op()];
  std::vector<std::pair<std::string, int>> ops(op_counts.begin(),
                                               op_counts.end());
  std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) {
    return a.second > b.second;
  });
  os << "ops (" << ops.size() << " types):\n";
  for (const auto& [op, count] : ops) {
    os << absl::StrFormat("  %6d  %s\n", count, op);
  }

  int64_t num_consts = 0, num_values = 0, num_bytes = 0;
  for (const NodeDef& n : graph_def.node()) {
    int64_t values = 0, bytes = 0;
    if (n.op() != "Const" || !ConstSize(n, &values, &bytes)) continue;
    ++num_consts;
    num_values += values;
    num_bytes += bytes;
  }
  os << "parameters: " << num_values << " values in " << num_consts
     << (num_consts == 1 ? " Const" : " Consts") << " (" << ByteCount(num_bytes)
     << ")\n";

  FunctionLibraryDefinition library(OpRegistry::Global());
  const Status library_ok = library.AddLibrary(graph_def.library());
  os << "functions: " << graph_def.library().function_size();
  if (!library_ok.ok()) os << " (invalid: " << library_ok.message() << ")";
  os << "\n";

  // What this binary lacks: ops no one registered, and nodes (of the graph
  // and of its functions) whose op has no CPU kernel for their attrs (the
  // CPU always exists, so those cannot run). Calls and If/Case/While have
  // none: they run as their functions' bodies once lowered.
  std::map<std::string, int> unregistered;
  std::map<std::string, int> no_cpu_kernel;
  auto check = [&](NodeDef node) {
    const OpRegistrationData* reg = nullptr;
    if (!library.LookUp(node.op(), &reg).ok()) {
      ++unregistered[node.op()];
      return;
    }
    if (RunsFunctions(*reg)) {
      return;
    }
    AddDefaultsToNodeDef(reg->op_def, &node);
    const KernelDef* kernel = nullptr;
    if (!FindKernelDef(DEVICE_CPU, node, &kernel, nullptr).ok()) {
      ++no_cpu_kernel[node.op()];
    }
  };
  for (const NodeDef& node : graph_def.node()) check(node);
  for (const FunctionDef& f : graph_def.library().function()) {
    // Placeholder attrs ("$T") are the call's: only fixed ones are checked.
    for (const NodeDef& node : f.node_def()) {
      bool has_placeholder = false;
      for (const auto& [key, value] : node.attr()) {
        has_placeholder |= !value.placeholder().empty();
      }
      if (!has_placeholder) check(node);
    }
  }
  os << "missing in this binary:";
  if (unregistered.empty() && no_cpu_kernel.empty()) os << " nothing";
  os << "\n";
  for (const auto& [op, count] : unregistered) {
    os << "  op " << op << " is not registered (" << count
       << (count == 1 ? " node" : " nodes") << ")\n";
  }
  for (const auto& [op, count] : no_cpu_kernel) {
    os << "  op " << op << " has no CPU kernel for the attrs of " << count
       << (count == 1 ? " node" : " nodes") << "\n";
  }
  return kExitOk;
}

}  // namespace tools
}  // namespace minflow
