#include "minflow/framework/device_name_utils.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using Parsed = DeviceNameUtils::ParsedName;

Parsed Parse(const std::string& name) {
  Parsed p;
  EXPECT_TRUE(DeviceNameUtils::ParseFullName(name, &p).ok()) << name;
  return p;
}

TEST(DeviceNameUtilsTest, ParsesEveryTensorFlowForm) {
  for (const char* name :
       {"/device:GPU:0", "/gpu:0", "/GPU:0", "GPU:0", "/device:gpu:0",
        "/job:localhost/replica:0/task:0/device:GPU:0"}) {
    Parsed p = Parse(name);
    EXPECT_TRUE(p.has_type) << name;
    EXPECT_EQ(p.type, "GPU") << name;
    EXPECT_TRUE(p.has_id) << name;
    EXPECT_EQ(p.id, 0) << name;
  }
  Parsed full = Parse("/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_TRUE(full.has_job);
  EXPECT_EQ(full.job, "localhost");
  EXPECT_TRUE(full.has_task);
  EXPECT_EQ(Parse("/cpu:1").id, 1);
}

TEST(DeviceNameUtilsTest, EmptyAndWildcardsConstrainNothing) {
  Parsed empty = Parse("");
  EXPECT_FALSE(empty.has_type || empty.has_id || empty.has_job);
  Parsed any_gpu = Parse("/device:GPU:*");
  EXPECT_TRUE(any_gpu.has_type);
  EXPECT_FALSE(any_gpu.has_id);
  EXPECT_EQ(DeviceNameUtils::ParsedNameToString(any_gpu), "/device:GPU:*");
}

TEST(DeviceNameUtilsTest, RejectsMalformedNames) {
  Parsed p;
  for (const char* bad : {"/device:GPU", "/gpu:-1", "/gpu:x", "/job:a:b",
                          "/device:G P U:0", "gpu", "/replica:one"}) {
    EXPECT_THAT(DeviceNameUtils::ParseFullName(bad, &p),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         ::testing::HasSubstr("Malformed device name")))
        << bad;
  }
}

TEST(DeviceNameUtilsTest, SpecificationMatching) {
  const Parsed cpu0 = Parse(DeviceNameUtils::LocalName("CPU", 0));
  EXPECT_TRUE(DeviceNameUtils::IsSpecification(Parse("/cpu:0"), cpu0));
  EXPECT_TRUE(DeviceNameUtils::IsSpecification(Parse(""), cpu0));
  EXPECT_FALSE(DeviceNameUtils::IsSpecification(Parse("/gpu:0"), cpu0));
  EXPECT_FALSE(DeviceNameUtils::IsSpecification(Parse("/job:w"), cpu0));
  EXPECT_TRUE(DeviceNameUtils::AreCompatibleDevNames(Parse("/gpu:0"),
                                                     Parse("/device:GPU:*")));
  EXPECT_FALSE(
      DeviceNameUtils::AreCompatibleDevNames(Parse("/gpu:0"), Parse("/cpu:0")));
  EXPECT_EQ(DeviceNameUtils::LocalName("CPU", 0),
            "/job:localhost/replica:0/task:0/device:CPU:0");
}

}  // namespace
}  // namespace minflow
