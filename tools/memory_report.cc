#include "tools/memory_report.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "minflow/core/types.h"

namespace minflow {
namespace tools {
namespace {

struct Span {
  int64_t start = 0;
  int64_t end = 0;
};

int64_t StartNanos(const NodeExecStats& n) {
  return n.all_start_nanos() != 0 ? n.all_start_nanos()
                                  : n.all_start_micros() * 1000;
}

int64_t EndNanos(const NodeExecStats& n) {
  return StartNanos(n) + (n.all_end_rel_nanos() != 0
                              ? n.all_end_rel_nanos()
                              : n.all_end_rel_micros() * 1000);
}

// Bytes of a described tensor; 0 when its size is unknown or not flat
// (strings, variants, resources).
int64_t Bytes(const TensorDescription& t) {
  if (IsRefType(t.dtype())) return 0;
  const int64_t element = DataTypeSize(t.dtype());
  if (element <= 0 || t.shape().unknown_rank()) return 0;
  int64_t n = 1;
  for (const auto& dim : t.shape().dim()) {
    if (dim.size() < 0) return 0;
    n *= dim.size();
  }
  return n * element;
}

}  // namespace

int64_t LivenessBoundBytes(const StepStats& stats, const GraphDef& partition) {
  absl::flat_hash_map<std::string, Span> spans;
  for (const DeviceStepStats& device : stats.dev_stats()) {
    for (const NodeExecStats& n : device.node_stats()) {
      spans[n.node_name()] = {StartNanos(n), EndNanos(n)};
    }
  }
  // "node:k" -> when its last consumer ends.
  absl::flat_hash_map<std::string, int64_t> last_use;
  absl::flat_hash_map<std::string, std::string> op_of;
  for (const NodeDef& node : partition.node()) {
    op_of[node.name()] = node.op();
    auto consumer = spans.find(node.name());
    if (consumer == spans.end()) continue;
    for (const std::string& input : node.input()) {
      if (input.empty() || input[0] == '^') continue;
      const size_t colon = input.rfind(':');
      int port = 0;
      std::string producer = input;
      if (colon != std::string::npos &&
          absl::SimpleAtoi(input.substr(colon + 1), &port)) {
        producer = input.substr(0, colon);
      }
      int64_t& end = last_use[absl::StrCat(producer, ":", port)];
      end = std::max(end, consumer->second.end);
    }
  }
  // (time, +bytes or -bytes); at the same time, frees come first.
  std::vector<std::pair<int64_t, int64_t>> events;
  for (const DeviceStepStats& device : stats.dev_stats()) {
    for (const NodeExecStats& n : device.node_stats()) {
      const std::string& op = op_of[n.node_name()];
      if (op == "Const" || op == "_Arg") continue;
      for (const NodeOutput& out : n.output()) {
        const int64_t bytes = Bytes(out.tensor_description());
        if (bytes == 0) continue;
        auto use = last_use.find(absl::StrCat(n.node_name(), ":", out.slot()));
        const int64_t end = std::max(
            EndNanos(n), use == last_use.end() ? int64_t{0} : use->second);
        events.emplace_back(StartNanos(n), bytes);
        events.emplace_back(end, -bytes);
      }
    }
  }
  std::sort(events.begin(), events.end());
  int64_t live = 0;
  int64_t peak = 0;
  for (const auto& [time, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace tools
}  // namespace minflow
