#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

// Piece [start, start + size) along `axis` of `in`: its shape and the
// source index of each element.
std::vector<int64_t> PieceSources(const TensorShape& in, int axis,
                                  int64_t start, int64_t size,
                                  TensorShape* out) {
  *out = in;
  out->set_dim(axis, size);
  const auto strides = test::Strides(in);
  std::vector<int64_t> src;
  for (int64_t e = 0; e < out->num_elements(); ++e) {
    auto idx = test::Unravel(e, *out);
    idx[axis] += start;
    int64_t s = 0;
    for (int d = 0; d < in.dims(); ++d) s += idx[d] * strides[d];
    src.push_back(s);
  }
  return src;
}

class SplitOpTest : public test::ArrayOpTest {
 protected:
  void CheckSplit(DataType dtype, const TensorShape& in, int32_t axis,
                  int num_split) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(dtype) << " " << in.DebugString() << " axis "
                 << axis << " /" << num_split);
    MakeNode("Split").Input(DT_INT32).Input(dtype).Attr("num_split", num_split);
    MF_ASSERT_OK(MakeOp());
    AddInputFromArray<int32_t>(TensorShape({}), {axis});
    const Tensor input = test::MakeTestTensor(dtype, in);
    AddInputTensor(input);
    RunAndCheckShapes();
    const int a = axis < 0 ? axis + in.dims() : axis;
    const int64_t delta = in.dim_size(a) / num_split;
    for (int i = 0; i < num_split; ++i) {
      TensorShape out;
      const auto src = PieceSources(in, a, i * delta, delta, &out);
      test::ExpectEqual(*GetOutput(i), test::GatherReference(input, out, src));
    }
  }

  void CheckSplitV(DataType dtype, const TensorShape& in, int32_t axis,
                   const std::vector<int64_t>& sizes,
                   const std::vector<int64_t>& resolved,
                   DataType tlen = DT_INT64) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(dtype) << " " << in.DebugString() << " axis "
                 << axis << " sizes " << ::testing::PrintToString(sizes));
    const int n = static_cast<int>(sizes.size());
    MakeNode("SplitV").Input(dtype).Input(tlen).Input(DT_INT32).Attr(
        "num_split", n);
    MF_ASSERT_OK(MakeOp());
    const Tensor input = test::MakeTestTensor(dtype, in);
    AddInputTensor(input);
    AddLengths(sizes, tlen);
    AddInputFromArray<int32_t>(TensorShape({}), {axis});
    RunAndCheckShapes();
    const int a = axis < 0 ? axis + in.dims() : axis;
    int64_t start = 0;
    for (int i = 0; i < n; ++i) {
      TensorShape out;
      const auto src = PieceSources(in, a, start, resolved[i], &out);
      test::ExpectEqual(*GetOutput(i), test::GatherReference(input, out, src));
      start += resolved[i];
    }
  }

  void AddLengths(const std::vector<int64_t>& sizes, DataType tlen) {
    const TensorShape shape({static_cast<int64_t>(sizes.size())});
    if (tlen == DT_INT64) {
      AddInputFromArray<int64_t>(shape, sizes);
    } else if (tlen == DT_INT32) {
      AddInputFromArray<int32_t>(
          shape, std::vector<int32_t>(sizes.begin(), sizes.end()));
    } else {
      AddInputFromArray<int8_t>(
          shape, std::vector<int8_t>(sizes.begin(), sizes.end()));
    }
  }

  void MakeSplitV(const TensorShape& in, const std::vector<int64_t>& sizes,
                  int32_t axis) {
    MakeNode("SplitV").Input(DT_FLOAT).Input(DT_INT64).Input(DT_INT32).Attr(
        "num_split", static_cast<int64_t>(sizes.size()));
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, in));
    AddLengths(sizes, DT_INT64);
    AddInputFromArray<int32_t>(TensorShape({}), {axis});
  }
};

TEST_F(SplitOpTest, SplitsEveryAxisAndElementSize) {
  for (DataType dtype : test::MovementTypes()) {
    CheckSplit(dtype, TensorShape({4, 6, 2}), 0, 2);
    CheckSplit(dtype, TensorShape({4, 6, 2}), 1, 3);
    CheckSplit(dtype, TensorShape({4, 6, 2}), -1, 2);
  }
}

TEST_F(SplitOpTest, OnePieceIsTheInput) {
  CheckSplit(DT_FLOAT, TensorShape({4, 6}), 1, 1);
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(1)));
}

TEST_F(SplitOpTest, AlignedLeadingPiecesShareTheBuffer) {
  // Rows of 16 floats = 64 bytes: every piece along dim 0 stays aligned.
  CheckSplit(DT_FLOAT, TensorShape({8, 16}), 0, 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(GetOutput(i)->SharesBufferWith(GetInput(1))) << i;
  }
  // Rows of 3 floats: pieces after the first would be unaligned, so copy.
  CheckSplit(DT_FLOAT, TensorShape({4, 3}), 0, 2);
  EXPECT_FALSE(GetOutput(1)->SharesBufferWith(GetInput(1)));
}

TEST_F(SplitOpTest, EmptyAndLarge) {
  CheckSplit(DT_FLOAT, TensorShape({0, 4}), 1, 2);
  CheckSplit(DT_STRING, TensorShape({4, 0}), 0, 4);
  CheckSplit(DT_FLOAT, TensorShape({512, 1024}), 1, 4);  // sharded copies
  CheckSplit(DT_INT8, TensorShape({3, 4, 5, 6, 8}), 4, 4);
}

TEST_F(SplitOpTest, RejectsNonScalarSplitDim) {
  MakeNode("Split").Input(DT_INT32).Input(DT_FLOAT).Attr("num_split", 2);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int32_t>(TensorShape({1}), {0});
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({4})));
  ExpectInvalid("split_dim must be a scalar but has rank 1");
}

TEST_F(SplitOpTest, RejectsOutOfRangeSplitDim) {
  for (int32_t axis : {2, -3}) {
    MakeNode("Split").Input(DT_INT32).Input(DT_FLOAT).Attr("num_split", 2);
    MF_ASSERT_OK(MakeOp());
    AddInputFromArray<int32_t>(TensorShape({}), {axis});
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({4, 4})));
    ExpectInvalid("-input rank(-2) <= split_dim < input rank (2), but got " +
                  std::to_string(axis));
  }
}

TEST_F(SplitOpTest, RejectsUnevenSplit) {
  MakeNode("Split").Input(DT_INT32).Input(DT_FLOAT).Attr("num_split", 3);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int32_t>(TensorShape({}), {1});
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 4})));
  ExpectInvalid(
      "Number of ways to split should evenly divide the split dimension, but "
      "got split_dim 1 (size = 4) and num_split 3");
}

TEST_F(SplitOpTest, SplitVSizesAndTheirTypes) {
  for (DataType dtype : test::MovementTypes()) {
    CheckSplitV(dtype, TensorShape({2, 7, 3}), 1, {1, 4, 2}, {1, 4, 2});
  }
  CheckSplitV(DT_FLOAT, TensorShape({2, 7}), -1, {3, -1}, {3, 4}, DT_INT32);
  CheckSplitV(DT_FLOAT, TensorShape({6, 2}), 0, {-1}, {6});
  CheckSplitV(DT_FLOAT, TensorShape({6, 2}), 0, {6}, {6});
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)));
  CheckSplitV(DT_FLOAT, TensorShape({300, 1000}), 1, {100, -1, 1},
              {100, 899, 1});
}

TEST_F(SplitOpTest, SplitVTakesInt8Sizes) {
  // Tlen = int8 is in SplitV's OpDef; the shape function rejects it
  // ("size_splits must be int32 or int64"), so only the kernel is checked.
  // TODO(#4): compare shapes once src/ops' SplitV accepts int8.
  MakeNode("SplitV").Input(DT_FLOAT).Input(DT_INT8).Input(DT_INT32).Attr(
      "num_split", 3);
  MF_ASSERT_OK(MakeOp());
  const Tensor input = test::MakeTestTensor(DT_FLOAT, TensorShape({6, 2}));
  AddInputTensor(input);
  AddLengths({0, 6, 0}, DT_INT8);
  AddInputFromArray<int32_t>(TensorShape({}), {0});
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0, 2}));
  test::ExpectEqual(*GetOutput(1), input);
  EXPECT_EQ(GetOutput(2)->shape(), TensorShape({0, 2}));
}

TEST_F(SplitOpTest, SplitVRejectsBadSplitDimTensor) {
  MakeNode("SplitV").Input(DT_FLOAT).Input(DT_INT64).Input(DT_INT32).Attr(
      "num_split", 2);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({4})));
  AddInputFromArray<int64_t>(TensorShape({2}), {2, 2});
  AddInputFromArray<int32_t>(TensorShape({2}), {0, 0});
  ExpectInvalid("split_dim_tensor must have exactly one element.");
}

TEST_F(SplitOpTest, SplitVRejectsSizesOfWrongShape) {
  MakeNode("SplitV").Input(DT_FLOAT).Input(DT_INT64).Input(DT_INT32).Attr(
      "num_split", 2);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({4})));
  AddInputFromArray<int64_t>(TensorShape({3}), {1, 1, 2});
  AddInputFromArray<int32_t>(TensorShape({}), {0});
  ExpectInvalid(
      "size of the split_tensor must be 1-D and have the same elements as "
      "outputs got 1 -D and 3 elements");
}

TEST_F(SplitOpTest, SplitVRejectsOutOfRangeSplitDim) {
  MakeSplitV(TensorShape({4}), {2, 2}, 1);
  ExpectInvalid("-input rank(-1) <= split_dim < input rank (1), but got 1");
}

TEST_F(SplitOpTest, SplitVRejectsWrongSingleSize) {
  MakeSplitV(TensorShape({4}), {3}, 0);
  ExpectInvalid(
      "If there is only one output, it must have the same size as the input. "
      "Input size: 4 output size: 3");
}

TEST_F(SplitOpTest, SplitVRejectsTwoMissingSizes) {
  MakeSplitV(TensorShape({4}), {-1, -1}, 0);
  ExpectInvalid("There can only be one -1 in the input.");
}

TEST_F(SplitOpTest, SplitVRejectsNegativeSize) {
  MakeSplitV(TensorShape({4}), {1, -2}, 0);
  ExpectInvalid("Split size at index 1 must be >= 0. Got: -2");
}

TEST_F(SplitOpTest, SplitVRejectsSizesThatDoNotAddUp) {
  MakeSplitV(TensorShape({4}), {1, 2}, 0);
  ExpectInvalid(
      "Determined shape must either match input shape along "
      "split_dim exactly if fully specified");
  MakeSplitV(TensorShape({4}), {3, 2, -1}, 0);
  ExpectInvalid("Got: 5");
  // Sizes whose sum would overflow int64 are caught as they grow.
  MakeSplitV(TensorShape({4}),
             {int64_t{1} << 62, int64_t{1} << 62, int64_t{1} << 62}, 0);
  ExpectInvalid("Determined shape must either match");
}

class UnpackOpTest : public test::ArrayOpTest {
 protected:
  void Check(DataType dtype, const TensorShape& in, int64_t axis) {
    SCOPED_TRACE(::testing::Message() << DataTypeString(dtype) << " "
                                      << in.DebugString() << " axis " << axis);
    const int a = static_cast<int>(axis < 0 ? axis + in.dims() : axis);
    const int num = static_cast<int>(in.dim_size(a));
    MakeNode("Unpack").Input(dtype).Attr("num", num).Attr("axis", axis);
    MF_ASSERT_OK(MakeOp());
    const Tensor input = test::MakeTestTensor(dtype, in);
    AddInputTensor(input);
    RunAndCheckShapes();
    for (int i = 0; i < num; ++i) {
      TensorShape piece;
      const auto src = PieceSources(in, a, i, 1, &piece);
      piece.RemoveDim(a);
      test::ExpectEqual(*GetOutput(i),
                        test::GatherReference(input, piece, src));
    }
  }
};

TEST_F(UnpackOpTest, UnstacksEveryAxis) {
  for (DataType dtype : test::MovementTypes()) {
    Check(dtype, TensorShape({3, 2, 4}), 0);
    Check(dtype, TensorShape({3, 2, 4}), 1);
    Check(dtype, TensorShape({3, 2, 4}), -1);
  }
  Check(DT_FLOAT, TensorShape({5}), 0);  // into scalars
  Check(DT_FLOAT, TensorShape({2, 0}), 0);
  Check(DT_FLOAT, TensorShape({0, 3}), 0);         // no outputs
  Check(DT_FLOAT, TensorShape({512, 2, 512}), 1);  // sharded copies
}

TEST_F(UnpackOpTest, RejectsOutOfRangeAxis) {
  MakeNode("Unpack").Input(DT_FLOAT).Attr("num", 2).Attr("axis", 2);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 2})));
  ExpectInvalid("axis = 2 not in [-2, 2)");
  MakeNode("Unpack").Input(DT_FLOAT).Attr("num", 2).Attr("axis", 0);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({})));
  ExpectInvalid("axis = 0 not in [0, 0)");
}

TEST_F(UnpackOpTest, RejectsWrongNum) {
  MakeNode("Unpack").Input(DT_FLOAT).Attr("num", 3).Attr("axis", 1);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 2})));
  ExpectInvalid("Input shape axis 1 must equal 3, got shape [2,2]");
}

}  // namespace
}  // namespace minflow
