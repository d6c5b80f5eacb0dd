#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class GatherOpTest : public test::ArrayOpTest {
 protected:
  void Make(DataType dtype, DataType tindices, int64_t batch_dims = 0,
            DataType taxis = DT_INT32) {
    MakeNode("GatherV2")
        .Input(dtype)
        .Input(tindices)
        .Input(taxis)
        .Attr("batch_dims", batch_dims);
    MF_ASSERT_OK(MakeOp());
  }
  void AddIndices(const TensorShape& shape, const std::vector<int64_t>& v,
                  DataType t) {
    if (t == DT_INT16) {
      AddInputFromArray<int16_t>(shape,
                                 std::vector<int16_t>(v.begin(), v.end()));
    } else if (t == DT_INT32) {
      AddInputFromArray<int32_t>(shape,
                                 std::vector<int32_t>(v.begin(), v.end()));
    } else {
      AddInputFromArray<int64_t>(shape, v);
    }
  }
  void AddAxis(int64_t axis, DataType taxis = DT_INT32) {
    if (taxis == DT_INT32) {
      AddInputFromArray<int32_t>(TensorShape({}), {static_cast<int32_t>(axis)});
    } else {
      AddInputFromArray<int64_t>(TensorShape({}), {axis});
    }
  }

  // out[p_before, i_rest, p_after] = params[p_before, indices[b, i_rest],
  // p_after], with the batch dims shared.
  void Check(DataType dtype, const TensorShape& params,
             const TensorShape& indices_shape,
             const std::vector<int64_t>& indices, int64_t axis,
             int64_t batch_dims = 0, DataType tindices = DT_INT32,
             DataType taxis = DT_INT32) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(dtype) << " params " << params.DebugString()
                 << " indices " << indices_shape.DebugString() << " axis "
                 << axis << " batch_dims " << batch_dims);
    Make(dtype, tindices, batch_dims, taxis);
    const Tensor p = test::MakeTestTensor(dtype, params);
    AddInputTensor(p);
    AddIndices(indices_shape, indices, tindices);
    AddAxis(axis, taxis);
    RunAndCheckShapes();

    const int a = static_cast<int>(axis < 0 ? axis + params.dims() : axis);
    const int b = static_cast<int>(
        batch_dims < 0 ? batch_dims + indices_shape.dims() : batch_dims);
    std::vector<int64_t> dims;
    for (int d = 0; d < a; ++d) dims.push_back(params.dim_size(d));
    for (int d = b; d < indices_shape.dims(); ++d) {
      dims.push_back(indices_shape.dim_size(d));
    }
    for (int d = a + 1; d < params.dims(); ++d)
      dims.push_back(params.dim_size(d));
    const TensorShape out(dims);
    const auto p_strides = test::Strides(params);
    const auto i_strides = test::Strides(indices_shape);
    std::vector<int64_t> src;
    const int n_rest = indices_shape.dims() - b;
    for (int64_t e = 0; e < out.num_elements(); ++e) {
      const auto o = test::Unravel(e, out);
      // Index position: the batch dims (= o[0..b)) then o[a..a+n_rest).
      int64_t flat = 0;
      for (int d = 0; d < b; ++d) flat += o[d] * i_strides[d];
      for (int d = 0; d < n_rest; ++d) flat += o[a + d] * i_strides[b + d];
      int64_t s = 0;
      for (int d = 0; d < a; ++d) s += o[d] * p_strides[d];
      s += indices[flat] * p_strides[a];
      for (int d = a + 1; d < params.dims(); ++d) {
        s += o[d - 1 + n_rest] * p_strides[d];
      }
      src.push_back(s);
    }
    test::ExpectEqual(*GetOutput(0), test::GatherReference(p, out, src));
  }
};

TEST_F(GatherOpTest, GathersRowsOfEveryElementSize) {
  for (DataType dtype : test::MovementTypes()) {
    Check(dtype, TensorShape({5, 3}), TensorShape({4}), {4, 0, 2, 0}, 0);
    Check(dtype, TensorShape({5, 3}), TensorShape({2, 2}), {2, 1, 0, 2}, 1, 0,
          DT_INT64);
  }
}

TEST_F(GatherOpTest, AxesIndexTypesAndNegativeAxis) {
  for (DataType t : {DT_INT16, DT_INT32, DT_INT64}) {
    Check(DT_FLOAT, TensorShape({2, 3, 4}), TensorShape({3}), {3, 3, 0}, 2, 0,
          t, DT_INT64);
    Check(DT_FLOAT, TensorShape({2, 3, 4}), TensorShape({2}), {2, 0}, -2, 0, t);
  }
  Check(DT_INT32, TensorShape({4}), TensorShape({}), {3}, 0);  // scalar index
}

TEST_F(GatherOpTest, BatchDims) {
  // params [2, 3, 4], indices [2, 2]: out[b, i, :] = params[b, idx[b,i], :]
  Check(DT_FLOAT, TensorShape({2, 3, 4}), TensorShape({2, 2}), {2, 0, 1, 1}, 1,
        1);
  Check(DT_INT64, TensorShape({2, 3, 4}), TensorShape({2, 5}),
        {0, 1, 2, 3, 0, 3, 2, 1, 0, 0}, 2, 1);
  Check(DT_FLOAT, TensorShape({2, 3, 4}), TensorShape({2, 3, 2}),
        {0, 1, 2, 3, 0, 3, 2, 1, 0, 0, 1, 1}, 2, -1);  // batch_dims 2
  Check(DT_STRING, TensorShape({2, 3}), TensorShape({2, 2}), {0, 2, 1, 1}, 1,
        1);
}

TEST_F(GatherOpTest, EmptyAndLarge) {
  Check(DT_FLOAT, TensorShape({5, 3}), TensorShape({0}), {}, 0);
  Check(DT_FLOAT, TensorShape({5, 0}), TensorShape({2}), {1, 9}, 0);
  // Empty params along the axis with no indices.
  Check(DT_FLOAT, TensorShape({0, 3}), TensorShape({0}), {}, 0);
  std::vector<int64_t> many(20000);
  for (size_t i = 0; i < many.size(); ++i) many[i] = (i * 7919) % 1000;
  Check(DT_FLOAT, TensorShape({1000, 16}), TensorShape({20000}), many, 0);
}

TEST_F(GatherOpTest, RejectsOutOfRangeIndices) {
  Make(DT_FLOAT, DT_INT32);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({5, 2})));
  AddIndices(TensorShape({4}), {0, 1, 4, 7}, DT_INT32);
  AddAxis(0);
  ExpectInvalid("indices[3] = 7 is not in [0, 5)");
  Make(DT_FLOAT, DT_INT64);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({5, 2})));
  AddIndices(TensorShape({2, 2}), {0, 1, -1, 2}, DT_INT64);
  AddAxis(1);
  ExpectInvalid("indices[1,0] = -1 is not in [0, 2)");
  // Batched gathers check every index too.
  Make(DT_FLOAT, DT_INT32, 1);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 3})));
  AddIndices(TensorShape({2, 1}), {0, 3}, DT_INT32);
  AddAxis(1);
  ExpectInvalid("indices[1,0] = 3 is not in [0, 3)");
}

TEST_F(GatherOpTest, RejectsScalarParamsAndBadAxis) {
  Make(DT_FLOAT, DT_INT32);
  AddInputTensor(test::AsScalar<float>(1));
  AddIndices(TensorShape({1}), {0}, DT_INT32);
  AddAxis(0);
  ExpectInvalid("params must be at least 1 dimensional");
  Make(DT_FLOAT, DT_INT32);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 2})));
  AddIndices(TensorShape({1}), {0}, DT_INT32);
  AddInputFromArray<int32_t>(TensorShape({1}), {0});
  ExpectInvalid("axis must be scalar");
  for (int64_t axis : {2, -3}) {
    Make(DT_FLOAT, DT_INT32);
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 2})));
    AddIndices(TensorShape({1}), {0}, DT_INT32);
    AddAxis(axis);
    ExpectInvalid("Shape must be at least rank 3 but is rank 2");
  }
}

TEST_F(GatherOpTest, RejectsBadBatchDims) {
  auto run = [&](int64_t batch_dims, const TensorShape& params,
                 const TensorShape& indices, int64_t axis) {
    Make(DT_FLOAT, DT_INT32, batch_dims);
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, params));
    AddIndices(indices, std::vector<int64_t>(indices.num_elements(), 0),
               DT_INT32);
    AddAxis(axis);
  };
  run(3, TensorShape({2, 2}), TensorShape({2, 2}), 1);
  ExpectInvalid("params must have at least 3 (batch_dims) dimensions");
  run(2, TensorShape({2, 2, 2}), TensorShape({2}), 2);
  ExpectInvalid("Expected batch_dims in the range [-1, 1], but got 2");
  run(2, TensorShape({2, 2}), TensorShape({2, 2}), 1);
  ExpectInvalid("batch_dims (2) must be less than rank(params) (2).");
  run(2, TensorShape({2, 2, 2}), TensorShape({2, 2}), 1);
  ExpectInvalid("batch_dims (2) must be less than or equal to axis (1).");
  run(1, TensorShape({2, 3}), TensorShape({3, 1}), 1);
  ExpectInvalid("params.shape[0]: 2 should be equal to indices.shape[0]: 3");
}

TEST_F(GatherOpTest, RejectsAxisTooLargeForInt16Indices) {
  Make(DT_FLOAT, DT_INT16);
  std::vector<Tensor> inputs = {HugeTensor(DT_FLOAT, TensorShape({0, 40000})),
                                test::AsTensor<int16_t>({0}),
                                test::AsScalar<int32_t>(1)};
  EXPECT_THAT(RunOnTensors(&inputs),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("params.shape[1] too large for int16 "
                                       "indexing: 40000 > 32767")));
}

}  // namespace
}  // namespace minflow
