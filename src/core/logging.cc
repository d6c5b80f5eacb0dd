#include "minflow/core/logging.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace minflow {
namespace internal {

LogSeverity MinLogSeverity() {
  static const LogSeverity level = [] {
    const char* env = std::getenv("MINFLOW_MIN_LOG_LEVEL");
    if (env == nullptr) return LogSeverity::kInfo;
    const int v = std::atoi(env);
    if (v <= 0) return LogSeverity::kInfo;
    if (v >= 3) return LogSeverity::kFatal;
    return static_cast<LogSeverity>(v);
  }();
  return level;
}

LogMessage::LogMessage(const char* file, int line, LogSeverity severity)
    : file_(file), line_(line), severity_(severity) {}

LogMessage::~LogMessage() {
  static constexpr char kLetters[] = "IWEF";
  if (severity_ >= MinLogSeverity()) {
    const char* base = std::strrchr(file_, '/');
    const std::string text = stream_.str();
    std::fprintf(stderr, "%c %s:%d] %s\n",
                 kLetters[static_cast<int>(severity_)], base ? base + 1 : file_,
                 line_, text.c_str());
  }
  if (severity_ == LogSeverity::kFatal) {
    std::fflush(stderr);
    std::abort();
  }
}

}  // namespace internal
}  // namespace minflow
