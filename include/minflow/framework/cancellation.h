// CancellationManager: how a step is cancelled. The executor calls
// StartCancel() on the first error or a user request; kernels poll
// IsCancelled() in long loops, and async kernels register a callback.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"

namespace minflow {

using CancellationToken = int64_t;
using CancelCallback = std::function<void()>;

// Thread-safe. Cancellation is one-way: once started it stays.
class CancellationManager {
 public:
  CancellationManager() = default;
  // Waits for a StartCancel() in progress to finish its callbacks.
  ~CancellationManager();
  CancellationManager(const CancellationManager&) = delete;
  CancellationManager& operator=(const CancellationManager&) = delete;

  // Marks the manager cancelled and runs every registered callback once,
  // on the calling thread. Later calls do nothing.
  void StartCancel();

  // True once StartCancel() has been called. A relaxed atomic read, cheap
  // enough to poll inside kernel loops.
  bool IsCancelled() const {
    return is_cancelled_.load(std::memory_order_acquire);
  }

  // A fresh token for RegisterCallback.
  CancellationToken get_cancellation_token() {
    return next_token_.fetch_add(1, std::memory_order_relaxed);
  }

  // Arranges for `callback` to run on cancellation. Returns false (and does
  // not keep it) when already cancelled; the caller then handles that.
  bool RegisterCallback(CancellationToken token, CancelCallback callback);

  // Removes the callback. Returns false when cancellation has started, in
  // which case the callback has run or is about to; this call then waits
  // until it has finished, so the caller may free what it uses.
  // Must not be called from inside a cancel callback (it would wait on
  // itself); use TryDeregisterCallback there.
  bool DeregisterCallback(CancellationToken token);
  // As DeregisterCallback, but never waits.
  bool TryDeregisterCallback(CancellationToken token);

 private:
  std::atomic<bool> is_cancelled_{false};
  std::atomic<CancellationToken> next_token_{0};
  absl::Mutex mu_;
  bool is_cancelling_ ABSL_GUARDED_BY(mu_) = false;
  absl::Notification cancelled_notification_;
  absl::flat_hash_map<CancellationToken, CancelCallback> callbacks_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace minflow
