// Step timelines: StepStats as Chrome trace-event JSON, which Perfetto
// (ui.perfetto.dev) and chrome://tracing open.
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace minflow {

class StepStats;

// One "X" (complete) event per node execution, on a track per device and
// thread, with the op, the output shapes and the bytes allocated in args;
// timestamps in microseconds from the step's first node.
std::string StepStatsToChromeTrace(const StepStats& step_stats);

// `s` as a JSON string literal, quotes included; quotes, backslashes and
// control bytes escaped. (Also what `minflow bench --json` writes names
// with.)
std::string JsonQuote(absl::string_view s);

}  // namespace minflow
