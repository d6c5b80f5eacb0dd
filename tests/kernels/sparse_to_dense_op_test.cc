#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class SparseToDenseOpTest : public test::ArrayOpTest {
 protected:
  void Make(DataType dtype, DataType tindices = DT_INT32,
            bool validate = true) {
    MakeNode("SparseToDense")
        .Input(tindices)
        .Input(tindices)
        .Input(dtype)
        .Input(dtype)
        .Attr("validate_indices", validate);
    MF_ASSERT_OK(MakeOp());
  }
  void AddIndex(const TensorShape& shape, const std::vector<int64_t>& v,
                DataType t) {
    if (t == DT_INT32) {
      AddInputFromArray<int32_t>(shape,
                                 std::vector<int32_t>(v.begin(), v.end()));
    } else {
      AddInputFromArray<int64_t>(shape, v);
    }
  }
  // A float problem: indices [n, d] into `dims`, values [n] or a scalar.
  void AddFloatInputs(const TensorShape& ix_shape,
                      const std::vector<int64_t>& ix,
                      const std::vector<int64_t>& dims,
                      const TensorShape& values_shape,
                      DataType tindices = DT_INT32) {
    AddIndex(ix_shape, ix, tindices);
    AddIndex(TensorShape({static_cast<int64_t>(dims.size())}), dims, tindices);
    std::vector<float> values;
    for (int64_t i = 0; i < values_shape.num_elements(); ++i) {
      values.push_back(10.0f + i);
    }
    AddInputFromArray<float>(values_shape, values);
    AddInputFromArray<float>(TensorShape({}), {-1});
  }
};

TEST_F(SparseToDenseOpTest, ScattersIntoTheDefault) {
  // Matrix indices, one value each.
  Make(DT_FLOAT);
  AddFloatInputs(TensorShape({3, 2}), {0, 1, 1, 0, 2, 3}, {3, 4},
                 TensorShape({3}));
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({-1, 10, -1, -1, 11, -1, -1, -1, -1, -1, -1, 12},
                            TensorShape({3, 4})));
  // Vector indices into a vector, with a scalar value.
  Make(DT_FLOAT, DT_INT64);
  AddFloatInputs(TensorShape({2}), {1, 3}, {5}, TensorShape({}), DT_INT64);
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(*GetOutput(0),
                                 test::AsTensor<float>({-1, 10, -1, 10, -1}));
  // A scalar index.
  Make(DT_FLOAT);
  AddFloatInputs(TensorShape({}), {2}, {3}, TensorShape({}));
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(*GetOutput(0),
                                 test::AsTensor<float>({-1, -1, 10}));
  // Indices with no dims address the one element of a scalar.
  Make(DT_FLOAT);
  AddFloatInputs(TensorShape({1, 0}), {}, {}, TensorShape({1}));
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(*GetOutput(0), test::AsScalar<float>(10));
}

TEST_F(SparseToDenseOpTest, EveryElementSize) {
  for (DataType dtype : test::MovementTypes()) {
    SCOPED_TRACE(DataTypeString(dtype));
    Make(dtype, DT_INT64);
    AddIndex(TensorShape({3, 3}), {0, 0, 1, 0, 2, 0, 1, 1, 1}, DT_INT64);
    AddIndex(TensorShape({3}), {2, 3, 2}, DT_INT64);
    const Tensor values = test::MakeTestTensor(dtype, TensorShape({3}), 5);
    const Tensor fill = test::MakeTestTensor(dtype, TensorShape({}), 1);
    AddInputTensor(values);
    AddInputTensor(fill);
    RunAndCheckShapes();
    // Flat offsets of [0,0,1], [0,2,0], [1,1,1] in [2,3,2]: 1, 4, 9.
    std::vector<int64_t> src(12, -1);
    src[1] = 0;
    src[4] = 1;
    src[9] = 2;
    test::ExpectEqual(
        *GetOutput(0),
        test::GatherReference(values, TensorShape({2, 3, 2}), src, &fill));
  }
}

TEST_F(SparseToDenseOpTest, EmptyInputs) {
  Make(DT_FLOAT);
  AddFloatInputs(TensorShape({0, 2}), {}, {2, 3}, TensorShape({0}));
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>(std::vector<float>(6, -1), TensorShape({2, 3})));
  Make(DT_FLOAT);
  AddFloatInputs(TensorShape({0, 2}), {}, {0, 3}, TensorShape({}));
  RunAndCheckShapes();
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0, 3}));
}

TEST_F(SparseToDenseOpTest, UnvalidatedIndicesMayRepeatOrBeUnsorted) {
  Make(DT_FLOAT, DT_INT32, /*validate=*/false);
  AddFloatInputs(TensorShape({3}), {3, 0, 3}, {4}, TensorShape({3}));
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(*GetOutput(0),
                                 test::AsTensor<float>({11, -1, -1, 12}));
}

TEST_F(SparseToDenseOpTest, RejectsBadIndices) {
  Make(DT_FLOAT);
  AddFloatInputs(TensorShape({2, 2}), {0, 1, 3, 0}, {3, 4}, TensorShape({2}));
  ExpectInvalid("indices[1] = [3,0] is out of bounds: need 0 <= index < [3,4]");
  // Bounds are checked without validate_indices too.
  Make(DT_FLOAT, DT_INT64, /*validate=*/false);
  AddFloatInputs(TensorShape({2}), {1, -1}, {4}, TensorShape({2}), DT_INT64);
  ExpectInvalid("indices[1] = [-1] is out of bounds: need 0 <= index < [4]");
  Make(DT_FLOAT);
  AddFloatInputs(TensorShape({2, 2}), {1, 1, 0, 3}, {3, 4}, TensorShape({2}));
  ExpectInvalid(
      "indices[1] = [0,3] is out of order. Many sparse ops require sorted "
      "indices.");
  Make(DT_FLOAT);
  AddFloatInputs(TensorShape({3, 2}), {0, 1, 1, 2, 1, 2}, {3, 4},
                 TensorShape({3}));
  ExpectInvalid("indices[2] = [1,2] is repeated");
}

TEST_F(SparseToDenseOpTest, RejectsBadShapes) {
  Make(DT_FLOAT);
  AddFloatInputs(TensorShape({1, 1, 1}), {0}, {3}, TensorShape({}));
  ExpectInvalid(
      "sparse_indices should be a scalar, vector, or matrix, got shape "
      "[1,1,1]");
  Make(DT_FLOAT);
  AddIndex(TensorShape({2}), {0, 1}, DT_INT32);
  AddIndex(TensorShape({1, 1}), {3}, DT_INT32);
  AddInputFromArray<float>(TensorShape({}), {1});
  AddInputFromArray<float>(TensorShape({}), {0});
  ExpectInvalid("output_shape must be rank 1, got shape [1,1]");
  Make(DT_FLOAT);
  AddFloatInputs(TensorShape({2, 2}), {0, 1, 1, 0}, {3}, TensorShape({2}));
  ExpectInvalid(
      "output_shape has incorrect number of elements: 1 should be: 2");
  Make(DT_FLOAT);
  AddFloatInputs(TensorShape({2, 2}), {0, 1, 1, 0}, {3, 3}, TensorShape({3}));
  ExpectInvalid("sparse_values has incorrect shape [3], should be [] or [2]");
  Make(DT_FLOAT);
  AddIndex(TensorShape({2}), {0, 1}, DT_INT32);
  AddIndex(TensorShape({1}), {3}, DT_INT32);
  AddInputFromArray<float>(TensorShape({}), {1});
  AddInputFromArray<float>(TensorShape({1}), {0});
  ExpectInvalid("default_value should be a scalar.");
  Make(DT_FLOAT);
  AddFloatInputs(TensorShape({0, 2}), {}, {2, -3}, TensorShape({}));
  EXPECT_THAT(RunOpKernel(),
              ::minflow::testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                           ::testing::HasSubstr("-3")));
}

}  // namespace
}  // namespace minflow
