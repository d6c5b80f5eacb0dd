// Comparison and logical kernels against a naive broadcasting reference.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "tests/kernels/cwise_test_util.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

using Compare = std::function<bool(double, double)>;

struct ShapePair {
  TensorShape x;
  TensorShape y;
};

std::vector<ShapePair> Pairs() {
  return {
      {TensorShape({}), TensorShape({})},
      {TensorShape({6}), TensorShape({})},
      {TensorShape({}), TensorShape({6})},
      {TensorShape({4, 5}), TensorShape({4, 5})},
      {TensorShape({4, 5}), TensorShape({5})},
      {TensorShape({4, 1}), TensorShape({1, 5})},
      {TensorShape({2, 1, 3, 1}), TensorShape({4, 1, 2})},
      {TensorShape({0, 3}), TensorShape({3})},
      {TensorShape({1 << 20 | 5}), TensorShape({1 << 20 | 5})},
      {TensorShape({1000, 1001}), TensorShape({1001})},
  };
}

class CwiseCompareOpTest : public test::CwiseOpsTestBase {
 protected:
  // Values in a narrow integer range, so that equal pairs are common.
  template <typename T>
  void Check(const std::string& op, const Compare& cmp, const ShapePair& p) {
    SCOPED_TRACE(::testing::Message()
                 << op << " " << DataTypeString(DataTypeToEnum<T>::v()) << " "
                 << p.x.DebugString() << " vs " << p.y.DebugString());
    const DataType dt = DataTypeToEnum<T>::v();
    MakeNode(op).Input(dt).Input(dt);
    MF_ASSERT_OK(MakeOp());
    const Tensor x = test::RandomValues<T>(p.x, 11, -3, 3);
    const Tensor y = test::RandomValues<T>(p.y, 12, -3, 3);
    AddInputTensor(x);
    AddInputTensor(y);
    MF_ASSERT_OK(RunOpKernel());
    TensorShape out;
    ASSERT_TRUE(test::BroadcastShapes(p.x, p.y, &out));
    std::vector<double> want(out.num_elements());
    for (int64_t i = 0; i < out.num_elements(); ++i) {
      want[i] = cmp(test::ElementAt<T>(x, test::BroadcastOffset(out, p.x, i)),
                    test::ElementAt<T>(y, test::BroadcastOffset(out, p.y, i)));
    }
    test::ExpectMatches<bool>(*GetOutput(0), out, want);
    ExpectShapeFnAgrees();
  }

  void SweepReals(const std::string& op, const Compare& cmp) {
    for (const ShapePair& p : Pairs()) {
      Check<float>(op, cmp, p);
      Check<int32_t>(op, cmp, p);
    }
    const ShapePair small{TensorShape({3, 1, 4}), TensorShape({5, 1})};
    Check<double>(op, cmp, small);
    Check<half>(op, cmp, small);
    Check<bfloat16>(op, cmp, small);
    Check<int64_t>(op, cmp, small);
  }

  template <typename T>
  Status Run(const std::string& op, const Tensor& x, const Tensor& y) {
    MakeNode(op).Input(DataTypeToEnum<T>::v()).Input(DataTypeToEnum<T>::v());
    MF_RETURN_IF_ERROR(MakeOp());
    AddInputTensor(x);
    AddInputTensor(y);
    return RunOpKernel();
  }
};

TEST_P(CwiseCompareOpTest, Less) {
  SweepReals("Less", [](double a, double b) { return a < b; });
}
TEST_P(CwiseCompareOpTest, LessEqual) {
  SweepReals("LessEqual", [](double a, double b) { return a <= b; });
}
TEST_P(CwiseCompareOpTest, Greater) {
  SweepReals("Greater", [](double a, double b) { return a > b; });
}
TEST_P(CwiseCompareOpTest, GreaterEqual) {
  SweepReals("GreaterEqual", [](double a, double b) { return a >= b; });
}
TEST_P(CwiseCompareOpTest, Equal) {
  SweepReals("Equal", [](double a, double b) { return a == b; });
  Check<bool>("Equal", [](double a, double b) { return a == b; },
              {TensorShape({4, 1}), TensorShape({3})});
}
TEST_P(CwiseCompareOpTest, NotEqual) {
  SweepReals("NotEqual", [](double a, double b) { return a != b; });
  Check<bool>("NotEqual", [](double a, double b) { return a != b; },
              {TensorShape({4, 1}), TensorShape({3})});
}

TEST_P(CwiseCompareOpTest, NaNComparesUnequalToEverything) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = test::AsTensor<float>({nan, nan, 1.0f});
  const Tensor y = test::AsTensor<float>({nan, 1.0f, nan});
  MF_ASSERT_OK(Run<float>("Equal", x, y));
  test::ExpectTensorEqual<bool>(*GetOutput(0),
                                test::AsTensor<bool>({false, false, false}));
  MF_ASSERT_OK(Run<float>("NotEqual", x, y));
  test::ExpectTensorEqual<bool>(*GetOutput(0),
                                test::AsTensor<bool>({true, true, true}));
  MF_ASSERT_OK(Run<float>("LessEqual", x, y));
  test::ExpectTensorEqual<bool>(*GetOutput(0),
                                test::AsTensor<bool>({false, false, false}));
}

TEST_P(CwiseCompareOpTest, LogicalAndOr) {
  for (const ShapePair& p :
       {ShapePair{TensorShape({8}), TensorShape({8})},
        ShapePair{TensorShape({}), TensorShape({5})},
        ShapePair{TensorShape({3, 1}), TensorShape({1, 4})},
        ShapePair{TensorShape({1 << 20}), TensorShape({1})}}) {
    for (const bool is_and : {true, false}) {
      const char* op = is_and ? "LogicalAnd" : "LogicalOr";
      SCOPED_TRACE(op);
      MakeNode(op);
      MF_ASSERT_OK(MakeOp());
      const Tensor x = test::RandomValues<bool>(p.x, 1, 0, 1);
      const Tensor y = test::RandomValues<bool>(p.y, 2, 0, 1);
      AddInputTensor(x);
      AddInputTensor(y);
      MF_ASSERT_OK(RunOpKernel());
      TensorShape out;
      ASSERT_TRUE(test::BroadcastShapes(p.x, p.y, &out));
      std::vector<double> want(out.num_elements());
      for (int64_t i = 0; i < out.num_elements(); ++i) {
        const bool a = x.base<bool>()[test::BroadcastOffset(out, p.x, i)];
        const bool b = y.base<bool>()[test::BroadcastOffset(out, p.y, i)];
        want[i] = is_and ? (a && b) : (a || b);
      }
      test::ExpectMatches<bool>(*GetOutput(0), out, want);
      ExpectShapeFnAgrees();
    }
  }
}

TEST_P(CwiseCompareOpTest, IncompatibleShapesAreInvalidArgument) {
  EXPECT_THAT(Run<float>("Less", Tensor(DT_FLOAT, TensorShape({2})),
                         Tensor(DT_FLOAT, TensorShape({3}))),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Incompatible shapes: [2] vs. [3]")));
  EXPECT_THAT(Run<float>("Equal", Tensor(DT_FLOAT, TensorShape({2})),
                         Tensor(DT_FLOAT, TensorShape({3}))),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Incompatible shapes: [2] vs. [3]")));
}

// incompatible_shape_error=false: TensorFlow answers "not equal" with a
// scalar instead of failing.
TEST_P(CwiseCompareOpTest, IncompatibleShapesWithoutErrorGiveAScalar) {
  for (const bool not_equal : {false, true}) {
    MakeNode(not_equal ? "NotEqual" : "Equal")
        .Input(DT_INT32)
        .Input(DT_INT32)
        .Attr("incompatible_shape_error", false);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::AsTensor<int32_t>({1, 2}));
    AddInputTensor(test::AsTensor<int32_t>({1, 2, 3}));
    MF_ASSERT_OK(RunOpKernel());
    test::ExpectTensorEqual<bool>(*GetOutput(0),
                                  test::AsScalar<bool>(not_equal));
  }
}

MF_INSTANTIATE_KERNEL_TEST_DEVICES(CwiseCompareOpTest);

}  // namespace
}  // namespace minflow
