#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class EuclideanNormTest : public test::ArrayOpTest {
 protected:
  template <typename T>
  void Check(const TensorShape& shape, const std::vector<int32_t>& axes,
             bool keep_dims, DataType tidx = DT_INT32) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " "
                 << shape.DebugString() << " keep_dims " << keep_dims);
    MakeNode("EuclideanNorm")
        .Input(DataTypeToEnum<T>::v())
        .Input(tidx)
        .Attr("keep_dims", keep_dims);
    MF_ASSERT_OK(MakeOp());
    std::vector<T> data;
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      data.push_back(static_cast<T>((i * 37) % 19 - 9));
    }
    AddInputFromArray<T>(shape, data);
    if (tidx == DT_INT32) {
      AddInputFromArray<int32_t>(
          TensorShape({static_cast<int64_t>(axes.size())}), axes);
    } else {
      AddInputFromArray<int64_t>(
          TensorShape({static_cast<int64_t>(axes.size())}),
          std::vector<int64_t>(axes.begin(), axes.end()));
    }
    RunAndCheckShapes();

    std::set<int> reduced;
    for (int32_t a : axes) reduced.insert(a < 0 ? a + shape.dims() : a);
    std::vector<int64_t> out_dims;
    for (int d = 0; d < shape.dims(); ++d) {
      if (!reduced.count(d)) {
        out_dims.push_back(shape.dim_size(d));
      } else if (keep_dims) {
        out_dims.push_back(1);
      }
    }
    const TensorShape out_shape(out_dims);
    std::vector<double> sums(out_shape.num_elements(), 0.0);
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      const auto idx = test::Unravel(i, shape);
      int64_t o = 0;
      for (int d = 0; d < shape.dims(); ++d) {
        if (reduced.count(d)) continue;
        o = o * shape.dim_size(d) + idx[d];
      }
      const double v = static_cast<double>(data[i]);
      sums[o] += v * v;
    }
    std::vector<T> expected;
    for (double s : sums) {
      const double r = std::sqrt(s);
      expected.push_back(
          static_cast<T>(std::is_integral<T>::value ? std::floor(r) : r));
    }
    test::ExpectClose(*GetOutput(0), test::AsTensor<T>(expected, out_shape));
  }
};

TEST_F(EuclideanNormTest, DocumentedExample) {
  // TensorFlow's: x = [[1, 2, 3], [1, 1, 1]]; norm -> 4 (sqrt 16);
  // axis 0 -> [sqrt 2, sqrt 5, sqrt 10]; axis 1 -> [sqrt 14, sqrt 3].
  MakeNode("EuclideanNorm").Input(DT_FLOAT).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<float>(TensorShape({2, 3}), {1, 2, 3, 1, 1, 1});
  AddInputFromArray<int32_t>(TensorShape({1}), {1});
  RunAndCheckShapes();
  test::ExpectTensorNear<float>(
      *GetOutput(0), test::AsTensor<float>({std::sqrt(14.0f), std::sqrt(3.0f)}),
      1e-6, 1e-6);
  MakeNode("EuclideanNorm").Input(DT_INT32).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int32_t>(TensorShape({2, 3}), {1, 2, 3, 1, 1, 1});
  AddInputFromArray<int32_t>(TensorShape({2}), {0, 1});
  RunAndCheckShapes();
  test::ExpectTensorEqual<int32_t>(*GetOutput(0), test::AsScalar<int32_t>(4));
}

TEST_F(EuclideanNormTest, EveryTypeAxesAndKeepDims) {
  for (bool keep : {false, true}) {
    Check<float>(TensorShape({3, 4, 5}), {1}, keep);
    Check<double>(TensorShape({3, 4, 5}), {0, 2}, keep, DT_INT64);
    Check<int32_t>(TensorShape({3, 4, 5}), {-1}, keep);
    Check<int64_t>(TensorShape({2, 3, 2, 3, 2}), {0, 2, 4}, keep);
    Check<Eigen::half>(TensorShape({2, 3, 2, 3, 2}), {1, 3}, keep);
    Check<Eigen::bfloat16>(TensorShape({6, 2}), {0, 1}, keep);
  }
}

TEST_F(EuclideanNormTest, EmptyIsZero) {
  Check<float>(TensorShape({0, 3}), {0}, false);
  Check<int32_t>(TensorShape({4, 0}), {1}, true);
}

TEST_F(EuclideanNormTest, NothingReducedReturnsTheInputAsTensorFlowDoes) {
  MakeNode("EuclideanNorm").Input(DT_FLOAT).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<float>(TensorShape({1, 3}), {-1, 2, -3});
  AddInputFromArray<int32_t>(TensorShape({1}), {0});
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(*GetOutput(0),
                                 test::AsTensor<float>({-1, 2, -3}));
}

TEST_F(EuclideanNormTest, RejectsBadAxes) {
  MakeNode("EuclideanNorm").Input(DT_FLOAT).Input(DT_INT64);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  AddInputFromArray<int64_t>(TensorShape({1}), {-2});
  ExpectInvalid(
      "Invalid reduction dimension (-2 for input with 1 dimension(s)");
}

}  // namespace
}  // namespace minflow
