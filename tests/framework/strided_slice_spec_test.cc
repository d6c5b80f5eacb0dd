#include "minflow/framework/strided_slice_spec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using Values = std::vector<int64_t>;

// A spec in the user's (sparse) form; begin/end unset means unknown.
struct Spec {
  std::optional<Values> begin;
  std::optional<Values> end;
  Values strides;
  StridedSliceMasks masks;

  Spec& Begin(int32_t mask) {
    masks.begin_mask = mask;
    return *this;
  }
  Spec& End(int32_t mask) {
    masks.end_mask = mask;
    return *this;
  }
  Spec& Ellipsis(int32_t mask) {
    masks.ellipsis_mask = mask;
    return *this;
  }
  Spec& NewAxis(int32_t mask) {
    masks.new_axis_mask = mask;
    return *this;
  }
  Spec& Shrink(int32_t mask) {
    masks.shrink_axis_mask = mask;
    return *this;
  }
};

Spec Slice(Values begin, Values end, Values strides) {
  Spec s;
  s.begin = std::move(begin);
  s.end = std::move(end);
  s.strides = std::move(strides);
  return s;
}

// Strides only: begin and end unknown, as in shape inference.
Spec StridesOnly(Values strides) {
  Spec s;
  s.strides = std::move(strides);
  return s;
}

Status Validate(const PartialTensorShape& input, const Spec& spec,
                StridedSliceAnalysis* a) {
  std::optional<absl::Span<const int64_t>> begin;
  std::optional<absl::Span<const int64_t>> end;
  if (spec.begin.has_value()) begin = *spec.begin;
  if (spec.end.has_value()) end = *spec.end;
  return ValidateStridedSliceSpec(input, begin, end, spec.strides, spec.masks,
                                  a);
}

// The final shape of a valid spec, or the error message.
std::string FinalShape(const PartialTensorShape& input, const Spec& spec) {
  StridedSliceAnalysis a;
  const Status s = Validate(input, spec, &a);
  if (!s.ok()) return std::string(s.message());
  return a.final_shape.DebugString();
}

TEST(StridedSliceSpecTest, RangesWithPositiveStrides) {
  StridedSliceAnalysis a;
  // x[2:8:2, 0:20]
  MF_ASSERT_OK(Validate(PartialTensorShape({10, 20}),
                        Slice({2, 0}, {8, 20}, {2, 1}), &a));
  EXPECT_EQ(a.processing_shape.DebugString(), "[3,20]");
  EXPECT_EQ(a.final_shape.DebugString(), "[3,20]");
  EXPECT_THAT(a.begin, ElementsAre(2, 0));
  EXPECT_THAT(a.end, ElementsAre(8, 20));
  EXPECT_THAT(a.strides, ElementsAre(2, 1));
  EXPECT_FALSE(a.is_identity);
  EXPECT_FALSE(a.is_simple_slice);
  EXPECT_FALSE(a.slice_dim0);
  // A stride that does not divide the range rounds up.
  EXPECT_EQ(FinalShape(PartialTensorShape({10}), Slice({1}, {8}, {3})), "[3]");
}

TEST(StridedSliceSpecTest, NegativeIndicesCountFromTheEnd) {
  // x[-3:], x[-3:-1], x[:-8]
  EXPECT_EQ(FinalShape(PartialTensorShape({10}), Slice({-3}, {0}, {1}).End(1)),
            "[3]");
  StridedSliceAnalysis a;
  MF_ASSERT_OK(Validate(PartialTensorShape({10}), Slice({-3}, {-1}, {1}), &a));
  EXPECT_EQ(a.final_shape.DebugString(), "[2]");
  EXPECT_THAT(a.begin, ElementsAre(7));
  EXPECT_THAT(a.end, ElementsAre(9));
  EXPECT_EQ(
      FinalShape(PartialTensorShape({10}), Slice({0}, {-8}, {1}).Begin(1)),
      "[2]");
}

TEST(StridedSliceSpecTest, NegativeStridesWalkBackwards) {
  StridedSliceAnalysis a;
  // x[8:2:-2] takes 8, 6, 4.
  MF_ASSERT_OK(Validate(PartialTensorShape({10}), Slice({8}, {2}, {-2}), &a));
  EXPECT_EQ(a.final_shape.DebugString(), "[3]");
  // x[::-1]: masked bounds are the far ends, end one before the start.
  MF_ASSERT_OK(Validate(PartialTensorShape({10}),
                        Slice({0}, {0}, {-1}).Begin(1).End(1), &a));
  EXPECT_EQ(a.final_shape.DebugString(), "[10]");
  EXPECT_THAT(a.begin, ElementsAre(9));
  EXPECT_THAT(a.end, ElementsAre(-1));
  EXPECT_FALSE(a.is_identity);
  // x[-1:-11:-3] on 10: 9, 6, 3, 0.
  EXPECT_EQ(FinalShape(PartialTensorShape({10}), Slice({-1}, {-11}, {-3})),
            "[4]");
  // The most negative stride takes one element.
  EXPECT_EQ(
      FinalShape(PartialTensorShape({10}), Slice({9}, {0}, {INT64_MIN}).End(1)),
      "[1]");
}

TEST(StridedSliceSpecTest, OutOfRangeBoundsClampAndEmptyRangesAreZero) {
  StridedSliceAnalysis a;
  MF_ASSERT_OK(
      Validate(PartialTensorShape({10}), Slice({-100}, {100}, {1}), &a));
  EXPECT_EQ(a.final_shape.DebugString(), "[10]");
  EXPECT_THAT(a.begin, ElementsAre(0));
  EXPECT_THAT(a.end, ElementsAre(10));
  EXPECT_TRUE(a.is_identity);
  MF_ASSERT_OK(
      Validate(PartialTensorShape({10}), Slice({100}, {-100}, {-2}), &a));
  EXPECT_THAT(a.begin, ElementsAre(9));
  EXPECT_THAT(a.end, ElementsAre(-1));
  EXPECT_EQ(a.final_shape.DebugString(), "[5]");
  EXPECT_EQ(FinalShape(PartialTensorShape({10}), Slice({5}, {2}, {1})), "[0]");
  EXPECT_EQ(FinalShape(PartialTensorShape({10}), Slice({2}, {5}, {-1})), "[0]");
  EXPECT_EQ(FinalShape(PartialTensorShape({0, 3}), Slice({0}, {2}, {1})),
            "[0,3]");
  // Extreme values do not overflow.
  EXPECT_EQ(FinalShape(PartialTensorShape({10}),
                       Slice({INT64_MIN}, {INT64_MAX}, {INT64_MAX})),
            "[1]");
}

TEST(StridedSliceSpecTest, FewerIndicesThanDimsTakeTheRestWhole) {
  StridedSliceAnalysis a;
  MF_ASSERT_OK(
      Validate(PartialTensorShape({10, 20, 30}), Slice({1}, {3}, {1}), &a));
  EXPECT_EQ(a.final_shape.DebugString(), "[2,20,30]");
  EXPECT_THAT(a.begin, ElementsAre(1, 0, 0));
  EXPECT_THAT(a.end, ElementsAre(3, 20, 30));
  EXPECT_THAT(a.strides, ElementsAre(1, 1, 1));
  EXPECT_TRUE(a.is_simple_slice);
  EXPECT_TRUE(a.slice_dim0);
  EXPECT_FALSE(a.is_identity);
}

TEST(StridedSliceSpecTest, MasksIgnoreTheirValues) {
  // x[:, 2:] with nonsense values under the masks.
  EXPECT_EQ(FinalShape(PartialTensorShape({4, 5}),
                       Slice({99, 2}, {-99, 77}, {1, 1}).Begin(1).End(3)),
            "[4,3]");
  // Mask bits past the last index mean nothing.
  EXPECT_EQ(FinalShape(PartialTensorShape({4, 5}),
                       Slice({1}, {3}, {1}).Begin(0x7ffffff0).End(-16)),
            "[2,5]");
  StridedSliceAnalysis a;
  MF_ASSERT_OK(Validate(PartialTensorShape({4, 5}),
                        Slice({3, 3}, {1, 1}, {1, 1}).Begin(3).End(3), &a));
  EXPECT_TRUE(a.is_identity);
  EXPECT_TRUE(a.slice_dim0);
}

TEST(StridedSliceSpecTest, ShrinkTakesOneIndexAndDropsTheDim) {
  StridedSliceAnalysis a;
  // x[3]
  MF_ASSERT_OK(Validate(PartialTensorShape({10, 20}),
                        Slice({3}, {4}, {1}).Shrink(1), &a));
  EXPECT_EQ(a.processing_shape.DebugString(), "[1,20]");
  EXPECT_EQ(a.final_shape.DebugString(), "[20]");
  EXPECT_TRUE(a.slice_dim0);
  // x[-1, 2]: end values are ignored, begin -1 is the last element.
  MF_ASSERT_OK(Validate(PartialTensorShape({10, 20}),
                        Slice({-1, 2}, {0, 0}, {1, 1}).Shrink(3), &a));
  EXPECT_EQ(a.final_shape.DebugString(), "[]");
  EXPECT_THAT(a.begin, ElementsAre(9, 2));
  EXPECT_THAT(a.end, ElementsAre(10, 3));
  // A positive stride other than 1 is allowed and means nothing.
  EXPECT_EQ(
      FinalShape(PartialTensorShape({10}), Slice({4}, {0}, {3}).Shrink(1)),
      "[]");
  // Shrinking a dim of size 1 is a reshape.
  MF_ASSERT_OK(
      Validate(PartialTensorShape({1, 4}), Slice({0}, {1}, {1}).Shrink(1), &a));
  EXPECT_TRUE(a.is_identity);
}

TEST(StridedSliceSpecTest, NewAxisAddsADimOfOne) {
  // x[tf.newaxis, 1:3]
  EXPECT_EQ(FinalShape(PartialTensorShape({10}),
                       Slice({0, 1}, {0, 3}, {1, 1}).NewAxis(1)),
            "[1,2]");
  // A lone new axis on a scalar, and its values (even a zero stride) are
  // ignored.
  EXPECT_EQ(FinalShape(PartialTensorShape({}), Slice({7}, {7}, {0}).NewAxis(1)),
            "[1]");
  // An entry that is both shrink and new axis is a new axis.
  EXPECT_EQ(FinalShape(PartialTensorShape({4}),
                       Slice({9}, {9}, {1}).NewAxis(1).Shrink(1)),
            "[1,4]");
}

TEST(StridedSliceSpecTest, EllipsisStandsForTheUnnamedDims) {
  // x[..., 1:3]
  EXPECT_EQ(FinalShape(PartialTensorShape({4, 5, 6}),
                       Slice({0, 1}, {0, 3}, {1, 1}).Ellipsis(1)),
            "[4,5,2]");
  // x[..., tf.newaxis]: new axes after the ellipsis consume no dim.
  EXPECT_EQ(FinalShape(PartialTensorShape({4, 5}),
                       Slice({0, 0}, {0, 0}, {1, 1}).Ellipsis(1).NewAxis(2)),
            "[4,5,1]");
  // x[1, ..., 2]
  StridedSliceAnalysis a;
  MF_ASSERT_OK(Validate(
      PartialTensorShape({4, 5, 6, 7}),
      Slice({1, 0, 2}, {2, 0, 3}, {1, 1, 1}).Ellipsis(2).Shrink(5), &a));
  EXPECT_EQ(a.processing_shape.DebugString(), "[1,5,6,1]");
  EXPECT_EQ(a.final_shape.DebugString(), "[5,6]");
  EXPECT_THAT(a.begin, ElementsAre(1, 0, 0, 2));
  EXPECT_THAT(a.end, ElementsAre(2, 5, 6, 3));
  // An ellipsis covering no dim.
  EXPECT_EQ(FinalShape(PartialTensorShape({2, 3}),
                       Slice({0, 0, 0}, {1, 2, 0}, {1, 1, 1}).Ellipsis(4)),
            "[1,2]");
  // The ellipsis wins over a new axis on the same entry.
  EXPECT_EQ(FinalShape(PartialTensorShape({2, 3}),
                       Slice({0}, {0}, {1}).Ellipsis(1).NewAxis(1)),
            "[2,3]");
  // x[tf.newaxis, ..., 2]
  EXPECT_EQ(FinalShape(PartialTensorShape({2, 3, 4}),
                       Slice({0, 0, 2}, {0, 0, 3}, {1, 1, 1})
                           .NewAxis(1)
                           .Ellipsis(2)
                           .Shrink(4)),
            "[1,2,3]");
}

TEST(StridedSliceSpecTest, UnknownDimsStayUnknown) {
  StridedSliceAnalysis a;
  MF_ASSERT_OK(Validate(PartialTensorShape({-1, 20}),
                        Slice({1, 2}, {3, 5}, {1, 1}), &a));
  EXPECT_EQ(a.final_shape.DebugString(), "[?,3]");
  EXPECT_FALSE(a.is_identity);
  // A shrunk unknown dim is known to count 1; it is dropped anyway.
  MF_ASSERT_OK(Validate(PartialTensorShape({-1, 20}),
                        Slice({3}, {4}, {1}).Shrink(1), &a));
  EXPECT_EQ(a.processing_shape.DebugString(), "[1,20]");
  EXPECT_EQ(a.final_shape.DebugString(), "[20]");
}

TEST(StridedSliceSpecTest, UnknownBeginOrEndLeaveOnlyMaskedAndShrunkDims) {
  StridedSliceAnalysis a;
  MF_ASSERT_OK(Validate(PartialTensorShape({10, 20}), StridesOnly({1, 1}), &a));
  EXPECT_EQ(a.final_shape.DebugString(), "[?,?]");
  MF_ASSERT_OK(Validate(PartialTensorShape({10, 20, 6}),
                        StridesOnly({1, 1}).Begin(3).End(3), &a));
  EXPECT_EQ(a.final_shape.DebugString(), "[10,20,6]");
  EXPECT_TRUE(a.is_identity);
  // A masked range with stride -4 over 10 takes 3.
  MF_ASSERT_OK(Validate(PartialTensorShape({10}),
                        StridesOnly({-4}).Begin(1).End(1), &a));
  EXPECT_EQ(a.final_shape.DebugString(), "[3]");
  // Only one mask: unknown.
  EXPECT_EQ(FinalShape(PartialTensorShape({10}), StridesOnly({1}).Begin(1)),
            "[?]");
  // Begin known, end not: treated as both unknown.
  Spec s = StridesOnly({1});
  s.begin = Values{2};
  EXPECT_EQ(FinalShape(PartialTensorShape({10}), s), "[?]");
  // The earlier kernel-side test: masks, shrink and an unknown dim at once.
  MF_ASSERT_OK(Validate(PartialTensorShape({4, -1, 6}),
                        StridesOnly({1, 1, 2}).Begin(1).End(5).Shrink(2), &a));
  EXPECT_EQ(a.processing_shape.DebugString(), "[4,1,?]");
  EXPECT_EQ(a.final_shape.DebugString(), "[4,?]");
}

// ---- Every error --------------------------------------------------------

TEST(StridedSliceSpecTest, RejectsUnknownRank) {
  StridedSliceAnalysis a;
  EXPECT_THAT(Validate(PartialTensorShape(), StridesOnly({1}), &a),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Unexpected input_shape with unknown rank")));
}

TEST(StridedSliceSpecTest, RejectsIndicesOfDifferentLengths) {
  StridedSliceAnalysis a;
  EXPECT_THAT(
      Validate(PartialTensorShape({3, 3}), Slice({0, 0}, {1}, {1, 1}), &a),
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          HasSubstr("Expected begin, end, and strides to be 1D equal size "
                    "tensors, but got shapes [2], [1], and [2] instead.")));
  Spec s = StridesOnly({1, 1});
  s.end = Values{1, 2, 3};
  EXPECT_THAT(Validate(PartialTensorShape({3, 3}), s, &a),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("but got shapes ?, [3], and [2] instead.")));
}

TEST(StridedSliceSpecTest, RejectsThirtyTwoIndices) {
  StridedSliceAnalysis a;
  const PartialTensorShape input(std::vector<int64_t>(40, 1));
  MF_EXPECT_OK(Validate(input, StridesOnly(Values(31, 1)), &a));
  EXPECT_THAT(
      Validate(input, StridesOnly(Values(32, 1)), &a),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Expected begin, end, and strides to be 1D equal size "
                         "tensors of at most 31 elements (one bit of each "
                         "mask per element), but got 32 elements.")));
}

TEST(StridedSliceSpecTest, RejectsMultipleEllipses) {
  StridedSliceAnalysis a;
  EXPECT_THAT(
      Validate(PartialTensorShape({3, 3}),
               Slice({0, 0}, {0, 0}, {1, 1}).Ellipsis(3), &a),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Multiple ellipses in slice spec not allowed")));
  // Even when the second bit is past the last index.
  EXPECT_THAT(Validate(PartialTensorShape({3, 3}),
                       Slice({0}, {0}, {1}).Ellipsis(1 | (1 << 20)), &a),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Multiple ellipses")));
}

TEST(StridedSliceSpecTest, RejectsZeroStrideNamingTheUsersIndex) {
  StridedSliceAnalysis a;
  EXPECT_THAT(
      Validate(PartialTensorShape({3, 3}), Slice({0, 0}, {1, 1}, {1, 0}), &a),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("strides[1] must be non-zero")));
  // x[..., 0:1:0] on a rank-3 input: entry 1 of strides, dim 2 of the input.
  EXPECT_THAT(Validate(PartialTensorShape({3, 3, 3}),
                       Slice({0, 0}, {0, 1}, {1, 0}).Ellipsis(1), &a),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("strides[1] must be non-zero")));
  // Also when the dim is unknown, or begin and end are.
  EXPECT_THAT(Validate(PartialTensorShape({-1}), StridesOnly({0}), &a),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("strides[0] must be non-zero")));
}

TEST(StridedSliceSpecTest, RejectsShrinkOutOfBounds) {
  StridedSliceAnalysis a;
  EXPECT_THAT(
      Validate(PartialTensorShape({10}), Slice({12}, {13}, {1}).Shrink(1), &a),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("slice index 12 of dimension 0 out of "
                         "bounds.")));
  EXPECT_THAT(
      Validate(PartialTensorShape({10}), Slice({10}, {11}, {1}).Shrink(1), &a),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("slice index 10 of dimension 0")));
  // The message repeats the index the user wrote, not its forward form.
  EXPECT_THAT(Validate(PartialTensorShape({4, 3}),
                       Slice({0, -4}, {1, 0}, {1, 1}).Shrink(2), &a),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("slice index -4 of dimension 1 out of "
                                 "bounds.")));
  // Nothing is in bounds in an empty dim.
  EXPECT_THAT(
      Validate(PartialTensorShape({0}), Slice({0}, {1}, {1}).Shrink(1), &a),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("slice index 0 of dimension 0 out of "
                         "bounds.")));
}

TEST(StridedSliceSpecTest, RejectsShrinkWithNegativeStride) {
  StridedSliceAnalysis a;
  EXPECT_THAT(
      Validate(PartialTensorShape({10}), Slice({1}, {2}, {-1}).Shrink(1), &a),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("only stride 1 allowed on non-range "
                         "indexing.")));
  // Whatever is known about the dim or the bounds.
  EXPECT_THAT(
      Validate(PartialTensorShape({-1}), StridesOnly({-1}).Shrink(1), &a),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("only stride 1 allowed")));
}

TEST(StridedSliceSpecTest, RejectsSlicingAScalar) {
  StridedSliceAnalysis a;
  EXPECT_THAT(Validate(PartialTensorShape({}), Slice({0}, {1}, {1}), &a),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Attempting to slice scalar input.")));
}

TEST(StridedSliceSpecTest, RejectsMoreIndicesThanDims) {
  StridedSliceAnalysis a;
  EXPECT_THAT(Validate(PartialTensorShape({4, 5}),
                       Slice({1, 2, 3}, {2, 3, 4}, {1, 1, 1}), &a),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Index out of range using input dim 2; input "
                                 "has only 2 dims")));
  // With an ellipsis too: it then covers no dim.
  EXPECT_THAT(
      Validate(PartialTensorShape({4, 5}),
               Slice({0, 1, 2, 3}, {0, 2, 3, 4}, {1, 1, 1, 1}).Ellipsis(1), &a),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Index out of range using input dim 2")));
}

TEST(StridedSliceSpecTest, RejectsAnOutputOfTooManyDims) {
  StridedSliceAnalysis a;
  const PartialTensorShape input(std::vector<int64_t>(kMaxTensorRank, 1));
  MF_EXPECT_OK(Validate(input, StridesOnly({1}), &a));
  EXPECT_THAT(Validate(input, Slice({0}, {0}, {1}).NewAxis(1), &a),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// ---- The tensor form --------------------------------------------------------

TEST(ValidateStridedSliceOpTest, ReadsEveryIndexType) {
  StridedSliceAnalysis a;
  const Tensor begin16 = test::AsTensor<int16_t>({-3});
  const Tensor end16 = test::AsTensor<int16_t>({0});
  const Tensor strides16 = test::AsTensor<int16_t>({1});
  MF_ASSERT_OK(ValidateStridedSliceOp(&begin16, &end16, strides16,
                                      PartialTensorShape({10}), 0, 1, 0, 0, 0,
                                      &a));
  EXPECT_EQ(a.final_shape.DebugString(), "[3]");
  const Tensor begin32 = test::AsTensor<int32_t>({1, 0});
  const Tensor end32 = test::AsTensor<int32_t>({2, 0});
  const Tensor strides32 = test::AsTensor<int32_t>({1, 1});
  MF_ASSERT_OK(ValidateStridedSliceOp(&begin32, &end32, strides32,
                                      PartialTensorShape({4, 5}), 0, 2, 0, 0, 1,
                                      &a));
  EXPECT_EQ(a.final_shape.DebugString(), "[5]");
  const Tensor begin64 = test::AsTensor<int64_t>({INT64_MAX});
  const Tensor end64 = test::AsTensor<int64_t>({0});
  const Tensor strides64 = test::AsTensor<int64_t>({-1});
  MF_ASSERT_OK(ValidateStridedSliceOp(&begin64, &end64, strides64,
                                      PartialTensorShape({10}), 0, 0, 0, 0, 0,
                                      &a));
  EXPECT_EQ(a.final_shape.DebugString(), "[9]");
}

TEST(ValidateStridedSliceOpTest, HandlesUnknownBeginEndAndDims) {
  // Shape inference may know neither begin nor end; masked ranges and
  // shrinks still have known sizes.
  const Tensor strides = test::AsTensor<int32_t>({1, 1, 2});
  StridedSliceAnalysis a;
  MF_ASSERT_OK(ValidateStridedSliceOp(nullptr, nullptr, strides,
                                      PartialTensorShape({4, -1, 6}),
                                      /*begin_mask=*/1, /*end_mask=*/5,
                                      /*ellipsis_mask=*/0,
                                      /*new_axis_mask=*/0,
                                      /*shrink_axis_mask=*/2, &a));
  EXPECT_EQ(a.processing_shape.DebugString(), "[4,1,?]");
  EXPECT_EQ(a.final_shape.DebugString(), "[4,?]");
  EXPECT_THAT(ValidateStridedSliceOp(nullptr, nullptr, strides,
                                     PartialTensorShape(), 0, 0, 0, 0, 0, &a),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Unexpected input_shape with unknown "
                                 "rank")));
  const Tensor matrix = test::AsTensor<int32_t>({1, 1}, TensorShape({1, 2}));
  EXPECT_THAT(
      ValidateStridedSliceOp(nullptr, nullptr, matrix, PartialTensorShape({4}),
                             0, 0, 0, 0, 0, &a),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("but got shape [1,2] for strides.")));
}

TEST(ValidateStridedSliceOpTest, RejectsIndexTensorsThatAreNotVectors) {
  StridedSliceAnalysis a;
  const Tensor scalar = test::AsScalar<int32_t>(0);
  const Tensor vector = test::AsTensor<int32_t>({1});
  EXPECT_THAT(
      ValidateStridedSliceOp(&scalar, &vector, vector, PartialTensorShape({4}),
                             0, 0, 0, 0, 0, &a),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Expected begin, end, and strides to be 1D "
                         "equal size tensors, but got shapes [], [1], "
                         "and [1] instead.")));
  EXPECT_THAT(
      ValidateStridedSliceOp(nullptr, &scalar, vector, PartialTensorShape({4}),
                             0, 0, 0, 0, 0, &a),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("but got shapes ?, [], and [1] instead.")));
}

TEST(ValidateStridedSliceOpTest, RejectsOtherIndexTypes) {
  StridedSliceAnalysis a;
  const Tensor ints = test::AsTensor<int32_t>({1});
  const Tensor floats = test::AsTensor<float>({1.0f});
  EXPECT_THAT(
      ValidateStridedSliceOp(&ints, &ints, floats, PartialTensorShape({4}), 0,
                             0, 0, 0, 0, &a),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("strides must be int32 or int64, but got "
                         "float")));
  EXPECT_THAT(
      ValidateStridedSliceOp(&floats, &ints, ints, PartialTensorShape({4}), 0,
                             0, 0, 0, 0, &a),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("begin must be int32 or int64")));
  EXPECT_THAT(
      ValidateStridedSliceOp(&ints, &floats, ints, PartialTensorShape({4}), 0,
                             0, 0, 0, 0, &a),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("end must be int32 or int64")));
}

}  // namespace
}  // namespace minflow
