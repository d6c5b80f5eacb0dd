#include "src/kernels/conv_ops_common.h"

#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

struct Windowed {
  int64_t out = -1, before = -1, after = -1;
};

Windowed Window(int64_t in, int64_t k, int64_t dilation, int64_t stride,
                Padding padding, int64_t before = 0, int64_t after = 0) {
  Windowed w;
  w.before = before;
  w.after = after;
  EXPECT_TRUE(GetWindowedOutputSizeVerbose(in, k, dilation, stride, padding,
                                           &w.out, &w.before, &w.after)
                  .ok());
  return w;
}

TEST(ConvOpsCommonTest, ValidOutputSize) {
  const Windowed w = Window(7, 3, 1, 2, VALID);
  EXPECT_EQ(w.out, 3);
  EXPECT_EQ(w.before, 0);
  EXPECT_EQ(w.after, 0);
  EXPECT_EQ(Window(3, 3, 1, 1, VALID).out, 1);
  EXPECT_EQ(Window(2, 3, 1, 1, VALID).out, 0);
}

TEST(ConvOpsCommonTest, SamePutsTheOddPaddingAfter) {
  // 8 wide, 3 taps, stride 2: 4 outputs need 1 pad, after.
  Windowed w = Window(8, 3, 1, 2, SAME);
  EXPECT_EQ(w.out, 4);
  EXPECT_EQ(w.before, 0);
  EXPECT_EQ(w.after, 1);
  // 4 taps, stride 1: 3 pads, 1 before and 2 after.
  w = Window(6, 4, 1, 1, SAME);
  EXPECT_EQ(w.out, 6);
  EXPECT_EQ(w.before, 1);
  EXPECT_EQ(w.after, 2);
  // Window smaller than stride: no padding.
  w = Window(5, 1, 1, 2, SAME);
  EXPECT_EQ(w.out, 3);
  EXPECT_EQ(w.before, 0);
  EXPECT_EQ(w.after, 0);
}

TEST(ConvOpsCommonTest, DilationWidensTheWindow) {
  // 3 taps 2 apart span 5.
  EXPECT_EQ(Window(9, 3, 2, 1, VALID).out, 5);
  const Windowed w = Window(9, 3, 2, 1, SAME);
  EXPECT_EQ(w.out, 9);
  EXPECT_EQ(w.before, 2);
  EXPECT_EQ(w.after, 2);
}

TEST(ConvOpsCommonTest, ExplicitUsesTheGivenPadding) {
  const Windowed w = Window(5, 3, 1, 2, EXPLICIT, 1, 2);
  EXPECT_EQ(w.out, 3);
  EXPECT_EQ(w.before, 1);
  EXPECT_EQ(w.after, 2);
}

TEST(ConvOpsCommonTest, RejectsBadStrideDilationAndNegativeOutput) {
  int64_t out = 0, before = 0, after = 0;
  EXPECT_THAT(
      GetWindowedOutputSizeVerbose(5, 3, 1, 0, VALID, &out, &before, &after),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Stride must be > 0, but got 0")));
  EXPECT_THAT(
      GetWindowedOutputSizeVerbose(5, 3, 0, 1, VALID, &out, &before, &after),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Dilation rate must be >= 1, but got 0")));
  EXPECT_THAT(
      GetWindowedOutputSizeVerbose(2, 5, 1, 1, VALID, &out, &before, &after),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Computed output size would be negative: -2 "
                         "[input_size: 2, effective_filter_size: 5, "
                         "stride: 1]")));
}

TEST(ConvOpsCommonTest, Conv2DDimensionsForNchwAndGroups) {
  Conv2DParameters params;
  params.strides = {1, 1, 2, 1};
  params.dilations = {1, 1, 1, 1};
  params.padding = SAME;
  params.data_format = FORMAT_NCHW;
  Conv2DDimensions d;
  MF_ASSERT_OK(ComputeConv2DDimension(params, TensorShape({2, 6, 8, 10}),
                                      TensorShape({3, 3, 3, 4}), &d));
  EXPECT_EQ(d.batch, 2);
  EXPECT_EQ(d.in_depth, 6);
  EXPECT_EQ(d.input_rows, 8);
  EXPECT_EQ(d.input_cols, 10);
  EXPECT_EQ(d.patch_depth, 3);
  EXPECT_EQ(d.out_depth, 4);
  EXPECT_EQ(d.out_rows, 4);
  EXPECT_EQ(d.out_cols, 10);
  EXPECT_EQ(d.pad_rows_before, 0);
  EXPECT_EQ(d.pad_rows_after, 1);
  EXPECT_EQ(d.pad_cols_before, 1);
  EXPECT_EQ(d.pad_cols_after, 1);
}

TEST(ConvOpsCommonTest, PoolDimensionsAcrossDepth) {
  PoolParameters params;
  params.ksize = {1, 1, 1, 2};
  params.strides = {1, 1, 1, 2};
  params.padding = VALID;
  PoolDimensions d;
  MF_ASSERT_OK(ComputePoolDimensions(params, TensorShape({1, 3, 5, 8}), &d));
  EXPECT_EQ(d.depth_window, 2);
  EXPECT_EQ(d.out_rows, 3);
  EXPECT_EQ(d.out_cols, 5);
  EXPECT_EQ(d.out_depth, 4);
}

}  // namespace
}  // namespace minflow
