// DepthToSpace and SpaceToDepth against an index-by-index reference, TF's
// documented examples, the shape function, and every error path.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class DepthToSpaceOpTest : public test::ArrayOpTest {
 protected:
  void Make(const char* op, DataType dtype, int64_t block,
            const char* format = "NHWC") {
    MakeNode(op)
        .Input(dtype)
        .Attr("block_size", block)
        .Attr("data_format", format);
    MF_ASSERT_OK(MakeOp());
  }

  // DepthToSpace: out[n, h*b + i, w*b + j, c] = in[n, h, w, (i*b + j)*C' + c].
  void CheckDepthToSpace(DataType dtype, const TensorShape& in, int64_t b) {
    SCOPED_TRACE(DataTypeString(dtype) + " " + in.DebugString());
    Make("DepthToSpace", dtype, b);
    const Tensor x = test::MakeTestTensor(dtype, in);
    AddInputTensor(x);
    RunAndCheckShapes();
    const int64_t cd = in.dim_size(3) / (b * b);
    const TensorShape out(
        {in.dim_size(0), in.dim_size(1) * b, in.dim_size(2) * b, cd});
    const auto s = test::Strides(in);
    std::vector<int64_t> src;
    for (int64_t e = 0; e < out.num_elements(); ++e) {
      const auto o = test::Unravel(e, out);
      const int64_t i = o[1] % b;
      const int64_t j = o[2] % b;
      src.push_back(o[0] * s[0] + (o[1] / b) * s[1] + (o[2] / b) * s[2] +
                    (i * b + j) * cd + o[3]);
    }
    test::ExpectEqual(*GetOutput(0), test::GatherReference(x, out, src));
  }

  // SpaceToDepth: out[n, h, w, (i*b + j)*C + c] = in[n, h*b + i, w*b + j, c].
  void CheckSpaceToDepth(DataType dtype, const TensorShape& in, int64_t b) {
    SCOPED_TRACE(DataTypeString(dtype) + " " + in.DebugString());
    Make("SpaceToDepth", dtype, b);
    const Tensor x = test::MakeTestTensor(dtype, in);
    AddInputTensor(x);
    RunAndCheckShapes();
    const int64_t c = in.dim_size(3);
    const TensorShape out(
        {in.dim_size(0), in.dim_size(1) / b, in.dim_size(2) / b, c * b * b});
    const auto s = test::Strides(in);
    std::vector<int64_t> src;
    for (int64_t e = 0; e < out.num_elements(); ++e) {
      const auto o = test::Unravel(e, out);
      const int64_t ij = o[3] / c;
      src.push_back(o[0] * s[0] + (o[1] * b + ij / b) * s[1] +
                    (o[2] * b + ij % b) * s[2] + o[3] % c);
    }
    test::ExpectEqual(*GetOutput(0), test::GatherReference(x, out, src));
  }
};

TEST_F(DepthToSpaceOpTest, DepthToSpaceMatchesReferenceForEveryElementSize) {
  for (DataType dtype : test::MovementTypes()) {
    CheckDepthToSpace(dtype, TensorShape({2, 3, 2, 8}), 2);
    CheckDepthToSpace(dtype, TensorShape({1, 2, 3, 9}), 3);
  }
}

TEST_F(DepthToSpaceOpTest, SpaceToDepthMatchesReferenceForEveryElementSize) {
  for (DataType dtype : test::MovementTypes()) {
    CheckSpaceToDepth(dtype, TensorShape({2, 4, 6, 3}), 2);
    CheckSpaceToDepth(dtype, TensorShape({1, 3, 6, 1}), 3);
  }
}

TEST_F(DepthToSpaceOpTest, TensorFlowDocumentedExamples) {
  // x = [[[[1, 2, 3, 4]]]] with block_size 2 -> [[[[1], [2]], [[3], [4]]]].
  Make("DepthToSpace", DT_FLOAT, 2);
  AddInputFromArray<float>(TensorShape({1, 1, 1, 4}), {1, 2, 3, 4});
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({1, 2, 3, 4}, TensorShape({1, 2, 2, 1})));
  // SpaceToDepth of [1, 2, 2, 3] gives [1, 1, 1, 12] in the same order.
  Make("SpaceToDepth", DT_INT32, 2);
  ClearInputs();
  AddInputFromArray<int32_t>(TensorShape({1, 2, 2, 3}),
                             {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  RunAndCheckShapes();
  test::ExpectTensorEqual<int32_t>(
      *GetOutput(0),
      test::AsTensor<int32_t>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
                              TensorShape({1, 1, 1, 12})));
}

TEST_F(DepthToSpaceOpTest, EmptyTensors) {
  CheckDepthToSpace(DT_FLOAT, TensorShape({0, 2, 2, 4}), 2);
  CheckDepthToSpace(DT_FLOAT, TensorShape({1, 0, 2, 4}), 2);
  CheckDepthToSpace(DT_FLOAT, TensorShape({1, 2, 2, 0}), 2);
  CheckSpaceToDepth(DT_INT8, TensorShape({1, 0, 2, 3}), 2);
  CheckSpaceToDepth(DT_INT8, TensorShape({1, 2, 2, 0}), 2);
}

TEST_F(DepthToSpaceOpTest, RejectsBadInput) {
  Make("DepthToSpace", DT_FLOAT, 2);
  AddInputFromArray<float>(TensorShape({1, 1, 6}), {1, 2, 3, 4, 5, 6});
  ExpectInvalid("Input rank should be: 4 instead of: 3");
  ClearInputs();
  AddInputFromArray<float>(TensorShape({1, 1, 1, 6}), {1, 2, 3, 4, 5, 6});
  ExpectInvalid("Input depth dimension 6 should be divisible by: 4");

  Make("SpaceToDepth", DT_FLOAT, 2);
  ClearInputs();
  AddInputFromArray<float>(TensorShape({1, 2, 3, 1}), {1, 2, 3, 4, 5, 6});
  ExpectInvalid(
      "Image width 3 and height 2 should be divisible by "
      "block_size: 2");
  ClearInputs();
  AddInputFromArray<float>(TensorShape({2, 3, 1}), {1, 2, 3, 4, 5, 6});
  ExpectInvalid("Input rank should be: 4 instead of: 3");
}

TEST_F(DepthToSpaceOpTest, RejectsOverflowingOutputBeforeReading) {
  Make("DepthToSpace", DT_FLOAT, 1 << 30);
  std::vector<Tensor> inputs = {
      HugeTensor(DT_FLOAT, TensorShape({1, int64_t{1} << 40, 1, 0}))};
  EXPECT_THAT(RunOnTensors(&inputs),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("Output spatial size overflows")));
  Make("SpaceToDepth", DT_FLOAT, 1 << 30);
  inputs = {HugeTensor(DT_FLOAT, TensorShape({0, 1 << 30, 1 << 30, 1 << 20}))};
  EXPECT_THAT(RunOnTensors(&inputs),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("Output depth overflows")));
}

TEST_F(DepthToSpaceOpTest, RejectsNchwOnCpuAndBadBlockSize) {
  for (const char* op : {"DepthToSpace", "SpaceToDepth"}) {
    MakeNode(op)
        .Input(DT_FLOAT)
        .Attr("block_size", 2)
        .Attr("data_format", "NCHW");
    EXPECT_THAT(MakeOp(), ::minflow::testing::StatusIs(
                              absl::StatusCode::kInvalidArgument,
                              ::testing::HasSubstr(
                                  "Only NHWC data_format supported on CPU. "
                                  "Got NCHW")));
    MakeNode(op).Input(DT_FLOAT).Attr("block_size", int64_t{1} << 40);
    EXPECT_THAT(
        MakeOp(),
        ::minflow::testing::StatusIs(
            absl::StatusCode::kInvalidArgument,
            ::testing::HasSubstr("Block size should be at most 2147483647")));
    MakeNode(op).Input(DT_FLOAT).Attr("block_size", 1);
    EXPECT_FALSE(MakeOp().ok());  // the OpDef's minimum of 2
  }
}

}  // namespace
}  // namespace minflow
