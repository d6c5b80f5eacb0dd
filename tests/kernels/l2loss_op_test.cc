#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class L2LossOpTest : public test::ArrayOpTest {
 protected:
  template <typename T>
  void Check(const TensorShape& shape) {
    SCOPED_TRACE(shape.DebugString());
    MakeNode("L2Loss").Input(DataTypeToEnum<T>::v());
    MF_ASSERT_OK(MakeOp());
    std::vector<T> v;
    double ref = 0;
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      const T x = static_cast<T>(((i * 13) % 17) * 0.25 - 2);
      v.push_back(x);
      ref += static_cast<double>(x) * static_cast<double>(x);
    }
    AddInputFromArray<T>(shape, v);
    RunAndCheckShapes();
    test::ExpectClose(*GetOutput(0),
                      test::AsScalar<T>(static_cast<T>(ref / 2)));
  }
};

TEST_F(L2LossOpTest, HalfTheSumOfSquares) {
  MakeNode("L2Loss").Input(DT_FLOAT);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<float>(TensorShape({2, 2}), {1, -2, 3, 0.5f});
  RunAndCheckShapes();
  test::ExpectTensorNear<float>(*GetOutput(0), test::AsScalar<float>(7.125f),
                                1e-6, 1e-6);
  Check<float>(TensorShape({3, 5}));
  Check<double>(TensorShape({1000}));
  Check<Eigen::half>(TensorShape({4, 4}));
  Check<Eigen::bfloat16>(TensorShape({7}));
  Check<float>(TensorShape({}));
}

TEST_F(L2LossOpTest, EmptyIsZero) {
  Check<float>(TensorShape({0, 3}));
  Check<double>(TensorShape({0}));
}

}  // namespace
}  // namespace minflow
