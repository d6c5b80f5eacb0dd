// The array gradients against central differences, in float and double
// (tolerances: float 2e-3, double 1e-7; both ops only move values), and
// the array ops declared without gradient.
#include <vector>

#include "gtest/gtest.h"
#include "minflow/cc/framework/client_session.h"
#include "minflow/cc/framework/gradients.h"
#include "minflow/cc/ops/standard_ops.h"
#include "tests/cc/gradients/grad_test_util.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using test::GradTolerance;

template <typename T>
class ArrayGradTest : public test::GradCheckTest<T> {};
TYPED_TEST_SUITE(ArrayGradTest, test::GradTypes);

constexpr GradTolerance kTol = {2e-3, 1e-7};

TYPED_TEST(ArrayGradTest, Identity) {
  this->Check(
      {{TensorShape({2, 3})}},
      [](const Scope& s, const std::vector<Output>& x) {
        // Squared, so the Jacobian is not the identity itself.
        return ops::Square(s, ops::Identity(s, x[0])).y;
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, Reshape) {
  this->Check(
      {{TensorShape({2, 3, 2})}},
      [](const Scope& s, const std::vector<Output>& x) {
        auto r = ops::Reshape(s, x[0], {3, -1});
        // Mixes positions so a wrongly ordered gradient shows.
        return ops::MatMul(
                   s, r,
                   ops::Cast(s,
                             {{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}, {7.0, 8.0}},
                             x[0].type()))
            .product;
      },
      kTol);
}

// Shape, Size and Rank: y = x * rank(x) * size(x) / shape(x)[0] has the
// gradient of x times a constant; the integer ops pass nothing back.
TEST(ArrayNoGradientTest, ShapeSizeRankAreConstants) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT);
  auto as_float = [&](const Output& i) { return ops::Cast(root, i, DT_FLOAT); };
  auto first = ops::Slice(root, ops::Shape(root, x), {0}, {1});
  auto factor = ops::RealDiv(root,
                             ops::Mul(root, as_float(ops::Rank(root, x)),
                                      as_float(ops::Size(root, x))),
                             as_float(first));
  auto y = ops::Mul(root, x, factor);
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root, {y}, {x}, &grads));
  ClientSession session(root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session.Run({{x, test::AsTensor<float>({1, 2, 3, 4}, {2, 2})}},
                           grads, &out));
  // rank 2 * size 4 / 2 = 4 for every element.
  test::ExpectTensorNear<float>(
      out[0], test::AsTensor<float>({4, 4, 4, 4}, {2, 2}), 1e-6);
}

}  // namespace
}  // namespace minflow
