#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class LinSpaceOpTest : public test::ArrayOpTest {
 protected:
  template <typename T>
  void Check(double start, double stop, int64_t num, DataType tnum = DT_INT32) {
    SCOPED_TRACE(::testing::Message() << start << " " << stop << " " << num);
    const DataType dtype = DataTypeToEnum<T>::v();
    MakeNode("LinSpace").Input(dtype).Input(dtype).Input(tnum);
    MF_ASSERT_OK(MakeOp());
    AddInputFromArray<T>(TensorShape({}), {static_cast<T>(start)});
    AddInputFromArray<T>(TensorShape({}), {static_cast<T>(stop)});
    AddNum(num, tnum);
    RunAndCheckShapes();
    std::vector<T> expected;
    for (int64_t i = 0; i < num; ++i) {
      const double v =
          num == 1 ? start : start + (stop - start) * i / (num - 1);
      expected.push_back(static_cast<T>(v));
    }
    test::ExpectClose(*GetOutput(0), test::AsTensor<T>(expected));
    if (num > 1) {
      EXPECT_EQ(GetOutput(0)->flat<T>()(num - 1), static_cast<T>(stop));
    }
  }
  void AddNum(int64_t num, DataType tnum) {
    if (tnum == DT_INT32) {
      AddInputFromArray<int32_t>(TensorShape({}), {static_cast<int32_t>(num)});
    } else {
      AddInputFromArray<int64_t>(TensorShape({}), {num});
    }
  }
  void Make() {
    MakeNode("LinSpace").Input(DT_FLOAT).Input(DT_FLOAT).Input(DT_INT32);
    MF_ASSERT_OK(MakeOp());
  }
};

TEST_F(LinSpaceOpTest, DocumentedExampleAndTypes) {
  // TensorFlow's example: linspace(10.0, 12.0, 3) -> [10.0, 11.0, 12.0].
  Make();
  AddInputFromArray<float>(TensorShape({}), {10});
  AddInputFromArray<float>(TensorShape({}), {12});
  AddInputFromArray<int32_t>(TensorShape({}), {3});
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(*GetOutput(0),
                                 test::AsTensor<float>({10, 11, 12}));
  Check<float>(-1, 1, 7);
  Check<double>(0.1, 0.7, 13, DT_INT64);
  Check<double>(5, -3, 2);
  Check<Eigen::half>(0, 4, 9);
  Check<Eigen::bfloat16>(-2, 2, 5, DT_INT64);
  Check<float>(3, 9, 1);
  Check<float>(2, 2, 4);
}

TEST_F(LinSpaceOpTest, RejectsBadInputs) {
  Make();
  AddInputFromArray<float>(TensorShape({}), {0});
  AddInputFromArray<float>(TensorShape({}), {1});
  AddInputFromArray<int32_t>(TensorShape({}), {0});
  ExpectInvalid("Requires num > 0: 0");
  Make();
  AddInputFromArray<float>(TensorShape({1}), {0});
  AddInputFromArray<float>(TensorShape({}), {1});
  AddInputFromArray<int32_t>(TensorShape({}), {2});
  ExpectInvalid("start must be a scalar, not shape [1]");
  Make();
  AddInputFromArray<float>(TensorShape({}), {0});
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  AddInputFromArray<int32_t>(TensorShape({}), {2});
  ExpectInvalid("stop must be a scalar, not shape [2]");
  Make();
  AddInputFromArray<float>(TensorShape({}), {0});
  AddInputFromArray<float>(TensorShape({}), {1});
  AddInputFromArray<int32_t>(TensorShape({1}), {2});
  ExpectInvalid("num must be a scalar, not shape [1]");
}

}  // namespace
}  // namespace minflow
