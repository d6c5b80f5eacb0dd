#include "minflow/framework/tensor_format.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

TEST(TensorFormatTest, ParsesBothFormats) {
  TensorFormat f = FORMAT_NCHW;
  EXPECT_TRUE(FormatFromString("NHWC", &f));
  EXPECT_EQ(f, FORMAT_NHWC);
  EXPECT_TRUE(FormatFromString("NCHW", &f));
  EXPECT_EQ(f, FORMAT_NCHW);
  MF_EXPECT_OK(GetTensorFormatFromString("NHWC", &f));
  EXPECT_EQ(f, FORMAT_NHWC);
  MF_EXPECT_OK(GetTensorFormatFromString("NCHW", &f));
  EXPECT_EQ(f, FORMAT_NCHW);
}

TEST(TensorFormatTest, ParsesThreeDimensionalNamesWithSpatialDims) {
  TensorFormat f = FORMAT_NCHW;
  int spatial = 0;
  MF_EXPECT_OK(GetTensorFormatAndSpatialDimsFromString("NDHWC", &f, &spatial));
  EXPECT_EQ(f, FORMAT_NHWC);
  EXPECT_EQ(spatial, 3);
  MF_EXPECT_OK(GetTensorFormatAndSpatialDimsFromString("NCDHW", &f, &spatial));
  EXPECT_EQ(f, FORMAT_NCHW);
  EXPECT_EQ(spatial, 3);
  MF_EXPECT_OK(GetTensorFormatAndSpatialDimsFromString("NHWC", &f, &spatial));
  EXPECT_EQ(f, FORMAT_NHWC);
  EXPECT_EQ(spatial, 2);
  EXPECT_THAT(
      GetTensorFormatAndSpatialDimsFromString("NCHW_VECT_C", &f, &spatial),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Invalid data format string: NCHW_VECT_C")));
}

TEST(TensorFormatTest, ToStringRoundTrips) {
  for (TensorFormat f : {FORMAT_NHWC, FORMAT_NCHW}) {
    TensorFormat parsed = f == FORMAT_NHWC ? FORMAT_NCHW : FORMAT_NHWC;
    EXPECT_TRUE(FormatFromString(ToString(f), &parsed));
    EXPECT_EQ(parsed, f);
  }
  EXPECT_EQ(ToString(FORMAT_NHWC), "NHWC");
  EXPECT_EQ(ToString(FORMAT_NCHW), "NCHW");
}

TEST(TensorFormatTest, RejectsEveryOtherStringAndLeavesTheFormat) {
  // Lower case, TensorFlow's formats minflow does not take, other ranks,
  // padding around a name and the empty string.
  for (const char* bad :
       {"nhwc", "nchw", "NCHW_VECT_C", "NHWC_VECT_W", "HWNC", "HWCN", "NCDHW",
        "NDHWC", "NWC", " NHWC", "NHWC ", "", "x"}) {
    SCOPED_TRACE(bad);
    TensorFormat f = FORMAT_NCHW;
    EXPECT_FALSE(FormatFromString(bad, &f));
    EXPECT_EQ(f, FORMAT_NCHW);
    EXPECT_THAT(
        GetTensorFormatFromString(bad, &f),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 HasSubstr(absl::StrCat("Invalid data format string: ", bad,
                                        " (data_format must be "
                                        "NHWC or NCHW)"))));
    EXPECT_EQ(f, FORMAT_NCHW);
  }
}

TEST(TensorFormatTest, DimIndicesOfFourDimTensors) {
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NHWC, 'N'), 0);
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NHWC, 'H'), 1);
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NHWC, 'W'), 2);
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NHWC, 'C'), 3);
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NCHW, 'N'), 0);
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NCHW, 'C'), 1);
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NCHW, 'H'), 2);
  EXPECT_EQ(GetTensorDimIndex(FORMAT_NCHW, 'W'), 3);
}

TEST(TensorFormatTest, DimIndicesFollowTheRank) {
  // BiasAdd takes any rank: features last (NHWC) or second (NCHW).
  for (int dims : {2, 3, 4, 5}) {
    SCOPED_TRACE(dims);
    EXPECT_EQ(GetTensorBatchDimIndex(dims, FORMAT_NHWC), 0);
    EXPECT_EQ(GetTensorBatchDimIndex(dims, FORMAT_NCHW), 0);
    EXPECT_EQ(GetTensorFeatureDimIndex(dims, FORMAT_NHWC), dims - 1);
    EXPECT_EQ(GetTensorFeatureDimIndex(dims, FORMAT_NCHW), 1);
    for (int s = 0; s < dims - 2; ++s) {
      EXPECT_EQ(GetTensorSpatialDimIndex(dims, FORMAT_NHWC, s), s + 1);
      EXPECT_EQ(GetTensorSpatialDimIndex(dims, FORMAT_NCHW, s), s + 2);
    }
  }
}

TEST(TensorFormatDeathTest, UnknownDimensionCharacterIsABug) {
  EXPECT_DEATH((void)GetTensorDimIndex(FORMAT_NHWC, 'D'),
               "internal error, please report");
}

}  // namespace
}  // namespace minflow
