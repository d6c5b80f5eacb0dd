// SpaceToBatchND and BatchToSpaceND against an index-by-index reference,
// TF's documented examples, round trips, the shape function, and every
// error path.
#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

using Ints = std::vector<int64_t>;

class SpaceToBatchOpTest : public test::ArrayOpTest {
 protected:
  void Make(const char* op, DataType dtype, DataType tblock = DT_INT32,
            DataType tpads = DT_INT32) {
    MakeNode(op).Input(dtype).Input(tblock).Input(tpads);
    MF_ASSERT_OK(MakeOp());
  }
  void AddInts(const TensorShape& shape, const Ints& v, DataType t) {
    if (t == DT_INT32) {
      AddInputFromArray<int32_t>(shape,
                                 std::vector<int32_t>(v.begin(), v.end()));
    } else {
      AddInputFromArray<int64_t>(shape, v);
    }
  }
  void AddArgs(const Ints& block, const Ints& pads, DataType tblock = DT_INT32,
               DataType tpads = DT_INT32) {
    const int64_t m = static_cast<int64_t>(block.size());
    AddInts(TensorShape({m}), block, tblock);
    AddInts(TensorShape({static_cast<int64_t>(pads.size()) / 2, 2}), pads,
            tpads);
  }

  // out[(offsets) * B + b, o..., rest] = padded[b, o_d * block_d + off_d,
  // rest], -1 (zero) in the padding.
  void CheckSpaceToBatch(DataType dtype, const TensorShape& in,
                         const Ints& block, const Ints& pads,
                         DataType tblock = DT_INT32) {
    SCOPED_TRACE(DataTypeString(dtype) + " " + in.DebugString());
    Make("SpaceToBatchND", dtype, tblock, DT_INT64);
    const Tensor x = test::MakeTestTensor(dtype, in);
    AddInputTensor(x);
    AddArgs(block, pads, tblock, DT_INT64);
    RunAndCheckShapes();
    const int m = static_cast<int>(block.size());
    Ints dims = {in.dim_size(0)};
    int64_t product = 1;
    for (int d = 0; d < m; ++d) {
      product *= block[d];
      dims.push_back((in.dim_size(d + 1) + pads[2 * d] + pads[2 * d + 1]) /
                     block[d]);
    }
    dims[0] *= product;
    for (int d = m + 1; d < in.dims(); ++d) dims.push_back(in.dim_size(d));
    const TensorShape out(dims);
    const auto s = test::Strides(in);
    std::vector<int64_t> src;
    for (int64_t e = 0; e < out.num_elements(); ++e) {
      const auto o = test::Unravel(e, out);
      int64_t offsets = o[0] / in.dim_size(0);
      int64_t flat = (o[0] % in.dim_size(0)) * s[0];
      bool inside = true;
      for (int d = m - 1; d >= 0; --d) {
        const int64_t i =
            o[d + 1] * block[d] + offsets % block[d] - pads[2 * d];
        offsets /= block[d];
        inside = inside && i >= 0 && i < in.dim_size(d + 1);
        flat += i * s[d + 1];
      }
      for (int d = m + 1; d < in.dims(); ++d) flat += o[d] * s[d];
      src.push_back(inside ? flat : -1);
    }
    Tensor zero(dtype, TensorShape({}));
    std::memset(zero.data(), 0, DataTypeSize(dtype));  // numeric types only
    test::ExpectEqual(*GetOutput(0), test::GatherReference(x, out, src, &zero));
  }

  // SpaceToBatchND then BatchToSpaceND with the paddings as crops gives
  // the input back.
  void CheckRoundTrip(DataType dtype, const TensorShape& in, const Ints& block,
                      const Ints& pads) {
    SCOPED_TRACE(DataTypeString(dtype) + " " + in.DebugString());
    Make("SpaceToBatchND", dtype);
    const Tensor x = test::MakeTestTensor(dtype, in);
    AddInputTensor(x);
    AddArgs(block, pads);
    RunAndCheckShapes();
    const Tensor batched = *GetOutput(0);
    Make("BatchToSpaceND", dtype, DT_INT64, DT_INT32);
    AddInputTensor(batched);
    AddArgs(block, pads, DT_INT64, DT_INT32);
    RunAndCheckShapes();
    test::ExpectEqual(*GetOutput(0), x);
  }
};

TEST_F(SpaceToBatchOpTest, SpaceToBatchMatchesReference) {
  for (DataType dtype : {DT_FLOAT, DT_INT8, DT_HALF, DT_INT64}) {
    CheckSpaceToBatch(dtype, TensorShape({2, 4, 6, 3}), {2, 3}, {0, 0, 0, 0});
    CheckSpaceToBatch(dtype, TensorShape({2, 3, 4, 2}), {2, 3}, {1, 0, 1, 1});
    CheckSpaceToBatch(dtype, TensorShape({1, 5, 2}), {3}, {2, 2}, DT_INT64);
    CheckSpaceToBatch(dtype, TensorShape({3, 2, 2, 2}), {1, 2, 2},
                      {1, 1, 0, 0, 1, 1});
  }
}

TEST_F(SpaceToBatchOpTest, NoBlockDimsCopiesTheInput) {
  CheckSpaceToBatch(DT_FLOAT, TensorShape({2, 3}), {}, {});
  CheckRoundTrip(DT_INT32, TensorShape({2, 3}), {}, {});
}

TEST_F(SpaceToBatchOpTest, TensorFlowDocumentedExamples) {
  // x [1, 2, 2, 1] = [[[[1], [2]], [[3], [4]]]], block [2, 2], no padding
  // -> [4, 1, 1, 1] = [[[[1]]], [[[2]]], [[[3]]], [[[4]]]].
  Make("SpaceToBatchND", DT_FLOAT);
  AddInputFromArray<float>(TensorShape({1, 2, 2, 1}), {1, 2, 3, 4});
  AddArgs({2, 2}, {0, 0, 0, 0});
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({1, 2, 3, 4}, TensorShape({4, 1, 1, 1})));
  // x [1, 2, 4, 1] with block [2, 2] and paddings [[0, 0], [2, 0]]
  // -> [4, 1, 3, 1]: [[0, 1, 3]], [[0, 2, 4]], [[0, 5, 7]], [[0, 6, 8]].
  Make("SpaceToBatchND", DT_INT32);
  AddInputFromArray<int32_t>(TensorShape({1, 2, 4, 1}),
                             {1, 2, 3, 4, 5, 6, 7, 8});
  AddArgs({2, 2}, {0, 0, 2, 0});
  RunAndCheckShapes();
  const Tensor expected = test::AsTensor<int32_t>(
      {0, 1, 3, 0, 2, 4, 0, 5, 7, 0, 6, 8}, TensorShape({4, 1, 3, 1}));
  test::ExpectTensorEqual<int32_t>(*GetOutput(0), expected);
  // BatchToSpaceND with crops [[0, 0], [2, 0]] undoes it.
  Make("BatchToSpaceND", DT_INT32);
  AddInputTensor(expected);
  AddArgs({2, 2}, {0, 0, 2, 0});
  RunAndCheckShapes();
  test::ExpectTensorEqual<int32_t>(
      *GetOutput(0), test::AsTensor<int32_t>({1, 2, 3, 4, 5, 6, 7, 8},
                                             TensorShape({1, 2, 4, 1})));
}

TEST_F(SpaceToBatchOpTest, BatchToSpaceRoundTrips) {
  for (DataType dtype : {DT_FLOAT, DT_UINT8, DT_DOUBLE, DT_INT16}) {
    CheckRoundTrip(dtype, TensorShape({2, 4, 6, 3}), {2, 3}, {0, 0, 0, 0});
    CheckRoundTrip(dtype, TensorShape({2, 3, 4, 2}), {2, 3}, {1, 0, 1, 1});
    CheckRoundTrip(dtype, TensorShape({3, 5, 2}), {4}, {0, 3});
  }
}

TEST_F(SpaceToBatchOpTest, BatchToSpaceCropsEverything) {
  Make("BatchToSpaceND", DT_FLOAT);
  AddInputFromArray<float>(TensorShape({4, 1, 1}), {1, 2, 3, 4});
  AddArgs({2, 2}, {1, 1, 0, 2});
  RunAndCheckShapes();
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({1, 0, 0}));
}

TEST_F(SpaceToBatchOpTest, EmptyTensors) {
  CheckSpaceToBatch(DT_FLOAT, TensorShape({0, 2, 2}), {2}, {0, 0});
  CheckSpaceToBatch(DT_FLOAT, TensorShape({1, 0, 2}), {2}, {1, 1});
  CheckSpaceToBatch(DT_FLOAT, TensorShape({1, 2, 0}), {2}, {0, 0});
  CheckRoundTrip(DT_FLOAT, TensorShape({0, 4, 3}), {2}, {0, 0});
}

TEST_F(SpaceToBatchOpTest, SpaceToBatchRejectsBadArguments) {
  Make("SpaceToBatchND", DT_FLOAT);
  const TensorShape in({1, 4, 4, 1});
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, in));
  AddInts(TensorShape({1, 2}), {2, 2}, DT_INT32);
  AddInts(TensorShape({2, 2}), {0, 0, 0, 0}, DT_INT32);
  ExpectInvalid("block_shape rank should be 1 instead of 2");

  Make("SpaceToBatchND", DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({4, 4})));
  AddArgs({2, 2}, {0, 0, 0, 0});
  ExpectInvalid("input rank should be >= 3 instead of 2");

  Make("SpaceToBatchND", DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, in));
  AddArgs({2, 2}, {0, 0, 0, 0, 0, 0});
  ExpectInvalid("paddings should have shape [2, 2] instead of [3,2]");

  Make("SpaceToBatchND", DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, in));
  AddArgs({2, 0}, {0, 0, 0, 0});
  ExpectInvalid("block_shape must be positive, but got block_shape[1]=0");

  Make("SpaceToBatchND", DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, in));
  AddArgs({2, 2}, {0, 0, -1, 1});
  ExpectInvalid("Paddings must be non-negative, but got paddings[1]=[-1,1]");

  Make("SpaceToBatchND", DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, in));
  AddArgs({2, 3}, {0, 0, 0, 1});
  ExpectInvalid("padded_shape[1]=5 is not divisible by block_shape[1]=3");

  Make("SpaceToBatchND", DT_FLOAT, DT_INT64, DT_INT64);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, in));
  AddArgs({2, 2}, {0, 0, 0, INT64_MAX}, DT_INT64, DT_INT64);
  ExpectInvalid("padded_shape[1] overflows int64");

  Make("SpaceToBatchND", DT_FLOAT, DT_INT64);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, in));
  AddArgs({int64_t{1} << 32, int64_t{1} << 32}, {0, 0, 0, 0}, DT_INT64);
  ExpectInvalid("Product of block sizes overflows int64");

  Make("SpaceToBatchND", DT_FLOAT, DT_INT64);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({1 << 20, 0, 1})));
  AddArgs({int64_t{1} << 50}, {0, 0}, DT_INT64);
  ExpectInvalid("Output batch size overflows int64");
}

TEST_F(SpaceToBatchOpTest, BatchToSpaceRejectsBadArguments) {
  const TensorShape in({8, 2, 2, 1});
  Make("BatchToSpaceND", DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, in));
  AddArgs({2, 2}, {0, 0});
  ExpectInvalid("crops should have shape [2, 2] instead of [1,2]");

  Make("BatchToSpaceND", DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, in));
  AddArgs({3, 2}, {0, 0, 0, 0});
  ExpectInvalid(
      "Input batch dimension (8) is not divisible by product of block sizes "
      "(6)");

  Make("BatchToSpaceND", DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, in));
  AddArgs({2, 2}, {0, -1, 0, 0});
  ExpectInvalid("Crops must be non-negative, but got crops[0]=[0,-1]");

  Make("BatchToSpaceND", DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, in));
  AddArgs({2, 2}, {0, 0, 3, 2});
  ExpectInvalid("cropped_shape[1]=-1 must be non-negative");

  Make("BatchToSpaceND", DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, in));
  AddArgs({-2, -2}, {0, 0, 0, 0});
  ExpectInvalid("block_shape must be positive, but got block_shape[0]=-2");

  Make("BatchToSpaceND", DT_FLOAT, DT_INT64);
  std::vector<Tensor> inputs = {
      HugeTensor(DT_FLOAT, TensorShape({1, int64_t{1} << 40, 0})),
      test::AsTensor<int64_t>({int64_t{1} << 40}),
      test::AsTensor<int32_t>({0, 0}, TensorShape({1, 2}))};
  EXPECT_THAT(RunOnTensors(&inputs),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("Input batch dimension (1)")));
  // A zero batch divides by anything, so only then can the size overflow.
  inputs[0] = HugeTensor(DT_FLOAT, TensorShape({0, int64_t{1} << 40, 1}));
  EXPECT_THAT(RunOnTensors(&inputs),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("Uncropped size of dimension 1 "
                                       "overflows int64")));
}

}  // namespace
}  // namespace minflow
