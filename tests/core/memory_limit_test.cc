#include "minflow/core/memory_limit.h"

#include <cstdlib>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

TEST(ParseByteSizeTest, BytesAndBinaryUnits) {
  EXPECT_EQ(ParseByteSize("0").value(), 0);
  EXPECT_EQ(ParseByteSize("65536").value(), 65536);
  EXPECT_EQ(ParseByteSize("64KiB").value(), 64 * 1024);
  EXPECT_EQ(ParseByteSize("512MiB").value(), int64_t{512} << 20);
  EXPECT_EQ(ParseByteSize("3GiB").value(), int64_t{3} << 30);
}

TEST(ParseByteSizeTest, RejectsWhatIsNotASize) {
  for (const char* bad :
       {"1MB", "1M", "-1", "+5", " 5", "1.5GiB", "GiB", "", "12 MiB",
        "99999999999999999999", "9999999999999GiB"}) {
    EXPECT_THAT(ParseByteSize(bad), StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("KiB, MiB or GiB")))
        << bad;
  }
}

TEST(CpuMemoryLimitFromEnvTest, UnsetOrEmptyIsNoLimit) {
  ::unsetenv(kCpuMemoryLimitVariable);
  EXPECT_EQ(CpuMemoryLimitFromEnv().value(), 0);
  ::setenv(kCpuMemoryLimitVariable, "", 1);
  EXPECT_EQ(CpuMemoryLimitFromEnv().value(), 0);
  ::setenv(kCpuMemoryLimitVariable, "2MiB", 1);
  EXPECT_EQ(CpuMemoryLimitFromEnv().value(), 2 << 20);
  ::unsetenv(kCpuMemoryLimitVariable);
}

TEST(CpuMemoryLimitFromEnvTest, AValueThatDoesNotParseNamesTheVariable) {
  ::setenv(kCpuMemoryLimitVariable, "1MB", 1);
  EXPECT_THAT(CpuMemoryLimitFromEnv(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("MINFLOW_CPU_MEMORY_LIMIT: a size must be a "
                                 "number of bytes, optionally followed by "
                                 "KiB, MiB or GiB (such as 65536 or 512MiB), "
                                 "but got '1MB'")));
  ::unsetenv(kCpuMemoryLimitVariable);
}

}  // namespace
}  // namespace minflow
