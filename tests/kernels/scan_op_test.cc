#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class ScanOpTest : public test::ArrayOpTest {
 protected:
  void Make(const std::string& op, DataType dtype, bool exclusive, bool reverse,
            DataType tidx = DT_INT32) {
    MakeNode(op)
        .Input(dtype)
        .Input(tidx)
        .Attr("exclusive", exclusive)
        .Attr("reverse", reverse);
    MF_ASSERT_OK(MakeOp());
  }
  void AddAxis(int64_t axis, DataType tidx = DT_INT32) {
    if (tidx == DT_INT32) {
      AddInputFromArray<int32_t>(TensorShape({}), {static_cast<int32_t>(axis)});
    } else {
      AddInputFromArray<int64_t>(TensorShape({}), {axis});
    }
  }

  // Element values small enough that products stay exact; the reference
  // scans in double.
  template <typename T>
  void Check(const std::string& op, const TensorShape& shape, int64_t axis,
             bool exclusive, bool reverse, DataType tidx = DT_INT32) {
    const DataType dtype = DataTypeToEnum<T>::v();
    SCOPED_TRACE(::testing::Message()
                 << op << " " << DataTypeString(dtype) << " "
                 << shape.DebugString() << " axis " << axis << " exclusive "
                 << exclusive << " reverse " << reverse);
    const bool sum = op == "Cumsum";
    std::vector<double> x(shape.num_elements());
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = sum ? static_cast<double>(static_cast<int64_t>(i * 7 % 11) - 5)
                 : static_cast<double>(static_cast<int64_t>(i % 3) + 1) *
                       (i % 4 == 1 ? -1 : 1);
      if (std::is_unsigned<T>::value && x[i] < 0) x[i] = -x[i];
    }
    Tensor in(dtype, shape);
    for (size_t i = 0; i < x.size(); ++i)
      in.base<T>()[i] = static_cast<T>(x[i]);
    Make(op, dtype, exclusive, reverse, tidx);
    AddInputTensor(in);
    AddAxis(axis, tidx);
    RunAndCheckShapes();

    const int a = static_cast<int>(axis < 0 ? axis + shape.dims() : axis);
    const auto strides = test::Strides(shape);
    const int64_t n = shape.dim_size(a);
    Tensor expected(dtype, shape);
    for (int64_t e = 0; e < shape.num_elements(); ++e) {
      const int64_t k = test::Unravel(e, shape)[a];
      double acc = sum ? 0 : 1;
      for (int64_t j = 0; j < n; ++j) {
        const bool in_range = reverse ? (exclusive ? j > k : j >= k)
                                      : (exclusive ? j < k : j <= k);
        if (!in_range) continue;
        const double v = x[e + (j - k) * strides[a]];
        acc = sum ? acc + v : acc * v;
      }
      expected.base<T>()[e] = static_cast<T>(acc);
    }
    test::ExpectEqual(*GetOutput(0), expected);
  }
};

TEST_F(ScanOpTest, EveryModeAndAxis) {
  for (const char* op : {"Cumsum", "Cumprod"}) {
    for (bool exclusive : {false, true}) {
      for (bool reverse : {false, true}) {
        Check<float>(op, TensorShape({7}), 0, exclusive, reverse);
        Check<double>(op, TensorShape({2, 3, 4}), 1, exclusive, reverse);
        Check<int32_t>(op, TensorShape({2, 3, 4}), -1, exclusive, reverse,
                       DT_INT64);
        Check<int64_t>(op, TensorShape({3, 5}), 0, exclusive, reverse);
      }
    }
  }
}

TEST_F(ScanOpTest, NumberTypes) {
  Check<int8_t>("Cumsum", TensorShape({2, 5}), 1, false, false);
  Check<uint8_t>("Cumprod", TensorShape({2, 3}), 0, true, false);
  Check<half>("Cumsum", TensorShape({4, 3}), 0, false, true);
  Check<bfloat16>("Cumprod", TensorShape({5}), 0, false, false);
  Check<complex64>("Cumsum", TensorShape({3, 2}), 1, true, true);
  Check<uint64_t>("Cumsum", TensorShape({6}), 0, false, false);
}

TEST_F(ScanOpTest, TfDocumentedExamples) {
  // tf.math.cumsum([a, b, c], exclusive=True, reverse=True) = [b + c, c, 0]
  Make("Cumsum", DT_FLOAT, true, true);
  AddInputFromArray<float>(TensorShape({3}), {1, 2, 4});
  AddAxis(0);
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(*GetOutput(0),
                                 test::AsTensor<float>({6, 4, 0}));
  // tf.math.cumprod([a, b, c], exclusive=True) = [1, a, a * b]
  Make("Cumprod", DT_INT32, true, false);
  AddInputFromArray<int32_t>(TensorShape({3}), {2, 3, 4});
  AddAxis(0);
  RunAndCheckShapes();
  test::ExpectTensorEqual<int32_t>(*GetOutput(0),
                                   test::AsTensor<int32_t>({1, 2, 6}));
}

TEST_F(ScanOpTest, EmptyAndLarge) {
  Check<float>("Cumsum", TensorShape({0, 3}), 1, false, false);
  Check<float>("Cumprod", TensorShape({3, 0}), 1, true, true);
  Check<double>("Cumsum", TensorShape({64, 100, 3}), 1, false, true);
}

TEST_F(ScanOpTest, RejectsBadAxis) {
  Make("Cumsum", DT_FLOAT, false, false);
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  AddInputFromArray<int32_t>(TensorShape({1}), {0});
  ExpectInvalid("ScanOp: axis must be a scalar, not [1]");
  Make("Cumprod", DT_FLOAT, false, false, DT_INT64);
  AddInputFromArray<float>(TensorShape({2, 2}), {1, 2, 3, 4});
  AddAxis(2, DT_INT64);
  ExpectInvalid("ScanOp: Expected scan axis in the range [-2, 2), but got 2");
  Make("Cumsum", DT_FLOAT, false, false);
  AddInputFromArray<float>(TensorShape({}), {1});
  AddAxis(0);
  ExpectInvalid("ScanOp: Expected scan axis in the range [0, 0), but got 0");
}

}  // namespace
}  // namespace minflow
