// TensorFlow's spellings, for custom ops ported from TensorFlow: with this
// header included, the "Create an op" guide's listings compile with only
// their include paths changed (tensorflow/core/framework/op.h ->
// minflow/framework/op.h, and so on). New minflow code uses minflow's own
// names (`minflow::Status`, `OkStatus()`, `MF_RETURN_IF_ERROR`).
//
// Namespace `tensorflow` names minflow's framework types (`OpKernel`,
// `Tensor`, `DEVICE_CPU`, the `DT_*` values, ...) through using-declarations
// and adds what TensorFlow has and minflow does not: the integer aliases
// (`int32`, `int64`, ...) and limits (`kint32max`, ...), `string`, and a
// `Status` that also answers `Status::OK()`. A port's `using namespace
// tensorflow;` therefore sees one `Status`, TensorFlow's. The listed names
// are what custom ops commonly use; others stay reachable as `minflow::`.
//
// Returns in one lambda must have one type: within namespace tensorflow,
// `Status::OK()`, `OkStatus()`, `errors::...` and `TF_RETURN_IF_ERROR` all
// give TensorFlow's Status, while minflow's own functions (`c->WithRank`,
// `absl::OkStatus()`) give minflow's; a lambda that returns both kinds
// needs an explicit `-> Status`.
//
// This is the one header that gathers every layer a custom op touches (core
// and framework), so that a port adds a single include.
#pragma once

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "minflow/core/logging.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/types.h"
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "minflow/framework/shape_inference.h"

namespace tensorflow {

// TensorFlow's Status before 2.13: minflow's Status (absl::Status, which is
// final) wrapped with the static `OK()` that ported code returns (`return
// Status::OK();`), converting to and from minflow's implicitly. Only that
// member makes it a type of its own; it holds nothing else. Thread-
// compatible, as absl::Status.
class Status {
 public:
  Status() = default;
  Status(const ::absl::Status& status)  // NOLINT: implicit on purpose
      : status_(status) {}
  Status(::absl::Status&& status)  // NOLINT: implicit on purpose
      : status_(std::move(status)) {}
  Status(::absl::StatusCode code, absl::string_view message)
      : status_(code, message) {}
  // Wherever minflow takes or returns its Status.
  operator ::absl::Status() const { return status_; }  // NOLINT

  static Status OK() { return Status(); }

  bool ok() const { return status_.ok(); }
  ::absl::StatusCode code() const { return status_.code(); }
  absl::string_view message() const { return status_.message(); }
  // TensorFlow's accessor of the message, as a string.
  std::string error_message() const { return std::string(message()); }
  std::string ToString() const { return status_.ToString(); }
  void Update(const Status& other) { status_.Update(other.status_); }
  void IgnoreError() const {}

  // Comparisons with either Status, spelled out so that none is ambiguous.
  friend bool operator==(const Status& a, const Status& b) {
    return a.status_ == b.status_;
  }
  friend bool operator==(const Status& a, const ::absl::Status& b) {
    return a.status_ == b;
  }
  friend bool operator==(const ::absl::Status& a, const Status& b) {
    return a == b.status_;
  }
  friend bool operator!=(const Status& a, const Status& b) { return !(a == b); }
  friend bool operator!=(const Status& a, const ::absl::Status& b) {
    return !(a == b);
  }
  friend bool operator!=(const ::absl::Status& a, const Status& b) {
    return !(a == b);
  }
  friend std::ostream& operator<<(std::ostream& os, const Status& s) {
    return os << s.status_;
  }

 private:
  ::absl::Status status_;
};

// TensorFlow 2.x's spelling of Status::OK(), as TensorFlow's Status too.
inline Status OkStatus() { return Status(); }

// TensorFlow's integer aliases and limits (tensorflow/core/platform/types.h).
using int8 = std::int8_t;
using int16 = std::int16_t;
using int32 = std::int32_t;
using int64 = std::int64_t;
using uint8 = std::uint8_t;
using uint16 = std::uint16_t;
using uint32 = std::uint32_t;
using uint64 = std::uint64_t;
using string = std::string;

inline constexpr int8 kint8min = std::numeric_limits<int8>::min();
inline constexpr int8 kint8max = std::numeric_limits<int8>::max();
inline constexpr int16 kint16min = std::numeric_limits<int16>::min();
inline constexpr int16 kint16max = std::numeric_limits<int16>::max();
inline constexpr int32 kint32min = std::numeric_limits<int32>::min();
inline constexpr int32 kint32max = std::numeric_limits<int32>::max();
inline constexpr int64 kint64min = std::numeric_limits<int64>::min();
inline constexpr int64 kint64max = std::numeric_limits<int64>::max();
inline constexpr uint8 kuint8max = std::numeric_limits<uint8>::max();
inline constexpr uint16 kuint16max = std::numeric_limits<uint16>::max();
inline constexpr uint32 kuint32max = std::numeric_limits<uint32>::max();
inline constexpr uint64 kuint64max = std::numeric_limits<uint64>::max();

// minflow's framework under TensorFlow's names.
using ::minflow::AllocatorAttributes, ::minflow::AsyncOpKernel,
    ::minflow::DataType, ::minflow::DataTypeSlice, ::minflow::DataTypeString,
    ::minflow::DataTypeToEnum, ::minflow::DataTypeVector, ::minflow::DEVICE_CPU,
    ::minflow::DEVICE_GPU, ::minflow::DeviceType, ::minflow::EnumToDataType,
    ::minflow::NodeDef, ::minflow::OpDef, ::minflow::OpInputList,
    ::minflow::OpKernel, ::minflow::OpKernelConstruction,
    ::minflow::OpKernelContext, ::minflow::OpOutputList, ::minflow::OpRegistry,
    ::minflow::PartialTensorShape, ::minflow::StatusOr, ::minflow::Tensor,
    ::minflow::TensorProto, ::minflow::TensorShape, ::minflow::TensorShapeProto,
    ::minflow::TensorShapeUtils, ::minflow::TTypes, ::minflow::bfloat16,
    ::minflow::complex128, ::minflow::complex64, ::minflow::half,
    ::minflow::tstring;
using ::minflow::DT_INVALID, ::minflow::DT_FLOAT, ::minflow::DT_DOUBLE,
    ::minflow::DT_INT32, ::minflow::DT_UINT8, ::minflow::DT_INT16,
    ::minflow::DT_INT8, ::minflow::DT_STRING, ::minflow::DT_COMPLEX64,
    ::minflow::DT_INT64, ::minflow::DT_BOOL, ::minflow::DT_QINT8,
    ::minflow::DT_QUINT8, ::minflow::DT_QINT32, ::minflow::DT_BFLOAT16,
    ::minflow::DT_QINT16, ::minflow::DT_QUINT16, ::minflow::DT_UINT16,
    ::minflow::DT_COMPLEX128, ::minflow::DT_HALF, ::minflow::DT_RESOURCE,
    ::minflow::DT_VARIANT, ::minflow::DT_UINT32, ::minflow::DT_UINT64,
    ::minflow::DT_FLOAT8_E5M2, ::minflow::DT_FLOAT8_E4M3FN,
    ::minflow::DT_FLOAT8_E4M3FNUZ, ::minflow::DT_FLOAT8_E4M3B11FNUZ,
    ::minflow::DT_FLOAT8_E5M2FNUZ, ::minflow::DT_INT4, ::minflow::DT_UINT4,
    ::minflow::DT_INT2, ::minflow::DT_UINT2, ::minflow::DT_FLOAT4_E2M1FN,
    ::minflow::DT_FLOAT_REF, ::minflow::DT_DOUBLE_REF, ::minflow::DT_INT32_REF,
    ::minflow::DT_UINT8_REF, ::minflow::DT_INT16_REF, ::minflow::DT_INT8_REF,
    ::minflow::DT_STRING_REF, ::minflow::DT_COMPLEX64_REF,
    ::minflow::DT_INT64_REF, ::minflow::DT_BOOL_REF, ::minflow::DT_QINT8_REF,
    ::minflow::DT_QUINT8_REF, ::minflow::DT_QINT32_REF,
    ::minflow::DT_BFLOAT16_REF, ::minflow::DT_QINT16_REF,
    ::minflow::DT_QUINT16_REF, ::minflow::DT_UINT16_REF,
    ::minflow::DT_COMPLEX128_REF, ::minflow::DT_HALF_REF,
    ::minflow::DT_RESOURCE_REF, ::minflow::DT_VARIANT_REF,
    ::minflow::DT_UINT32_REF, ::minflow::DT_UINT64_REF,
    ::minflow::DT_FLOAT8_E5M2_REF, ::minflow::DT_FLOAT8_E4M3FN_REF,
    ::minflow::DT_FLOAT8_E4M3FNUZ_REF, ::minflow::DT_FLOAT8_E4M3B11FNUZ_REF,
    ::minflow::DT_FLOAT8_E5M2FNUZ_REF, ::minflow::DT_INT4_REF,
    ::minflow::DT_UINT4_REF, ::minflow::DT_INT2_REF, ::minflow::DT_UINT2_REF,
    ::minflow::DT_FLOAT4_E2M1FN_REF;

namespace shape_inference = ::minflow::shape_inference;

// minflow's error constructors, returning TensorFlow's Status so that a
// lambda may mix `return errors::InvalidArgument(...)` with
// `return Status::OK()`.
namespace errors {

#define MF_TF_COMPAT_ERROR(Name)                   \
  template <typename... Args>                      \
  ::tensorflow::Status Name(const Args&... args) { \
    return ::minflow::errors::Name(args...);       \
  }                                                \
  using ::minflow::errors::Is##Name;
MF_TF_COMPAT_ERROR(Cancelled)
MF_TF_COMPAT_ERROR(Unknown)
MF_TF_COMPAT_ERROR(InvalidArgument)
MF_TF_COMPAT_ERROR(DeadlineExceeded)
MF_TF_COMPAT_ERROR(NotFound)
MF_TF_COMPAT_ERROR(AlreadyExists)
MF_TF_COMPAT_ERROR(PermissionDenied)
MF_TF_COMPAT_ERROR(ResourceExhausted)
MF_TF_COMPAT_ERROR(FailedPrecondition)
MF_TF_COMPAT_ERROR(Aborted)
MF_TF_COMPAT_ERROR(OutOfRange)
MF_TF_COMPAT_ERROR(Unimplemented)
MF_TF_COMPAT_ERROR(Internal)
MF_TF_COMPAT_ERROR(Unavailable)
MF_TF_COMPAT_ERROR(DataLoss)
MF_TF_COMPAT_ERROR(Unauthenticated)
#undef MF_TF_COMPAT_ERROR

using ::minflow::errors::AppendToMessage;

}  // namespace errors
}  // namespace tensorflow

// Returns the error of `expr` as TensorFlow's Status, so that a shape
// function lambda may also `return Status::OK();` (one deduced type). In a
// function returning minflow::Status it converts back.
#define TF_RETURN_IF_ERROR(...)                      \
  do {                                               \
    ::tensorflow::Status _tf_status = (__VA_ARGS__); \
    if (ABSL_PREDICT_FALSE(!_tf_status.ok())) {      \
      return _tf_status;                             \
    }                                                \
  } while (0)
#define TF_ASSIGN_OR_RETURN(lhs, expr) MF_ASSIGN_OR_RETURN(lhs, expr)
#define TF_CHECK_OK(expr) MF_CHECK_OK(expr)
