#include "minflow/framework/cancellation.h"

#include <utility>

namespace minflow {

CancellationManager::~CancellationManager() {
  bool cancelling = false;
  {
    absl::MutexLock lock(&mu_);
    cancelling = is_cancelling_;
  }
  if (cancelling) cancelled_notification_.WaitForNotification();
}

void CancellationManager::StartCancel() {
  absl::flat_hash_map<CancellationToken, CancelCallback> callbacks;
  {
    absl::MutexLock lock(&mu_);
    if (is_cancelled_.load(std::memory_order_relaxed) || is_cancelling_) {
      return;
    }
    is_cancelling_ = true;
    // Set before running callbacks so that they, and anyone polling, see
    // the step as cancelled.
    is_cancelled_.store(true, std::memory_order_release);
    callbacks.swap(callbacks_);
  }
  // Callbacks run without the lock: they may deregister other tokens.
  for (auto& [token, callback] : callbacks) callback();
  cancelled_notification_.Notify();
}

bool CancellationManager::RegisterCallback(CancellationToken token,
                                           CancelCallback callback) {
  absl::MutexLock lock(&mu_);
  if (is_cancelled_.load(std::memory_order_relaxed)) return false;
  callbacks_.emplace(token, std::move(callback));
  return true;
}

bool CancellationManager::DeregisterCallback(CancellationToken token) {
  {
    absl::MutexLock lock(&mu_);
    if (!is_cancelled_.load(std::memory_order_relaxed)) {
      callbacks_.erase(token);
      return true;
    }
  }
  cancelled_notification_.WaitForNotification();
  return false;
}

bool CancellationManager::TryDeregisterCallback(CancellationToken token) {
  absl::MutexLock lock(&mu_);
  if (is_cancelled_.load(std::memory_order_relaxed)) return false;
  callbacks_.erase(token);
  return true;
}

}  // namespace minflow
