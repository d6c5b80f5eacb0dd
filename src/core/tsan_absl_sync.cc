// ThreadSanitizer builds only (MINFLOW_SANITIZE=thread; see
// cmake/MinflowOptions.cmake). Debian's Abseil is not built with TSan, so
// TSan cannot see what absl::Mutex, absl::Notification and
// absl::BlockingCounter synchronize, nor absl::Status's reference count, and
// would report a race on everything they protect. The
// linker routes minflow's calls to them here (-Wl,--wrap=<symbol>), and each
// wrapper tells TSan what the call means: taking a lock or returning from a
// wait acquires, releasing a lock or signalling releases, on the object's
// address. Member functions take `this` as their first argument, which is
// what these C declarations pass.
#include <sanitizer/tsan_interface.h>

#include <cstdint>

#include "absl/time/time.h"

extern "C" {

// absl::Mutex
void __real__ZN4absl7debian35Mutex4LockEv(void* mu);
void __real__ZN4absl7debian35Mutex6UnlockEv(void* mu);
void __real__ZN4absl7debian35Mutex10ReaderLockEv(void* mu);
void __real__ZN4absl7debian35Mutex12ReaderUnlockEv(void* mu);

void __wrap__ZN4absl7debian35Mutex4LockEv(void* mu) {
  __real__ZN4absl7debian35Mutex4LockEv(mu);
  __tsan_acquire(mu);
}
void __wrap__ZN4absl7debian35Mutex6UnlockEv(void* mu) {
  __tsan_release(mu);
  __real__ZN4absl7debian35Mutex6UnlockEv(mu);
}
void __wrap__ZN4absl7debian35Mutex10ReaderLockEv(void* mu) {
  __real__ZN4absl7debian35Mutex10ReaderLockEv(mu);
  __tsan_acquire(mu);
}
void __wrap__ZN4absl7debian35Mutex12ReaderUnlockEv(void* mu) {
  __tsan_release(mu);
  __real__ZN4absl7debian35Mutex12ReaderUnlockEv(mu);
}

// absl::Notification
void __real__ZN4absl7debian312Notification6NotifyEv(void* n);
void __real__ZNK4absl7debian312Notification19WaitForNotificationEv(
    const void* n);
bool __real__ZNK4absl7debian312Notification30WaitForNotificationWithTimeoutENS0_8DurationE(
    const void* n, absl::Duration timeout);

void __wrap__ZN4absl7debian312Notification6NotifyEv(void* n) {
  __tsan_release(n);
  __real__ZN4absl7debian312Notification6NotifyEv(n);
}
void __wrap__ZNK4absl7debian312Notification19WaitForNotificationEv(
    const void* n) {
  __real__ZNK4absl7debian312Notification19WaitForNotificationEv(n);
  __tsan_acquire(const_cast<void*>(n));
}
bool __wrap__ZNK4absl7debian312Notification30WaitForNotificationWithTimeoutENS0_8DurationE(
    const void* n, absl::Duration timeout) {
  const bool notified =
      __real__ZNK4absl7debian312Notification30WaitForNotificationWithTimeoutENS0_8DurationE(
          n, timeout);
  if (notified) __tsan_acquire(const_cast<void*>(n));
  return notified;
}

// absl::BlockingCounter
bool __real__ZN4absl7debian315BlockingCounter14DecrementCountEv(void* c);
void __real__ZN4absl7debian315BlockingCounter4WaitEv(void* c);

bool __wrap__ZN4absl7debian315BlockingCounter14DecrementCountEv(void* c) {
  __tsan_release(c);
  return __real__ZN4absl7debian315BlockingCounter14DecrementCountEv(c);
}
void __wrap__ZN4absl7debian315BlockingCounter4WaitEv(void* c) {
  __real__ZN4absl7debian315BlockingCounter4WaitEv(c);
  __tsan_acquire(c);
}

// absl::Status: the last reference to an error's shared representation
// deletes it inside UnrefNonInlined, which decrements the count where TSan
// cannot see it, so an error made on one thread and dropped on another
// looked like a race between a copy and the delete. Every drop releases on
// the representation and then acquires what every earlier drop released,
// so the one that deletes comes after all uses.
void __real__ZN4absl7debian36Status15UnrefNonInlinedEm(uintptr_t rep);

void __wrap__ZN4absl7debian36Status15UnrefNonInlinedEm(uintptr_t rep) {
  void* shared = reinterpret_cast<void*>(rep - 1);  // Status::RepToPointer
  __tsan_release(shared);
  __tsan_acquire(shared);
  __real__ZN4absl7debian36Status15UnrefNonInlinedEm(rep);
}

}  // extern "C"
