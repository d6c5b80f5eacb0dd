// MINFLOW_CPU_MEMORY_LIMIT, the environment variable that caps the host
// allocator (cpu_allocator()): its syntax and its value.
#pragma once

#include <cstdint>

#include "absl/strings/string_view.h"
#include "minflow/core/status.h"

namespace minflow {

inline constexpr char kCpuMemoryLimitVariable[] = "MINFLOW_CPU_MEMORY_LIMIT";
inline constexpr char kCpuAllocatorCacheVariable[] =
    "MINFLOW_CPU_ALLOCATOR_CACHE";

// Parses a size in bytes: decimal digits, optionally followed by KiB, MiB or
// GiB (powers of 1024), such as 65536 or 512MiB. InvalidArgument for
// anything else (a sign, a fraction, "MB", an overflow of int64).
StatusOr<int64_t> ParseByteSize(absl::string_view text);

// MINFLOW_CPU_MEMORY_LIMIT in bytes; 0, meaning no limit, when it is unset,
// empty or 0. InvalidArgument naming the variable and the accepted syntax
// when it does not parse.
StatusOr<int64_t> CpuMemoryLimitFromEnv();

// MINFLOW_CPU_ALLOCATOR_CACHE in bytes, or `default_bytes` when it is unset
// or empty; the same syntax and errors as the limit.
StatusOr<int64_t> CpuAllocatorCacheFromEnv(int64_t default_bytes);

}  // namespace minflow
