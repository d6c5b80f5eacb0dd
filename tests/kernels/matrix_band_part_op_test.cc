#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class MatrixBandPartOpTest : public test::ArrayOpTest {
 protected:
  void Make(DataType dtype, DataType tindex = DT_INT64) {
    MakeNode("MatrixBandPart").Input(dtype).Input(tindex).Input(tindex);
    MF_ASSERT_OK(MakeOp());
  }
  void AddBounds(int64_t lower, int64_t upper, DataType tindex = DT_INT64) {
    if (tindex == DT_INT32) {
      AddInputFromArray<int32_t>(TensorShape({}),
                                 {static_cast<int32_t>(lower)});
      AddInputFromArray<int32_t>(TensorShape({}),
                                 {static_cast<int32_t>(upper)});
    } else {
      AddInputFromArray<int64_t>(TensorShape({}), {lower});
      AddInputFromArray<int64_t>(TensorShape({}), {upper});
    }
  }
  // Against the definition: element (m, n) is kept iff
  // (lower < 0 || m - n <= lower) && (upper < 0 || n - m <= upper).
  void Check(DataType dtype, const TensorShape& shape, int64_t lower,
             int64_t upper, DataType tindex = DT_INT64) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(dtype) << " " << shape.DebugString() << " "
                 << lower << " " << upper);
    Make(dtype, tindex);
    const Tensor in = test::MakeTestTensor(dtype, shape);
    AddInputTensor(in);
    AddBounds(lower, upper, tindex);
    RunAndCheckShapes();
    const int64_t rows = shape.dim_size(shape.dims() - 2);
    const int64_t cols = shape.dim_size(shape.dims() - 1);
    Tensor zero(dtype, TensorShape({1}));
    VisitDataType(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      zero.base<T>()[0] = T{};
    });
    std::vector<int64_t> src;
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      const int64_t m = (i / cols) % rows;
      const int64_t n = i % cols;
      const bool keep =
          (lower < 0 || m - n <= lower) && (upper < 0 || n - m <= upper);
      src.push_back(keep ? i : -1);
    }
    test::ExpectEqual(*GetOutput(0),
                      test::GatherReference(in, shape, src, &zero));
  }
};

TEST_F(MatrixBandPartOpTest, DocumentedExamples) {
  const std::vector<float> in = {0,  1,  2, 3, -1, 0,  1,  2,
                                 -2, -1, 0, 1, -3, -2, -1, 0};
  Make(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({4, 4}), in);
  AddBounds(1, -1);
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({0, 1, 2, 3, -1, 0, 1, 2, 0, -1, 0, 1, 0, 0, -1, 0},
                            TensorShape({4, 4})));
  Make(DT_FLOAT, DT_INT32);
  AddInputFromArray<float>(TensorShape({4, 4}), in);
  AddBounds(2, 1, DT_INT32);
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>(
                         {0, 1, 0, 0, -1, 0, 1, 0, -2, -1, 0, 1, 0, -2, -1, 0},
                         TensorShape({4, 4})));
}

TEST_F(MatrixBandPartOpTest, BoundsTypesAndShapes) {
  for (DataType dtype :
       {DT_FLOAT, DT_INT8, DT_HALF, DT_INT64, DT_COMPLEX128, DT_BOOL}) {
    for (int64_t lower : {-1, 0, 1, 3}) {
      for (int64_t upper : {-1, 0, 2, 5}) {
        Check(dtype, TensorShape({2, 3, 5}), lower, upper);
      }
    }
  }
  Check(DT_DOUBLE, TensorShape({5, 2}), 0, 0, DT_INT32);
  Check(DT_FLOAT, TensorShape({2, 2, 7, 6}), 7, 6);
  Check(DT_FLOAT, TensorShape({0, 3, 3}), 1, 1);
  Check(DT_FLOAT, TensorShape({3, 0}), 0, 0);
}

TEST_F(MatrixBandPartOpTest, RejectsBadInputs) {
  Make(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({3}), {1, 2, 3});
  AddBounds(0, 0);
  ExpectInvalid("input must be at least 2-dim, received shape: [3]");
  Make(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  AddBounds(3, 0);
  ExpectInvalid(
      "num_lower must be negative or less or equal to number of rows (2) "
      "got: 3");
  Make(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  AddBounds(0, 4);
  ExpectInvalid(
      "num_upper must be negative or less or equal to number of columns (3) "
      "got: 4");
  Make(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  AddInputFromArray<int64_t>(TensorShape({1}), {0});
  AddInputFromArray<int64_t>(TensorShape({}), {0});
  ExpectInvalid("num_lower must be scalar, got shape [1]");
  Make(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  AddInputFromArray<int64_t>(TensorShape({}), {0});
  AddInputFromArray<int64_t>(TensorShape({2}), {0, 1});
  ExpectInvalid("num_upper must be scalar, got shape [2]");
}

}  // namespace
}  // namespace minflow
