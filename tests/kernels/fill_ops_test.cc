#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class FillOpsTest : public test::ArrayOpTest {
 protected:
  void MakeFill(DataType dtype, const std::vector<int64_t>& dims,
                const Tensor& value, DataType index = DT_INT32,
                bool scalar_dims = false) {
    MakeNode("Fill").Input(index).Input(dtype);
    MF_ASSERT_OK(MakeOp());
    const TensorShape shape =
        scalar_dims ? TensorShape({})
                    : TensorShape({static_cast<int64_t>(dims.size())});
    if (index == DT_INT32) {
      AddInputFromArray<int32_t>(
          shape, std::vector<int32_t>(dims.begin(), dims.end()));
    } else {
      AddInputFromArray<int64_t>(shape, dims);
    }
    AddInputTensor(value);
  }

  // Every element of output 0 equals element 0 of `value`, in `shape`.
  void ExpectFilled(const TensorShape& shape, const Tensor& value) {
    test::ExpectEqual(
        *GetOutput(0),
        test::GatherReference(value, shape,
                              std::vector<int64_t>(shape.num_elements(), 0)));
  }
};

TEST_F(FillOpsTest, FillsEveryElementSize) {
  for (DataType dtype : test::MovementTypes()) {
    SCOPED_TRACE(DataTypeString(dtype));
    const Tensor value = test::MakeTestTensor(dtype, TensorShape({}), 5);
    MakeFill(dtype, {2, 3}, value);
    RunAndCheckShapes();
    ExpectFilled(TensorShape({2, 3}), value);
    MakeFill(dtype, {}, value, DT_INT64);
    RunAndCheckShapes();
    ExpectFilled(TensorShape({}), value);
  }
}

TEST_F(FillOpsTest, FillsLargeAndEmptyAndLegacyForms) {
  const Tensor value = test::AsScalar<float>(2.5f);
  MakeFill(DT_FLOAT, {512, 1024}, value);  // sharded
  RunAndCheckShapes();
  ExpectFilled(TensorShape({512, 1024}), value);
  MakeFill(DT_FLOAT, {3, 0}, value);
  RunAndCheckShapes();
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({3, 0}));
  // A scalar `dims` and a [1] `value` are TF's legacy forms.
  MakeFill(DT_FLOAT, {4}, test::AsTensor<float>({7.0f}), DT_INT32, true);
  MF_ASSERT_OK(RunOpKernel());
  ExpectFilled(TensorShape({4}), test::AsTensor<float>({7.0f}));
}

TEST_F(FillOpsTest, FillRejectsBadDims) {
  const Tensor value = test::AsScalar<float>(1.0f);
  MakeNode("Fill").Input(DT_INT32).Input(DT_FLOAT);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int32_t>(TensorShape({1, 2}), {1, 2});
  AddInputTensor(value);
  ExpectInvalid("dims must represent a vector, got shape [1,2]");
  MakeFill(DT_FLOAT, {2, -1}, value);
  ExpectInvalid("must be >= 0");
  MakeFill(DT_FLOAT, {int64_t{1} << 40, int64_t{1} << 40}, value, DT_INT64);
  ExpectInvalid("too many elements");
}

TEST_F(FillOpsTest, FillRejectsNonScalarValue) {
  MakeFill(DT_FLOAT, {2}, test::AsTensor<float>({1.0f, 2.0f}));
  ExpectInvalid("value must represent a scalar, got shape [2]");
}

TEST_F(FillOpsTest, ZerosLikeEveryType) {
  for (DataType dtype : test::MovementTypes()) {
    SCOPED_TRACE(DataTypeString(dtype));
    MakeNode("ZerosLike").Input(dtype);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::MakeTestTensor(dtype, TensorShape({3, 4}), 1));
    RunAndCheckShapes();
    Tensor zero(dtype, TensorShape({}));
    VisitDataType(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      zero.base<T>()[0] = T();
    });
    ExpectFilled(TensorShape({3, 4}), zero);
  }
}

TEST_F(FillOpsTest, ZerosLikeWritesInPlaceWhenItMay) {
  MakeNode("ZerosLike").Input(DT_FLOAT);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({256, 1024}), 1));
  RunAndCheckShapes();
  // The fixture's input has one owner, so the kernel may reuse it.
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)));
  ExpectFilled(TensorShape({256, 1024}), test::AsScalar<float>(0.0f));
}

TEST_F(FillOpsTest, OnesLikeEveryType) {
  for (DataType dtype :
       {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_INT8, DT_UINT8, DT_INT16,
        DT_UINT16, DT_INT32, DT_UINT32, DT_INT64, DT_UINT64, DT_COMPLEX64,
        DT_COMPLEX128, DT_BOOL}) {
    SCOPED_TRACE(DataTypeString(dtype));
    MakeNode("OnesLike").Input(dtype);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::MakeTestTensor(dtype, TensorShape({2, 0, 3})));
    RunAndCheckShapes();
    EXPECT_EQ(GetOutput(0)->shape(), TensorShape({2, 0, 3}));
    MakeNode("OnesLike").Input(dtype);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::MakeTestTensor(dtype, TensorShape({5, 3})));
    RunAndCheckShapes();
    Tensor one(dtype, TensorShape({}));
    VisitDataType(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same<T, bool>::value) {
        one.base<T>()[0] = true;
      } else if constexpr (std::is_arithmetic<T>::value ||
                           std::is_same<T, half>::value ||
                           std::is_same<T, bfloat16>::value ||
                           std::is_same<T, complex64>::value ||
                           std::is_same<T, complex128>::value) {
        one.base<T>()[0] = T(1);
      }
    });
    ExpectFilled(TensorShape({5, 3}), one);
  }
}

}  // namespace
}  // namespace minflow
