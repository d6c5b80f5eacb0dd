#include "minflow/core/tensor_shape.h"

#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/tensor_shape.pb.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

TEST(TensorShapeTest, CountsElementsAndPrintsTfNotation) {
  TensorShape s({2, 3, 4});
  EXPECT_EQ(s.dims(), 3);
  EXPECT_EQ(s.num_elements(), 24);
  EXPECT_EQ(s.DebugString(), "[2,3,4]");
  EXPECT_EQ(TensorShape().DebugString(), "[]");
  EXPECT_EQ(TensorShape().num_elements(), 1);
  EXPECT_EQ(TensorShape({5, 0}).num_elements(), 0);
}

TEST(TensorShapeTest, MutatorsKeepCountInStep) {
  TensorShape s;
  s.AddDim(2);
  s.AddDim(5);
  s.InsertDim(0, 3);
  EXPECT_EQ(s, TensorShape({3, 2, 5}));
  EXPECT_EQ(s.num_elements(), 30);
  s.set_dim(1, 4);
  EXPECT_EQ(s.num_elements(), 60);
  s.RemoveDim(0);
  EXPECT_EQ(s, TensorShape({4, 5}));
  s.AppendShape(TensorShape({2}));
  EXPECT_EQ(s.num_elements(), 40);
  s.RemoveLastDims(2);
  EXPECT_EQ(s, TensorShape({4}));
}

TEST(TensorShapeTest, RejectsNegativeDims) {
  TensorShape s;
  EXPECT_THAT(TensorShape::BuildTensorShape({2, -3}, &s),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Dimension 1 must be >= 0, but got -3")));
  EXPECT_THAT(s.AddDimWithStatus(-1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("-1")));
}

TEST(TensorShapeTest, RejectsElementCountOverflow) {
  TensorShape s;
  const int64_t big = int64_t{1} << 32;
  EXPECT_THAT(TensorShape::BuildTensorShape({big, big}, &s),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("overflows int64")));
  MF_EXPECT_OK(TensorShape::BuildTensorShape({big, big / 4}, &s));
  EXPECT_THAT(
      s.AddDimWithStatus(8),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("overflows")));
  // A zero dim anywhere makes the count zero, even next to huge dims.
  MF_EXPECT_OK(
      TensorShape::BuildTensorShape({std::numeric_limits<int64_t>::max(), 0,
                                     std::numeric_limits<int64_t>::max()},
                                    &s));
  EXPECT_EQ(s.num_elements(), 0);
}

TEST(TensorShapeTest, RejectsRankBeyondMaximum) {
  std::vector<int64_t> dims(kMaxTensorRank + 1, 1);
  TensorShape s;
  EXPECT_THAT(TensorShape::BuildTensorShape(dims, &s),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("too many dimensions")));
  dims.pop_back();
  MF_EXPECT_OK(TensorShape::BuildTensorShape(dims, &s));
}

TEST(TensorShapeTest, ProtoRoundTripAndValidation) {
  TensorShape s({7, 1, 3});
  TensorShapeProto proto;
  s.AsProto(&proto);
  TensorShape back;
  MF_ASSERT_OK(TensorShape::BuildTensorShape(proto, &back));
  EXPECT_EQ(back, s);

  proto.mutable_dim(1)->set_size(-1);
  EXPECT_FALSE(TensorShape::IsValid(proto));
  proto.Clear();
  proto.set_unknown_rank(true);
  EXPECT_THAT(
      TensorShape::IsValidShape(proto),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown rank")));
}

TEST(TensorShapeTest, MakeShapeFromInt32AndInt64) {
  TensorShape s;
  MF_ASSERT_OK(TensorShapeUtils::MakeShape(std::vector<int32_t>{2, 3}, &s));
  EXPECT_EQ(s, TensorShape({2, 3}));
  EXPECT_FALSE(TensorShapeUtils::MakeShape(std::vector<int64_t>{-2}, &s).ok());
  EXPECT_TRUE(TensorShapeUtils::IsMatrix(TensorShape({2, 3})));
  EXPECT_TRUE(TensorShapeUtils::IsScalar(TensorShape()));
  EXPECT_EQ(
      TensorShapeUtils::ShapeListString({TensorShape({1}), TensorShape()}),
      "[[1], []]");
}

TEST(PartialTensorShapeTest, UnknownRankAndDimsPrintAsQuestionMarks) {
  EXPECT_EQ(PartialTensorShape().DebugString(), "?");
  EXPECT_EQ(PartialTensorShape({2, -1}).DebugString(), "[2,?]");
  EXPECT_EQ(PartialTensorShape({}).DebugString(), "[]");
  EXPECT_EQ(PartialTensorShape().dims(), -1);
  EXPECT_EQ(PartialTensorShape({2, -1}).num_elements(), -1);
  EXPECT_EQ(PartialTensorShape({2, 3}).num_elements(), 6);
}

TEST(PartialTensorShapeTest, RejectsDimsBelowMinusOne) {
  PartialTensorShape p;
  EXPECT_THAT(PartialTensorShape::BuildPartialTensorShape({3, -2}, &p),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must be >= -1, but got -2")));
}

TEST(PartialTensorShapeTest, MergeNarrowsAndDetectsConflicts) {
  PartialTensorShape merged;
  MF_ASSERT_OK(PartialTensorShape({2, -1}).MergeWith(
      PartialTensorShape({-1, 3}), &merged));
  EXPECT_EQ(merged.DebugString(), "[2,3]");
  MF_ASSERT_OK(
      PartialTensorShape().MergeWith(PartialTensorShape({4}), &merged));
  EXPECT_EQ(merged.DebugString(), "[4]");
  EXPECT_FALSE(PartialTensorShape({2, 2})
                   .MergeWith(PartialTensorShape({1, 2}), &merged)
                   .ok());
  EXPECT_FALSE(PartialTensorShape({2})
                   .MergeWith(PartialTensorShape({2, 2}), &merged)
                   .ok());
}

TEST(PartialTensorShapeTest, Compatibility) {
  EXPECT_TRUE(
      PartialTensorShape({2, -1}).IsCompatibleWith(TensorShape({2, 9})));
  EXPECT_FALSE(
      PartialTensorShape({2, -1}).IsCompatibleWith(TensorShape({3, 9})));
  EXPECT_TRUE(PartialTensorShape().IsCompatibleWith(TensorShape({3, 9})));
  EXPECT_FALSE(PartialTensorShape({2}).IsCompatibleWith(TensorShape({2, 1})));
  EXPECT_EQ(PartialTensorShape({1})
                .Concatenate(PartialTensorShape({-1}))
                .DebugString(),
            "[1,?]");
  EXPECT_EQ(
      PartialTensorShape({1}).Concatenate(PartialTensorShape()).DebugString(),
      "?");
}

TEST(PartialTensorShapeTest, ProtoRoundTripKeepsUnknowns) {
  for (const PartialTensorShape& p :
       {PartialTensorShape(), PartialTensorShape({-1, 4}),
        PartialTensorShape({})}) {
    TensorShapeProto proto;
    p.AsProto(&proto);
    PartialTensorShape back({1});
    MF_ASSERT_OK(PartialTensorShape::BuildPartialTensorShape(proto, &back));
    EXPECT_TRUE(back.IsIdenticalTo(p)) << p.DebugString();
  }
  TensorShapeProto bad;
  bad.set_unknown_rank(true);
  bad.add_dim()->set_size(1);
  PartialTensorShape p;
  EXPECT_FALSE(PartialTensorShape::BuildPartialTensorShape(bad, &p).ok());
}

}  // namespace
}  // namespace minflow
