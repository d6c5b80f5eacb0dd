#include "minflow/framework/shape_inference.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op_def_builder.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"
#include "minflow/tensor_shape.pb.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace shape_inference {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr int kVersion = 2100;

// An op with `num_inputs` float inputs and `num_outputs` float outputs.
OpDef MakeOpDef(int num_inputs, int num_outputs) {
  OpDefBuilder b("ShapeTest");
  for (int i = 0; i < num_inputs; ++i)
    b.Input(absl::StrCat("in", i, ": float"));
  for (int i = 0; i < num_outputs; ++i) {
    b.Output(absl::StrCat("out", i, ": float"));
  }
  b.Attr("flag: bool = false");
  OpRegistrationData data;
  MF_CHECK_OK(b.Finalize(&data));
  return data.op_def;
}

NodeDef MakeNodeDef(int num_inputs) {
  NodeDef n;
  n.set_name("n");
  n.set_op("ShapeTest");
  for (int i = 0; i < num_inputs; ++i) n.add_input(absl::StrCat("x", i));
  AddNodeAttr("flag", true, &n);
  return n;
}

PartialTensorShape S(std::initializer_list<int64_t> dims) {
  return PartialTensorShape(dims);
}
PartialTensorShape Unknown() { return PartialTensorShape(); }

// Owns the NodeDef/OpDef a context points to.
class ShapeInferenceTest : public ::testing::Test {
 protected:
  std::unique_ptr<InferenceContext> Make(
      std::vector<PartialTensorShape> inputs, int num_outputs = 1,
      std::vector<const Tensor*> tensors = {}) {
    op_def_ = MakeOpDef(static_cast<int>(inputs.size()), num_outputs);
    node_def_ = MakeNodeDef(static_cast<int>(inputs.size()));
    return std::make_unique<InferenceContext>(kVersion, node_def_, op_def_,
                                              inputs, tensors);
  }

  OpDef op_def_;
  NodeDef node_def_;
};

// ---- Merge
// -------------------------------------------------------------------

TEST_F(ShapeInferenceTest, MergeSameHandleReturnsIt) {
  auto c = Make({S({2, -1})});
  ShapeHandle out;
  MF_ASSERT_OK(c->Merge(c->input(0), c->input(0), &out));
  EXPECT_TRUE(out.SameHandle(c->input(0)));
}

TEST_F(ShapeInferenceTest, MergeWithUnknownReturnsOtherHandle) {
  auto c = Make({Unknown(), S({2, -1})});
  ShapeHandle out;
  MF_ASSERT_OK(c->Merge(c->input(0), c->input(1), &out));
  EXPECT_TRUE(out.SameHandle(c->input(1)));
  MF_ASSERT_OK(c->Merge(c->input(1), c->input(0), &out));
  EXPECT_TRUE(out.SameHandle(c->input(1)));
}

TEST_F(ShapeInferenceTest, MergeKnownWithUnknownDimKeepsKnown) {
  // [2,?] with [?,2] -> a new [2,2] made of the two known dim objects.
  auto c = Make({S({2, -1}), S({-1, 2})});
  ShapeHandle out;
  MF_ASSERT_OK(c->Merge(c->input(0), c->input(1), &out));
  EXPECT_EQ("[2,2]", c->DebugString(out));
  EXPECT_FALSE(out.SameHandle(c->input(0)));
  EXPECT_FALSE(out.SameHandle(c->input(1)));
  EXPECT_TRUE(c->Dim(out, 0).SameHandle(c->Dim(c->input(0), 0)));
  EXPECT_TRUE(c->Dim(out, 1).SameHandle(c->Dim(c->input(1), 1)));
}

TEST_F(ShapeInferenceTest, MergeMoreInformativeSideReturnsThatHandle) {
  auto c = Make({S({2, 3}), S({-1, 3}), S({2, 3})});
  ShapeHandle out;
  MF_ASSERT_OK(c->Merge(c->input(0), c->input(1), &out));
  EXPECT_TRUE(out.SameHandle(c->input(0)));
  MF_ASSERT_OK(c->Merge(c->input(1), c->input(0), &out));
  EXPECT_TRUE(out.SameHandle(c->input(0)));
  // Equal values everywhere: the first handle.
  MF_ASSERT_OK(c->Merge(c->input(0), c->input(2), &out));
  EXPECT_TRUE(out.SameHandle(c->input(0)));
  MF_ASSERT_OK(c->Merge(c->input(2), c->input(0), &out));
  EXPECT_TRUE(out.SameHandle(c->input(2)));
}

TEST_F(ShapeInferenceTest, MergeBothUnknownDimsKeepsFirst) {
  auto c = Make({S({-1}), S({-1})});
  ShapeHandle out;
  MF_ASSERT_OK(c->Merge(c->input(0), c->input(1), &out));
  EXPECT_TRUE(out.SameHandle(c->input(0)));
}

TEST_F(ShapeInferenceTest, MergeDisagreeingDimsFails) {
  auto c = Make({S({2, 2}), S({1, 2})});
  ShapeHandle out;
  EXPECT_THAT(c->Merge(c->input(0), c->input(1), &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Dimension 0 in both shapes must be equal, "
                                 "but are 2 and 1")));
  EXPECT_FALSE(out.IsSet());
}

TEST_F(ShapeInferenceTest, MergeDisagreeingRanksFails) {
  auto c = Make({S({2}), S({2, 2})});
  ShapeHandle out;
  EXPECT_THAT(
      c->Merge(c->input(0), c->input(1), &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Shapes must be equal rank, but are 1 and 2")));
}

TEST_F(ShapeInferenceTest, MergeDims) {
  auto c = Make({S({2, -1, 2, 3})});
  const ShapeHandle s = c->input(0);
  const DimensionHandle two = c->Dim(s, 0);
  const DimensionHandle unknown = c->Dim(s, 1);
  const DimensionHandle other_two = c->Dim(s, 2);
  DimensionHandle out;
  MF_ASSERT_OK(c->Merge(two, unknown, &out));
  EXPECT_TRUE(out.SameHandle(two));
  MF_ASSERT_OK(c->Merge(unknown, two, &out));
  EXPECT_TRUE(out.SameHandle(two));
  MF_ASSERT_OK(c->Merge(two, other_two, &out));
  EXPECT_TRUE(out.SameHandle(two));
  MF_ASSERT_OK(c->Merge(unknown, unknown, &out));
  EXPECT_TRUE(out.SameHandle(unknown));
  EXPECT_THAT(c->Merge(two, c->Dim(s, 3), &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Dimensions must be equal, but are 2 and 3")));
}

TEST_F(ShapeInferenceTest, MergePrefix) {
  auto c = Make({S({-1, 3, 4}), S({2, -1}), S({5})});
  ShapeHandle s_out;
  ShapeHandle prefix_out;
  MF_ASSERT_OK(c->MergePrefix(c->input(0), c->input(1), &s_out, &prefix_out));
  EXPECT_EQ("[2,3,4]", c->DebugString(s_out));
  EXPECT_EQ("[2,3]", c->DebugString(prefix_out));
  EXPECT_TRUE(c->Dim(s_out, 0).SameHandle(c->Dim(c->input(1), 0)));
  EXPECT_TRUE(c->Dim(s_out, 2).SameHandle(c->Dim(c->input(0), 2)));
  EXPECT_THAT(
      c->MergePrefix(c->input(0), c->MakeShape({2, 7}), &s_out, &prefix_out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Dimensions must be equal, but are 3 and 7")));
  // A prefix longer than the shape.
  EXPECT_THAT(c->MergePrefix(c->input(2), c->input(1), &s_out, &prefix_out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Shape must be at least rank 2 but is rank "
                                 "1")));
}

// ---- Relax
// -------------------------------------------------------------------

TEST_F(ShapeInferenceTest, RelaxExamplesFromTheIssue) {
  auto c = Make({S({2, -1}), S({-1, 2}), S({2, 2}), S({3, 2}), S({1, 2, 3})});
  ShapeHandle out;
  c->Relax(c->input(0), c->input(1), &out);
  EXPECT_EQ("[?,?]", c->DebugString(out));
  c->Relax(c->input(2), c->input(3), &out);
  EXPECT_EQ("[?,2]", c->DebugString(out));
  EXPECT_TRUE(c->Dim(out, 1).SameHandle(c->Dim(c->input(2), 1)));
  c->Relax(c->input(2), c->input(4), &out);
  EXPECT_EQ("?", c->DebugString(out));
}

TEST_F(ShapeInferenceTest, RelaxIdenticalReturnsOldHandle) {
  auto c = Make({S({2, 3}), S({2, 3}), Unknown()});
  ShapeHandle out;
  c->Relax(c->input(0), c->input(1), &out);
  EXPECT_TRUE(out.SameHandle(c->input(0)));
  c->Relax(c->input(0), c->input(0), &out);
  EXPECT_TRUE(out.SameHandle(c->input(0)));
  c->Relax(c->input(2), c->input(2), &out);
  EXPECT_TRUE(out.SameHandle(c->input(2)));
}

TEST_F(ShapeInferenceTest, RelaxWithUnknownIsUnknown) {
  auto c = Make({S({2, 3}), Unknown()});
  ShapeHandle out;
  c->Relax(c->input(0), c->input(1), &out);
  EXPECT_FALSE(c->RankKnown(out));
  c->Relax(c->input(1), c->input(0), &out);
  EXPECT_FALSE(c->RankKnown(out));
}

TEST_F(ShapeInferenceTest, RelaxUnknownDimsMakeNewUnknown) {
  // Two distinct unknown dims are not known to be equal.
  auto c = Make({S({-1}), S({-1})});
  ShapeHandle out;
  c->Relax(c->input(0), c->input(1), &out);
  EXPECT_EQ("[?]", c->DebugString(out));
  EXPECT_FALSE(c->Dim(out, 0).SameHandle(c->Dim(c->input(0), 0)));
}

TEST_F(ShapeInferenceTest, RelaxDims) {
  auto c = Make({S({2, 2, 3, -1})});
  const ShapeHandle s = c->input(0);
  DimensionHandle out;
  c->Relax(c->Dim(s, 0), c->Dim(s, 1), &out);
  EXPECT_TRUE(out.SameHandle(c->Dim(s, 0)));
  c->Relax(c->Dim(s, 0), c->Dim(s, 2), &out);
  EXPECT_FALSE(c->ValueKnown(out));
  c->Relax(c->Dim(s, 3), c->Dim(s, 3), &out);
  EXPECT_TRUE(out.SameHandle(c->Dim(s, 3)));
  c->Relax(c->Dim(s, 0), c->Dim(s, 3), &out);
  EXPECT_FALSE(c->ValueKnown(out));
}

TEST_F(ShapeInferenceTest, MergeInputAndRelaxInput) {
  auto c = Make({S({-1, 2})});
  const ShapeHandle original = c->input(0);
  const ShapeHandle narrower = c->MakeShape({3, 2});
  EXPECT_TRUE(c->MergeInput(0, narrower));
  EXPECT_TRUE(c->input(0).SameHandle(narrower));
  EXPECT_FALSE(c->MergeInput(0, c->MakeShape({4, 2})));
  EXPECT_TRUE(c->input(0).SameHandle(narrower));
  EXPECT_FALSE(c->RelaxInput(0, narrower));
  EXPECT_TRUE(c->RelaxInput(0, original));
  EXPECT_EQ("[?,2]", c->DebugString(c->input(0)));
}

// ---- Ranks and values
// ----------------------------------------------------------

TEST_F(ShapeInferenceTest, WithRank) {
  auto c = Make({S({1, 2}), Unknown()});
  ShapeHandle out;
  MF_ASSERT_OK(c->WithRank(c->input(0), 2, &out));
  EXPECT_TRUE(out.SameHandle(c->input(0)));
  MF_ASSERT_OK(c->WithRank(c->input(1), 3, &out));
  EXPECT_EQ("[?,?,?]", c->DebugString(out));
  EXPECT_THAT(c->WithRank(c->input(0), 1, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Shape must be rank 1 but is rank 2")));
  EXPECT_FALSE(out.IsSet());
  EXPECT_THAT(c->WithRank(c->input(1), 100000, &out),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(ShapeInferenceTest, WithRankAtLeastAndAtMost) {
  auto c = Make({S({1, 2}), Unknown()});
  ShapeHandle out;
  MF_ASSERT_OK(c->WithRankAtLeast(c->input(0), 2, &out));
  EXPECT_TRUE(out.SameHandle(c->input(0)));
  MF_ASSERT_OK(c->WithRankAtLeast(c->input(0), 0, &out));
  EXPECT_TRUE(out.SameHandle(c->input(0)));
  MF_ASSERT_OK(c->WithRankAtLeast(c->input(1), 2, &out));
  EXPECT_FALSE(c->RankKnown(out));
  EXPECT_THAT(
      c->WithRankAtLeast(c->input(0), 3, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Shape must be at least rank 3 but is rank 2")));
  MF_ASSERT_OK(c->WithRankAtMost(c->input(0), 2, &out));
  EXPECT_TRUE(out.SameHandle(c->input(0)));
  MF_ASSERT_OK(c->WithRankAtMost(c->input(1), 2, &out));
  EXPECT_FALSE(c->RankKnown(out));
  EXPECT_THAT(
      c->WithRankAtMost(c->input(0), 1, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Shape must be at most rank 1 but is rank 2")));
}

TEST_F(ShapeInferenceTest, WithValue) {
  auto c = Make({S({2, -1})});
  DimensionHandle out;
  MF_ASSERT_OK(c->WithValue(c->Dim(c->input(0), 0), 2, &out));
  EXPECT_TRUE(out.SameHandle(c->Dim(c->input(0), 0)));
  MF_ASSERT_OK(c->WithValue(c->Dim(c->input(0), 1), 5, &out));
  EXPECT_EQ(5, c->Value(out));
  EXPECT_THAT(c->WithValue(c->Dim(c->input(0), 0), 3, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Dimension must be 3 but is 2")));
}

TEST_F(ShapeInferenceTest, Accessors) {
  auto c = Make({S({2, -1, 3}), Unknown(), S({})});
  EXPECT_EQ(3, c->num_inputs());
  EXPECT_EQ(1, c->num_outputs());
  EXPECT_EQ(3, InferenceContext::Rank(c->input(0)));
  EXPECT_EQ(InferenceContext::kUnknownRank,
            InferenceContext::Rank(c->input(1)));
  EXPECT_TRUE(InferenceContext::RankKnown(c->input(2)));
  EXPECT_FALSE(c->FullyDefined(c->input(0)));
  EXPECT_FALSE(c->FullyDefined(c->input(1)));
  EXPECT_TRUE(c->FullyDefined(c->input(2)));
  EXPECT_EQ(2, c->Value(c->Dim(c->input(0), 0)));
  EXPECT_TRUE(c->Dim(c->input(0), -1).SameHandle(c->Dim(c->input(0), 2)));
  EXPECT_FALSE(c->ValueKnown(c->Dim(c->input(0), 1)));
  EXPECT_FALSE(c->ValueKnown(c->Dim(c->input(1), 7)));
  EXPECT_EQ(-1, InferenceContext::Value(DimensionOrConstant(-1)));
  EXPECT_EQ(7, InferenceContext::Value(DimensionOrConstant(7)));
  EXPECT_EQ("[2,?,3]", c->DebugString(c->input(0)));
  EXPECT_EQ("?", c->DebugString(c->input(1)));
  EXPECT_EQ("[]", c->DebugString(c->input(2)));
  EXPECT_EQ("?", c->DebugString(c->Dim(c->input(0), 1)));
  EXPECT_EQ("ShapeTest", c->op());
  EXPECT_THAT(c->DebugString(), HasSubstr("{{node n}} = ShapeTest"));
}

TEST_F(ShapeInferenceTest, NumElements) {
  auto c = Make({S({2, 3, 4}), S({2, -1}), Unknown(), S({})});
  EXPECT_EQ(24, c->Value(c->NumElements(c->input(0))));
  EXPECT_FALSE(c->ValueKnown(c->NumElements(c->input(1))));
  EXPECT_FALSE(c->ValueKnown(c->NumElements(c->input(2))));
  EXPECT_EQ(1, c->Value(c->NumElements(c->input(3))));
}

TEST_F(ShapeInferenceTest, NumElementsOverflowFailsRun) {
  const int64_t big = int64_t{1} << 40;
  auto c = Make({S({big, big})});
  const Status s = c->Run([](InferenceContext* c) {
    c->set_output(0, c->Vector(c->NumElements(c->input(0))));
    return OkStatus();
  });
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          AllOf(HasSubstr("Element count overflow"),
                                HasSubstr("{{node n}}"))));
}

// ---- Building shapes
// -------------------------------------------------------------

TEST_F(ShapeInferenceTest, Subshape) {
  auto c = Make({S({1, 2, 3, -1, 5}), Unknown()});
  const ShapeHandle s = c->input(0);
  ShapeHandle out;
  MF_ASSERT_OK(c->Subshape(s, 0, &out));
  EXPECT_TRUE(out.SameHandle(s));
  MF_ASSERT_OK(c->Subshape(s, 0, 5, &out));
  EXPECT_TRUE(out.SameHandle(s));
  MF_ASSERT_OK(c->Subshape(s, 1, &out));
  EXPECT_EQ("[2,3,?,5]", c->DebugString(out));
  EXPECT_TRUE(c->Dim(out, 0).SameHandle(c->Dim(s, 1)));
  MF_ASSERT_OK(c->Subshape(s, 1, 3, &out));
  EXPECT_EQ("[2,3]", c->DebugString(out));
  MF_ASSERT_OK(c->Subshape(s, -2, &out));
  EXPECT_EQ("[?,5]", c->DebugString(out));
  MF_ASSERT_OK(c->Subshape(s, 0, -2, &out));
  EXPECT_EQ("[1,2,3]", c->DebugString(out));
  MF_ASSERT_OK(c->Subshape(s, 3, 100, &out));
  EXPECT_EQ("[?,5]", c->DebugString(out));
  MF_ASSERT_OK(c->Subshape(s, 5, &out));
  EXPECT_EQ("[]", c->DebugString(out));
  MF_ASSERT_OK(c->Subshape(s, 0, 5, 2, &out));
  EXPECT_EQ("[1,3,5]", c->DebugString(out));
  MF_ASSERT_OK(c->Subshape(s, -1, -6, -1, &out));
  EXPECT_EQ("[5,?,3,2,1]", c->DebugString(out));
  MF_ASSERT_OK(c->Subshape(c->input(1), 1, 3, &out));
  EXPECT_FALSE(c->RankKnown(out));
  EXPECT_THAT(c->Subshape(s, -6, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Subshape start out of bounds: -6")));
  EXPECT_THAT(c->Subshape(s, 0, -6, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Subshape end out of bounds: -6")));
  EXPECT_THAT(c->Subshape(s, 3, 2, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Subshape must have computed start <= end")));
  EXPECT_THAT(c->Subshape(s, 0, 2, 0, &out),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(ShapeInferenceTest, ConcatenateKeepsDims) {
  auto c = Make({S({1, -1}), S({3}), Unknown()});
  ShapeHandle out;
  MF_ASSERT_OK(c->Concatenate(c->input(0), c->input(1), &out));
  EXPECT_EQ("[1,?,3]", c->DebugString(out));
  EXPECT_TRUE(c->Dim(out, 1).SameHandle(c->Dim(c->input(0), 1)));
  EXPECT_TRUE(c->Dim(out, 2).SameHandle(c->Dim(c->input(1), 0)));
  MF_ASSERT_OK(c->Concatenate(c->input(0), c->input(2), &out));
  EXPECT_FALSE(c->RankKnown(out));
}

TEST_F(ShapeInferenceTest, ConcatenateBeyondMaxRankFails) {
  auto c = Make({});
  const ShapeHandle big = c->UnknownShapeOfRank(200);
  ShapeHandle out;
  EXPECT_THAT(c->Concatenate(big, big, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("beyond the maximum")));
}

TEST_F(ShapeInferenceTest, ReplaceDim) {
  auto c = Make({S({1, 2, 3}), Unknown()});
  const DimensionHandle d = c->MakeDim(9);
  ShapeHandle out;
  MF_ASSERT_OK(c->ReplaceDim(c->input(0), 1, d, &out));
  EXPECT_EQ("[1,9,3]", c->DebugString(out));
  EXPECT_TRUE(c->Dim(out, 1).SameHandle(d));
  EXPECT_TRUE(c->Dim(out, 0).SameHandle(c->Dim(c->input(0), 0)));
  MF_ASSERT_OK(c->ReplaceDim(c->input(0), -1, d, &out));
  EXPECT_EQ("[1,2,9]", c->DebugString(out));
  MF_ASSERT_OK(c->ReplaceDim(c->input(1), 0, d, &out));
  EXPECT_FALSE(c->RankKnown(out));
  EXPECT_THAT(c->ReplaceDim(c->input(0), 3, d, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Out of range dim_index 3")));
  EXPECT_THAT(c->ReplaceDim(c->input(0), -4, d, &out),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(ShapeInferenceTest, Constructors) {
  auto c = Make({S({4})});
  EXPECT_EQ("[]", c->DebugString(c->Scalar()));
  EXPECT_EQ("[3]", c->DebugString(c->Vector(3)));
  EXPECT_EQ("[?]", c->DebugString(c->Vector(InferenceContext::kUnknownDim)));
  const DimensionHandle d = c->Dim(c->input(0), 0);
  const ShapeHandle m = c->Matrix(d, 5);
  EXPECT_EQ("[4,5]", c->DebugString(m));
  EXPECT_TRUE(c->Dim(m, 0).SameHandle(d));
  EXPECT_EQ("[4,?,2]", c->DebugString(c->MakeShape({d, c->UnknownDim(), 2})));
  EXPECT_EQ("[4]",
            c->DebugString(c->MakeShape(std::vector<DimensionHandle>{d})));
  EXPECT_EQ("?", c->DebugString(c->UnknownShape()));
  EXPECT_EQ("[?,?]", c->DebugString(c->UnknownShapeOfRank(2)));
  EXPECT_EQ("?", c->DebugString(c->UnknownShapeOfRank(-1)));
  EXPECT_TRUE(c->MakeDim(d).SameHandle(d));
  EXPECT_FALSE(c->UnknownDim().SameHandle(c->UnknownDim()));
  // Every call makes a new object.
  EXPECT_FALSE(c->Scalar().SameHandle(c->Scalar()));
  EXPECT_FALSE(c->UnknownShape().SameHandle(c->UnknownShape()));
}

TEST_F(ShapeInferenceTest, MakeShapeFromProtoAndPartialShape) {
  auto c = Make({});
  TensorShapeProto proto;
  proto.add_dim()->set_size(2);
  proto.add_dim()->set_size(-1);
  ShapeHandle out;
  MF_ASSERT_OK(c->MakeShapeFromShapeProto(proto, &out));
  EXPECT_EQ("[2,?]", c->DebugString(out));
  proto.set_unknown_rank(true);
  proto.clear_dim();
  MF_ASSERT_OK(c->MakeShapeFromShapeProto(proto, &out));
  EXPECT_EQ("?", c->DebugString(out));
  TensorShapeProto bad;
  bad.add_dim()->set_size(-7);
  EXPECT_THAT(c->MakeShapeFromShapeProto(bad, &out),
              StatusIs(absl::StatusCode::kInvalidArgument));
  MF_ASSERT_OK(c->MakeShapeFromPartialTensorShape(S({-1, 3}), &out));
  EXPECT_EQ("[?,3]", c->DebugString(out));
  MF_ASSERT_OK(c->MakeShapeFromTensorShape(TensorShape({4, 5}), &out));
  EXPECT_EQ("[4,5]", c->DebugString(out));
  EXPECT_TRUE(c->AsPartialTensorShape(out).IsIdenticalTo(S({4, 5})));
  EXPECT_TRUE(c->AsPartialTensorShape(c->UnknownShape())
                  .IsIdenticalTo(PartialTensorShape()));
}

// ---- Shape tensors
// ------------------------------------------------------------------

TEST_F(ShapeInferenceTest, MakeShapeFromShapeTensor) {
  const Tensor t = test::AsTensor<int32_t>({2, -1, 3});
  auto c = Make({S({3})}, 1, {&t});
  ShapeHandle out;
  MF_ASSERT_OK(c->MakeShapeFromShapeTensor(0, &out));
  EXPECT_EQ("[2,?,3]", c->DebugString(out));
  EXPECT_TRUE(c->requested_input_tensor(0));
  EXPECT_TRUE(c->requested_input_tensor_as_partial_shape(0));
}

TEST_F(ShapeInferenceTest, MakeShapeFromShapeTensorInt64) {
  const Tensor t = test::AsTensor<int64_t>({int64_t{1} << 40, 0});
  auto c = Make({S({2})}, 1, {&t});
  ShapeHandle out;
  MF_ASSERT_OK(c->MakeShapeFromShapeTensor(0, &out));
  EXPECT_EQ(absl::StrCat("[", int64_t{1} << 40, ",0]"), c->DebugString(out));
}

TEST_F(ShapeInferenceTest, MakeShapeFromUnknownShapeTensor) {
  auto c = Make({S({3}), S({-1}), Unknown(), S({2, 2})});
  ShapeHandle out;
  MF_ASSERT_OK(c->MakeShapeFromShapeTensor(0, &out));
  EXPECT_EQ("[?,?,?]", c->DebugString(out));
  MF_ASSERT_OK(c->MakeShapeFromShapeTensor(1, &out));
  EXPECT_EQ("?", c->DebugString(out));
  MF_ASSERT_OK(c->MakeShapeFromShapeTensor(2, &out));
  EXPECT_EQ("?", c->DebugString(out));
  EXPECT_THAT(c->MakeShapeFromShapeTensor(3, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Shape must be rank 1 but is rank 2")));
}

TEST_F(ShapeInferenceTest, MakeShapeFromShapeTensorRejectsBadValues) {
  const Tensor negative = test::AsTensor<int32_t>({2, -2});
  const Tensor floats = test::AsTensor<float>({2.0f});
  const Tensor too_long(DT_INT32, TensorShape({300}));
  auto c = Make({S({2}), S({1}), S({300})}, 1, {&negative, &floats, &too_long});
  ShapeHandle out;
  EXPECT_THAT(
      c->MakeShapeFromShapeTensor(0, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Invalid value in tensor used for shape: -2")));
  EXPECT_THAT(c->MakeShapeFromShapeTensor(1, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Input tensor must be int32 or int64, but was "
                                 "float")));
  EXPECT_THAT(c->MakeShapeFromShapeTensor(2, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("more than the maximum rank")));
}

TEST_F(ShapeInferenceTest, ScalarMinusOneShapeTensorIsUnknownRank) {
  const Tensor minus_one = test::AsScalar<int32_t>(-1);
  const Tensor three = test::AsScalar<int64_t>(3);
  auto c = Make({S({}), S({}), S({})}, 1, {&minus_one, &three});
  ShapeHandle out;
  MF_ASSERT_OK(c->MakeShapeFromShapeTensorTreatScalarAsUnknownShape(0, &out));
  EXPECT_FALSE(c->RankKnown(out));
  EXPECT_THAT(c->MakeShapeFromShapeTensorTreatScalarAsUnknownShape(1, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("it must have value -1")));
  // Unknown scalar value: unknown rank.
  MF_ASSERT_OK(c->MakeShapeFromShapeTensorTreatScalarAsUnknownShape(2, &out));
  EXPECT_FALSE(c->RankKnown(out));
  // The strict form wants a vector.
  EXPECT_THAT(c->MakeShapeFromShapeTensor(0, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Shape must be rank 1 but is rank 0")));
}

TEST_F(ShapeInferenceTest, InputTensorsAsShapesArePreferred) {
  op_def_ = MakeOpDef(1, 1);
  node_def_ = MakeNodeDef(1);
  ShapeManager manager;
  const ShapeHandle input = manager.MakeShape({manager.MakeDim(2)});
  const ShapeHandle value =
      manager.MakeShape({manager.MakeDim(-1), manager.MakeDim(7)});
  InferenceContext c(kVersion, node_def_, op_def_, {input}, {}, {value},
                     &manager);
  MF_ASSERT_OK(c.construction_status());
  ShapeHandle out;
  MF_ASSERT_OK(c.MakeShapeFromShapeTensor(0, &out));
  EXPECT_TRUE(out.SameHandle(value));
  EXPECT_TRUE(c.input_tensors_as_shapes()[0].SameHandle(value));
}

TEST_F(ShapeInferenceTest, ScalarInputs) {
  const Tensor five = test::AsScalar<int32_t>(5);
  const Tensor minus_one = test::AsScalar<int64_t>(-1);
  const Tensor vec = test::AsTensor<int32_t>({1});
  auto c = Make({S({}), S({}), S({1}), S({})}, 1, {&five, &minus_one, &vec});
  DimensionHandle d;
  MF_ASSERT_OK(c->MakeDimForScalarInput(0, &d));
  EXPECT_EQ(5, c->Value(d));
  EXPECT_THAT(c->MakeDimForScalarInput(1, &d),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must be non-negative but is -1")));
  EXPECT_THAT(c->MakeDimForScalarInput(2, &d),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Input must be scalar but has rank 1")));
  MF_ASSERT_OK(c->MakeDimForScalarInput(3, &d));
  EXPECT_FALSE(c->ValueKnown(d));
  MF_ASSERT_OK(c->MakeDimForScalarInputWithNegativeIndexing(1, 3, &d));
  EXPECT_EQ(2, c->Value(d));
  MF_ASSERT_OK(c->MakeDimForScalarInputWithNegativeIndexing(1, -1, &d));
  EXPECT_FALSE(c->ValueKnown(d));
  EXPECT_THAT(c->MakeDimForScalarInputWithNegativeIndexing(0, 3, &d),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must be in range [-3, 3)")));
  int64_t v;
  MF_ASSERT_OK(c->GetScalarFromTensor(&vec, 0, &v));
  EXPECT_EQ(1, v);
  EXPECT_THAT(c->GetScalarFromTensor(&vec, 1, &v),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// ---- Arithmetic
// -----------------------------------------------------------------------

TEST_F(ShapeInferenceTest, AddKeepsIdentityAndChecksOverflow) {
  auto c = Make({S({3, 0, -1})});
  const DimensionHandle three = c->Dim(c->input(0), 0);
  const DimensionHandle zero = c->Dim(c->input(0), 1);
  const DimensionHandle unknown = c->Dim(c->input(0), 2);
  DimensionHandle out;
  MF_ASSERT_OK(c->Add(three, 0, &out));
  EXPECT_TRUE(out.SameHandle(three));
  MF_ASSERT_OK(c->Add(zero, three, &out));
  EXPECT_TRUE(out.SameHandle(three));
  MF_ASSERT_OK(c->Add(three, 4, &out));
  EXPECT_EQ(7, c->Value(out));
  MF_ASSERT_OK(c->Add(three, unknown, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  MF_ASSERT_OK(c->Add(unknown, 0, &out));
  EXPECT_TRUE(out.SameHandle(unknown));
  EXPECT_THAT(c->Add(three, std::numeric_limits<int64_t>::max(), &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Dimension size overflow from adding")));
  EXPECT_THAT(c->Add(three, -5, &out),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(ShapeInferenceTest, Subtract) {
  auto c = Make({S({3, -1})});
  const DimensionHandle three = c->Dim(c->input(0), 0);
  DimensionHandle out;
  MF_ASSERT_OK(c->Subtract(three, 0, &out));
  EXPECT_TRUE(out.SameHandle(three));
  MF_ASSERT_OK(c->Subtract(three, 1, &out));
  EXPECT_EQ(2, c->Value(out));
  MF_ASSERT_OK(c->Subtract(c->Dim(c->input(0), 1), 1, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  EXPECT_THAT(c->Subtract(three, 4, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Negative dimension size caused by "
                                 "subtracting 4 from 3")));
}

TEST_F(ShapeInferenceTest, MultiplyKeepsIdentityAndChecksOverflow) {
  auto c = Make({S({3, 1, 0, -1})});
  const DimensionHandle three = c->Dim(c->input(0), 0);
  const DimensionHandle one = c->Dim(c->input(0), 1);
  const DimensionHandle zero = c->Dim(c->input(0), 2);
  const DimensionHandle unknown = c->Dim(c->input(0), 3);
  DimensionHandle out;
  MF_ASSERT_OK(c->Multiply(three, 1, &out));
  EXPECT_TRUE(out.SameHandle(three));
  MF_ASSERT_OK(c->Multiply(one, three, &out));
  EXPECT_TRUE(out.SameHandle(three));
  MF_ASSERT_OK(c->Multiply(zero, unknown, &out));
  EXPECT_TRUE(out.SameHandle(zero));
  MF_ASSERT_OK(c->Multiply(unknown, zero, &out));
  EXPECT_TRUE(out.SameHandle(zero));
  MF_ASSERT_OK(c->Multiply(three, unknown, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  MF_ASSERT_OK(c->Multiply(three, 5, &out));
  EXPECT_EQ(15, c->Value(out));
  EXPECT_THAT(c->Multiply(three, int64_t{1} << 62, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("overflow when multiplying")));
}

TEST_F(ShapeInferenceTest, Divide) {
  auto c = Make({S({6, -1})});
  const DimensionHandle six = c->Dim(c->input(0), 0);
  DimensionHandle out;
  MF_ASSERT_OK(c->Divide(six, 1, true, &out));
  EXPECT_TRUE(out.SameHandle(six));
  MF_ASSERT_OK(c->Divide(six, 3, true, &out));
  EXPECT_EQ(2, c->Value(out));
  MF_ASSERT_OK(c->Divide(six, 4, false, &out));
  EXPECT_EQ(1, c->Value(out));
  MF_ASSERT_OK(c->Divide(c->Dim(c->input(0), 1), 4, true, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  EXPECT_THAT(c->Divide(six, 4, true, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Dimension size must be evenly divisible by "
                                 "4 but is 6")));
  EXPECT_THAT(c->Divide(six, 0, false, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Divisor must be positive but is 0")));
}

TEST_F(ShapeInferenceTest, MinAndMax) {
  auto c = Make({S({3, 5, 0, -1})});
  const DimensionHandle three = c->Dim(c->input(0), 0);
  const DimensionHandle five = c->Dim(c->input(0), 1);
  const DimensionHandle zero = c->Dim(c->input(0), 2);
  const DimensionHandle unknown = c->Dim(c->input(0), 3);
  DimensionHandle out;
  MF_ASSERT_OK(c->Min(three, five, &out));
  EXPECT_TRUE(out.SameHandle(three));
  MF_ASSERT_OK(c->Min(five, three, &out));
  EXPECT_TRUE(out.SameHandle(three));
  MF_ASSERT_OK(c->Min(zero, unknown, &out));
  EXPECT_TRUE(out.SameHandle(zero));
  MF_ASSERT_OK(c->Min(three, unknown, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  MF_ASSERT_OK(c->Max(three, five, &out));
  EXPECT_TRUE(out.SameHandle(five));
  MF_ASSERT_OK(c->Max(five, 2, &out));
  EXPECT_TRUE(out.SameHandle(five));
  MF_ASSERT_OK(c->Max(three, unknown, &out));
  EXPECT_FALSE(c->ValueKnown(out));
}

// ---- Attrs, outputs, Run and errors
// -----------------------------------------------------

TEST_F(ShapeInferenceTest, GetAttr) {
  auto c = Make({S({1})});
  bool flag = false;
  MF_ASSERT_OK(c->GetAttr("flag", &flag));
  EXPECT_TRUE(flag);
  int64_t missing;
  EXPECT_THAT(c->GetAttr("missing", &missing),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("missing")));
}

TEST_F(ShapeInferenceTest, NamedInputsAndOutputs) {
  auto c = Make({S({1}), S({2})}, 2);
  std::vector<ShapeHandle> shapes;
  MF_ASSERT_OK(c->input("in1", &shapes));
  ASSERT_EQ(1u, shapes.size());
  EXPECT_TRUE(shapes[0].SameHandle(c->input(1)));
  EXPECT_THAT(c->input("nope", &shapes),
              StatusIs(absl::StatusCode::kInvalidArgument));
  MF_ASSERT_OK(c->set_output("out1", {c->input(0)}));
  EXPECT_TRUE(c->output(1).SameHandle(c->input(0)));
  MF_ASSERT_OK(c->output("out1", &shapes));
  EXPECT_TRUE(shapes[0].SameHandle(c->input(0)));
  EXPECT_THAT(c->set_output("out0", {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Must have exactly 0 shapes.")));
}

TEST_F(ShapeInferenceTest, RunAddsNodeOpShapesAndInputIndexToErrors) {
  auto c = Make({S({2}), S({3})});
  const Status s = c->Run([](InferenceContext* c) {
    ShapeHandle unused;
    MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &unused));
    return c->WithRank(c->input(1), 2, &unused);
  });
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          AllOf(HasSubstr("Shape must be rank 2 but is rank 1"),
                                HasSubstr("{{node n}} = ShapeTest"),
                                HasSubstr("with input shapes: [2], [3]"),
                                HasSubstr("error in input 1"))));
}

TEST_F(ShapeInferenceTest, RunNamesRequestedTensors) {
  const Tensor t = test::AsTensor<int32_t>({-5});
  auto c = Make({S({1})}, 1, {&t});
  const Status s = c->Run([](InferenceContext* c) {
    ShapeHandle out;
    MF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
    c->set_output(0, out);
    return OkStatus();
  });
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          AllOf(HasSubstr("Invalid value in tensor used for "
                                          "shape: -5"),
                                HasSubstr("with computed input tensors: "
                                          "input[0] = <[-5]>"),
                                HasSubstr("error in input 0"))));
}

TEST_F(ShapeInferenceTest, RunReportsUnsetOutput) {
  auto c = Make({S({1})}, 2);
  const Status s = c->Run([](InferenceContext* c) {
    c->set_output(0, c->input(0));
    return OkStatus();
  });
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInternal,
                          HasSubstr("did not set output 1")));
}

TEST_F(ShapeInferenceTest, RunReportsBadIndicesInsteadOfCrashing) {
  auto c = Make({S({1})});
  Status s = c->Run([](InferenceContext* c) {
    c->set_output(0, c->input(5));
    return OkStatus();
  });
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInternal,
                          HasSubstr("asked for input 5 of 1")));
  s = c->Run([](InferenceContext* c) {
    c->set_output(0, c->Vector(c->Dim(c->input(0), 3)));
    return OkStatus();
  });
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInternal,
                          HasSubstr("asked for dimension 3")));
  s = c->Run([](InferenceContext* c) {
    c->set_output(3, c->input(0));
    return OkStatus();
  });
  EXPECT_THAT(
      s, StatusIs(absl::StatusCode::kInternal, HasSubstr("set output 3 of 1")));
}

TEST_F(ShapeInferenceTest, RunWithoutFunctionLeavesOutputsUnknown) {
  auto c = Make({S({1})}, 2);
  MF_ASSERT_OK(c->Run(nullptr));
  EXPECT_FALSE(c->RankKnown(c->output(0)));
  EXPECT_FALSE(c->RankKnown(c->output(1)));
}

TEST_F(ShapeInferenceTest, OutputWithTooManyElementsFails) {
  auto c = Make({});
  const Status s = c->Run([](InferenceContext* c) {
    c->set_output(0, c->MakeShape({int64_t{1} << 40, int64_t{1} << 40}));
    return OkStatus();
  });
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("more elements than int64 can count")));
}

TEST_F(ShapeInferenceTest, WrongInputCountIsAConstructionError) {
  op_def_ = MakeOpDef(2, 1);
  node_def_ = MakeNodeDef(2);
  InferenceContext c(kVersion, node_def_, op_def_, {S({1})}, {});
  EXPECT_THAT(c.construction_status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Wrong number of inputs passed: 1 while 2 "
                                 "expected")));
  EXPECT_THAT(
      c.Run([](InferenceContext*) { return OkStatus(); }),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("{{node n}}")));
}

TEST_F(ShapeInferenceTest,
       TensorDisagreeingWithInputShapeIsAConstructionError) {
  const Tensor t = test::AsTensor<int32_t>({1, 2, 3});
  auto c = Make({S({2})}, 1, {&t});
  EXPECT_THAT(c->construction_status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Input tensor 0 has shape [3]")));
}

TEST_F(ShapeInferenceTest, SharedManagerKeepsHandlesAcrossContexts) {
  op_def_ = MakeOpDef(1, 1);
  node_def_ = MakeNodeDef(1);
  ShapeManager manager;
  const ShapeHandle input = manager.MakeShape({manager.MakeDim(4)});
  ShapeHandle result;
  {
    InferenceContext c(kVersion, node_def_, op_def_, {input}, {}, {}, &manager);
    MF_ASSERT_OK(c.Run([](InferenceContext* c) {
      c->set_output(0, c->Matrix(c->Dim(c->input(0), 0), 2));
      return OkStatus();
    }));
    result = c.output(0);
  }
  // The context is gone; the shape it made lives in the manager.
  InferenceContext c2(kVersion, node_def_, op_def_, {result}, {}, {}, &manager);
  EXPECT_EQ("[4,2]", c2.DebugString(c2.input(0)));
  EXPECT_TRUE(c2.Dim(c2.input(0), 0).SameHandle(c2.Dim(input, 0)));
}

}  // namespace
}  // namespace shape_inference
}  // namespace minflow
