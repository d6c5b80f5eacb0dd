// What `minflow run` and `minflow bench` share: the flags that say which
// graph to run, what to feed, fetch and target, on which device with how
// many threads; turning them into feeds and SessionOptions; and the exit
// code a failed load or Create maps to.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "minflow/saved_model/loader.h"
#include "minflow/saved_model/signature.h"
#include "minflow/step_stats.pb.h"

namespace minflow {
namespace tools {

// The seed of random data when --seed is not given: the same data every run.
inline constexpr uint64_t kDefaultRandomSeed = 1234;

struct GraphRunFlags {
  std::string graph;
  std::vector<std::pair<std::string, std::string>> feeds;  // name, value
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  // Run once, before anything else, in the same session: initialisers
  // (`--init init`), a checkpoint's restore op.
  std::vector<std::string> init_targets;
  int threads = 0;     // intra-op; 0 = all cores
  int inter_op = 0;    // 0 = all cores
  std::string device;  // "", "cpu" or "gpu"
  // With --device gpu: nodes that cannot run on the GPU fall back to the CPU.
  bool soft_placement = true;
  std::string trace;  // Chrome trace JSON path, or empty
  bool log_placement = false;
  // GPUOptions.experimental.use_cuda_graphs (--cuda-graphs).
  bool cuda_graphs = false;
  // Seeds the random: feeds (and bench's generated inputs).
  uint64_t seed = kDefaultRandomSeed;
  // Optimisation passes switched off (--disable), by name.
  std::vector<std::string> disabled_passes;
};

// Hands a subcommand the flags ParseGraphRunFlags does not know. `value`
// fetches the flag's value (from "--flag=v" or the next argument). Returns
// true when the flag was the subcommand's, false when it is unknown.
using FlagValueFn = std::function<Status(std::string*)>;
using ExtraFlagFn =
    std::function<StatusOr<bool>(const std::string& name, const FlagValueFn&)>;

// Parses `args` (after the subcommand's name). InvalidArgument, meant for
// a usage error, on unknown flags, missing values and a missing GRAPH.
Status ParseGraphRunFlags(const std::vector<std::string>& args,
                          GraphRunFlags* flags, const ExtraFlagFn& extra);

// "--flag must be an integer >= min" unless `value` is one.
Status ParseIntFlag(const std::string& flag, const std::string& value, int min,
                    int* out);
// Same for a real number > 0.
Status ParsePositiveDoubleFlag(const std::string& flag,
                               const std::string& value, double* out);

// The `--flags` paragraph both subcommands' help texts print.
void PrintGraphRunFlagsHelp(std::ostream& os);

// Uniform [0,1) reals, small integers (0..9) or random bools. The data
// depends only on `seed` and `stream` (a feed's name, so that two feeds of
// one shape differ), so runs of the same binary repeat.
Status RandomTensor(DataType dtype, const TensorShape& shape, uint64_t seed,
                    absl::string_view stream, Tensor* out);

// Turns --feed specs into tensors: an untyped literal takes the dtype of the
// tensor it feeds; "@file.npy", "random:DTYPE:[dims]" and typed literals
// say their own. On failure `*exit_code` is kExitUsage when a value does not
// parse (a literal or random: spec), kExitFailure when an @file cannot be
// read or memory runs out.
Status MakeFeeds(const GraphDef& graph_def, const GraphRunFlags& flags,
                 std::vector<std::pair<std::string, Tensor>>* feeds,
                 int* exit_code);

// Outputs of the nodes nothing consumes: what a user most likely wants.
std::vector<std::string> DefaultFetches(const GraphDef& graph_def);

// SessionOptions for the flags. --disable leaves the named passes out of
// rewrite_options.optimizers, which then lists every other registered
// pass. --device gpu asks for GPU:0 on every node
// without a request (soft placement keeps ops without a GPU kernel on the
// CPU, unless --no-soft-placement), which is why the GraphDef may change.
SessionOptions MakeSessionOptions(const GraphRunFlags& flags,
                                  GraphDef* graph_def);

// With --device gpu and soft placement, says once on `err` (as `command`)
// when this process has no GPU, so every node will run on the CPU. Without
// soft placement there is nothing to say: placement fails with its own error.
void WarnWhenNoGpuForDeviceGpu(const GraphRunFlags& flags,
                               const SessionOptions& options,
                               const std::string& command, std::ostream& err);

// kExitFailure when the graph file cannot be read at all, kExitInvalidGraph
// when it was read but does not parse, import, refine or place.
// Runs flags.init_targets (with `feeds`) once, if any; the error says
// that initialisation failed.
Status RunInitTargets(Session* session, const GraphRunFlags& flags,
                      const std::vector<std::pair<std::string, Tensor>>& feeds);

int ExitCodeForLoadError(const Status& status);

// GRAPH as a GraphDef, for the commands that read a graph without running
// it (infer, validate, dot, summary, optimize): the file, or, for a
// SavedModel directory, the graph (with its functions) of its MetaGraph
// tagged "serve", its variables not read. Errors as ReadGraphDefFile's.
Status ReadGraphOrSavedModel(const std::string& path, GraphDef* graph_def);

// For a SavedModel directory given as GRAPH (run, bench): loads it with the
// flags' session options and the MetaGraph of `tag_set` (comma-separated),
// then turns the keys of signature `signature_key` in --feed and --fetch
// (every output when none) into its graph's tensors and makes the feeds.
// `*signature` is the signature; `labels` are the fetches' keys, for
// printing. --init and --target do not apply. On failure `*exit_code` is
// kExitUsage for a bad key, signature or flag, kExitFailure otherwise.
Status PrepareSavedModel(GraphRunFlags* flags, const std::string& tag_set,
                         const std::string& signature_key,
                         SavedModelBundle* bundle, SignatureTensors* signature,
                         std::vector<std::pair<std::string, Tensor>>* feeds,
                         std::vector<std::string>* labels, int* exit_code);

// Writes a step's timeline as Chrome trace-event JSON.
Status WriteTraceFile(const std::string& path, const StepStats& step_stats);

}  // namespace tools
}  // namespace minflow
