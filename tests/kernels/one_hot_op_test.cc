#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class OneHotOpTest : public test::ArrayOpTest {
 protected:
  void Make(DataType dtype, DataType ti, int64_t axis) {
    MakeNode("OneHot").Input(ti).Input(DT_INT32).Input(dtype).Input(dtype).Attr(
        "axis", axis);
    MF_ASSERT_OK(MakeOp());
  }
  void AddIndices(const TensorShape& shape, const std::vector<int64_t>& v,
                  DataType ti) {
    switch (ti) {
      case DT_UINT8:
        AddInputFromArray<uint8_t>(shape,
                                   std::vector<uint8_t>(v.begin(), v.end()));
        break;
      case DT_INT8:
        AddInputFromArray<int8_t>(shape,
                                  std::vector<int8_t>(v.begin(), v.end()));
        break;
      case DT_INT32:
        AddInputFromArray<int32_t>(shape,
                                   std::vector<int32_t>(v.begin(), v.end()));
        break;
      default:
        AddInputFromArray<int64_t>(shape, v);
    }
  }

  void Check(DataType dtype, DataType ti, const TensorShape& shape,
             const std::vector<int64_t>& indices, int32_t depth, int64_t axis) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(dtype) << " " << DataTypeString(ti) << " "
                 << shape.DebugString() << " depth " << depth << " axis "
                 << axis);
    Make(dtype, ti, axis);
    AddIndices(shape, indices, ti);
    AddInputFromArray<int32_t>(TensorShape({}), {depth});
    // values[0] is off, values[1] is on.
    const Tensor values = test::MakeTestTensor(dtype, TensorShape({2}), 3);
    AddInputTensor(test::MakeTestTensor(dtype, TensorShape({}), 4));  // on
    AddInputTensor(test::MakeTestTensor(dtype, TensorShape({}), 3));  // off
    RunAndCheckShapes();

    const int a = static_cast<int>(axis == -1 ? shape.dims() : axis);
    std::vector<int64_t> dims(shape.dim_sizes().begin(),
                              shape.dim_sizes().end());
    dims.insert(dims.begin() + a, depth);
    const TensorShape out(dims);
    std::vector<int64_t> src;
    const auto strides = test::Strides(shape);
    for (int64_t e = 0; e < out.num_elements(); ++e) {
      auto idx = test::Unravel(e, out);
      const int64_t d = idx[a];
      idx.erase(idx.begin() + a);
      int64_t flat = 0;
      for (size_t k = 0; k < idx.size(); ++k) flat += idx[k] * strides[k];
      src.push_back(indices[flat] == d ? 1 : 0);
    }
    test::ExpectEqual(*GetOutput(0), test::GatherReference(values, out, src));
  }
};

TEST_F(OneHotOpTest, EveryAxisAndIndexType) {
  const std::vector<int64_t> idx = {0, 2, 1, 3, 2, 0};
  for (DataType ti : {DT_UINT8, DT_INT8, DT_INT32, DT_INT64}) {
    for (int64_t axis : {-1, 0, 1, 2}) {
      Check(DT_FLOAT, ti, TensorShape({2, 3}), idx, 4, axis);
    }
  }
}

TEST_F(OneHotOpTest, EveryElementSize) {
  for (DataType dtype : test::MovementTypes()) {
    Check(dtype, DT_INT64, TensorShape({4}), {3, 0, 1, 1}, 5, -1);
  }
}

TEST_F(OneHotOpTest, OutOfRangeIndicesGiveOffRows) {
  // TF's semantics: no error, a row of off_value.
  Check(DT_FLOAT, DT_INT64, TensorShape({5}), {-1, 4, 100, 0, -100}, 4, -1);
  Check(DT_INT32, DT_UINT8, TensorShape({2}), {255, 1}, 3, 0);
}

TEST_F(OneHotOpTest, ScalarsEmptyAndLarge) {
  Check(DT_FLOAT, DT_INT32, TensorShape({}), {2}, 3, -1);
  Check(DT_FLOAT, DT_INT32, TensorShape({}), {2}, 3, 0);
  Check(DT_FLOAT, DT_INT32, TensorShape({3}), {0, 1, 2}, 0, -1);
  Check(DT_FLOAT, DT_INT32, TensorShape({0, 2}), {}, 5, 1);
  std::vector<int64_t> many(4096);
  for (size_t i = 0; i < many.size(); ++i) many[i] = (i * 37) % 300;
  Check(DT_FLOAT, DT_INT64, TensorShape({4096}), many, 256, -1);  // sharded
}

TEST_F(OneHotOpTest, RejectsBadAxis) {
  Make(DT_FLOAT, DT_INT64, 3);
  AddIndices(TensorShape({2, 2}), {0, 1, 0, 1}, DT_INT64);
  AddInputFromArray<int32_t>(TensorShape({}), {2});
  AddInputFromArray<float>(TensorShape({}), {1});
  AddInputFromArray<float>(TensorShape({}), {0});
  ExpectInvalid("Expected axis to be -1 or between [0, 3).  But received: 3");
  Make(DT_FLOAT, DT_INT64, -2);
  AddIndices(TensorShape({2}), {0, 1}, DT_INT64);
  AddInputFromArray<int32_t>(TensorShape({}), {2});
  AddInputFromArray<float>(TensorShape({}), {1});
  AddInputFromArray<float>(TensorShape({}), {0});
  ExpectInvalid("But received: -2");
}

TEST_F(OneHotOpTest, RejectsNonScalars) {
  const char* names[] = {"depth", "on_value", "off_value"};
  for (int bad = 0; bad < 3; ++bad) {
    Make(DT_FLOAT, DT_INT64, -1);
    AddIndices(TensorShape({2}), {0, 1}, DT_INT64);
    if (bad == 0) {
      AddInputFromArray<int32_t>(TensorShape({1}), {2});
    } else {
      AddInputFromArray<int32_t>(TensorShape({}), {2});
    }
    AddInputTensor(bad == 1 ? test::AsTensor<float>({1})
                            : test::AsScalar<float>(1));
    AddInputTensor(bad == 2 ? test::AsTensor<float>({0})
                            : test::AsScalar<float>(0));
    ExpectInvalid(std::string(names[bad]) + " must be a scalar, but got: [1]");
  }
}

TEST_F(OneHotOpTest, RejectsNegativeDepth) {
  Make(DT_FLOAT, DT_INT64, -1);
  AddIndices(TensorShape({2}), {0, 1}, DT_INT64);
  AddInputFromArray<int32_t>(TensorShape({}), {-1});
  AddInputFromArray<float>(TensorShape({}), {1});
  AddInputFromArray<float>(TensorShape({}), {0});
  ExpectInvalid("depth must be non-negative, got: -1");
}

TEST_F(OneHotOpTest, RejectsOverflowingOutput) {
  // 2^40 indices times depth 2^30: rejected before anything is read.
  Make(DT_FLOAT, DT_INT8, -1);
  std::vector<Tensor> inputs = {
      HugeTensor(DT_INT8, TensorShape({int64_t{1} << 40})),
      test::AsScalar<int32_t>(1 << 30), test::AsScalar<float>(1),
      test::AsScalar<float>(0)};
  EXPECT_THAT(RunOnTensors(&inputs),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr(
                      "OneHot result would have shape [1099511627776] + "
                      "[1073741824], which exceeds 2**63 - 1 elements")));
}

}  // namespace
}  // namespace minflow
