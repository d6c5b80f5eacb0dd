#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

class StaticRegexFullMatchOpTest : public test::OpsTestBase {
 protected:
  Status Make(const std::string& pattern) {
    MakeNode("StaticRegexFullMatch").Input(DT_STRING).Attr("pattern", pattern);
    return MakeOp();
  }
};

// The pattern TensorFlow's savers write, on the paths they feed it.
TEST_F(StaticRegexFullMatchOpTest, MatchesWholeStringsOnly) {
  MF_ASSERT_OK(Make("^s3://.*"));
  AddInputTensor(
      test::AsTensor<tstring>({"s3://bucket/ckpt", "/tmp/s3://x", "s3:/"}));
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<bool>(*GetOutput(0),
                                test::AsTensor<bool>({true, false, false}));
}

TEST_F(StaticRegexFullMatchOpTest, AnInvalidPatternIsRefusedWhenMade) {
  EXPECT_THAT(Make("(unclosed"), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("Invalid pattern")));
}

}  // namespace
}  // namespace minflow
