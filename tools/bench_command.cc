// `minflow bench GRAPH`: what TFLite's benchmark_model and ONNX Runtime's
// perf_test report, for a GraphDef: init time by phase, first run,
// steady-state latency percentiles, throughput, peak memory and, on request,
// a per-op profile.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "minflow/config.pb.h"
#include "minflow/core/allocator.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/subgraph.h"
#include "minflow/runtime/session.h"
#include "minflow/runtime/trace.h"
#include "minflow/saved_model/constants.h"
#include "minflow/step_stats.pb.h"
#include "tools/command.h"
#include "tools/graph_run_flags.h"
#include "tools/latency.h"
#include "tools/memory_report.h"
#include "tools/output_files.h"
#include "tools/signature_flags.h"

namespace minflow {
namespace tools {

void BenchHelp(std::ostream& os) {
  os << R"(Usage: minflow bench GRAPH [options]

Measures a GraphDef: init time (parse; import and shape refinement; pruning,
optimisation passes, placement and kernel creation), what each graph
optimisation pass did (nodes before and after, time), the first run,
steady-state latency (min, median, mean, p90, p99, max) and runs per second,
and peak memory: the host allocator's peak bytes, and the process's peak
resident set (RSS) from its start until the report, with how much of it was
resident before the graph was read (the shared libraries and their static
initialisers, the same for every graph), and how many host allocator calls
the timed runs made and how many of those the allocator had to get from the
system rather than from its cache of freed buffers (MINFLOW_CPU_ALLOCATOR_CACHE
sets the cache's size). The timed runs write their fetches into buffers
made once (Session::RunCallableInto, as ONNX Runtime's preallocated
outputs), and the host memory of a graph without control flow is planned
from its first run (an arena; MINFLOW_MEMORY_PLAN=0 turns it off), so a
static graph's timed runs make no allocator calls. "memory plan" gives the
arena's size next to the liveness bound of the buffers it holds (the
largest sum of their bytes alive at once in the recorded run, scratch
buffers included), how many buffers outlived that run and were left to the
allocator, and how the later runs' requests were served.
"memory per run" is one more run's peak of host memory beyond what was in
use before it (the graph's constants and the plan's arena), next to the
liveness bound of its tensors: the largest sum of the bytes of tensors
alive at once in the order that run took (a kernel's scratch, such as an
im2col buffer, is not in this bound; an output written over its input
counts twice in it).

/usr/bin/time reads the peak RSS after the process has ended, so it also
counts the pages the libraries touch while it ends. (A CUDA build loads
cudart and cuBLAS only for sessions that may use a GPU.)

Given a SavedModel directory, it loads it (the load is the init's first
part) and measures one signature, as minflow run does: --feed, --fetch and
--shape name the signature's input and output keys, and inputs not fed get
random data of their signature dtype and shape.

Placeholders without --feed get random data of their declared dtype and
shape; unknown dimensions become 1 (and are reported) unless --shape sets
them. The data comes from --seed (reported), so runs repeat.

Options (as for minflow run):
)";
  PrintGraphRunFlagsHelp(os);
  os << R"(Options for measuring:
  --signature KEY         SavedModel: the signature (default serving_default).
  --tag_set TAGS          SavedModel: the MetaGraph's tags (default serve).
  --shape NAME=D0,D1,...  Shape of the random data for Placeholder NAME
                          (repeatable; "NAME=" for a scalar).
  --warmup N              Untimed runs after the first (default 1).
  --runs N                Timed runs (default: as many as --min-time allows).
  --concurrency N         Callers running the one session at once, each
                          taking runs until --runs or --min-time is used up
                          (as ONNX Runtime's perf_test -c). Latency is per
                          run; runs/s is runs over the wall time (with one
                          caller, over the runs' summed time). Default 1.
  --min-time S            Run for at least S seconds (default 1; ignored with
                          --runs).
  --op-profile            Also profile as many traced runs (at most 100) and
                          print per op type: nodes, total and average time
                          per step and share of the summed node time; and the
                          ten slowest nodes. Latency figures come from the
                          untraced runs.
  --json FILE             Write the figures as JSON: init_ms, first_run_ms,
                          runs, concurrency, latency_us {min, median, mean, p90, p99, max},
                          runs_per_s, peak_bytes, timed_allocs,
                          timed_system_allocs, peak_rss_bytes,
                          start_rss_bytes, run_peak_bytes,
                          liveness_bound_bytes, memory_plan {planned,
                          reason, arena_bytes, liveness_bound_bytes,
                          planned_buffers, unplanned_buffers, arena_hits,
                          arena_misses, unplanned_allocations}, passes
                          [{name, phase, ran, nodes_before, nodes_after,
                          duration_us}], and with
                          --op-profile ops [{op, count, total_us, avg_us,
                          share}] and slowest_nodes.
  With --trace, the timeline of the last traced run is written.

A progress line goes to stderr while it runs when stderr is a terminal.

Examples:
  minflow bench examples/graphs/digits_mlp.pbtxt
  minflow bench model.pb --shape input=1,224,224,3 --runs 50 --op-profile
  minflow bench model.pb --threads 1 --inter-op 1 --min-time 5 \
      --json single_thread.json --trace timeline.json

Exit codes: 0 success; 1 a run failed or a file could not be read or
written; 2 usage error; 3 the graph does not parse, import, refine or place.
)";
}

namespace {

using Clock = std::chrono::steady_clock;

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

struct BenchFlags {
  absl::flat_hash_map<std::string, std::vector<int64_t>> shapes;
  int warmup = 1;
  int runs = 0;  // 0: use min_time
  double min_time_s = 1.0;
  int concurrency = 1;  // callers running the session at once
  bool op_profile = false;
  std::string json;
};

Status ParseShapeFlag(const std::string& value, BenchFlags* flags) {
  const size_t eq = value.find('=');
  if (eq == std::string::npos || eq == 0) {
    return errors::InvalidArgument(
        "--shape must be NAME=D0,D1,... (NAME= for a scalar), but got '", value,
        "'");
  }
  std::vector<int64_t> dims;
  const std::string list = value.substr(eq + 1);
  if (!list.empty()) {
    for (absl::string_view d : absl::StrSplit(list, ',')) {
      int64_t dim;
      if (!absl::SimpleAtoi(d, &dim) || dim < 0) {
        return errors::InvalidArgument(
            "--shape dimensions must be integers >= 0, but got '", value, "'");
      }
      dims.push_back(dim);
    }
  }
  flags->shapes[value.substr(0, eq)] = std::move(dims);
  return OkStatus();
}

// Random feeds (from `seed`) for the Placeholders --feed does not cover.
// `notes` says what was made up, for the report.
Status AddRandomPlaceholderFeeds(
    const GraphDef& graph_def, const BenchFlags& bench, uint64_t seed,
    std::vector<std::pair<std::string, Tensor>>* feeds,
    std::vector<std::string>* notes) {
  absl::flat_hash_set<std::string> fed;
  for (const auto& [name, tensor] : *feeds) {
    TensorId id;
    if (ParseTensorName(name, &id).ok()) fed.insert(id.node);
  }
  absl::flat_hash_set<std::string> shaped;
  for (const NodeDef& n : graph_def.node()) {
    if (n.op() != "Placeholder" || fed.contains(n.name())) continue;
    auto dtype_attr = n.attr().find("dtype");
    if (dtype_attr == n.attr().end()) {
      return errors::InvalidArgument("Placeholder ", n.name(),
                                     " has no dtype attr");
    }
    const DataType dtype = dtype_attr->second.type();
    std::vector<int64_t> dims;
    std::string note;
    auto given = bench.shapes.find(n.name());
    if (given != bench.shapes.end()) {
      dims = given->second;
      shaped.insert(n.name());
    } else {
      auto shape_attr = n.attr().find("shape");
      PartialTensorShape declared;
      if (shape_attr != n.attr().end()) {
        MF_RETURN_IF_ERROR(
            errors::Prefix(PartialTensorShape::BuildPartialTensorShape(
                               shape_attr->second.shape(), &declared),
                           "Placeholder ", n.name(), ": "));
      }
      if (declared.unknown_rank()) {
        note = " (unknown rank: a scalar; set it with --shape)";
      } else {
        bool unknown = false;
        for (int d = 0; d < declared.dims(); ++d) {
          const int64_t size = declared.dim_size(d);
          unknown |= size < 0;
          dims.push_back(size < 0 ? 1 : size);
        }
        if (unknown) note = " (unknown dims set to 1; set them with --shape)";
      }
    }
    TensorShape shape;
    MF_RETURN_IF_ERROR(TensorShape::BuildTensorShape(dims, &shape));
    Tensor t;
    MF_RETURN_IF_ERROR(
        errors::Prefix(RandomTensor(dtype, shape, seed, n.name(), &t),
                       "Placeholder ", n.name(), ": "));
    notes->push_back(absl::StrCat(n.name(), ": random ", DataTypeString(dtype),
                                  " ", shape.DebugString(), note));
    feeds->emplace_back(n.name(), std::move(t));
  }
  for (const auto& [name, dims] : bench.shapes) {
    if (!shaped.contains(name)) {
      return errors::InvalidArgument(
          "--shape ", name,
          ": no unfed Placeholder has that name (a --feed sets its own "
          "shape)");
    }
  }
  return OkStatus();
}

struct OpRow {
  std::string op;
  int64_t count = 0;    // nodes of this op type in a step
  double total_us = 0;  // per step
  double avg_us = 0;    // per node
  double share = 0;     // of the summed node time
};

struct NodeRow {
  std::string node;
  std::string op;
  double avg_us = 0;
};

struct OpProfile {
  std::vector<OpRow> ops;
  std::vector<NodeRow> slowest;
};

// Averages node times over the profiled steps and groups them by op type.
OpProfile BuildOpProfile(const std::vector<StepStats>& steps) {
  struct NodeTotal {
    std::string op;
    double total_us = 0;
  };
  std::map<std::string, NodeTotal> nodes;
  for (const StepStats& step : steps) {
    for (const DeviceStepStats& dev : step.dev_stats()) {
      for (const NodeExecStats& ns : dev.node_stats()) {
        NodeTotal& total = nodes[ns.node_name()];
        total.op = ns.timeline_label();
        total.total_us += ns.all_end_rel_nanos() / 1000.0;
      }
    }
  }
  OpProfile profile;
  const double num_steps = std::max<size_t>(1, steps.size());
  std::map<std::string, OpRow> by_op;
  double sum_us = 0;
  for (const auto& [name, total] : nodes) {
    const double per_step = total.total_us / num_steps;
    OpRow& row = by_op[total.op];
    row.op = total.op;
    row.count += 1;
    row.total_us += per_step;
    sum_us += per_step;
    profile.slowest.push_back({name, total.op, per_step});
  }
  for (auto& [op, row] : by_op) {
    row.avg_us = row.total_us / row.count;
    row.share = sum_us > 0 ? row.total_us / sum_us : 0;
    profile.ops.push_back(row);
  }
  std::sort(profile.ops.begin(), profile.ops.end(),
            [](const OpRow& a, const OpRow& b) {
              return a.total_us != b.total_us ? a.total_us > b.total_us
                                              : a.op < b.op;
            });
  std::sort(profile.slowest.begin(), profile.slowest.end(),
            [](const NodeRow& a, const NodeRow& b) {
              return a.avg_us != b.avg_us ? a.avg_us > b.avg_us
                                          : a.node < b.node;
            });
  if (profile.slowest.size() > 10) profile.slowest.resize(10);
  return profile;
}

// The process's peak resident set so far (the kernel's high-water mark).
int64_t PeakRssBytes() {
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux: KiB
}

// The process's resident set now (/proc/self/statm counts pages); 0 where
// it cannot be read.
int64_t CurrentRssBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size_pages = 0, resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return 0;
  return resident_pages * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

std::string Mib(int64_t bytes) {
  return absl::StrFormat("%.2f MiB", bytes / (1024.0 * 1024.0));
}

struct BenchResult {
  std::string graph;
  int num_nodes = 0;
  double parse_ms = 0, create_ms = 0, prepare_ms = 0, init_ms = 0;
  double first_run_ms = 0;
  int runs = 0;
  int concurrency = 1;
  double total_s = 0;
  LatencySummary latency;
  double runs_per_s = 0;
  int64_t peak_bytes = 0;
  // Host allocations in the timed runs, and how many of them the allocator
  // had to get from the system (Note [Host allocator cache]).
  int64_t timed_allocs = 0;
  int64_t timed_system_allocs = 0;
  int64_t peak_rss_bytes = 0;
  int64_t start_rss_bytes = 0;  // before the graph was read
  // One run: the most host memory it held beyond what was in use before it
  // (constants, the session's state), and what its tensors' lifetimes need
  // at least (LivenessBoundBytes).
  int64_t run_peak_bytes = 0;
  int64_t liveness_bound_bytes = 0;
  // The signature's memory plan after the timed runs (Note [Memory plan]).
  MemoryPlanStats plan;
  // A SavedModel: create_ms is its whole load (read, import, restore, init
  // op) and parse_ms is 0.
  bool saved_model = false;
  bool profiled = false;
  int profiled_runs = 0;
  OpProfile profile;
  // What each graph optimisation pass did when the signature was prepared.
  std::vector<GraphPassRecord> passes;
};

// "812 B", "12.5 KiB", "3.20 MiB".
std::string HumanBytes(int64_t bytes) {
  if (bytes < 1024) return absl::StrCat(bytes, " B");
  if (bytes < 1024 * 1024) {
    return absl::StrFormat("%.1f KiB", static_cast<double>(bytes) / 1024);
  }
  return absl::StrFormat("%.2f MiB", static_cast<double>(bytes) / 1048576);
}

std::string ToJson(const BenchResult& r) {
  std::ostringstream os;
  os << std::setprecision(6);
  const LatencySummary& l = r.latency;
  os << "{\n  \"graph\": " << JsonQuote(r.graph)
     << ",\n  \"saved_model\": " << (r.saved_model ? "true" : "false")
     << ",\n  \"nodes\": " << r.num_nodes << ",\n  \"init_ms\": " << r.init_ms
     << ",\n  \"init_breakdown_ms\": {\"parse\": " << r.parse_ms
     << ", \"import_refine\": " << r.create_ms
     << ", \"prune_place_kernels\": " << r.prepare_ms << "}"
     << ",\n  \"first_run_ms\": " << r.first_run_ms
     << ",\n  \"runs\": " << r.runs << ",\n  \"concurrency\": " << r.concurrency
     << ",\n  \"latency_us\": {\"min\": " << l.min
     << ", \"median\": " << l.median << ", \"mean\": " << l.mean
     << ", \"p90\": " << l.p90 << ", \"p99\": " << l.p99
     << ", \"max\": " << l.max << "}"
     << ",\n  \"runs_per_s\": " << r.runs_per_s
     << ",\n  \"peak_bytes\": " << r.peak_bytes
     << ",\n  \"timed_allocs\": " << r.timed_allocs
     << ",\n  \"timed_system_allocs\": " << r.timed_system_allocs
     << ",\n  \"peak_rss_bytes\": " << r.peak_rss_bytes

     << ",\n  \"start_rss_bytes\": " << r.start_rss_bytes
     << ",\n  \"run_peak_bytes\": " << r.run_peak_bytes
     << ",\n  \"liveness_bound_bytes\": " << r.liveness_bound_bytes
     << ",\n  \"memory_plan\": {\"planned\": "
     << (r.plan.planned ? "true" : "false")
     << ", \"reason\": " << JsonQuote(r.plan.reason)
     << ", \"arena_bytes\": " << r.plan.arena_bytes
     << ", \"liveness_bound_bytes\": " << r.plan.liveness_bound_bytes
     << ", \"planned_buffers\": " << r.plan.planned_buffers
     << ", \"unplanned_buffers\": " << r.plan.unplanned_buffers
     << ", \"arena_hits\": " << r.plan.arena_hits
     << ", \"arena_misses\": " << r.plan.arena_misses
     << ", \"unplanned_allocations\": " << r.plan.unplanned_allocations << "}";
  os << ",\n  \"passes\": [";
  for (size_t i = 0; i < r.passes.size(); ++i) {
    const GraphPassRecord& p = r.passes[i];
    os << (i ? ",\n    " : "\n    ") << "{\"name\": " << JsonQuote(p.name())
       << ", \"phase\": " << JsonQuote(p.phase())
       << ", \"ran\": " << (p.ran() ? "true" : "false")
       << ", \"nodes_before\": " << p.nodes_before()
       << ", \"nodes_after\": " << p.nodes_after()
       << ", \"duration_us\": " << p.duration_us() << "}";
  }
  os << (r.passes.empty() ? "]" : "\n  ]");
  if (r.profiled) {
    os << ",\n  \"profiled_runs\": " << r.profiled_runs << ",\n  \"ops\": [";
    for (size_t i = 0; i < r.profile.ops.size(); ++i) {
      const OpRow& op = r.profile.ops[i];
      os << (i ? ",\n    " : "\n    ") << "{\"op\": " << JsonQuote(op.op)
         << ", \"count\": " << op.count << ", \"total_us\": " << op.total_us
         << ", \"avg_us\": " << op.avg_us << ", \"share\": " << op.share << "}";
    }
    os << "\n  ],\n  \"slowest_nodes\": [";
    for (size_t i = 0; i < r.profile.slowest.size(); ++i) {
      const NodeRow& n = r.profile.slowest[i];
      os << (i ? ",\n    " : "\n    ") << "{\"node\": " << JsonQuote(n.node)
         << ", \"op\": " << JsonQuote(n.op) << ", \"avg_us\": " << n.avg_us
         << "}";
    }
    os << "\n  ]";
  }
  os << "\n}\n";
  return os.str();
}

void PrintReport(const BenchResult& r, std::ostream& os) {
  const LatencySummary& l = r.latency;
  if (r.saved_model) {
    os << absl::StrFormat(
        "init: %.3f ms (load the SavedModel: read, import, restore, init op "
        "%.3f; prune+passes+place+kernels %.3f)\n",
        r.init_ms, r.create_ms, r.prepare_ms);
  } else {
    os << absl::StrFormat(
        "init: %.3f ms (parse %.3f, import+refine %.3f, "
        "prune+passes+place+kernels %.3f)\n",
        r.init_ms, r.parse_ms, r.create_ms, r.prepare_ms);
  }
  PrintPassRecords(r.passes, os);
  os << absl::StrFormat("first run: %.3f ms\n", r.first_run_ms);
  if (r.concurrency == 1) {
    os << absl::StrFormat("runs: %d in %.3f s (%.1f runs/s)\n", r.runs,
                          r.total_s, r.runs_per_s);
  } else {
    os << absl::StrFormat(
        "runs: %d in %.3f s by %d concurrent callers (%.1f runs/s)\n", r.runs,
        r.total_s, r.concurrency, r.runs_per_s);
  }
  os << FormatLatency(l);
  os << "memory: allocator peak " << Mib(r.peak_bytes) << ", process peak RSS "
     << Mib(r.peak_rss_bytes) << " (" << Mib(r.start_rss_bytes)
     << " of it before the graph was read)\n";
  os << "memory per run: " << HumanBytes(r.run_peak_bytes)
     << " at most in use beyond the constants"
     << (r.plan.planned ? " and the plan's arena" : "")
     << "; its tensors' lifetimes need " << HumanBytes(r.liveness_bound_bytes);
  if (r.liveness_bound_bytes > 0) {
    os << absl::StrFormat(" (%.2fx)",
                          static_cast<double>(r.run_peak_bytes) /
                              static_cast<double>(r.liveness_bound_bytes));
  }
  os << "\n";
  os << "allocations in the timed runs: " << r.timed_allocs << ", "
     << r.timed_system_allocs << " of them from the system\n";
  const MemoryPlanStats& plan = r.plan;
  if (!plan.planned) {
    os << "memory plan: none (" << plan.reason << ")\n";
  } else {
    os << "memory plan: arena " << HumanBytes(plan.arena_bytes) << " for "
       << plan.planned_buffers << " buffers, whose lifetimes need "
       << HumanBytes(plan.liveness_bound_bytes);
    if (plan.liveness_bound_bytes > 0) {
      os << absl::StrFormat(" (%.2fx)",
                            static_cast<double>(plan.arena_bytes) /
                                static_cast<double>(plan.liveness_bound_bytes));
    }
    os << "; " << plan.unplanned_buffers
       << " outlived the recorded run (left to the allocator); since: "
       << plan.arena_hits << " from the arena, " << plan.arena_misses
       << " missed their place, " << plan.unplanned_allocations
       << " not in the plan\n";
  }
  if (!r.profiled) return;
  os << "\nop profile (" << r.profiled_runs
     << " traced runs; time per step, share of the summed node time):\n";
  os << absl::StrFormat("  %-24s %6s %12s %12s %7s\n", "op", "nodes",
                        "total us", "avg us", "share");
  for (const OpRow& op : r.profile.ops) {
    os << absl::StrFormat("  %-24s %6d %12.2f %12.2f %6.1f%%\n", op.op,
                          op.count, op.total_us, op.avg_us, 100 * op.share);
  }
  os << "\nslowest nodes (average us per step):\n";
  for (const NodeRow& n : r.profile.slowest) {
    os << absl::StrFormat("  %12.2f  %s (%s)\n", n.avg_us, n.node, n.op);
  }
}

// Rewrites one stderr line in place, at most every 200 ms.
class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled) {}
  void Update(int done, int total, double elapsed_s, double budget_s) {
    if (!enabled_) return;
    const auto now = Clock::now();
    if (now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    if (total > 0) {
      std::fprintf(stderr, "\rbench: run %d/%d", done, total);
    } else {
      std::fprintf(stderr, "\rbench: %d runs, %.1f/%.1f s", done, elapsed_s,
                   budget_s);
    }
    std::fflush(stderr);
  }
  void Done() {
    if (!enabled_) return;
    std::fprintf(stderr, "\r%60s\r", "");
    std::fflush(stderr);
  }

 private:
  bool enabled_;
  Clock::time_point last_{};
};

// The timed runs: `bench.concurrency` callers share one session and one
// callable, as ONNX Runtime's perf_test -c does, each taking runs until
// --runs have been taken or --min-time has passed. `latencies_us` gets every
// run's latency, `wall_s` the time from the first start to the last end.
// Caller i writes its fetches into (*fetch_buffers)[i]. The first failure
// stops every caller and is returned.
Status TimedRuns(Session* session, Session::CallableHandle handle,
                 const std::vector<Tensor>& feeds,
                 std::vector<std::vector<Tensor>>* fetch_buffers,
                 const BenchFlags& bench, Progress* progress,
                 std::vector<double>* latencies_us, double* wall_s) {
  std::atomic<int> taken{0};  // runs handed out
  std::atomic<int> done{0};   // runs finished
  std::atomic<bool> stop{false};
  absl::Mutex mu;
  Status first_error;
  const auto start = Clock::now();
  // Caller 0 also draws the progress line (Progress is not thread-safe).
  auto caller = [&](int index, std::vector<double>* mine) {
    std::vector<Tensor>& outputs = (*fetch_buffers)[index];
    while (!stop.load(std::memory_order_relaxed)) {
      const double elapsed_s = MillisSince(start) / 1000;
      if (bench.runs > 0) {
        if (taken.fetch_add(1) >= bench.runs) break;
      } else if (done.load() > 0 && elapsed_s >= bench.min_time_s) {
        break;
      }
      if (index == 0) {
        progress->Update(done.load(), bench.runs, elapsed_s, bench.min_time_s);
      }
      const auto run_start = Clock::now();
      Status s = session->RunCallableInto(handle, feeds, &outputs, nullptr);
      if (!s.ok()) {
        absl::MutexLock lock(&mu);
        if (first_error.ok()) first_error = s;
        stop = true;
        break;
      }
      mine->push_back(MillisSince(run_start) * 1000);
      done.fetch_add(1);
    }
  };
  std::vector<std::vector<double>> per_caller(bench.concurrency);
  std::vector<std::thread> others;
  for (int i = 1; i < bench.concurrency; ++i) {
    others.emplace_back(caller, i, &per_caller[i]);
  }
  caller(0, &per_caller[0]);
  for (std::thread& t : others) t.join();
  *wall_s = MillisSince(start) / 1000;
  for (const std::vector<double>& mine : per_caller) {
    latencies_us->insert(latencies_us->end(), mine.begin(), mine.end());
  }
  return first_error;
}

}  // namespace

int BenchMain(const CommandContext& ctx) {
  GraphRunFlags flags;
  BenchFlags bench;
  std::string signature_key = kDefaultServingSignatureDefKey;
  std::string tag_set = kSavedModelTagServe;
  Status parsed = ParseGraphRunFlags(
      ctx.args, &flags,
      [&](const std::string& name, const FlagValueFn& value) -> StatusOr<bool> {
        std::string v;
        if (name == "--shape") {
          MF_RETURN_IF_ERROR(value(&v));
          MF_RETURN_IF_ERROR(ParseShapeFlag(v, &bench));
        } else if (name == "--warmup") {
          MF_RETURN_IF_ERROR(value(&v));
          MF_RETURN_IF_ERROR(ParseIntFlag("--warmup", v, 0, &bench.warmup));
        } else if (name == "--runs") {
          MF_RETURN_IF_ERROR(value(&v));
          MF_RETURN_IF_ERROR(ParseIntFlag("--runs", v, 1, &bench.runs));
        } else if (name == "--min-time") {
          MF_RETURN_IF_ERROR(value(&v));
          MF_RETURN_IF_ERROR(
              ParsePositiveDoubleFlag("--min-time", v, &bench.min_time_s));
        } else if (name == "--concurrency") {
          MF_RETURN_IF_ERROR(value(&v));
          MF_RETURN_IF_ERROR(
              ParseIntFlag("--concurrency", v, 1, &bench.concurrency));
        } else if (name == "--op-profile") {
          bench.op_profile = true;
        } else if (name == "--json") {
          MF_RETURN_IF_ERROR(value(&bench.json));
        } else if (name == "--signature") {
          MF_RETURN_IF_ERROR(value(&signature_key));
        } else if (name == "--tag_set") {
          MF_RETURN_IF_ERROR(value(&tag_set));
        } else {
          return false;
        }
        return true;
      });
  if (!parsed.ok()) {
    *ctx.err << "minflow bench: " << parsed.message()
             << "\nRun 'minflow help bench' for usage.\n";
    return kExitUsage;
  }
  auto fail = [&](const Status& s, int code) {
    *ctx.err << "minflow bench: " << s.message() << "\n";
    return code;
  };

  BenchResult result;
  result.graph = flags.graph;
  result.start_rss_bytes = CurrentRssBytes();
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> notes;
  // Feeds as reported: a SavedModel's by signature key.
  std::vector<std::pair<std::string, const Tensor*>> shown_feeds;
  Session* session = nullptr;
  std::unique_ptr<Session> graph_session;
  SavedModelBundle bundle;  // owns a SavedModel's session
  Status s;
  if (MaybeSavedModelDirectory(flags.graph)) {
    result.saved_model = true;
    std::vector<std::string> fed_keys;
    for (const auto& [key, value] : flags.feeds) fed_keys.push_back(key);
    SignatureTensors signature;
    std::vector<std::string> labels;
    int code = kExitFailure;
    const auto load_start = Clock::now();
    s = PrepareSavedModel(&flags, tag_set, signature_key, &bundle, &signature,
                          &feeds, &labels, &code);
    if (!s.ok()) return fail(s, code);
    result.create_ms = MillisSince(load_start);
    result.num_nodes = bundle.meta_graph_def.graph_def().node_size();
    for (size_t i = 0; i < fed_keys.size(); ++i) {
      shown_feeds.emplace_back(fed_keys[i], &feeds[i].second);
    }
    // Random data for the inputs not fed, from their signature dtype and
    // shape, named by key so that --shape takes keys.
    GraphDef inputs;
    for (const SignatureTensor& input : signature.inputs) {
      if (std::find(fed_keys.begin(), fed_keys.end(), input.key) !=
          fed_keys.end()) {
        continue;
      }
      NodeDef* n = inputs.add_node();
      n->set_name(input.key);
      n->set_op("Placeholder");
      AddNodeAttr("dtype", input.dtype, n);
      if (!input.shape.unknown_rank()) {
        TensorShapeProto shape;
        input.shape.AsProto(&shape);
        AddNodeAttr("shape", shape, n);
      }
    }
    std::vector<std::pair<std::string, Tensor>> random;
    s = AddRandomPlaceholderFeeds(inputs, bench, flags.seed, &random, &notes);
    if (!s.ok()) return fail(s, kExitFailure);
    for (auto& [key, tensor] : random) {
      for (const SignatureTensor& input : signature.inputs) {
        if (input.key == key) feeds.emplace_back(input.tensor_name, tensor);
      }
    }
    session = bundle.session.get();
  } else {
    const auto parse_start = Clock::now();
    GraphDef graph_def;
    s = ReadGraphDefFile(flags.graph, &graph_def);
    if (!s.ok()) return fail(s, ExitCodeForLoadError(s));
    result.parse_ms = MillisSince(parse_start);
    result.num_nodes = graph_def.node_size();

    int feed_exit_code = kExitFailure;
    s = MakeFeeds(graph_def, flags, &feeds, &feed_exit_code);
    if (!s.ok()) return fail(s, feed_exit_code);
    s = AddRandomPlaceholderFeeds(graph_def, bench, flags.seed, &feeds, &notes);
    if (!s.ok()) return fail(s, kExitFailure);
    if (flags.fetches.empty() && flags.targets.empty()) {
      flags.fetches = DefaultFetches(graph_def);
    }
    for (const auto& [name, tensor] : feeds) {
      shown_feeds.emplace_back(name, &tensor);
    }

    const SessionOptions options = MakeSessionOptions(flags, &graph_def);
    WarnWhenNoGpuForDeviceGpu(flags, options, "minflow bench", *ctx.err);
    const auto create_start = Clock::now();
    auto created = Session::Create(graph_def, options);
    if (!created.ok()) return fail(created.status(), kExitInvalidGraph);
    result.create_ms = MillisSince(create_start);
    graph_session = std::move(created).value();
    session = graph_session.get();
    s = RunInitTargets(session, flags, feeds);
    if (!s.ok()) return fail(s, kExitFailure);
  }

  *ctx.out << "graph: " << flags.graph << " (" << result.num_nodes
           << " nodes)\n";
  for (const std::string& note : notes) *ctx.out << "feed " << note << "\n";
  for (const auto& [name, tensor] : shown_feeds) {
    if (std::find_if(notes.begin(), notes.end(), [&](const std::string& n) {
          return absl::StartsWith(n, name + ":");
        }) != notes.end()) {
      continue;
    }
    *ctx.out << "feed " << name << ": " << DataTypeString(tensor->dtype())
             << " " << tensor->shape().DebugString() << "\n";
  }
  const bool random_feeds =
      !notes.empty() ||
      std::any_of(flags.feeds.begin(), flags.feeds.end(), [](const auto& f) {
        return absl::StartsWith(f.second, "random:");
      });
  if (random_feeds) *ctx.out << "random data: seed " << flags.seed << "\n";

  CallableOptions callable;
  std::vector<Tensor> feed_tensors;
  for (const auto& [name, tensor] : feeds) {
    callable.add_feed(name);
    feed_tensors.push_back(tensor);
  }
  for (const std::string& f : flags.fetches) callable.add_fetch(f);
  for (const std::string& t : flags.targets) callable.add_target(t);
  const auto prepare_start = Clock::now();
  Session::CallableHandle timed;
  s = session->MakeCallable(callable, &timed);
  if (!s.ok()) return fail(s, kExitFailure);
  result.prepare_ms = MillisSince(prepare_start);
  result.init_ms = result.parse_ms + result.create_ms + result.prepare_ms;

  std::vector<Tensor> outputs;
  const auto first_start = Clock::now();
  RunMetadata first_metadata;
  s = session->RunCallable(timed, feed_tensors, &outputs, &first_metadata);
  if (!s.ok()) return fail(s, kExitFailure);
  result.first_run_ms = MillisSince(first_start);
  result.passes.assign(first_metadata.graph_passes().begin(),
                       first_metadata.graph_passes().end());
  // The warm-up runs write into fetch buffers, as the timed runs do, so
  // that the memory plan (made from the second run) is made that way.
  for (int i = 0; i < bench.warmup; ++i) {
    s = session->RunCallableInto(timed, feed_tensors, &outputs, nullptr);
    if (!s.ok()) return fail(s, kExitFailure);
  }

  int64_t process_peak_bytes = 0;
  Progress progress(isatty(STDERR_FILENO) != 0);
  std::vector<double> latencies_us;
  // Each caller's fetches land in buffers of its own, made before the timed
  // runs, as ONNX Runtime's preallocated outputs are (Note [Fetch
  // buffers]); the first caller's are the warm-up's.
  std::vector<std::vector<Tensor>> fetch_buffers(bench.concurrency);
  for (int c = 1; c < bench.concurrency; ++c) {
    for (const Tensor& t : outputs) {
      fetch_buffers[c].emplace_back(t.dtype(), t.shape());
    }
  }
  fetch_buffers[0] = std::move(outputs);
  outputs.clear();
  const AllocatorStats before_timed = cpu_allocator()->GetStats();
  s = TimedRuns(session, timed, feed_tensors, &fetch_buffers, bench, &progress,
                &latencies_us, &result.total_s);
  const AllocatorStats after_timed = cpu_allocator()->GetStats();
  result.timed_allocs = after_timed.num_allocs - before_timed.num_allocs;
  result.timed_system_allocs =
      after_timed.num_system_allocs - before_timed.num_system_allocs;
  if (Status got = session->GetCallableMemoryPlan(timed, &result.plan);
      !got.ok()) {
    result.plan.reason = std::string(got.message());
  }
  progress.Done();
  if (!s.ok()) return fail(s, kExitFailure);
  result.concurrency = bench.concurrency;
  result.runs = static_cast<int>(latencies_us.size());
  result.latency = Summarize(latencies_us);
  if (bench.concurrency == 1) {
    // One caller: the runs' own time, without the loop's.
    double sum_us = 0;
    for (double us : latencies_us) sum_us += us;
    result.runs_per_s = sum_us > 0 ? result.runs / (sum_us / 1e6) : 0;
  } else {
    // Callers overlap, so throughput is runs over the wall time.
    result.runs_per_s = result.total_s > 0 ? result.runs / result.total_s : 0;
  }

  // One traced run for the memory a run takes, against what its tensors'
  // lifetimes need at least (tools/memory_report.h). The process's peak so
  // far is kept first: the allocator's peak restarts here.
  {
    CallableOptions memory_callable = callable;
    memory_callable.mutable_run_options()->set_trace_level(
        RunOptions::FULL_TRACE);
    memory_callable.mutable_run_options()->set_output_partition_graphs(true);
    Session::CallableHandle memory_run;
    s = session->MakeCallable(memory_callable, &memory_run);
    if (!s.ok()) return fail(s, kExitFailure);
    outputs.clear();
    const AllocatorStats before = cpu_allocator()->GetStats();
    process_peak_bytes = before.peak_bytes_in_use;
    cpu_allocator()->ResetPeak();
    RunMetadata metadata;
    s = session->RunCallable(memory_run, feed_tensors, &outputs, &metadata);
    if (!s.ok()) return fail(s, kExitFailure);
    result.run_peak_bytes =
        cpu_allocator()->GetStats().peak_bytes_in_use - before.bytes_in_use;
    GraphDef ran;
    for (const GraphDef& partition : metadata.partition_graphs()) {
      for (const NodeDef& node : partition.node()) *ran.add_node() = node;
    }
    result.liveness_bound_bytes =
        LivenessBoundBytes(metadata.step_stats(), ran);
  }

  if (bench.op_profile || !flags.trace.empty()) {
    callable.mutable_run_options()->set_trace_level(RunOptions::FULL_TRACE);
    Session::CallableHandle traced;
    s = session->MakeCallable(callable, &traced);
    if (!s.ok()) return fail(s, kExitFailure);
    const int traced_runs = bench.op_profile ? std::min(result.runs, 100) : 1;
    std::vector<StepStats> steps;
    for (int i = 0; i < traced_runs; ++i) {
      RunMetadata metadata;
      s = session->RunCallable(traced, feed_tensors, &outputs, &metadata);
      if (!s.ok()) return fail(s, kExitFailure);
      steps.push_back(std::move(*metadata.mutable_step_stats()));
    }
    if (bench.op_profile) {
      result.profiled = true;
      result.profiled_runs = traced_runs;
      result.profile = BuildOpProfile(steps);
    }
    if (!flags.trace.empty()) {
      s = WriteTraceFile(flags.trace, steps.back());
      if (!s.ok()) return fail(s, kExitFailure);
    }
  }
  result.peak_bytes = std::max(process_peak_bytes,
                               cpu_allocator()->GetStats().peak_bytes_in_use);
  result.peak_rss_bytes = PeakRssBytes();

  PrintReport(result, *ctx.out);
  if (!bench.json.empty()) {
    s = WriteOutputFile(bench.json, ToJson(result));
    if (!s.ok()) return fail(s, kExitFailure);
  }
  return kExitOk;
}

}  // namespace tools
}  // namespace minflow
