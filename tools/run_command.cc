// `minflow run GRAPH`: feeds tensors, runs the graph through a Session and
// prints (or saves) the fetched tensors.
#include <chrono>
#include <fstream>
#include <ostream>
#include <random>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "minflow/config.pb.h"
#include "minflow/core/npy.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/framework/tensor_literal.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/subgraph.h"
#include "minflow/runtime/session.h"
#include "minflow/runtime/trace.h"
#include "minflow/step_stats.pb.h"
#include "tools/command.h"

namespace minflow {
namespace tools {

void RunHelp(std::ostream& os) {
  os << R"(Usage: minflow run GRAPH [options]

Runs a GraphDef (binary .pb or text .pbtxt, told apart by content) and prints
the fetched tensors.

Options:
  --feed NAME[:K]=VALUE   Feed a tensor. VALUE is one of
                            a literal:  [[1,2],[3,4]]   int64:[2,-1]
                                        string:["a","b"]   (integers default
                                        to int32, reals to float32)
                            a file:     @input.npy
                            random:     random:float32:[8,784]
  --fetch NAME[:K]        Tensor to print (repeatable). Default: every output
                          of every node that nothing else consumes.
  --target NODE           Node to run for its effect only (repeatable).
  --threads N             Intra-op threads (0 = all cores; default 0).
  --inter-op N            Inter-op threads (0 = all cores; default 0).
  --device cpu|gpu        cpu: hide GPUs. gpu: place nodes without a device
                          request on GPU:0, falling back to the CPU for ops
                          without a GPU kernel.
  --repeat N              Run N times and report timings (default 1).
  --trace FILE            Write the last run's timeline as Chrome trace JSON
                          (open it in ui.perfetto.dev).
  --out-dir DIR           Save each fetch as DIR/<fetch>.npy, with characters
                          outside [A-Za-z0-9_.-] in the name turned into '_'
                          (--fetch y:0 writes y_0.npy).
  --log-device-placement  Print each node's device to stderr.

Examples:
  minflow run examples/graphs/digits_mlp.pbtxt \
      --feed x=@examples/graphs/digits_sample.npy --fetch digit
  minflow run model.pb --feed input=random:float32:[1,224,224,3] --repeat 20
  minflow run add.pbtxt --feed a=[1,2] --feed b=[3,4] --fetch sum:0

Exit codes: 0 success; 1 the graph is invalid or the run failed; 2 usage
error.
)";
}

namespace {

struct RunFlags {
  std::string graph;
  std::vector<std::pair<std::string, std::string>> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  int threads = 0;
  int inter_op = 0;
  std::string device;
  int repeat = 1;
  std::string trace;
  std::string out_dir;
  bool log_placement = false;
};

Status ParseInt(const std::string& flag, const std::string& value, int* out,
                int min) {
  if (!absl::SimpleAtoi(value, out) || *out < min) {
    return errors::InvalidArgument(flag, " must be an integer >= ", min,
                                   ", but got '", value, "'");
  }
  return OkStatus();
}

Status ParseFlags(const std::vector<std::string>& args, RunFlags* flags) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&](std::string* out) -> Status {
      const size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        *out = arg.substr(eq + 1);
        return OkStatus();
      }
      if (i + 1 >= args.size()) {
        return errors::InvalidArgument(arg, " needs a value");
      }
      *out = args[++i];
      return OkStatus();
    };
    const std::string name = arg.substr(0, arg.find('='));
    std::string v;
    if (name == "--feed") {
      MF_RETURN_IF_ERROR(value(&v));
      const size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0) {
        return errors::InvalidArgument(
            "--feed must be NAME[:K]=VALUE, but got '", v, "'");
      }
      flags->feeds.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (name == "--fetch") {
      MF_RETURN_IF_ERROR(value(&v));
      flags->fetches.push_back(v);
    } else if (name == "--target") {
      MF_RETURN_IF_ERROR(value(&v));
      flags->targets.push_back(v);
    } else if (name == "--threads") {
      MF_RETURN_IF_ERROR(value(&v));
      MF_RETURN_IF_ERROR(ParseInt("--threads", v, &flags->threads, 0));
    } else if (name == "--inter-op") {
      MF_RETURN_IF_ERROR(value(&v));
      MF_RETURN_IF_ERROR(ParseInt("--inter-op", v, &flags->inter_op, 0));
    } else if (name == "--device") {
      MF_RETURN_IF_ERROR(value(&flags->device));
      if (flags->device != "cpu" && flags->device != "gpu") {
        return errors::InvalidArgument("--device must be cpu or gpu, but got '",
                                       flags->device, "'");
      }
    } else if (name == "--repeat") {
      MF_RETURN_IF_ERROR(value(&v));
      MF_RETURN_IF_ERROR(ParseInt("--repeat", v, &flags->repeat, 1));
    } else if (name == "--trace") {
      MF_RETURN_IF_ERROR(value(&flags->trace));
    } else if (name == "--out-dir") {
      MF_RETURN_IF_ERROR(value(&flags->out_dir));
    } else if (name == "--log-device-placement") {
      flags->log_placement = true;
    } else if (absl::StartsWith(arg, "-")) {
      return errors::InvalidArgument("Unknown option '", arg, "'");
    } else if (flags->graph.empty()) {
      flags->graph = arg;
    } else {
      return errors::InvalidArgument("Unexpected argument '", arg, "'");
    }
  }
  if (flags->graph.empty()) return errors::InvalidArgument("GRAPH is missing");
  return OkStatus();
}

// "random:float32:[8,784]": uniform [0,1) reals or small integers.
Status RandomTensor(absl::string_view spec, Tensor* out) {
  std::vector<std::string> parts =
      absl::StrSplit(spec, absl::MaxSplits(':', 1));
  DataType dtype;
  if (parts.size() != 2 || !DataTypeFromString(parts[0], &dtype)) {
    return errors::InvalidArgument(
        "random feed must be random:DTYPE:[d0,d1,...], but got 'random:", spec,
        "'");
  }
  Tensor dims;
  MF_RETURN_IF_ERROR(
      ParseTensorLiteral(absl::StrCat("int64:", parts[1]), &dims));
  if (dims.dims() != 1) {
    return errors::InvalidArgument(
        "random feed shape must be a list such as "
        "[8,784], but got ",
        parts[1]);
  }
  TensorShape shape;
  MF_RETURN_IF_ERROR(TensorShape::BuildTensorShape(
      absl::MakeConstSpan(dims.flat<int64_t>().data(), dims.NumElements()),
      &shape));
  MF_ASSIGN_OR_RETURN(Tensor t,
                      Tensor::Allocate(cpu_allocator(), dtype, shape));
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> real(0.0f, 1.0f);
  std::uniform_int_distribution<int> small(0, 9);
  const int64_t n = t.NumElements();
  switch (dtype) {
    case DT_FLOAT:
      for (int64_t i = 0; i < n; ++i) t.flat<float>()(i) = real(rng);
      break;
    case DT_DOUBLE:
      for (int64_t i = 0; i < n; ++i) t.flat<double>()(i) = real(rng);
      break;
    case DT_HALF:
      for (int64_t i = 0; i < n; ++i) t.flat<half>()(i) = half(real(rng));
      break;
    case DT_BFLOAT16:
      for (int64_t i = 0; i < n; ++i)
        t.flat<bfloat16>()(i) = bfloat16(real(rng));
      break;
    case DT_INT32:
      for (int64_t i = 0; i < n; ++i) t.flat<int32_t>()(i) = small(rng);
      break;
    case DT_INT64:
      for (int64_t i = 0; i < n; ++i) t.flat<int64_t>()(i) = small(rng);
      break;
    case DT_UINT8:
      for (int64_t i = 0; i < n; ++i) t.flat<uint8_t>()(i) = small(rng);
      break;
    case DT_BOOL:
      for (int64_t i = 0; i < n; ++i) t.flat<bool>()(i) = small(rng) % 2;
      break;
    default:
      return errors::InvalidArgument(
          "random feeds of type ", DataTypeString(dtype), " are not supported");
  }
  *out = std::move(t);
  return OkStatus();
}

// The dtype of the tensor a feed replaces, or DT_INVALID when the graph
// does not say (unknown node or op): then the literal's own rule applies.
DataType FedDtype(const GraphDef& def, const std::string& feed) {
  TensorId id;
  if (!ParseTensorName(feed, &id).ok()) return DT_INVALID;
  for (const NodeDef& n : def.node()) {
    if (n.name() != id.node) continue;
    const OpDef* op_def = nullptr;
    DataType dtype = DT_INVALID;
    if (!OpRegistry::Global()->LookUpOpDef(n.op(), &op_def).ok() ||
        !OutputTypeForNode(n, *op_def, id.port, &dtype).ok()) {
      return DT_INVALID;
    }
    return BaseType(dtype);
  }
  return DT_INVALID;
}

// An untyped literal takes the dtype of what it feeds ([1,2] for a float
// placeholder is float); a dtype prefix, an .npy file or random:DTYPE say
// their own, and a mismatch is reported by the session.
Status FeedValue(const std::string& value, DataType fed_dtype, Tensor* out) {
  if (absl::StartsWith(value, "@")) return ReadNpyFile(value.substr(1), out);
  if (absl::StartsWith(value, "random:"))
    return RandomTensor(value.substr(7), out);
  if (fed_dtype == DT_INVALID) return ParseTensorLiteral(value, out);
  return ParseTensorLiteral(value, fed_dtype, out);
}

std::string FileNameFor(const std::string& fetch) {
  std::string name = fetch;
  for (char& c : name) {
    if (!absl::ascii_isalnum(c) && c != '_' && c != '.' && c != '-') c = '_';
  }
  return name + ".npy";
}

// Outputs of nodes nothing consumes: what a user most likely wants to see.
std::vector<std::string> DefaultFetches(const GraphDef& def) {
  absl::flat_hash_set<std::string> consumed;
  for (const NodeDef& n : def.node()) {
    for (const std::string& in : n.input()) {
      TensorId id;
      if (!absl::StartsWith(in, "^") && ParseTensorName(in, &id).ok()) {
        consumed.insert(id.node);
      }
    }
  }
  std::vector<std::string> fetches;
  for (const NodeDef& n : def.node()) {
    if (!consumed.contains(n.name()) && n.op() != "NoOp") {
      fetches.push_back(n.name());
    }
  }
  return fetches;
}

}  // namespace

int RunMain(const CommandContext& ctx) {
  RunFlags flags;
  Status parsed = ParseFlags(ctx.args, &flags);
  if (!parsed.ok()) {
    *ctx.err << "minflow run: " << parsed.message()
             << "\nRun 'minflow help run' for usage.\n";
    return kExitUsage;
  }
  auto fail = [&](const Status& s) {
    *ctx.err << "minflow run: " << s.message() << "\n";
    return kExitFailure;
  };
  GraphDef graph_def;
  Status s = ReadGraphDefFile(flags.graph, &graph_def);
  if (!s.ok()) return fail(s);

  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const auto& [name, value] : flags.feeds) {
    Tensor t;
    s = FeedValue(value, FedDtype(graph_def, name), &t);
    if (!s.ok()) return fail(errors::Prefix(s, "--feed ", name, ": "));
    feeds.emplace_back(name, std::move(t));
  }
  if (flags.fetches.empty() && flags.targets.empty()) {
    flags.fetches = DefaultFetches(graph_def);
  }

  SessionOptions options;
  options.config.set_intra_op_parallelism_threads(flags.threads);
  options.config.set_inter_op_parallelism_threads(flags.inter_op);
  options.config.set_log_device_placement(flags.log_placement);
  if (flags.device == "cpu") {
    (*options.config.mutable_device_count())["GPU"] = 0;
  } else if (flags.device == "gpu") {
    options.config.set_allow_soft_placement(true);
    for (NodeDef& n : *graph_def.mutable_node()) {
      if (n.device().empty()) n.set_device("/device:GPU:0");
    }
  }
  auto session = Session::Create(graph_def, options);
  if (!session.ok()) return fail(session.status());

  RunOptions run_options;
  if (!flags.trace.empty()) run_options.set_trace_level(RunOptions::FULL_TRACE);
  RunMetadata metadata;
  std::vector<Tensor> outputs;
  std::vector<double> times_ms;
  for (int r = 0; r < flags.repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    s = (*session)->Run(run_options, feeds, flags.fetches, flags.targets,
                        &outputs, flags.trace.empty() ? nullptr : &metadata);
    const auto end = std::chrono::steady_clock::now();
    if (!s.ok()) return fail(s);
    times_ms.push_back(
        std::chrono::duration<double, std::milli>(end - start).count());
  }

  for (size_t i = 0; i < flags.fetches.size(); ++i) {
    const Tensor& t = outputs[i];
    *ctx.out << flags.fetches[i] << ": " << DataTypeString(t.dtype()) << " "
             << t.shape().DebugString() << "\n"
             << t.SummarizeValue(64) << "\n";
    if (!flags.out_dir.empty()) {
      const std::string path =
          flags.out_dir + "/" + FileNameFor(flags.fetches[i]);
      s = WriteNpyFile(path, t);
      if (!s.ok()) return fail(s);
    }
  }
  if (flags.repeat > 1) {
    std::vector<double> sorted = times_ms;
    std::sort(sorted.begin(), sorted.end());
    double sum = 0;
    for (double t : times_ms) sum += t;
    *ctx.out << "runs: " << flags.repeat << "  first: " << times_ms[0]
             << " ms  min: " << sorted.front()
             << " ms  median: " << sorted[sorted.size() / 2]
             << " ms  mean: " << sum / times_ms.size() << " ms\n";
  }
  if (!flags.trace.empty()) {
    std::ofstream file(flags.trace);
    file << StepStatsToChromeTrace(metadata.step_stats());
    if (!file)
      return fail(errors::PermissionDenied("Cannot write ", flags.trace));
  }
  return kExitOk;
}

}  // namespace tools
}  // namespace minflow
