// Abseil's Mutex checks every lock against a graph of lock orders to catch
// deadlocks, unless Abseil itself was built with NDEBUG, which Debian's is
// not. That check cost 3% of a TF1 loop's time (GraphCycles::GetId on every
// lock), so optimised minflow builds switch it off when the library loads;
// debug and sanitizer builds (no NDEBUG) keep it.
#include "absl/synchronization/mutex.h"

namespace minflow {
namespace {

#ifdef NDEBUG
const bool kDeadlockDetectionOff = [] {
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  return true;
}();
#endif

}  // namespace
}  // namespace minflow
