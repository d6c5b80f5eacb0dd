#include "minflow/cuda/gpu_info.h"

#include "gtest/gtest.h"
#include "minflow/cuda/gpu_smoke.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;

TEST(GpuInfoTest, CountIsNeverAnErrorWithoutAGpu) {
  int count = -1;
  MF_ASSERT_OK(GetGpuCount(&count));
  EXPECT_GE(count, 0);
}

TEST(GpuInfoTest, OrdinalOutOfRangeIsInvalidArgument) {
  int count = 0;
  MF_ASSERT_OK(GetGpuCount(&count));
  GpuProperties props;
  EXPECT_THAT(GetGpuProperties(count, &props),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(GetGpuProperties(-1, &props),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(GpuInfoTest, KernelRoundTripOnGpu) {
  int count = 0;
  MF_ASSERT_OK(GetGpuCount(&count));
  if (count == 0)
    GTEST_SKIP() << "no GPU on this machine: CUDA code is only compiled here";
  GpuProperties props;
  MF_ASSERT_OK(GetGpuProperties(0, &props));
  std::cout << props.DebugString() << "\n";
  EXPECT_GT(props.multiprocessor_count, 0);
  std::vector<float> values = {1, 2, 3, -1};
  MF_ASSERT_OK(GpuAddOne(&values));
  EXPECT_EQ(values, (std::vector<float>{2, 3, 4, 0}));
}

}  // namespace
}  // namespace minflow
