// Latency figures shared by `minflow bench` and `minflow run --repeat`: the
// same percentiles, printed the same way.
#pragma once

#include <string>
#include <vector>

namespace minflow {
namespace tools {

// Microseconds; all 0 for no runs.
struct LatencySummary {
  double min = 0, median = 0, mean = 0, p90 = 0, p99 = 0, max = 0;
};

// Nearest-rank percentiles of `us`.
LatencySummary Summarize(std::vector<double> us);

// "latency (us): min 14.5  median 14.7  mean 15.3  p90 14.9  p99 27.3  max
// 69.4", with a newline.
std::string FormatLatency(const LatencySummary& latency);

}  // namespace tools
}  // namespace minflow
