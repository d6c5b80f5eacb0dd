// Status values and error helpers: absl::Status with TensorFlow-style
// constructors (errors::InvalidArgument("x must be ", 3)) and return macros.
#pragma once

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace minflow {

using Status = absl::Status;
template <typename T>
using StatusOr = absl::StatusOr<T>;

inline Status OkStatus() { return absl::OkStatus(); }

namespace errors {

// One constructor per canonical code; arguments are joined with StrCat.
#define MF_DEFINE_ERROR(Name, Code)                               \
  template <typename... Args>                                     \
  Status Name(const Args&... args) {                              \
    return Status(absl::StatusCode::Code, absl::StrCat(args...)); \
  }                                                               \
  inline bool Is##Name(const Status& s) {                         \
    return s.code() == absl::StatusCode::Code;                    \
  }

MF_DEFINE_ERROR(Cancelled, kCancelled)
MF_DEFINE_ERROR(Unknown, kUnknown)
MF_DEFINE_ERROR(InvalidArgument, kInvalidArgument)
MF_DEFINE_ERROR(DeadlineExceeded, kDeadlineExceeded)
MF_DEFINE_ERROR(NotFound, kNotFound)
MF_DEFINE_ERROR(AlreadyExists, kAlreadyExists)
MF_DEFINE_ERROR(PermissionDenied, kPermissionDenied)
MF_DEFINE_ERROR(ResourceExhausted, kResourceExhausted)
MF_DEFINE_ERROR(FailedPrecondition, kFailedPrecondition)
MF_DEFINE_ERROR(Aborted, kAborted)
MF_DEFINE_ERROR(OutOfRange, kOutOfRange)
MF_DEFINE_ERROR(Unimplemented, kUnimplemented)
MF_DEFINE_ERROR(Internal, kInternal)
MF_DEFINE_ERROR(Unavailable, kUnavailable)
MF_DEFINE_ERROR(DataLoss, kDataLoss)
MF_DEFINE_ERROR(Unauthenticated, kUnauthenticated)

#undef MF_DEFINE_ERROR

// Returns `s` with `args...` joined and appended to its message after "\n\t"
// (TensorFlow's AppendToMessage); OK stays OK.
template <typename... Args>
Status AppendToMessage(const Status& s, const Args&... args) {
  if (s.ok()) return s;
  return Status(s.code(), absl::StrCat(s.message(), "\n\t", args...));
}

// Returns `s` with `prefix` placed before its message; OK stays OK.
template <typename... Args>
Status Prefix(const Status& s, const Args&... prefix) {
  if (s.ok()) return s;
  return Status(s.code(), absl::StrCat(prefix..., s.message()));
}

// "{{node name}}": the marker TensorFlow puts in errors so tools can find the
// node; minflow uses the same so users can search for it.
std::string FormatNodeNameForError(absl::string_view node_name);

// Adds the node and op to an error once, at a boundary (importer, executor):
// "<message>\n\t [[{{node n}} = Op]]". Kernels never call this themselves.
Status AttachNodeContext(const Status& s, absl::string_view node_name,
                         absl::string_view op);

}  // namespace errors
}  // namespace minflow

// Returns from the enclosing function when `expr` yields a non-OK Status.
#define MF_RETURN_IF_ERROR(expr)                \
  do {                                          \
    ::minflow::Status _mf_status = (expr);      \
    if (ABSL_PREDICT_FALSE(!_mf_status.ok())) { \
      return _mf_status;                        \
    }                                           \
  } while (0)

#define MF_STATUS_MACROS_CONCAT_INNER(x, y) x##y
#define MF_STATUS_MACROS_CONCAT(x, y) MF_STATUS_MACROS_CONCAT_INNER(x, y)

// `MF_ASSIGN_OR_RETURN(auto x, MakeX());` assigns the value of a StatusOr or
// returns its error.
#define MF_ASSIGN_OR_RETURN(lhs, expr)                                       \
  MF_ASSIGN_OR_RETURN_IMPL(MF_STATUS_MACROS_CONCAT(_mf_statusor_, __LINE__), \
                           lhs, expr)
#define MF_ASSIGN_OR_RETURN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                             \
  if (ABSL_PREDICT_FALSE(!statusor.ok())) {           \
    return statusor.status();                         \
  }                                                   \
  lhs = std::move(statusor).value()
