#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class WhereOpTest : public test::ArrayOpTest {
 protected:
  // Coordinates of the elements of `t` that are not zero, row by row.
  void Check(const Tensor& t) {
    SCOPED_TRACE(::testing::Message() << DataTypeString(t.dtype()) << " "
                                      << t.shape().DebugString());
    MakeNode("Where").Input(t.dtype());
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(t);
    RunAndCheckShapes();
    std::vector<int64_t> expected;
    int64_t rows = 0;
    VisitDataType(t.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_constructible<T, int>::value) {
        for (int64_t e = 0; e < t.NumElements(); ++e) {
          if (t.base<const T>()[e] == T(0)) continue;
          ++rows;
          for (int64_t c : test::Unravel(e, t.shape())) expected.push_back(c);
        }
      }
    });
    test::ExpectTensorEqual<int64_t>(
        *GetOutput(0),
        test::AsTensor<int64_t>(expected, TensorShape({rows, t.dims()})));
  }
};

TEST_F(WhereOpTest, CoordinatesOfTrueElements) {
  for (DataType dtype : {DT_BOOL, DT_FLOAT, DT_INT32, DT_INT8, DT_HALF,
                         DT_COMPLEX64, DT_UINT64}) {
    Check(test::MakeTestTensor(dtype, TensorShape({3, 4})));
    Check(test::MakeTestTensor(dtype, TensorShape({2, 3, 2}), 3));
    Check(test::MakeTestTensor(dtype, TensorShape({7})));
  }
}

TEST_F(WhereOpTest, TfDocumentedExampleAndZeros) {
  // tf.where([[True, False], [False, True]]) = [[0, 0], [1, 1]]
  Check(test::AsTensor<bool>({true, false, false, true}, TensorShape({2, 2})));
  // -0.0 is zero; NaN is not.
  Check(test::AsTensor<float>({-0.0f, std::nanf(""), 0.0f, 2.0f}));
  Check(test::AsTensor<int32_t>({0, 0, 0}));
}

TEST_F(WhereOpTest, ScalarsAndEmpty) {
  Check(test::AsScalar<bool>(true));
  Check(test::AsScalar<bool>(false));
  Check(Tensor(DT_FLOAT, TensorShape({0, 3})));
}

}  // namespace
}  // namespace minflow
