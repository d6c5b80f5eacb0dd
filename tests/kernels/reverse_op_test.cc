#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class ReverseOpTest : public test::ArrayOpTest {
 protected:
  void Make(DataType dtype, DataType tidx = DT_INT32) {
    MakeNode("ReverseV2").Input(dtype).Input(tidx);
    MF_ASSERT_OK(MakeOp());
  }
  void AddAxes(const std::vector<int64_t>& axes, DataType tidx = DT_INT32) {
    const TensorShape s({static_cast<int64_t>(axes.size())});
    if (tidx == DT_INT32) {
      AddInputFromArray<int32_t>(
          s, std::vector<int32_t>(axes.begin(), axes.end()));
    } else {
      AddInputFromArray<int64_t>(s, axes);
    }
  }
  void Check(DataType dtype, const TensorShape& shape,
             const std::vector<int64_t>& axes, DataType tidx = DT_INT32) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(dtype) << " " << shape.DebugString());
    Make(dtype, tidx);
    const Tensor in = test::MakeTestTensor(dtype, shape);
    AddInputTensor(in);
    AddAxes(axes, tidx);
    RunAndCheckShapes();
    std::vector<bool> rev(shape.dims(), false);
    for (int64_t a : axes) rev[a < 0 ? a + shape.dims() : a] = true;
    const auto strides = test::Strides(shape);
    std::vector<int64_t> src;
    for (int64_t e = 0; e < shape.num_elements(); ++e) {
      const auto o = test::Unravel(e, shape);
      int64_t s = 0;
      for (int d = 0; d < shape.dims(); ++d) {
        s += (rev[d] ? shape.dim_size(d) - 1 - o[d] : o[d]) * strides[d];
      }
      src.push_back(s);
    }
    test::ExpectEqual(*GetOutput(0), test::GatherReference(in, shape, src));
  }
};

TEST_F(ReverseOpTest, ReversesListedAxesOfEveryElementSize) {
  for (DataType dtype : test::MovementTypes()) {
    Check(dtype, TensorShape({5}), {0});
    Check(dtype, TensorShape({2, 3, 4}), {1});
    Check(dtype, TensorShape({2, 3, 4}), {0, -1}, DT_INT64);
    Check(dtype, TensorShape({2, 3, 4}), {});
  }
  Check(DT_FLOAT, TensorShape({2, 1, 3, 1, 2, 1, 2, 3}), {0, 2, 4, 7});
}

TEST_F(ReverseOpTest, ScalarsAndEmptyPassThrough) {
  Check(DT_FLOAT, TensorShape({}), {});
  Check(DT_FLOAT, TensorShape({0, 3}), {1});
  // TF returns a scalar or empty input before looking at the axes.
  skip_shape_fn_ = true;
  Make(DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({0, 3})));
  AddAxes({7});
  RunAndCheckShapes();
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0, 3}));
}

TEST_F(ReverseOpTest, RejectsBadAxes) {
  Make(DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 3})));
  AddInputFromArray<int32_t>(TensorShape({}), {0});
  ExpectInvalid("'dims' must be 1-dimension, not 0");
  Make(DT_FLOAT, DT_INT64);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 3})));
  AddAxes({0, -3}, DT_INT64);
  ExpectInvalid("'axis'[1] = -3 is out of valid range [0, 1");
  Make(DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 3})));
  AddAxes({1, -1});
  ExpectInvalid("axis 1 specified more than once.");
  Make(DT_FLOAT);
  AddInputTensor(
      test::MakeTestTensor(DT_FLOAT, TensorShape({1, 1, 1, 1, 1, 1, 1, 1, 1})));
  AddAxes({0});
  ExpectRunError(absl::StatusCode::kUnimplemented,
                 "reverse is not implemented for tensors of rank > 8.");
}

}  // namespace
}  // namespace minflow
