#include "tools/latency.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace minflow {
namespace tools {

LatencySummary Summarize(std::vector<double> us) {
  LatencySummary s;
  if (us.empty()) return s;
  std::sort(us.begin(), us.end());
  auto rank = [&](double p) {
    const size_t k = static_cast<size_t>(std::ceil(p * us.size()));
    return us[std::min(us.size() - 1, k == 0 ? 0 : k - 1)];
  };
  s.min = us.front();
  s.max = us.back();
  s.median = rank(0.5);
  s.p90 = rank(0.9);
  s.p99 = rank(0.99);
  double sum = 0;
  for (double v : us) sum += v;
  s.mean = sum / us.size();
  return s;
}

std::string FormatLatency(const LatencySummary& l) {
  return absl::StrFormat(
      "latency (us): min %.1f  median %.1f  mean %.1f  p90 %.1f  p99 %.1f  "
      "max %.1f\n",
      l.min, l.median, l.mean, l.p90, l.p99, l.max);
}

}  // namespace tools
}  // namespace minflow
