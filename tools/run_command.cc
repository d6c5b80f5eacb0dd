// `minflow run GRAPH`: feeds tensors, runs the graph through a Session and
// prints (or saves) the fetched tensors.
#include <chrono>
#include <memory>
#include <ostream>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "minflow/config.pb.h"
#include "minflow/core/npy.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/runtime/session.h"
#include "minflow/saved_model/constants.h"
#include "minflow/saved_model/loader.h"
#include "minflow/saved_model/signature.h"
#include "minflow/step_stats.pb.h"
#include "tools/command.h"
#include "tools/graph_run_flags.h"
#include "tools/latency.h"
#include "tools/output_files.h"

namespace minflow {
namespace tools {

void RunHelp(std::ostream& os) {
  os << R"(Usage: minflow run GRAPH [options]
       minflow run SAVED_MODEL_DIR [--signature KEY] [--tag_set TAGS] [options]

Runs a GraphDef (binary .pb or text .pbtxt, told apart by content) and prints
the fetched tensors (large ones summarised).

Given a SavedModel directory, loads it (variables restored, init op run; see
minflow show DIR for what it holds) and runs one signature: --feed and
--fetch then name the signature's input and output keys, every output is
fetched by default, and outputs are printed and saved under their keys.
--init and --target do not apply there.

Options:
)";
  PrintGraphRunFlagsHelp(os);
  os << R"(  --repeat N              Run N times and report the first run's time and
                          the others' latency percentiles, as minflow bench
                          does (default 1).
  --signature KEY         SavedModel: the signature to run (default
                          serving_default).
  --tag_set TAGS          SavedModel: the MetaGraph's tags, comma-separated
                          (default serve).
  --out-dir DIR           Save each fetch as DIR/<fetch>.npy, with characters
                          outside [A-Za-z0-9_.-] in the name turned into '_'
                          (--fetch y:0 writes y_0.npy). DIR and its parents
                          are created when missing.

Examples:
  minflow run examples/graphs/digits_mlp.pbtxt \
      --feed x=@examples/graphs/digits_sample.npy --fetch digit
  minflow run model.pb --feed input=random:float32:[1,224,224,3] --repeat 20
  minflow run add.pbtxt --feed a=[1,2] --feed b=[3,4] --fetch sum:0 \
      --out-dir results --trace add_trace.json
  minflow run tests/testdata/saved_models/saved_model_half_plus_two_tf2_cpu \
      --feed x=[1,2,3]

Exit codes: 0 success; 1 the run failed or a file could not be read; 2 usage
error; 3 the graph does not parse, import, refine or place.
)";
}

namespace {

std::string FileNameFor(const std::string& fetch) {
  std::string name = fetch;
  for (char& c : name) {
    if (!absl::ascii_isalnum(c) && c != '_' && c != '.' && c != '-') c = '_';
  }
  return name + ".npy";
}

}  // namespace

int RunMain(const CommandContext& ctx) {
  GraphRunFlags flags;
  int repeat = 1;
  std::string out_dir;
  std::string signature_key = kDefaultServingSignatureDefKey;
  std::string tag_set = kSavedModelTagServe;
  Status parsed = ParseGraphRunFlags(
      ctx.args, &flags,
      [&](const std::string& name, const FlagValueFn& value) -> StatusOr<bool> {
        std::string v;
        if (name == "--repeat") {
          MF_RETURN_IF_ERROR(value(&v));
          MF_RETURN_IF_ERROR(ParseIntFlag("--repeat", v, 1, &repeat));
          return true;
        }
        if (name == "--out-dir") {
          MF_RETURN_IF_ERROR(value(&out_dir));
          return true;
        }
        if (name == "--signature") {
          MF_RETURN_IF_ERROR(value(&signature_key));
          return true;
        }
        if (name == "--tag_set") {
          MF_RETURN_IF_ERROR(value(&tag_set));
          return true;
        }
        return false;
      });
  if (!parsed.ok()) {
    *ctx.err << "minflow run: " << parsed.message()
             << "\nRun 'minflow help run' for usage.\n";
    return kExitUsage;
  }
  auto fail = [&](const Status& s, int code) {
    *ctx.err << "minflow run: " << s.message() << "\n";
    return code;
  };
  // Before the run, so that a directory that cannot be made costs no run.
  if (!out_dir.empty()) {
    Status created = CreateOutputDirectory(out_dir);
    if (!created.ok()) return fail(created, kExitFailure);
  }
  Session* session = nullptr;
  std::unique_ptr<Session> graph_session;
  SavedModelBundle bundle;  // owns the session of a SavedModel
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> labels;  // how each fetch is printed and saved
  Status s;
  if (MaybeSavedModelDirectory(flags.graph)) {
    int code = kExitFailure;
    SignatureTensors signature;
    s = PrepareSavedModel(&flags, tag_set, signature_key, &bundle, &signature,
                          &feeds, &labels, &code);
    if (!s.ok()) return fail(s, code);
    session = bundle.session.get();
  } else {
    GraphDef graph_def;
    s = ReadGraphDefFile(flags.graph, &graph_def);
    if (!s.ok()) return fail(s, ExitCodeForLoadError(s));

    int feed_exit_code = kExitFailure;
    s = MakeFeeds(graph_def, flags, &feeds, &feed_exit_code);
    if (!s.ok()) return fail(s, feed_exit_code);
    if (flags.fetches.empty() && flags.targets.empty()) {
      flags.fetches = DefaultFetches(graph_def);
    }
    labels = flags.fetches;

    const SessionOptions options = MakeSessionOptions(flags, &graph_def);
    WarnWhenNoGpuForDeviceGpu(flags, options, "minflow run", *ctx.err);
    auto created = Session::Create(graph_def, options);
    if (!created.ok()) return fail(created.status(), kExitInvalidGraph);
    graph_session = std::move(created).value();
    session = graph_session.get();

    s = RunInitTargets(session, flags, feeds);
    if (!s.ok()) return fail(s, kExitFailure);
  }

  RunOptions run_options;
  if (!flags.trace.empty()) run_options.set_trace_level(RunOptions::FULL_TRACE);
  RunMetadata metadata;
  std::vector<Tensor> outputs;
  std::vector<double> times_ms;
  for (int r = 0; r < repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    s = session->Run(run_options, feeds, flags.fetches, flags.targets, &outputs,
                     flags.trace.empty() ? nullptr : &metadata);
    const auto end = std::chrono::steady_clock::now();
    if (!s.ok()) return fail(s, kExitFailure);
    times_ms.push_back(
        std::chrono::duration<double, std::milli>(end - start).count());
  }

  for (size_t i = 0; i < flags.fetches.size(); ++i) {
    const Tensor& t = outputs[i];
    *ctx.out << labels[i] << ": " << DataTypeString(t.dtype()) << " "
             << t.shape().DebugString() << "\n"
             << t.SummarizeValue(64) << "\n";
    if (!out_dir.empty()) {
      s = WriteNpyFile(out_dir + "/" + FileNameFor(labels[i]), t);
      if (!s.ok()) return fail(s, kExitFailure);
    }
  }
  if (repeat > 1) {
    // The first run also prepares the signature (pruning, passes,
    // placement, kernels), so it is reported apart, as bench does.
    std::vector<double> steady_us;
    for (size_t r = 1; r < times_ms.size(); ++r) {
      steady_us.push_back(times_ms[r] * 1000);
    }
    *ctx.out << absl::StrFormat(
                    "runs: %d (first run %.3f ms, with the signature's "
                    "preparation; the latency is of the other %d)\n",
                    repeat, times_ms[0], repeat - 1)
             << FormatLatency(Summarize(steady_us))
             << "(minflow bench measures more: warm-up, --min-time, "
                "--concurrency, memory, --op-profile)\n";
  }
  if (!flags.trace.empty()) {
    s = WriteTraceFile(flags.trace, metadata.step_stats());
    if (!s.ok()) return fail(s, kExitFailure);
  }
  return kExitOk;
}

}  // namespace tools
}  // namespace minflow
