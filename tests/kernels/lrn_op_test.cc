// LRN against a reference computed here in double, the shape function,
// empty inputs, and every error path.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"
#include "tests/kernels/nn_test_util.h"

namespace minflow {
namespace {

class LRNOpTest : public test::ArrayOpTest {
 protected:
  void Make(DataType t, int64_t radius, float bias, float alpha, float beta) {
    MakeNode("LRN")
        .Input(t)
        .Attr("depth_radius", radius)
        .Attr("bias", bias)
        .Attr("alpha", alpha)
        .Attr("beta", beta);
    MF_ASSERT_OK(MakeOp());
  }

  template <typename T>
  void Check(const TensorShape& shape, int64_t radius, float bias, float alpha,
             float beta, double atol) {
    SCOPED_TRACE(::testing::Message()
                 << shape.DebugString() << " radius " << radius << " bias "
                 << bias << " alpha " << alpha << " beta " << beta);
    Make(DataTypeToEnum<T>::v(), radius, bias, alpha, beta);
    const Tensor x = test::RandomTensor<T>(shape, 7);
    AddInputTensor(x);
    RunAndCheckShapes();
    const int64_t depth = shape.dim_size(3);
    std::vector<double> ref(shape.num_elements());
    for (int64_t e = 0; e < shape.num_elements(); ++e) {
      const int64_t d = e % depth;
      const int64_t base = e - d;
      double sum = 0;
      for (int64_t k = std::max<int64_t>(0, d - radius);
           k <= std::min(depth - 1, d + radius); ++k) {
        const double v = test::ValueAt<T>(x, base + k);
        sum += v * v;
      }
      ref[e] = test::ValueAt<T>(x, e) / std::pow(bias + alpha * sum, beta);
    }
    test::ExpectNearReference<T>(*GetOutput(0), shape, ref, atol);
  }
};

TEST_F(LRNOpTest, FloatMatchesReference) {
  Check<float>(TensorShape({2, 3, 4, 11}), 5, 1.0f, 1.0f, 0.5f, 1e-6);
  Check<float>(TensorShape({1, 2, 2, 7}), 2, 2.0f, 0.1f, 0.75f, 1e-6);
  Check<float>(TensorShape({1, 1, 3, 4}), 0, 1.0f, 2.0f, 1.0f, 1e-6);
  // A radius wider than the depth covers every channel.
  Check<float>(TensorShape({1, 2, 1, 6}), 1000, 0.5f, 1e-3f, 0.5f, 1e-6);
  Check<float>(TensorShape({8, 16, 16, 32}), 3, 1.0f, 1e-4f, 0.75f, 1e-6);
}

TEST_F(LRNOpTest, HalfMatchesReference) {
  Check<half>(TensorShape({2, 3, 4, 9}), 2, 1.0f, 0.5f, 0.5f, 2e-3);
}

TEST_F(LRNOpTest, TensorFlowDefaultsOnOneChannel) {
  // bias 1, alpha 1, beta 0.5: x / sqrt(1 + x^2).
  MakeNode("LRN").Input(DT_FLOAT);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<float>(TensorShape({1, 1, 2, 1}), {3, -1});
  RunAndCheckShapes();
  test::ExpectNearReference<float>(*GetOutput(0), TensorShape({1, 1, 2, 1}),
                                   {3 / std::sqrt(10.0), -1 / std::sqrt(2.0)},
                                   1e-6);
}

TEST_F(LRNOpTest, EmptyInput) {
  Check<float>(TensorShape({0, 2, 2, 3}), 2, 1.0f, 1.0f, 0.5f, 0);
  Check<float>(TensorShape({1, 2, 2, 0}), 2, 1.0f, 1.0f, 0.5f, 0);
}

TEST_F(LRNOpTest, RejectsBadInput) {
  Make(DT_FLOAT, 2, 1, 1, 0.5f);
  AddInputFromArray<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  ExpectInvalid("in must be 4-dimensional");
  Make(DT_FLOAT, 2, 1, 1, 0.5f);
  std::vector<Tensor> inputs = {
      HugeTensor(DT_FLOAT, TensorShape({1, 1 << 16, 1 << 16, 1}))};
  EXPECT_THAT(RunOnTensors(&inputs),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("argument to LRN too large")));
  for (const int64_t radius : {int64_t{-1}, int64_t{1} << 31}) {
    MakeNode("LRN").Input(DT_FLOAT).Attr("depth_radius", radius);
    EXPECT_THAT(MakeOp(), ::minflow::testing::StatusIs(
                              absl::StatusCode::kInvalidArgument,
                              ::testing::HasSubstr("larger than int max")));
  }
}

}  // namespace
}  // namespace minflow
