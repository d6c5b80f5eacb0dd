#include "minflow/runtime/trace.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "minflow/step_stats.pb.h"
#include "minflow/tensor_description.pb.h"

namespace minflow {

std::string JsonQuote(absl::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          absl::StrAppend(&out, "\\u00", absl::Hex(c, absl::kZeroPad2));
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += "\"";
  return out;
}

namespace {

std::string ShapeString(const TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "?";
  return absl::StrCat(
      "[",
      absl::StrJoin(shape.dim(), ",",
                    [](std::string* out, const TensorShapeProto::Dim& d) {
                      if (d.size() < 0) {
                        out->append("?");
                      } else {
                        absl::StrAppend(out, d.size());
                      }
                    }),
      "]");
}

}  // namespace

std::string StepStatsToChromeTrace(const StepStats& step_stats) {
  int64_t origin = std::numeric_limits<int64_t>::max();
  for (const auto& dev : step_stats.dev_stats()) {
    for (const auto& ns : dev.node_stats()) {
      origin = std::min(origin, ns.all_start_nanos());
    }
  }
  if (origin == std::numeric_limits<int64_t>::max()) origin = 0;

  std::vector<std::string> events;
  for (int pid = 0; pid < step_stats.dev_stats_size(); ++pid) {
    const DeviceStepStats& dev = step_stats.dev_stats(pid);
    events.push_back(absl::StrCat(R"({"name":"process_name","ph":"M","pid":)",
                                  pid, R"(,"args":{"name":)",
                                  JsonQuote(dev.device()), "}}"));
    for (const auto& [tid, name] : dev.thread_names()) {
      events.push_back(absl::StrCat(
          R"({"name":"thread_name","ph":"M","pid":)", pid, R"(,"tid":)", tid,
          R"(,"args":{"name":)", JsonQuote(name), "}}"));
    }
    for (const NodeExecStats& ns : dev.node_stats()) {
      const double ts = (ns.all_start_nanos() - origin) / 1000.0;
      const double dur = std::max<int64_t>(ns.all_end_rel_nanos(), 1) / 1000.0;
      std::vector<std::string> shapes;
      for (const NodeOutput& out : ns.output()) {
        shapes.push_back(ShapeString(out.tensor_description().shape()));
      }
      int64_t bytes = 0;
      for (const AllocatorMemoryUsed& m : ns.memory()) bytes += m.total_bytes();
      const std::string op =
          ns.timeline_label().empty() ? ns.node_name() : ns.timeline_label();
      events.push_back(absl::StrCat(
          R"({"name":)", JsonQuote(ns.node_name()), R"(,"cat":)", JsonQuote(op),
          R"(,"ph":"X","pid":)", pid, R"(,"tid":)", ns.thread_id(), R"(,"ts":)",
          ts, R"(,"dur":)", dur, R"(,"args":{"op":)", JsonQuote(op),
          R"(,"output_shapes":)", JsonQuote(absl::StrJoin(shapes, ";")),
          R"(,"bytes_allocated":)", bytes, "}}"));
    }
  }
  return absl::StrCat("{\"traceEvents\":[\n", absl::StrJoin(events, ",\n"),
                      "\n],\"displayTimeUnit\":\"ns\"}\n");
}

}  // namespace minflow
