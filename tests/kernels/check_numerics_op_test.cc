#include <cmath>
#include <limits>
#include <string>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class CheckNumericsOpTest : public test::ArrayOpTest {
 protected:
  template <typename T>
  void Run(std::initializer_list<float> values) {
    MakeNode("CheckNumerics")
        .Input(DataTypeToEnum<T>::v())
        .Attr("message", "in layer 3");
    MF_ASSERT_OK(MakeOp());
    std::vector<T> v;
    for (float f : values) v.push_back(static_cast<T>(f));
    AddInputFromArray<T>(TensorShape({static_cast<int64_t>(v.size())}), v);
  }
};

TEST_F(CheckNumericsOpTest, FiniteInputPassesThrough) {
  Run<float>({1, -2, 0, 3e38f});
  RunAndCheckShapes();
  test::ExpectSharesBuffer(*GetOutput(0), GetInput(0));
  Run<double>({});
  RunAndCheckShapes();
  Run<half>({1, 2});
  RunAndCheckShapes();
  Run<bfloat16>({-1});
  RunAndCheckShapes();
}

TEST_F(CheckNumericsOpTest, ReportsNanInfOrBoth) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::nanf("");
  Run<float>({1, nan});
  ExpectInvalid("in layer 3 : Tensor had NaN values");
  Run<double>({-inf, 1});
  ExpectInvalid("in layer 3 : Tensor had Inf values");
  Run<half>({inf, nan});
  ExpectInvalid("in layer 3 : Tensor had Inf and NaN values");
  Run<bfloat16>({nan});
  ExpectInvalid("in layer 3 : Tensor had NaN values");
}

}  // namespace
}  // namespace minflow
