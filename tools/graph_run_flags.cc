#include "tools/graph_run_flags.h"

#include <algorithm>
#include <random>
#include <unordered_set>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "minflow/config.pb.h"
#include "minflow/core/npy.h"
#include "minflow/framework/device.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/framework/tensor_literal.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/optimization_registry.h"
#include "minflow/graph/subgraph.h"
#include "minflow/runtime/device_factory.h"
#include "minflow/runtime/trace.h"
#include "minflow/saved_model.pb.h"
#include "minflow/saved_model/constants.h"
#include "tools/command.h"
#include "tools/output_files.h"

namespace minflow {
namespace tools {

Status ParseIntFlag(const std::string& flag, const std::string& value, int min,
                    int* out) {
  if (!absl::SimpleAtoi(value, out) || *out < min) {
    return errors::InvalidArgument(flag, " must be an integer >= ", min,
                                   ", but got '", value, "'");
  }
  return OkStatus();
}

Status ParsePositiveDoubleFlag(const std::string& flag,
                               const std::string& value, double* out) {
  if (!absl::SimpleAtod(value, out) || !(*out > 0)) {
    return errors::InvalidArgument(flag, " must be a number > 0, but got '",
                                   value, "'");
  }
  return OkStatus();
}

Status ParseGraphRunFlags(const std::vector<std::string>& args,
                          GraphRunFlags* flags, const ExtraFlagFn& extra) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const FlagValueFn value = [&](std::string* out) -> Status {
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
    } else if (name == "--init") {
      MF_RETURN_IF_ERROR(value(&v));
      flags->init_targets.push_back(v);
    } else if (name == "--threads") {
      MF_RETURN_IF_ERROR(value(&v));
      MF_RETURN_IF_ERROR(ParseIntFlag("--threads", v, 0, &flags->threads));
    } else if (name == "--inter-op") {
      MF_RETURN_IF_ERROR(value(&v));
      MF_RETURN_IF_ERROR(ParseIntFlag("--inter-op", v, 0, &flags->inter_op));
    } else if (name == "--device") {
      MF_RETURN_IF_ERROR(value(&flags->device));
      if (flags->device != "cpu" && flags->device != "gpu") {
        return errors::InvalidArgument("--device must be cpu or gpu, but got '",
                                       flags->device, "'");
      }
    } else if (name == "--seed") {
      MF_RETURN_IF_ERROR(value(&v));
      if (absl::StartsWith(v, "-") || absl::StartsWith(v, "+") ||
          !absl::SimpleAtoi(v, &flags->seed)) {
        return errors::InvalidArgument(
            "--seed must be an integer >= 0, but got '", v, "'");
      }
    } else if (name == "--no-soft-placement") {
      flags->soft_placement = false;
    } else if (name == "--trace") {
      MF_RETURN_IF_ERROR(value(&flags->trace));
    } else if (name == "--log-device-placement") {
      flags->log_placement = true;
    } else if (name == "--cuda-graphs") {
      flags->cuda_graphs = true;
    } else if (name == "--disable") {
      MF_RETURN_IF_ERROR(value(&v));
      PassSelection selection;
      selection.disabled = {v};
      MF_RETURN_IF_ERROR(
          OptimizationPassRegistry::Global()->CheckSelection(selection));
      flags->disabled_passes.push_back(v);
    } else if (absl::StartsWith(arg, "-")) {
      MF_ASSIGN_OR_RETURN(const bool known, extra(name, value));
      if (!known) return errors::InvalidArgument("Unknown option '", arg, "'");
    } else if (flags->graph.empty()) {
      flags->graph = arg;
    } else {
      return errors::InvalidArgument("Unexpected argument '", arg, "'");
    }
  }
  if (flags->graph.empty()) return errors::InvalidArgument("GRAPH is missing");
  if (!flags->soft_placement && flags->device != "gpu") {
    return errors::InvalidArgument("--no-soft-placement needs --device gpu");
  }
  return OkStatus();
}

void PrintGraphRunFlagsHelp(std::ostream& os) {
  os << R"(  --feed NAME[:K]=VALUE   Feed a tensor. VALUE is one of
                            a literal:  [[1,2],[3,4]]   int64:[2,-1]
                                        string:["a","b"]   (an untyped
                                        literal takes the fed tensor's dtype;
                                        otherwise integers are int32 and
                                        reals float32)
                            a file:     @input.npy
                            random:     random:float32:[8,784]
                                        (uniform [0,1) reals, integers
                                        0..9 or bools; see --seed)
  --seed N                Seed of the random data (random: feeds, bench's
                          generated inputs): the same N gives the same data
                          on every run of this binary (default 1234).
  --fetch NAME[:K]        Tensor to fetch (repeatable). Default: every output
                          of every node that nothing else consumes.
  --target NODE           Node to run for its effect only (repeatable).
  --init NODE             Node to run once first, in the same session, before
                          the fetches (repeatable): a variables' initialiser
                          (--init init) or a checkpoint's restore op. State
                          it sets lives for the rest of the command.
  --threads N             Intra-op threads (0 = all cores; default 0).
  --inter-op N            Inter-op threads (0 = all cores; default 0).
  --device cpu|gpu        cpu: hide GPUs. gpu: place nodes without a device
                          request on GPU:0, falling back to the CPU for ops
                          without a GPU kernel, and for every op (with a
                          warning) when there is no GPU.
  --no-soft-placement     With --device gpu: fail ("Cannot assign a device")
                          instead of falling back to the CPU.
  --trace FILE            Write a step's timeline as Chrome trace JSON (open
                          it in ui.perfetto.dev or chrome://tracing).
  --log-device-placement  Print each node's device to stderr.
  --cuda-graphs           Record a step that runs wholly on one GPU once (on
                          its second run) and launch it as a CUDA Graph from
                          then on; other steps, and other feed shapes, run
                          as usual. With --log-device-placement, says why a
                          step is not recorded.
  --disable PASS          Turn an optimisation pass off (repeatable; see
                          minflow optimize --passes). Results stay the
                          same; speed and node counts may not.
  --load LIB              Load a custom-op library first (repeatable).
)";
}

Status RandomTensor(DataType dtype, const TensorShape& shape, uint64_t seed,
                    absl::string_view stream, Tensor* out) {
  MF_ASSIGN_OR_RETURN(Tensor t,
                      Tensor::Allocate(cpu_allocator(), dtype, shape));
  // FNV-1a of the stream's name: fixed by the name alone, unlike std::hash.
  uint64_t stream_hash = 14695981039346656037ull;
  for (unsigned char c : stream)
    stream_hash = (stream_hash ^ c) * 1099511628211ull;
  std::seed_seq seeds{static_cast<uint32_t>(seed),
                      static_cast<uint32_t>(seed >> 32),
                      static_cast<uint32_t>(stream_hash),
                      static_cast<uint32_t>(stream_hash >> 32)};
  std::mt19937 rng(seeds);
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
      for (int64_t i = 0; i < n; ++i) {
        t.flat<bfloat16>()(i) = bfloat16(real(rng));
      }
      break;
    case DT_INT8:
      for (int64_t i = 0; i < n; ++i) t.flat<int8_t>()(i) = small(rng);
      break;
    case DT_INT16:
      for (int64_t i = 0; i < n; ++i) t.flat<int16_t>()(i) = small(rng);
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
          "random data of type ", DataTypeString(dtype), " is not supported");
  }
  *out = std::move(t);
  return OkStatus();
}

namespace {

// "random:float32:[8,784]" (without the "random:"), for the feed `name`.
Status RandomTensorFromSpec(absl::string_view spec, uint64_t seed,
                            absl::string_view name, Tensor* out) {
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
        "random feed shape must be a list such as [8,784], but got ", parts[1]);
  }
  TensorShape shape;
  MF_RETURN_IF_ERROR(TensorShape::BuildTensorShape(
      absl::MakeConstSpan(dims.flat<int64_t>().data(), dims.NumElements()),
      &shape));
  return RandomTensor(dtype, shape, seed, name, out);
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

Status FeedValue(const std::string& name, const std::string& value,
                 DataType fed_dtype, uint64_t seed, Tensor* out) {
  if (absl::StartsWith(value, "@")) return ReadNpyFile(value.substr(1), out);
  if (absl::StartsWith(value, "random:")) {
    return RandomTensorFromSpec(value.substr(7), seed, name, out);
  }
  if (fed_dtype == DT_INVALID) return ParseTensorLiteral(value, out);
  return ParseTensorLiteral(value, fed_dtype, out);
}

}  // namespace

Status MakeFeeds(const GraphDef& graph_def, const GraphRunFlags& flags,
                 std::vector<std::pair<std::string, Tensor>>* feeds,
                 int* exit_code) {
  for (const auto& [name, value] : flags.feeds) {
    Tensor t;
    Status s =
        FeedValue(name, value, FedDtype(graph_def, name), flags.seed, &t);
    if (!s.ok()) {
      // A literal or random: spec that does not parse is InvalidArgument;
      // running out of memory for a random tensor is a failure of the run.
      *exit_code = !absl::StartsWith(value, "@") && absl::IsInvalidArgument(s)
                       ? kExitUsage
                       : kExitFailure;
      return errors::Prefix(s, "--feed ", name, ": ");
    }
    feeds->emplace_back(name, std::move(t));
  }
  return OkStatus();
}

std::vector<std::string> DefaultFetches(const GraphDef& graph_def) {
  absl::flat_hash_set<std::string> consumed;
  for (const NodeDef& n : graph_def.node()) {
    for (const std::string& in : n.input()) {
      TensorIdView id;
      if (ParseNodeInput(in, &id).ok() && !id.IsControl()) {
        consumed.insert(std::string(id.node));
      }
    }
  }
  std::vector<std::string> fetches;
  for (const NodeDef& n : graph_def.node()) {
    if (!consumed.contains(n.name()) && n.op() != "NoOp") {
      fetches.push_back(n.name());
    }
  }
  return fetches;
}

SessionOptions MakeSessionOptions(const GraphRunFlags& flags,
                                  GraphDef* graph_def) {
  SessionOptions options;
  options.config.set_intra_op_parallelism_threads(flags.threads);
  options.config.set_inter_op_parallelism_threads(flags.inter_op);
  options.config.set_log_device_placement(flags.log_placement);
  options.config.mutable_gpu_options()
      ->mutable_experimental()
      ->set_use_cuda_graphs(flags.cuda_graphs);
  if (!flags.disabled_passes.empty()) {
    RewriterConfig* rewriter =
        options.config.mutable_graph_options()->mutable_rewrite_options();
    for (const auto* entry : OptimizationPassRegistry::Global()->Passes()) {
      const std::string name(entry->pass->name());
      if (std::find(flags.disabled_passes.begin(), flags.disabled_passes.end(),
                    name) == flags.disabled_passes.end()) {
        rewriter->add_optimizers(name);
      }
    }
  }
  if (flags.device == "cpu") {
    (*options.config.mutable_device_count())["GPU"] = 0;
  } else if (flags.device == "gpu") {
    options.config.set_allow_soft_placement(flags.soft_placement);
    for (NodeDef& n : *graph_def->mutable_node()) {
      if (n.device().empty()) n.set_device("/device:GPU:0");
    }
  }
  return options;
}

void WarnWhenNoGpuForDeviceGpu(const GraphRunFlags& flags,
                               const SessionOptions& options,
                               const std::string& command, std::ostream& err) {
  if (flags.device != "gpu" || !options.config.allow_soft_placement()) return;
  // The session makes its own devices; these are made only to be counted.
  std::vector<std::unique_ptr<Device>> devices;
  if (!CreateDevices(options, &devices).ok()) return;
  for (const auto& device : devices) {
    if (device->device_type() == DEVICE_GPU) return;
  }
  err << command
      << ": warning: --device gpu, but this process has no GPU device; every "
         "node runs on the CPU (--no-soft-placement makes this an error)\n";
}

int ExitCodeForLoadError(const Status& status) {
  // ReadGraphDefFile says NotFound / DataLoss for a file it cannot open or
  // read and prefixes parse errors with the path; everything after reading
  // (parse, import, refine, place) is about the graph itself.
  if (absl::StartsWith(status.message(), "Cannot open graph file") ||
      absl::StartsWith(status.message(), "Error reading")) {
    return kExitFailure;
  }
  return kExitInvalidGraph;
}

Status WriteTraceFile(const std::string& path, const StepStats& step_stats) {
  return WriteOutputFile(path, StepStatsToChromeTrace(step_stats));
}

Status RunInitTargets(
    Session* session, const GraphRunFlags& flags,
    const std::vector<std::pair<std::string, Tensor>>& feeds) {
  if (flags.init_targets.empty()) return OkStatus();
  std::vector<Tensor> unused;
  const Status s = session->Run(feeds, {}, flags.init_targets, &unused);
  if (!s.ok()) {
    return Status(s.code(), absl::StrCat("--init failed: ", s.message()));
  }
  return OkStatus();
}

Status ReadGraphOrSavedModel(const std::string& path, GraphDef* graph_def) {
  if (!MaybeSavedModelDirectory(path)) return ReadGraphDefFile(path, graph_def);
  SavedModel saved_model;
  MF_RETURN_IF_ERROR(ReadSavedModel(path, &saved_model));
  std::vector<std::string> tag_sets;
  for (const MetaGraphDef& meta_graph : saved_model.meta_graphs()) {
    const auto& tags = meta_graph.meta_info_def().tags();
    if (tags.size() == 1 && tags[0] == kSavedModelTagServe) {
      *graph_def = meta_graph.graph_def();
      return OkStatus();
    }
    tag_sets.push_back("'" + absl::StrJoin(tags, ",") + "'");
  }
  return errors::NotFound(
      "SavedModel ", path, " has no MetaGraph tagged 'serve' (its tag-sets: ",
      absl::StrJoin(tag_sets, " "), "); minflow run and bench take --tag_set");
}

Status PrepareSavedModel(GraphRunFlags* flags, const std::string& tag_set,
                         const std::string& signature_key,
                         SavedModelBundle* bundle, SignatureTensors* signature,
                         std::vector<std::pair<std::string, Tensor>>* feeds,
                         std::vector<std::string>* labels, int* exit_code) {
  *exit_code = kExitUsage;
  if (!flags->init_targets.empty() || !flags->targets.empty()) {
    return errors::InvalidArgument(
        "--init and --target do not apply to a SavedModel: it is restored "
        "and initialised by its own ops, and runs one signature");
  }
  std::unordered_set<std::string> tags;
  for (absl::string_view tag : absl::StrSplit(tag_set, ',')) {
    tags.emplace(tag);
  }
  // --device gpu cannot add device requests to a graph read by the loader;
  // GPUs are preferred by placement anyway, so only the options apply.
  GraphDef unused;
  const SessionOptions options = MakeSessionOptions(*flags, &unused);
  *exit_code = kExitFailure;
  MF_RETURN_IF_ERROR(
      LoadSavedModel(options, RunOptions(), flags->graph, tags, bundle));
  // From here on, what is wrong is a key on the command line.
  *exit_code = kExitUsage;
  MF_ASSIGN_OR_RETURN(
      *signature, GetSignatureTensors(bundle->meta_graph_def, signature_key));
  auto find = [&](const std::vector<SignatureTensor>& tensors,
                  const std::string& key,
                  const char* what) -> StatusOr<const SignatureTensor*> {
    std::vector<std::string> keys;
    for (const SignatureTensor& t : tensors) {
      if (t.key == key) return &t;
      keys.push_back(t.key);
    }
    return errors::InvalidArgument("signature '", signature_key, "' has no ",
                                   what, " '", key, "'; its ", what,
                                   "s: ", absl::StrJoin(keys, ", "));
  };
  for (auto& [key, value] : flags->feeds) {
    MF_ASSIGN_OR_RETURN(const SignatureTensor* input,
                        find(signature->inputs, key, "input"));
    key = input->tensor_name;
  }
  labels->clear();
  if (flags->fetches.empty()) {
    for (const SignatureTensor& output : signature->outputs) {
      labels->push_back(output.key);
      flags->fetches.push_back(output.tensor_name);
    }
  } else {
    for (std::string& key : flags->fetches) {
      MF_ASSIGN_OR_RETURN(const SignatureTensor* output,
                          find(signature->outputs, key, "output"));
      labels->push_back(key);
      key = output->tensor_name;
    }
  }
  return MakeFeeds(bundle->meta_graph_def.graph_def(), *flags, feeds,
                   exit_code);
}

}  // namespace tools
}  // namespace minflow
