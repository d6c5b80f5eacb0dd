// Relu6Grad, EluGrad, SeluGrad, LeakyReluGrad, SoftplusGrad and
// SoftsignGrad against their formulas worked out in double.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;

// The upstream gradients and the second input (the forward op's input or
// output) of every case: both kinks of Relu6, 0, and both signs.
const std::vector<double> kGrads = {1.5, -2, 3, 0.5, -1, 2, 4, -0.25, 7};
const std::vector<double> kF = {-3, -0.5, 0, 0.25, 1, 5.5, 6, 7, -20};

class ReluGradOpTest : public test::OpsTestBase {
 protected:
  // Runs `op` on kGrads, kF in T and expects want(g, f) element-wise.
  template <typename T>
  void Check(const std::string& op,
             const std::function<double(double, double)>& want,
             double tolerance, float alpha = 0.2f) {
    SCOPED_TRACE(op + " " + DataTypeString(DataTypeToEnum<T>::v()));
    auto& node = MakeNode(op)
                     .Input(DataTypeToEnum<T>::v())
                     .Input(DataTypeToEnum<T>::v());
    if (op == "LeakyReluGrad") node.Attr("alpha", alpha);
    MF_ASSERT_OK(MakeOp());
    std::vector<T> g, f;
    for (double v : kGrads) g.push_back(static_cast<T>(v));
    for (double v : kF) f.push_back(static_cast<T>(v));
    AddInputFromArray<T>(TensorShape({3, 3}), absl::Span<const T>(g));
    AddInputFromArray<T>(TensorShape({3, 3}), absl::Span<const T>(f));
    MF_ASSERT_OK(RunOpKernel());
    const Tensor& out = *GetOutput(0);
    ASSERT_EQ(out.shape(), TensorShape({3, 3}));
    for (size_t i = 0; i < kF.size(); ++i) {
      const double w = want(kGrads[i], kF[i]);
      EXPECT_NEAR(static_cast<double>(out.flat<T>()(i)), w,
                  tolerance * std::max(1.0, std::abs(w)))
          << "g " << kGrads[i] << " f " << kF[i];
    }
  }

  template <typename T>
  void CheckAll(double tolerance) {
    Check<T>(
        "Relu6Grad", [](double g, double f) { return f > 0 && f < 6 ? g : 0; },
        0);
    Check<T>(
        "EluGrad", [](double g, double y) { return y < 0 ? g * (y + 1) : g; },
        tolerance);
    Check<T>(
        "SeluGrad",
        [](double g, double y) {
          return y < 0 ? g * (y + kSeluScale * kSeluAlpha) : g * kSeluScale;
        },
        tolerance);
    for (float alpha : {0.2f, 0.3f, -0.5f, 1.5f}) {
      Check<T>(
          "LeakyReluGrad",
          [alpha](double g, double f) {
            return f > 0 ? g : static_cast<double>(alpha) * g;
          },
          tolerance, alpha);
    }
    Check<T>(
        "SoftplusGrad",
        [](double g, double f) { return g / (1 + std::exp(-f)); }, tolerance);
    Check<T>(
        "SoftsignGrad",
        [](double g, double f) {
          return g / ((1 + std::abs(f)) * (1 + std::abs(f)));
        },
        tolerance);
  }
};

TEST_F(ReluGradOpTest, FloatMatchesFormulas) { CheckAll<float>(1e-6); }

TEST_F(ReluGradOpTest, DoubleMatchesFormulas) { CheckAll<double>(1e-14); }

TEST_F(ReluGradOpTest, EmptyInputsGiveEmptyOutput) {
  for (const char* op : {"Relu6Grad", "EluGrad", "SeluGrad", "LeakyReluGrad",
                         "SoftplusGrad", "SoftsignGrad"}) {
    MakeNode(op).Input(DT_DOUBLE).Input(DT_DOUBLE);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(Tensor(DT_DOUBLE, TensorShape({2, 0})));
    AddInputTensor(Tensor(DT_DOUBLE, TensorShape({2, 0})));
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(GetOutput(0)->shape(), TensorShape({2, 0})) << op;
  }
}

TEST_F(ReluGradOpTest, RejectsInputsOfDifferentShapes) {
  for (const char* op : {"Relu6Grad", "EluGrad", "SeluGrad", "LeakyReluGrad",
                         "SoftplusGrad", "SoftsignGrad"}) {
    MakeNode(op).Input(DT_FLOAT).Input(DT_FLOAT);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::AsTensor<float>({1, 2, 3, 4}, {2, 2}));
    AddInputTensor(test::AsTensor<float>({1, 2, 3, 4}));
    EXPECT_THAT(RunOpKernel(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr(std::string(op) +
                                   "'s two inputs must have the same shape, "
                                   "but got [2,2] and [4]")));
  }
}

}  // namespace
}  // namespace minflow
