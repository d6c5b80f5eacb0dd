// Small logging and CHECK macros. CHECKs guard invariants minflow itself
// guarantees; user data is never CHECKed (it gets a Status instead).
#pragma once

#include <sstream>
#include <string>

namespace minflow {
namespace internal {

enum class LogSeverity { kInfo = 0, kWarning = 1, kError = 2, kFatal = 3 };

// Collects one message and writes it to stderr when destroyed; a kFatal
// message aborts the process after writing.
class LogMessage {
 public:
  LogMessage(const char* file, int line, LogSeverity severity);
  ~LogMessage();
  LogMessage(const LogMessage&) = delete;
  LogMessage& operator=(const LogMessage&) = delete;

  std::ostream& stream() { return stream_; }

 private:
  const char* file_;
  int line_;
  LogSeverity severity_;
  std::ostringstream stream_;
};

// Minimum severity written; from MINFLOW_MIN_LOG_LEVEL (0..3), default 0.
LogSeverity MinLogSeverity();

// Swallows a stream expression so the CHECK macros stay expressions.
struct LogMessageVoidify {
  void operator&(std::ostream&) {}
};

}  // namespace internal
}  // namespace minflow

#define MF_LOG_SEVERITY_INFO ::minflow::internal::LogSeverity::kInfo
#define MF_LOG_SEVERITY_WARNING ::minflow::internal::LogSeverity::kWarning
#define MF_LOG_SEVERITY_ERROR ::minflow::internal::LogSeverity::kError
#define MF_LOG_SEVERITY_FATAL ::minflow::internal::LogSeverity::kFatal

#define MF_LOG(severity)                                      \
  ::minflow::internal::LogMessage(__FILE__, __LINE__,         \
                                  MF_LOG_SEVERITY_##severity) \
      .stream()

// A failed CHECK is a bug in minflow: it says so and aborts.
#define MF_CHECK(condition)                                      \
  (condition) ? (void)0                                          \
              : ::minflow::internal::LogMessageVoidify() &       \
                    MF_LOG(FATAL) << "Check failed: " #condition \
                                  << " (internal error, please report) "

#define MF_CHECK_OP(a, op, b) \
  MF_CHECK((a)op(b)) << "(" << (a) << " vs " << (b) << ") "
#define MF_CHECK_EQ(a, b) MF_CHECK_OP(a, ==, b)
#define MF_CHECK_NE(a, b) MF_CHECK_OP(a, !=, b)
#define MF_CHECK_LT(a, b) MF_CHECK_OP(a, <, b)
#define MF_CHECK_LE(a, b) MF_CHECK_OP(a, <=, b)
#define MF_CHECK_GT(a, b) MF_CHECK_OP(a, >, b)
#define MF_CHECK_GE(a, b) MF_CHECK_OP(a, >=, b)
#define MF_CHECK_OK(expr)                                \
  do {                                                   \
    const ::minflow::Status _mf_check_status = (expr);   \
    MF_CHECK(_mf_check_status.ok()) << _mf_check_status; \
  } while (0)

#ifdef NDEBUG
#define MF_DCHECK(condition) \
  while (false) MF_CHECK(condition)
#else
#define MF_DCHECK(condition) MF_CHECK(condition)
#endif
