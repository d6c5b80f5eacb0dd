// The shared shape functions, called directly on contexts (the ops that use
// them are tested through the notation in tests/ops).
#include "minflow/framework/common_shape_fns.h"

#include <cstdint>
#include <memory>
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
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace shape_inference {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

// A context over an op with `n` float inputs and one output.
class CommonShapeFnsTest : public ::testing::Test {
 protected:
  InferenceContext* Make(std::vector<PartialTensorShape> inputs,
                         std::vector<const Tensor*> tensors = {}) {
    OpDefBuilder b("CommonTest");
    for (size_t i = 0; i < inputs.size(); ++i) {
      b.Input(absl::StrCat("in", i, ": T"));
    }
    b.Output("out: T").Attr("T: type").Attr("keep_dims: bool = false");
    OpRegistrationData data;
    MF_CHECK_OK(b.Finalize(&data));
    op_def_ = data.op_def;
    node_def_.set_name("n");
    node_def_.set_op("CommonTest");
    AddNodeAttr("T", DT_INT32, &node_def_);
    AddNodeAttr("keep_dims", false, &node_def_);
    context_ = std::make_unique<InferenceContext>(2100, node_def_, op_def_,
                                                  inputs, tensors);
    MF_CHECK_OK(context_->construction_status());
    return context_.get();
  }

  OpDef op_def_;
  NodeDef node_def_;
  std::unique_ptr<InferenceContext> context_;
};

TEST_F(CommonShapeFnsTest, WindowedOutputSize) {
  InferenceContext* c = Make({PartialTensorShape({10, -1})});
  const DimensionHandle ten = c->Dim(c->input(0), 0);
  const DimensionHandle unknown = c->Dim(c->input(0), 1);
  DimensionHandle out;
  MF_ASSERT_OK(GetWindowedOutputSizeFromDims(c, ten, 3, 1, VALID, &out));
  EXPECT_EQ(8, c->Value(out));
  MF_ASSERT_OK(GetWindowedOutputSizeFromDims(c, ten, 3, 3, VALID, &out));
  EXPECT_EQ(3, c->Value(out));
  MF_ASSERT_OK(GetWindowedOutputSizeFromDims(c, ten, 3, 3, SAME, &out));
  EXPECT_EQ(4, c->Value(out));
  MF_ASSERT_OK(GetWindowedOutputSizeFromDims(c, ten, 3, 1, SAME, &out));
  EXPECT_EQ(10, c->Value(out));
  MF_ASSERT_OK(GetWindowedOutputSizeFromDims(c, unknown, 3, 1, VALID, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  MF_ASSERT_OK(
      GetWindowedOutputSizeFromDimsV2(c, ten, 3, 2, 1, VALID, 0, 0, &out));
  EXPECT_EQ(6, c->Value(out));
  MF_ASSERT_OK(
      GetWindowedOutputSizeFromDimsV2(c, ten, 3, 1, 2, EXPLICIT, 1, 2, &out));
  EXPECT_EQ(6, c->Value(out));
  EXPECT_THAT(GetWindowedOutputSizeFromDims(c, ten, 3, 1, EXPLICIT, &out),
              StatusIs(absl::StatusCode::kInternal));
  EXPECT_THAT(GetWindowedOutputSizeFromDims(c, ten, 11, 1, VALID, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("subtracting 11 from 10")));
  EXPECT_THAT(GetWindowedOutputSizeFromDims(c, ten, 3, 0, VALID, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Stride must be > 0")));
  EXPECT_THAT(GetWindowedOutputSizeFromDims(c, ten, -3, 1, VALID, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Filter size must be >= 0")));
  EXPECT_THAT(
      GetWindowedOutputSizeFromDimsV2(c, ten, 3, 1, 1, EXPLICIT,
                                      int64_t{1} << 62, int64_t{1} << 62, &out),
      StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(CommonShapeFnsTest, BroadcastHelperWithoutIncompatibleShapeError) {
  InferenceContext* c =
      Make({PartialTensorShape({2, 3}), PartialTensorShape({4, 3}),
            PartialTensorShape({-1, 3})});
  ShapeHandle out;
  MF_ASSERT_OK(BroadcastBinaryOpOutputShapeFnHelper(c, c->input(0), c->input(1),
                                                    false, &out));
  EXPECT_EQ("[]", c->DebugString(out));
  MF_ASSERT_OK(BroadcastBinaryOpOutputShapeFnHelper(c, c->input(0), c->input(2),
                                                    false, &out));
  EXPECT_EQ("?", c->DebugString(out));
  EXPECT_THAT(BroadcastBinaryOpOutputShapeFnHelper(c, c->input(0), c->input(1),
                                                   true, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Dimensions must be equal, but are 2 and 4")));
}

TEST_F(CommonShapeFnsTest, SimpleFunctions) {
  InferenceContext* c = Make({PartialTensorShape({2, 3})});
  MF_ASSERT_OK(UnchangedShape(c));
  EXPECT_TRUE(c->output(0).SameHandle(c->input(0)));
  MF_ASSERT_OK(UnchangedShapeWithRank(c, 2));
  EXPECT_TRUE(c->output(0).SameHandle(c->input(0)));
  EXPECT_THAT(UnchangedShapeWithRank(c, 3),
              StatusIs(absl::StatusCode::kInvalidArgument));
  MF_ASSERT_OK(UnchangedShapeWithRankAtLeast(c, 1));
  EXPECT_THAT(UnchangedShapeWithRankAtLeast(c, 3),
              StatusIs(absl::StatusCode::kInvalidArgument));
  MF_ASSERT_OK(UnchangedShapeWithRankAtMost(c, 2));
  EXPECT_THAT(UnchangedShapeWithRankAtMost(c, 1),
              StatusIs(absl::StatusCode::kInvalidArgument));
  MF_ASSERT_OK(ScalarShape(c));
  EXPECT_EQ("[]", c->DebugString(c->output(0)));
  MF_ASSERT_OK(UnknownShape(c));
  EXPECT_EQ("?", c->DebugString(c->output(0)));
  MF_ASSERT_OK(NoOutputs(c));
}

TEST_F(CommonShapeFnsTest, MergeBothInputs) {
  InferenceContext* c =
      Make({PartialTensorShape({2, -1}), PartialTensorShape({-1, 3})});
  MF_ASSERT_OK(MergeBothInputsShapeFn(c));
  EXPECT_EQ("[2,3]", c->DebugString(c->output(0)));
}

TEST_F(CommonShapeFnsTest, ConcatWithAxisFirst) {
  const Tensor axis = test::AsScalar<int32_t>(1);
  InferenceContext* c =
      Make({PartialTensorShape({}), PartialTensorShape({2, 3}),
            PartialTensorShape({2, 5})},
           {&axis});
  MF_ASSERT_OK(ConcatShape(c, 2));
  EXPECT_EQ("[2,8]", c->DebugString(c->output(0)));
  EXPECT_TRUE(c->Dim(c->output(0), 0).SameHandle(c->Dim(c->input(1), 0)));
}

TEST_F(CommonShapeFnsTest, AppendErrorContextKeepsTheInputIndex) {
  InferenceContext* c = Make({PartialTensorShape({2})});
  ShapeHandle unused;
  const Status s =
      AppendErrorContext(c->WithRank(c->input(0), 2, &unused), "while testing");
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("rank 1\n\twhile testing")));
  EXPECT_THAT(c->AttachContext(s), StatusIs(absl::StatusCode::kInvalidArgument,
                                            HasSubstr("error in input 0")));
  MF_EXPECT_OK(AppendErrorContext(OkStatus(), "x"));
}

// Conv2DShape for an op whose data_format allows NCHW_VECT_C (TensorFlow's
// int8 GPU convolutions declare it; Conv2D itself does not).
Status VectCConvShape(const std::vector<PartialTensorShape>& inputs,
                      std::vector<int64_t> strides, const char* padding,
                      std::string* output) {
  OpRegistrationData data;
  MF_CHECK_OK(OpDefBuilder("VectCConv")
                  .Input("input: T")
                  .Input("filter: T")
                  .Output("output: T")
                  .Attr("T: {float, qint8}")
                  .Attr("strides: list(int)")
                  .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
                  .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'}")
                  .Attr("dilations: list(int) = [1, 1, 1, 1]")
                  .Finalize(&data));
  NodeDef node;
  node.set_name("conv");
  node.set_op("VectCConv");
  AddNodeAttr("T", DT_QINT8, &node);
  AddNodeAttr("strides", strides, &node);
  AddNodeAttr("padding", padding, &node);
  AddNodeAttr("data_format", "NCHW_VECT_C", &node);
  AddNodeAttr("dilations", std::vector<int64_t>{1, 1, 1, 1}, &node);
  InferenceContext c(2100, node, data.op_def, inputs, {});
  MF_RETURN_IF_ERROR(c.construction_status());
  MF_RETURN_IF_ERROR(Conv2DShape(&c));
  *output = c.DebugString(c.output(0));
  return OkStatus();
}

TEST(Conv2DShapeTest, NchwVectC) {
  std::string out;
  // [N, C/4, H, W, 4] with an OIHW_VECT_I filter [O, I/4, H, W, 4].
  MF_ASSERT_OK(VectCConvShape({PartialTensorShape({2, 3, 8, 6, 4}),
                               PartialTensorShape({16, 3, 3, 3, 4})},
                              {1, 1, 1, 1}, "VALID", &out));
  EXPECT_EQ(out, "[2,4,6,4,4]");
  MF_ASSERT_OK(VectCConvShape({PartialTensorShape({2, 3, 8, 6, 4}),
                               PartialTensorShape({8, -1, 3, 3, 4})},
                              {1, 1, 2, 2}, "SAME", &out));
  EXPECT_EQ(out, "[2,2,4,3,4]");
  EXPECT_THAT(VectCConvShape({PartialTensorShape({2, 3, 8, 6, 8}),
                              PartialTensorShape({16, 3, 3, 3, 4})},
                             {1, 1, 1, 1}, "VALID", &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("needs a last input dimension of 4")));
  EXPECT_THAT(VectCConvShape({PartialTensorShape({2, 3, 8, 6, 4}),
                              PartialTensorShape({16, 3, 3, 3, 2})},
                             {1, 1, 1, 1}, "VALID", &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("needs a last filter dimension of 4")));
  EXPECT_THAT(VectCConvShape({PartialTensorShape({2, 3, 8, 6, 4}),
                              PartialTensorShape({6, 3, 3, 3, 4})},
                             {1, 1, 1, 1}, "VALID", &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("multiple of 4, not 6")));
  EXPECT_THAT(VectCConvShape({PartialTensorShape({2, 3, 8, 6, 4}),
                              PartialTensorShape({16, 2, 3, 3, 4})},
                             {1, 1, 1, 1}, "VALID", &out),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(
      VectCConvShape({PartialTensorShape({2, 3, 8, 6}),
                      PartialTensorShape({16, 3, 3, 3, 4})},
                     {1, 1, 1, 1}, "VALID", &out),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("rank 5")));
}

TEST(GetIntValuesTest, WidensIntegerTypes) {
  std::vector<int64_t> v;
  MF_ASSERT_OK(GetIntValues(test::AsTensor<int16_t>({1, -2}), "x", &v));
  EXPECT_EQ((std::vector<int64_t>{1, -2}), v);
  MF_ASSERT_OK(
      GetIntValues(test::AsTensor<int64_t>({int64_t{1} << 40}), "x", &v));
  EXPECT_EQ((std::vector<int64_t>{int64_t{1} << 40}), v);
  EXPECT_THAT(GetIntValues(test::AsTensor<float>({1.0f}), "perm", &v),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("perm must be int32 or int64, but got "
                                 "float")));
}

}  // namespace
}  // namespace shape_inference
}  // namespace minflow
