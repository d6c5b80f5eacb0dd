#include "minflow/framework/padding.h"

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

TEST(PaddingTest, ParsesEveryPadding) {
  Padding p = VALID;
  MF_EXPECT_OK(GetPaddingFromString("SAME", &p));
  EXPECT_EQ(p, SAME);
  MF_EXPECT_OK(GetPaddingFromString("VALID", &p));
  EXPECT_EQ(p, VALID);
  MF_EXPECT_OK(GetPaddingFromString("EXPLICIT", &p));
  EXPECT_EQ(p, EXPLICIT);
}

TEST(PaddingTest, KeepsTensorFlowsValues) {
  // Serialized graphs and TF ports may rely on them.
  EXPECT_EQ(static_cast<int>(VALID), 1);
  EXPECT_EQ(static_cast<int>(SAME), 2);
  EXPECT_EQ(static_cast<int>(EXPLICIT), 3);
}

TEST(PaddingTest, ToStringRoundTrips) {
  for (Padding padding : {VALID, SAME, EXPLICIT}) {
    Padding parsed = padding == VALID ? SAME : VALID;
    MF_EXPECT_OK(GetPaddingFromString(ToString(padding), &parsed));
    EXPECT_EQ(parsed, padding);
  }
}

TEST(PaddingTest, RejectsEveryOtherStringAndLeavesThePadding) {
  for (const char* bad :
       {"same", "valid", "explicit", "FULL", "REFLECT", "SAME ", "", "x"}) {
    SCOPED_TRACE(bad);
    Padding p = SAME;
    EXPECT_THAT(GetPaddingFromString(bad, &p),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr(absl::StrCat(
                             bad,
                             " is not an allowed padding type (padding must "
                             "be SAME, VALID or EXPLICIT)"))));
    EXPECT_EQ(p, SAME);
  }
}

TEST(PaddingTest, ImplicitPaddingsTakeNoExplicitList) {
  MF_EXPECT_OK(CheckValidPadding(SAME, {}, 4, FORMAT_NHWC));
  MF_EXPECT_OK(CheckValidPadding(VALID, {}, 4, FORMAT_NCHW));
  EXPECT_THAT(CheckValidPadding(VALID, {0, 0}, 4, FORMAT_NHWC),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("explicit_paddings attribute must be empty if "
                                 "the padding attribute is not EXPLICIT, but "
                                 "got [0,0] with padding VALID")));
  EXPECT_THAT(
      CheckValidPadding(SAME, {0, 0, 1, 1, 1, 1, 0, 0}, 4, FORMAT_NHWC),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("must be empty if the padding attribute is not "
                         "EXPLICIT, but got [0,0,1,1,1,1,0,0] with padding "
                         "SAME")));
}

TEST(PaddingTest, ExplicitPaddingOnTheSpatialDimsOfEitherFormat) {
  MF_EXPECT_OK(
      CheckValidPadding(EXPLICIT, {0, 0, 1, 2, 3, 4, 0, 0}, 4, FORMAT_NHWC));
  MF_EXPECT_OK(
      CheckValidPadding(EXPLICIT, {0, 0, 0, 0, 1, 2, 3, 4}, 4, FORMAT_NCHW));
  // Other ranks: one pair per dim, features last or second.
  MF_EXPECT_OK(CheckValidPadding(EXPLICIT, {0, 0, 5, 6, 0, 0}, 3, FORMAT_NHWC));
  MF_EXPECT_OK(CheckValidPadding(EXPLICIT, {0, 0, 0, 0, 5, 6}, 3, FORMAT_NCHW));
  MF_EXPECT_OK(
      CheckValidPadding(EXPLICIT, std::vector<int64_t>(8, 0), 4, FORMAT_NHWC));
}

TEST(PaddingTest, ExplicitNeedsTwoValuesPerDim) {
  EXPECT_THAT(CheckValidPadding(EXPLICIT, {}, 4, FORMAT_NHWC),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("explicit_paddings attribute must contain 8 "
                                 "values, but got: 0")));
  EXPECT_THAT(CheckValidPadding(EXPLICIT, {0, 0, 1, 1}, 4, FORMAT_NHWC),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must contain 8 values, but got: 4")));
  EXPECT_THAT(
      CheckValidPadding(EXPLICIT, std::vector<int64_t>(10, 0), 4, FORMAT_NCHW),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("must contain 8 values, but got: 10")));
  EXPECT_THAT(
      CheckValidPadding(EXPLICIT, std::vector<int64_t>(8, 0), 3, FORMAT_NHWC),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("must contain 6 values, but got: 8")));
}

TEST(PaddingTest, ExplicitRejectsNegativePads) {
  EXPECT_THAT(
      CheckValidPadding(EXPLICIT, {0, 0, 1, -1, 1, 1, 0, 0}, 4, FORMAT_NHWC),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("All elements of explicit_paddings must be "
                         "nonnegative, but got [0,0,1,-1,1,1,0,0]")));
  // Also on the batch dim, where any pad is rejected later.
  EXPECT_THAT(
      CheckValidPadding(EXPLICIT, {-1, 0, 0, 0, 0, 0, 0, 0}, 4, FORMAT_NCHW),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("must be nonnegative")));
}

TEST(PaddingTest, ExplicitRejectsPadsOnBatchOrFeatures) {
  // NHWC: batch is pair 0, features pair 3.
  for (int i : {0, 1, 6, 7}) {
    SCOPED_TRACE(i);
    std::vector<int64_t> pads(8, 0);
    pads[i] = 1;
    EXPECT_THAT(CheckValidPadding(EXPLICIT, pads, 4, FORMAT_NHWC),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("Nonzero explicit padding in the batch or "
                                   "depth dimensions is not supported")));
  }
  // NCHW: features are pair 1, so pads there fail and pair 3 is spatial.
  EXPECT_THAT(
      CheckValidPadding(EXPLICIT, {0, 0, 1, 0, 1, 2, 3, 4}, 4, FORMAT_NCHW),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Nonzero explicit padding in the batch or depth "
                         "dimensions is not supported, but got "
                         "[0,0,1,0,1,2,3,4] for data format NCHW")));
  EXPECT_THAT(
      CheckValidPadding(EXPLICIT, {0, 0, 0, 0, 1, 2, 3, 4}, 4, FORMAT_NHWC),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("for data format NHWC")));
}

}  // namespace
}  // namespace minflow
