// OP_REQUIRES and friends: how a kernel reports a failed check and returns
// early, from its constructor (OpKernelConstruction) or from Compute
// (OpKernelContext). Each macro is a single statement (do { } while (0)).
#pragma once

#include "absl/base/optimization.h"
#include "minflow/core/status.h"

namespace minflow {

class OpKernelConstruction;
class OpKernelContext;

namespace internal {

// Aborts (a minflow-internal misuse, not a user error) when a synchronous
// OP_REQUIRES is used inside an AsyncOpKernel's ComputeAsync: returning
// without calling `done` would hang the executor.
void CheckNotInComputeAsync(OpKernelContext* ctx, const char* correct_macro);
inline void CheckNotInComputeAsync(OpKernelConstruction*, const char*) {}
// Any other context-like type (test doubles): nothing to check.
template <typename Ctx>
void CheckNotInComputeAsync(Ctx*, const char*) {}

}  // namespace internal
}  // namespace minflow

// If `EXP` is false: records `STATUS` on `CTX` and returns from the caller.
#define OP_REQUIRES(CTX, EXP, STATUS)                                          \
  do {                                                                         \
    if (!ABSL_PREDICT_TRUE(EXP)) {                                             \
      ::minflow::internal::CheckNotInComputeAsync((CTX), "OP_REQUIRES_ASYNC"); \
      (CTX)->CtxFailure(__FILE__, __LINE__, (STATUS));                         \
      return;                                                                  \
    }                                                                          \
  } while (0)

// If the Status expression is not OK: records it on `CTX` and returns.
#define OP_REQUIRES_OK(CTX, ...)                                           \
  do {                                                                     \
    const ::minflow::Status _mf_op_status(__VA_ARGS__);                    \
    if (!ABSL_PREDICT_TRUE(_mf_op_status.ok())) {                          \
      ::minflow::internal::CheckNotInComputeAsync((CTX),                   \
                                                  "OP_REQUIRES_OK_ASYNC"); \
      (CTX)->CtxFailure(__FILE__, __LINE__, _mf_op_status);                \
      return;                                                              \
    }                                                                      \
  } while (0)

// The AsyncOpKernel forms: on failure they also run `CALLBACK` (the done
// callback) before returning, so the executor is always told.
#define OP_REQUIRES_ASYNC(CTX, EXP, STATUS, CALLBACK)  \
  do {                                                 \
    if (!ABSL_PREDICT_TRUE(EXP)) {                     \
      (CTX)->CtxFailure(__FILE__, __LINE__, (STATUS)); \
      (CALLBACK)();                                    \
      return;                                          \
    }                                                  \
  } while (0)

#define OP_REQUIRES_OK_ASYNC(CTX, STATUS, CALLBACK)         \
  do {                                                      \
    const ::minflow::Status _mf_op_status(STATUS);          \
    if (!ABSL_PREDICT_TRUE(_mf_op_status.ok())) {           \
      (CTX)->CtxFailure(__FILE__, __LINE__, _mf_op_status); \
      (CALLBACK)();                                         \
      return;                                               \
    }                                                       \
  } while (0)

// OP_REQUIRES_VALUE(lhs, ctx, statusor_expr): assigns the value of a
// StatusOr or fails the kernel with its error.
#define OP_REQUIRES_VALUE(lhs, CTX, rexpr)                                    \
  OP_REQUIRES_VALUE_IMPL(MF_STATUS_MACROS_CONCAT(_mf_op_statusor_, __LINE__), \
                         lhs, CTX, rexpr)
#define OP_REQUIRES_VALUE_IMPL(statusor, lhs, CTX, rexpr) \
  auto statusor = (rexpr);                                \
  OP_REQUIRES_OK(CTX, statusor.status());                 \
  lhs = std::move(statusor).value()
