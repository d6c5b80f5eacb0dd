#include "minflow/core/memory_limit.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"

namespace minflow {

StatusOr<int64_t> ParseByteSize(absl::string_view text) {
  struct Unit {
    const char* suffix;
    int64_t bytes;
  };
  static constexpr Unit kUnits[] = {{"KiB", int64_t{1} << 10},
                                    {"MiB", int64_t{1} << 20},
                                    {"GiB", int64_t{1} << 30}};
  absl::string_view digits = text;
  int64_t unit = 1;
  for (const Unit& u : kUnits) {
    if (absl::ConsumeSuffix(&digits, u.suffix)) {
      unit = u.bytes;
      break;
    }
  }
  int64_t count = 0;
  // SimpleAtoi accepts a sign and surrounding spaces; a size has neither.
  const bool only_digits =
      !digits.empty() &&
      std::all_of(digits.begin(), digits.end(), absl::ascii_isdigit);
  if (!only_digits || !absl::SimpleAtoi(digits, &count) ||
      count > std::numeric_limits<int64_t>::max() / unit) {
    return errors::InvalidArgument(
        "a size must be a number of bytes, optionally followed by KiB, MiB "
        "or GiB (such as 65536 or 512MiB), but got '",
        text, "'");
  }
  return count * unit;
}

namespace {

StatusOr<int64_t> ByteSizeFromEnv(const char* variable, int64_t unset) {
  const char* text = std::getenv(variable);
  if (text == nullptr || *text == '\0') return unset;
  StatusOr<int64_t> bytes = ParseByteSize(text);
  if (!bytes.ok()) {
    return errors::InvalidArgument(variable, ": ", bytes.status().message());
  }
  return bytes;
}

}  // namespace

StatusOr<int64_t> CpuMemoryLimitFromEnv() {
  return ByteSizeFromEnv(kCpuMemoryLimitVariable, 0);
}

StatusOr<int64_t> CpuAllocatorCacheFromEnv(int64_t default_bytes) {
  return ByteSizeFromEnv(kCpuAllocatorCacheVariable, default_bytes);
}

}  // namespace minflow
