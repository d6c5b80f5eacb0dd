#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class ReshapeOpTest : public test::ArrayOpTest {
 protected:
  // Reshape(input, sizes) with Tshape = int32 (or int64).
  void MakeReshape(DataType dtype, DataType tshape = DT_INT32) {
    MakeNode("Reshape").Input(dtype).Input(tshape);
    MF_ASSERT_OK(MakeOp());
  }
  void AddSizes(const std::vector<int64_t>& sizes, DataType tshape) {
    if (tshape == DT_INT32) {
      std::vector<int32_t> v(sizes.begin(), sizes.end());
      AddInputFromArray<int32_t>(TensorShape({static_cast<int64_t>(v.size())}),
                                 v);
    } else {
      AddInputFromArray<int64_t>(
          TensorShape({static_cast<int64_t>(sizes.size())}), sizes);
    }
  }
  // Reshapes a test tensor of `in` to `sizes` and expects `out`, the same
  // values in the same order, in the input's own buffer.
  void CheckReshape(DataType dtype, const TensorShape& in,
                    const std::vector<int64_t>& sizes, const TensorShape& out,
                    DataType tshape = DT_INT32) {
    SCOPED_TRACE(DataTypeString(dtype) + " " + in.DebugString());
    MakeReshape(dtype, tshape);
    const Tensor input = test::MakeTestTensor(dtype, in);
    AddInputTensor(input);
    AddSizes(sizes, tshape);
    RunAndCheckShapes();
    EXPECT_EQ(GetOutput(0)->shape(), out);
    test::ExpectSharesBuffer(*GetOutput(0), GetInput(0));
    Tensor expected = input;
    ASSERT_TRUE(expected.CopyFrom(input, out));
    test::ExpectEqual(*GetOutput(0), expected);
  }
};

TEST_F(ReshapeOpTest, ReshapesEveryTypeWithoutCopying) {
  for (DataType dtype : test::MovementTypes()) {
    CheckReshape(dtype, TensorShape({2, 3, 4}), {4, 6}, TensorShape({4, 6}));
    CheckReshape(dtype, TensorShape({24}), {2, 3, 2, 2},
                 TensorShape({2, 3, 2, 2}), DT_INT64);
  }
}

TEST_F(ReshapeOpTest, InfersOneMissingSize) {
  CheckReshape(DT_FLOAT, TensorShape({2, 3, 4}), {-1, 4}, TensorShape({6, 4}));
  CheckReshape(DT_FLOAT, TensorShape({2, 3, 4}), {2, -1, 2},
               TensorShape({2, 6, 2}), DT_INT64);
  CheckReshape(DT_INT32, TensorShape({1, 1, 1, 1, 5}), {-1}, TensorShape({5}));
}

TEST_F(ReshapeOpTest, InfersNextToZeroSizes) {
  // TF leaves zero dims out of both products, so -1 is still inferred.
  CheckReshape(DT_FLOAT, TensorShape({2, 0, 3}), {-1, 0}, TensorShape({6, 0}));
  CheckReshape(DT_FLOAT, TensorShape({0, 4}), {0, -1}, TensorShape({0, 4}));
  CheckReshape(DT_STRING, TensorShape({0}), {2, 0, 3}, TensorShape({2, 0, 3}));
}

TEST_F(ReshapeOpTest, ScalarsAndLegacyScalarSizes) {
  CheckReshape(DT_FLOAT, TensorShape({1, 1}), {}, TensorShape({}));
  CheckReshape(DT_FLOAT, TensorShape({}), {1, 1, 1}, TensorShape({1, 1, 1}));
  // A scalar `sizes` is read as a one-element shape (TF's legacy form).
  MakeReshape(DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({1, 4})));
  AddInputFromArray<int32_t>(TensorShape({}), {4});
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({4}));
}

TEST_F(ReshapeOpTest, RejectsMatrixSizes) {
  MakeReshape(DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({4})));
  AddInputFromArray<int32_t>(TensorShape({2, 2}), {1, 2, 2, 1});
  ExpectInvalid("sizes input must be 1-D, not [2,2]");
}

TEST_F(ReshapeOpTest, RejectsTwoMissingSizes) {
  MakeReshape(DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({4})));
  AddSizes({-1, 2, -1}, DT_INT32);
  ExpectInvalid("Only one input size may be -1, not both 0 and 2");
}

TEST_F(ReshapeOpTest, RejectsNegativeSize) {
  MakeReshape(DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({4})));
  AddSizes({2, -2}, DT_INT32);
  ExpectInvalid("Size 1 must be non-negative, not -2");
}

TEST_F(ReshapeOpTest, RejectsOverflowingSizes) {
  MakeReshape(DT_FLOAT, DT_INT64);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({4})));
  AddSizes({int64_t{1} << 40, int64_t{1} << 40}, DT_INT64);
  ExpectInvalid("Shape [1099511627776, 1099511627776] has too many elements");
}

TEST_F(ReshapeOpTest, OverflowAfterAZeroIsAllowedAsTF) {
  // [0, 2^40, 2^40] has zero elements; TF's kernel and TensorShape accept
  // it. Shape inference refuses shapes whose dims multiply past int64 even
  // with a zero among them, so only the kernel is checked here.
  skip_shape_fn_ = true;
  CheckReshape(DT_FLOAT, TensorShape({0}),
               {0, int64_t{1} << 40, int64_t{1} << 40},
               TensorShape({0, int64_t{1} << 40, int64_t{1} << 40}), DT_INT64);
}

TEST_F(ReshapeOpTest, RejectsSizeThatIsNotADivisor) {
  MakeReshape(DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 5})));
  AddSizes({3, -1}, DT_INT32);
  ExpectInvalid(
      "Input to reshape is a tensor with 10 values, but the requested shape "
      "requires a multiple of 3");
}

TEST_F(ReshapeOpTest, RejectsElementCountMismatch) {
  MakeReshape(DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 5})));
  AddSizes({3, 3}, DT_INT32);
  ExpectInvalid(
      "Input to reshape is a tensor with 10 values, but the requested shape "
      "has 9");
}

TEST_F(ReshapeOpTest, RejectsHugeMissingSize) {
  // -1 next to a zero, with an input whose non-zero dims overflow int64
  // when multiplied: reported, not overflowed.
  MakeReshape(DT_FLOAT, DT_INT64);
  AddInputTensor(test::MakeTestTensor(
      DT_FLOAT, TensorShape({0, int64_t{1} << 40, int64_t{1} << 40})));
  AddSizes({-1, 0}, DT_INT64);
  ExpectInvalid("Reshape cannot infer the missing input size");
}

TEST_F(ReshapeOpTest, RejectsTooManyDims) {
  MakeReshape(DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({1})));
  AddSizes(std::vector<int64_t>(300, 1), DT_INT32);
  ExpectInvalid("too many dimensions");
}

class ExpandDimsOpTest : public test::ArrayOpTest {
 protected:
  void Check(DataType dtype, const TensorShape& in, int64_t dim,
             const TensorShape& out, DataType tdim = DT_INT32) {
    SCOPED_TRACE(DataTypeString(dtype) + " " + in.DebugString() +
                 " dim=" + std::to_string(dim));
    MakeNode("ExpandDims").Input(dtype).Input(tdim);
    MF_ASSERT_OK(MakeOp());
    const Tensor input = test::MakeTestTensor(dtype, in);
    AddInputTensor(input);
    if (tdim == DT_INT32) {
      AddInputFromArray<int32_t>(TensorShape({}), {static_cast<int32_t>(dim)});
    } else {
      AddInputFromArray<int64_t>(TensorShape({}), {dim});
    }
    RunAndCheckShapes();
    EXPECT_EQ(GetOutput(0)->shape(), out);
    test::ExpectSharesBuffer(*GetOutput(0), GetInput(0));
    Tensor expected;
    ASSERT_TRUE(expected.CopyFrom(input, out));
    test::ExpectEqual(*GetOutput(0), expected);
  }
};

TEST_F(ExpandDimsOpTest, InsertsAtEveryPosition) {
  for (DataType dtype : test::MovementTypes()) {
    Check(dtype, TensorShape({2, 3}), 0, TensorShape({1, 2, 3}));
    Check(dtype, TensorShape({2, 3}), 1, TensorShape({2, 1, 3}));
    Check(dtype, TensorShape({2, 3}), 2, TensorShape({2, 3, 1}), DT_INT64);
  }
}

TEST_F(ExpandDimsOpTest, NegativeDimsCountFromTheEnd) {
  Check(DT_FLOAT, TensorShape({2, 3}), -1, TensorShape({2, 3, 1}));
  Check(DT_FLOAT, TensorShape({2, 3}), -2, TensorShape({2, 1, 3}));
  Check(DT_FLOAT, TensorShape({2, 3}), -3, TensorShape({1, 2, 3}), DT_INT64);
}

TEST_F(ExpandDimsOpTest, ScalarsAndEmptyTensors) {
  Check(DT_FLOAT, TensorShape({}), 0, TensorShape({1}));
  Check(DT_FLOAT, TensorShape({}), -1, TensorShape({1}));
  Check(DT_STRING, TensorShape({0, 3}), 1, TensorShape({0, 1, 3}));
}

TEST_F(ExpandDimsOpTest, AcceptsAOneElementVectorDim) {
  MakeNode("ExpandDims").Input(DT_FLOAT).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({3})));
  AddInputFromArray<int32_t>(TensorShape({1}), {0});
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({1, 3}));
}

TEST_F(ExpandDimsOpTest, RejectsDimWithSeveralValues) {
  MakeNode("ExpandDims").Input(DT_FLOAT).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({3})));
  AddInputFromArray<int32_t>(TensorShape({2}), {0, 1});
  ExpectInvalid("'dim' must be a tensor with a single value");
}

TEST_F(ExpandDimsOpTest, RejectsOutOfRangeDim) {
  for (int32_t dim : {3, -4, 1000}) {
    MakeNode("ExpandDims").Input(DT_FLOAT).Input(DT_INT32);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 3})));
    AddInputFromArray<int32_t>(TensorShape({}), {dim});
    ExpectInvalid("Tried to expand dim index " + std::to_string(dim) +
                  " for tensor with 2 dimensions.");
  }
}

TEST_F(ExpandDimsOpTest, RejectsRankPastTheLimit) {
  MakeNode("ExpandDims").Input(DT_FLOAT).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(
      DT_FLOAT, TensorShape(std::vector<int64_t>(kMaxTensorRank, 1))));
  AddInputFromArray<int32_t>(TensorShape({}), {0});
  ExpectInvalid("too many dimensions");
}

class SqueezeOpTest : public test::ArrayOpTest {
 protected:
  void Check(DataType dtype, const TensorShape& in,
             const std::vector<int64_t>& squeeze_dims, const TensorShape& out) {
    SCOPED_TRACE(DataTypeString(dtype) + " " + in.DebugString());
    MakeNode("Squeeze").Input(dtype).Attr(
        "squeeze_dims", absl::Span<const int64_t>(squeeze_dims));
    MF_ASSERT_OK(MakeOp());
    const Tensor input = test::MakeTestTensor(dtype, in);
    AddInputTensor(input);
    RunAndCheckShapes();
    EXPECT_EQ(GetOutput(0)->shape(), out);
    test::ExpectSharesBuffer(*GetOutput(0), GetInput(0));
    Tensor expected;
    ASSERT_TRUE(expected.CopyFrom(input, out));
    test::ExpectEqual(*GetOutput(0), expected);
  }
};

TEST_F(SqueezeOpTest, RemovesEveryUnitDimByDefault) {
  for (DataType dtype : test::MovementTypes()) {
    Check(dtype, TensorShape({1, 2, 1, 3, 1}), {}, TensorShape({2, 3}));
  }
  Check(DT_FLOAT, TensorShape({1, 1}), {}, TensorShape({}));
  Check(DT_FLOAT, TensorShape({}), {}, TensorShape({}));
  Check(DT_FLOAT, TensorShape({1, 0, 1}), {}, TensorShape({0}));
}

TEST_F(SqueezeOpTest, RemovesOnlyTheListedDims) {
  Check(DT_FLOAT, TensorShape({1, 2, 1, 3, 1}), {0, 4}, TensorShape({2, 1, 3}));
  Check(DT_INT64, TensorShape({1, 2, 1, 3, 1}), {-1, -3},
        TensorShape({1, 2, 3}));
  // Repeats (also through negative forms) count once.
  Check(DT_FLOAT, TensorShape({1, 2}), {0, -2, 0}, TensorShape({2}));
}

TEST_F(SqueezeOpTest, RejectsOutOfRangeDim) {
  MakeNode("Squeeze").Input(DT_FLOAT).Attr("squeeze_dims", {2});
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({1, 1})));
  ExpectInvalid("Tried to squeeze dim index 2 for tensor with 2 dimensions.");
}

TEST_F(SqueezeOpTest, RejectsDimThatIsNotOne) {
  MakeNode("Squeeze").Input(DT_FLOAT).Attr("squeeze_dims", {1});
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({1, 3})));
  ExpectInvalid("Can not squeeze dim[1], expected a dimension of 1, got 3");
}

}  // namespace
}  // namespace minflow
