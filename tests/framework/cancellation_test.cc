#include "minflow/framework/cancellation.h"

#include <atomic>
#include <thread>

#include "gtest/gtest.h"

namespace minflow {
namespace {

TEST(CancellationManagerTest, RunsCallbacksOnceAndStaysCancelled) {
  CancellationManager cm;
  EXPECT_FALSE(cm.IsCancelled());
  int calls = 0;
  const CancellationToken a = cm.get_cancellation_token();
  const CancellationToken b = cm.get_cancellation_token();
  EXPECT_NE(a, b);
  EXPECT_TRUE(cm.RegisterCallback(a, [&calls] { ++calls; }));
  EXPECT_TRUE(cm.RegisterCallback(b, [&calls] { calls += 10; }));
  EXPECT_TRUE(cm.DeregisterCallback(b));
  cm.StartCancel();
  cm.StartCancel();
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(cm.IsCancelled());
  EXPECT_FALSE(cm.RegisterCallback(cm.get_cancellation_token(), [] {}));
  EXPECT_FALSE(cm.DeregisterCallback(a));
  EXPECT_FALSE(cm.TryDeregisterCallback(a));
}

TEST(CancellationManagerTest, CallbacksMayTryToDeregister) {
  CancellationManager cm;
  const CancellationToken a = cm.get_cancellation_token();
  bool deregistered = true;
  ASSERT_TRUE(cm.RegisterCallback(a, [&cm, &deregistered, a] {
    deregistered = cm.TryDeregisterCallback(a);
  }));
  cm.StartCancel();
  EXPECT_FALSE(deregistered);
}

TEST(CancellationManagerTest, PollersOnOtherThreadsSeeIt) {
  CancellationManager cm;
  std::atomic<bool> saw{false};
  std::thread poller([&] {
    while (!cm.IsCancelled()) std::this_thread::yield();
    saw = true;
  });
  cm.StartCancel();
  poller.join();
  EXPECT_TRUE(saw.load());
}

}  // namespace
}  // namespace minflow
