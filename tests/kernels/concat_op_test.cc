#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

// The inputs laid side by side along `axis`, as one tensor holding
// every input's elements (input i's elements start at offsets[i]) plus the
// source index of each output element in that tensor.
struct Joined {
  Tensor all;
  TensorShape out;
  std::vector<int64_t> src;
};

Joined JoinAlong(const std::vector<Tensor>& inputs, int axis, bool stack) {
  Joined j;
  std::vector<int64_t> offsets;
  int64_t total = 0;
  for (const Tensor& t : inputs) {
    offsets.push_back(total);
    total += t.NumElements();
  }
  j.all = Tensor(inputs[0].dtype(), TensorShape({total}));
  VisitDataType(inputs[0].dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t i = 0; i < inputs.size(); ++i) {
      for (int64_t e = 0; e < inputs[i].NumElements(); ++e) {
        j.all.base<T>()[offsets[i] + e] = inputs[i].base<const T>()[e];
      }
    }
  });
  // Output dims: stack inserts a dim of size N, concat sums along axis.
  std::vector<int64_t> dims(inputs[0].shape().dim_sizes().begin(),
                            inputs[0].shape().dim_sizes().end());
  if (stack) {
    dims.insert(dims.begin() + axis, static_cast<int64_t>(inputs.size()));
  } else {
    dims[axis] = 0;
    for (const Tensor& t : inputs) dims[axis] += t.dim_size(axis);
  }
  j.out = TensorShape(dims);
  for (int64_t e = 0; e < j.out.num_elements(); ++e) {
    auto idx = test::Unravel(e, j.out);
    size_t which = 0;
    if (stack) {
      which = idx[axis];
      idx.erase(idx.begin() + axis);
    } else {
      while (idx[axis] >= inputs[which].dim_size(axis)) {
        idx[axis] -= inputs[which].dim_size(axis);
        ++which;
      }
    }
    const auto strides = test::Strides(inputs[which].shape());
    int64_t s = offsets[which];
    for (size_t d = 0; d < idx.size(); ++d) s += idx[d] * strides[d];
    j.src.push_back(s);
  }
  return j;
}

class ConcatOpTest : public test::ArrayOpTest {
 protected:
  void Check(DataType dtype, const std::vector<TensorShape>& shapes,
             int64_t axis, DataType tidx = DT_INT32) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(dtype) << " " << shapes[0].DebugString()
                 << " x" << shapes.size() << " axis " << axis);
    MakeNode("ConcatV2")
        .Input(static_cast<int>(shapes.size()), dtype)
        .Input(tidx);
    MF_ASSERT_OK(MakeOp());
    std::vector<Tensor> inputs;
    int64_t offset = 0;
    for (const TensorShape& s : shapes) {
      inputs.push_back(test::MakeTestTensor(dtype, s, offset));
      offset += s.num_elements();
      AddInputTensor(inputs.back());
    }
    if (tidx == DT_INT32) {
      AddInputFromArray<int32_t>(TensorShape({}), {static_cast<int32_t>(axis)});
    } else {
      AddInputFromArray<int64_t>(TensorShape({}), {axis});
    }
    RunAndCheckShapes();
    const int rank = shapes[0].dims();
    const Joined j =
        JoinAlong(inputs, static_cast<int>(axis < 0 ? axis + rank : axis),
                  /*stack=*/false);
    test::ExpectEqual(*GetOutput(0),
                      test::GatherReference(j.all, j.out, j.src));
  }
};

TEST_F(ConcatOpTest, EveryAxisAndElementSize) {
  for (DataType dtype : test::MovementTypes()) {
    Check(dtype, {TensorShape({2, 3, 4}), TensorShape({5, 3, 4})}, 0);
    Check(dtype,
          {TensorShape({2, 3, 4}), TensorShape({2, 1, 4}),
           TensorShape({2, 2, 4})},
          1, DT_INT64);
    Check(dtype, {TensorShape({2, 3, 4}), TensorShape({2, 3, 1})}, 2);
  }
}

TEST_F(ConcatOpTest, NegativeAxes) {
  Check(DT_FLOAT, {TensorShape({2, 3}), TensorShape({2, 5})}, -1);
  Check(DT_FLOAT, {TensorShape({2, 3}), TensorShape({4, 3})}, -2, DT_INT64);
}

TEST_F(ConcatOpTest, EmptyInputsAndOutputs) {
  Check(DT_FLOAT,
        {TensorShape({2, 0}), TensorShape({2, 3}), TensorShape({2, 0})}, 1);
  Check(DT_STRING, {TensorShape({0, 3}), TensorShape({0, 3})}, 0);
  Check(DT_FLOAT, {TensorShape({0, 3}), TensorShape({0, 2})}, 1);
}

TEST_F(ConcatOpTest, Rank1And5) {
  Check(DT_INT32, {TensorShape({3}), TensorShape({1}), TensorShape({4})}, 0);
  Check(DT_INT32, {TensorShape({2, 1, 3, 2, 2}), TensorShape({2, 1, 3, 1, 2})},
        3);
}

TEST_F(ConcatOpTest, LargeEnoughToShard) {
  // 2 MiB out of many short rows, and out of two long ones.
  Check(DT_FLOAT, {TensorShape({4096, 64}), TensorShape({4096, 64})}, 1);
  Check(DT_INT8, {TensorShape({1, 1 << 20}), TensorShape({1, 1 << 20})}, 1);
  Check(DT_FLOAT,
        {TensorShape({3000, 7}), TensorShape({3000, 5}), TensorShape({3000, 0}),
         TensorShape({3000, 1})},
        1);
}

TEST_F(ConcatOpTest, RejectsNonScalarAxis) {
  MakeNode("ConcatV2").Input(2, DT_FLOAT).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2})));
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2})));
  AddInputFromArray<int32_t>(TensorShape({1}), {0});
  ExpectInvalid("axis tensor should be a scalar integer, but got shape [1]");
}

TEST_F(ConcatOpTest, RejectsOutOfRangeAxis) {
  for (int32_t axis : {2, -3}) {
    MakeNode("ConcatV2").Input(2, DT_FLOAT).Input(DT_INT32);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 2})));
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 2})));
    AddInputFromArray<int32_t>(TensorShape({}), {axis});
    ExpectInvalid(
        "ConcatOp : Expected concatenating dimensions in the range [-2, 2), "
        "but got " +
        std::to_string(axis));
  }
}

TEST_F(ConcatOpTest, RejectsScalars) {
  MakeNode("ConcatV2").Input(2, DT_FLOAT).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({})));
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({})));
  AddInputFromArray<int32_t>(TensorShape({}), {0});
  ExpectInvalid("Expected concatenating dimensions in the range [0, 0)");
}

TEST_F(ConcatOpTest, RejectsRankMismatch) {
  MakeNode("ConcatV2").Input(2, DT_FLOAT).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 2})));
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 2, 1})));
  AddInputFromArray<int32_t>(TensorShape({}), {0});
  ExpectInvalid(
      "ConcatOp : Ranks of all input tensors should match: shape[0] = [2,2] "
      "vs. shape[1] = [2,2,1]");
}

TEST_F(ConcatOpTest, RejectsDimMismatch) {
  MakeNode("ConcatV2").Input(2, DT_FLOAT).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 2})));
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 3})));
  AddInputFromArray<int32_t>(TensorShape({}), {0});
  ExpectInvalid(
      "ConcatOp : Dimension 1 in both shapes must be equal: shape[0] = [2,2] "
      "vs. shape[1] = [2,3]");
}

TEST_F(ConcatOpTest, RejectsOverflowingConcatDim) {
  // Empty inputs may have huge dims; their sum must not wrap.
  const int64_t big = int64_t{1} << 62;
  MakeNode("ConcatV2").Input(3, DT_FLOAT).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  for (int i = 0; i < 3; ++i) {
    AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, big})));
  }
  AddInputFromArray<int32_t>(TensorShape({}), {1});
  ExpectInvalid("overflows int64");
}

class PackOpTest : public test::ArrayOpTest {
 protected:
  void Check(DataType dtype, const TensorShape& shape, int n, int64_t axis) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(dtype) << " " << shape.DebugString() << " x"
                 << n << " axis " << axis);
    MakeNode("Pack").Input(n, dtype).Attr("axis", axis);
    MF_ASSERT_OK(MakeOp());
    std::vector<Tensor> inputs;
    for (int i = 0; i < n; ++i) {
      inputs.push_back(
          test::MakeTestTensor(dtype, shape, i * shape.num_elements()));
      AddInputTensor(inputs.back());
    }
    RunAndCheckShapes();
    const int rank = shape.dims() + 1;
    const Joined j = JoinAlong(
        inputs, static_cast<int>(axis < 0 ? axis + rank : axis), true);
    test::ExpectEqual(*GetOutput(0),
                      test::GatherReference(j.all, j.out, j.src));
  }
};

TEST_F(PackOpTest, StacksAlongEveryAxis) {
  for (DataType dtype : test::MovementTypes()) {
    for (int64_t axis : {0, 1, 2, -1, -3}) {
      Check(dtype, TensorShape({2, 3}), 3, axis);
    }
  }
}

TEST_F(PackOpTest, ScalarsEmptyAndSingle) {
  Check(DT_FLOAT, TensorShape({}), 4, 0);
  Check(DT_FLOAT, TensorShape({0, 2}), 3, 1);
  Check(DT_STRING, TensorShape({2, 2}), 1, 1);
  // One input is a reshape of it.
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)));
  Check(DT_INT64, TensorShape({512, 130}), 4, 1);  // sharded
}

TEST_F(PackOpTest, RejectsShapeMismatch) {
  MakeNode("Pack").Input(2, DT_FLOAT);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 3})));
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({3, 2})));
  ExpectInvalid(
      "Shapes of all inputs must match: values[0].shape = [2,3] != "
      "values[1].shape = [3,2]");
}

TEST_F(PackOpTest, RejectsOutOfRangeAxis) {
  for (int64_t axis : {3, -4}) {
    MakeNode("Pack").Input(2, DT_FLOAT).Attr("axis", axis);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 3})));
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 3})));
    ExpectInvalid("axis = " + std::to_string(axis) + " not in [-3, 3)");
  }
}

// ConcatOffset(concat_dim, shapes...): where each input starts.
class ConcatOffsetOpTest : public test::ArrayOpTest {
 protected:
  template <typename T>
  void Make(int32_t concat_dim, const std::vector<std::vector<T>>& shapes) {
    MakeNode("ConcatOffset")
        .Input(DT_INT32)
        .Input(static_cast<int>(shapes.size()), DataTypeToEnum<T>::v());
    MF_ASSERT_OK(MakeOp());
    AddInputFromArray<int32_t>(TensorShape({}), {concat_dim});
    for (const auto& shape : shapes) {
      AddInputFromArray<T>(TensorShape({static_cast<int64_t>(shape.size())}),
                           shape);
    }
  }
};

TEST_F(ConcatOffsetOpTest, OffsetsAlongTheAxis) {
  Make<int32_t>(1, {{2, 3, 5}, {2, 1, 5}, {2, 4, 5}});
  RunAndCheckShapes();
  test::ExpectTensorEqual<int32_t>(*GetOutput(0),
                                   test::AsTensor<int32_t>({0, 0, 0}));
  test::ExpectTensorEqual<int32_t>(*GetOutput(1),
                                   test::AsTensor<int32_t>({0, 3, 0}));
  test::ExpectTensorEqual<int32_t>(*GetOutput(2),
                                   test::AsTensor<int32_t>({0, 4, 0}));
}

TEST_F(ConcatOffsetOpTest, NegativeAxisAndInt64) {
  Make<int64_t>(-2, {{int64_t{1} << 33, 2}, {7, 2}});
  RunAndCheckShapes();
  test::ExpectTensorEqual<int64_t>(*GetOutput(0),
                                   test::AsTensor<int64_t>({0, 0}));
  test::ExpectTensorEqual<int64_t>(
      *GetOutput(1), test::AsTensor<int64_t>({int64_t{1} << 33, 0}));
}

TEST_F(ConcatOffsetOpTest, RejectsABadConcatDim) {
  MakeNode("ConcatOffset").Input(DT_INT32).Input(2, DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int32_t>(TensorShape({1}), {0});
  AddInputFromArray<int32_t>(TensorShape({1}), {1});
  AddInputFromArray<int32_t>(TensorShape({1}), {1});
  ExpectInvalid("ConcatOffset: concat_dim must be a scalar, but got shape [1]");
  for (int32_t axis : {2, -3}) {
    Make<int32_t>(axis, {{1, 2}, {1, 2}});
    ExpectInvalid("ConcatOffset: concat_dim must be in [-2, 2), but got " +
                  std::to_string(axis));
  }
}

TEST_F(ConcatOffsetOpTest, RejectsMismatchedShapes) {
  Make<int32_t>(0, {{1, 2}, {3, 4}});
  ExpectInvalid(
      "ConcatOffset: shape 1 must match shape 0 in dimension 1, but got 4 and "
      "2");
  Make<int32_t>(0, {{1, 2}, {3, 2, 1}});
  ExpectInvalid(
      "ConcatOffset: shape 1 must be a vector of 2 elements, but got shape "
      "[3]");
  Make<int32_t>(1, {{1, -2}, {1, 2}});
  ExpectInvalid(
      "ConcatOffset: shape 0 must not be negative, but got -2 in dimension 1");
}

TEST_F(ConcatOffsetOpTest, RejectsANonVectorFirstShape) {
  MakeNode("ConcatOffset").Input(DT_INT32).Input(2, DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int32_t>(TensorShape({}), {0});
  AddInputFromArray<int32_t>(TensorShape({}), {1});
  AddInputFromArray<int32_t>(TensorShape({}), {1});
  ExpectInvalid("ConcatOffset: shape 0 must be a vector, but got shape []");
}

TEST_F(ConcatOffsetOpTest, RejectsAnOverflowingOffset) {
  Make<int32_t>(0, {{std::numeric_limits<int32_t>::max()}, {1}, {1}});
  ExpectInvalid("ConcatOffset: the concatenated size overflows int32");
}

}  // namespace
}  // namespace minflow
