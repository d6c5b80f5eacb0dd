#include "minflow/framework/resource_mgr.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

std::atomic<int> g_live{0};

class Counter : public ResourceBase {
 public:
  explicit Counter(int v) : value(v) { g_live.fetch_add(1); }
  ~Counter() override { g_live.fetch_sub(1); }
  std::string DebugString() const override {
    return "Counter " + std::to_string(value);
  }
  int value;
};

class SpecialCounter : public Counter {
 public:
  SpecialCounter() : Counter(99) {}
};

class Other : public ResourceBase {
 public:
  std::string DebugString() const override { return "Other"; }
};

TEST(ResourceMgrTest, CreateLookupDeleteKeepRefcountsRight) {
  const int live = g_live.load();
  {
    ResourceMgr rm;
    MF_ASSERT_OK(rm.Create("c", "a", new Counter(1)));
    Counter* found = nullptr;
    MF_ASSERT_OK(rm.Lookup("c", "a", &found));
    core::ScopedUnref unref(found);
    EXPECT_EQ(found->value, 1);
    EXPECT_FALSE(found->RefCountIsOne());  // the manager and us
    MF_ASSERT_OK(rm.Delete<Counter>("c", "a"));
    EXPECT_TRUE(found->RefCountIsOne());  // still alive through our ref
    EXPECT_EQ(g_live.load(), live + 1);
  }
  EXPECT_EQ(g_live.load(), live);
}

TEST(ResourceMgrTest, ErrorsNameContainerNameAndType) {
  ResourceMgr rm;
  Counter* found = nullptr;
  EXPECT_THAT(rm.Lookup("c", "a", &found),
              StatusIs(absl::StatusCode::kNotFound,
                       "Container c does not exist. (Could not find "
                       "resource: c/a)"));
  MF_ASSERT_OK(rm.Create("c", "a", new Counter(1)));
  EXPECT_THAT(rm.Create("c", "a", new Counter(2)),
              StatusIs(absl::StatusCode::kAlreadyExists,
                       "Resource c/a/minflow::(anonymous namespace)::Counter"));
  EXPECT_THAT(
      rm.Lookup("c", "b", &found),
      StatusIs(absl::StatusCode::kNotFound, HasSubstr("Resource c/b/")));
  Other* other = nullptr;
  EXPECT_THAT(
      rm.Lookup("c", "a", &other),
      StatusIs(absl::StatusCode::kNotFound, HasSubstr("does not exist")));
  EXPECT_THAT(rm.Delete<Other>("c", "a"),
              StatusIs(absl::StatusCode::kNotFound));
  // The same name may hold one resource per type.
  MF_EXPECT_OK(rm.Create("c", "a", new Other));
}

TEST(ResourceMgrTest, DynamicCastLookupFindsSubclasses) {
  ResourceMgr rm;
  MF_ASSERT_OK(rm.Create("c", "s", new SpecialCounter));
  Counter* base = nullptr;
  EXPECT_THAT(rm.Lookup("c", "s", &base),
              StatusIs(absl::StatusCode::kNotFound));
  MF_ASSERT_OK((rm.Lookup<Counter, true>("c", "s", &base)));
  core::ScopedUnref unref(base);
  EXPECT_EQ(base->value, 99);
  Other* other = nullptr;
  EXPECT_THAT((rm.Lookup<Other, true>("c", "s", &other)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("is not a minflow::(anonymous "
                                 "namespace)::Other")));
}

TEST(ResourceMgrTest, CleanupDropsOneContainer) {
  const int live = g_live.load();
  ResourceMgr rm("default");
  EXPECT_EQ(rm.default_container(), "default");
  MF_ASSERT_OK(rm.Create("a", "x", new Counter(1)));
  MF_ASSERT_OK(rm.Create("a", "y", new Counter(2)));
  MF_ASSERT_OK(rm.Create("b", "x", new Counter(3)));
  EXPECT_EQ(g_live.load(), live + 3);
  MF_ASSERT_OK(rm.Cleanup("a"));
  MF_ASSERT_OK(rm.Cleanup("no_such_container"));
  EXPECT_EQ(g_live.load(), live + 1);
  EXPECT_THAT(rm.DebugString(), HasSubstr("b | "));
  EXPECT_THAT(rm.DebugString(), HasSubstr("| x | Counter 3"));
  rm.Clear();
  EXPECT_EQ(g_live.load(), live);
}

TEST(ResourceMgrTest, LookupOrCreateCreatesOnceUnderContention) {
  ResourceMgr rm;
  std::atomic<int> created{0};
  std::vector<Counter*> seen(16, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      Counter* c = nullptr;
      const Status s = rm.LookupOrCreate<Counter>("c", "shared", &c,
                                                  [&created](Counter** out) {
                                                    created.fetch_add(1);
                                                    *out = new Counter(7);
                                                    return OkStatus();
                                                  });
      EXPECT_TRUE(s.ok()) << s;
      seen[t] = c;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(created.load(), 1);
  for (Counter* c : seen) {
    EXPECT_EQ(c, seen[0]);
    c->Unref();
  }
  Counter* failed = nullptr;
  EXPECT_THAT(rm.LookupOrCreate<Counter>(
                  "c", "broken", &failed,
                  [](Counter**) { return errors::Internal("no"); }),
              StatusIs(absl::StatusCode::kInternal, "no"));
  EXPECT_EQ(failed, nullptr);
}

}  // namespace
}  // namespace minflow
