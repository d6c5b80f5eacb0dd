#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class RangeOpTest : public test::ArrayOpTest {
 protected:
  template <typename T>
  void Make(T start, T limit, T delta) {
    const DataType dtype = DataTypeToEnum<T>::v();
    MakeNode("Range").Input(dtype).Input(dtype).Input(dtype);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::AsScalar<T>(start));
    AddInputTensor(test::AsScalar<T>(limit));
    AddInputTensor(test::AsScalar<T>(delta));
  }

  // Compares with start + i * delta computed in double (exact for the
  // small ranges used here) and, for floats, with TF's accumulated sum.
  template <typename T>
  void Check(T start, T limit, T delta, int64_t expected_size) {
    SCOPED_TRACE(::testing::Message() << DataTypeString(DataTypeToEnum<T>::v())
                                      << " " << static_cast<double>(start)
                                      << " " << static_cast<double>(limit)
                                      << " " << static_cast<double>(delta));
    Make<T>(start, limit, delta);
    RunAndCheckShapes();
    std::vector<T> want;
    T acc = start;
    for (int64_t i = 0; i < expected_size; ++i) {
      if constexpr (std::is_integral<T>::value) {
        want.push_back(static_cast<T>(static_cast<double>(start) +
                                      static_cast<double>(i) *
                                          static_cast<double>(delta)));
      } else {
        want.push_back(acc);
        acc += delta;
      }
    }
    test::ExpectTensorEqual<T>(*GetOutput(0),
                               test::AsTensor<T>(absl::Span<const T>(want),
                                                 TensorShape({expected_size})));
  }
};

TEST_F(RangeOpTest, CountsUpAndDown) {
  Check<int32_t>(0, 10, 3, 4);
  Check<int32_t>(10, 0, -3, 4);
  Check<int64_t>(-5, 5, 1, 10);
  Check<int8_t>(-100, 100, 50, 4);
  Check<int16_t>(3, -3, -2, 3);
  Check<uint16_t>(1, 9, 4, 2);
  Check<uint32_t>(5, 5, 1, 0);
  Check<uint64_t>(0, 7, 7, 1);
  Check<float>(0.0f, 1.0f, 0.1f, 10);
  Check<double>(1.0, -1.0, -0.5, 4);
  Check<half>(half(0.0f), half(2.0f), half(0.5f), 4);
  Check<bfloat16>(bfloat16(1.0f), bfloat16(4.0f), bfloat16(1.0f), 3);
}

TEST_F(RangeOpTest, IntegerExtremesDoNotOverflow) {
  // |limit - start| and the last step exceed the type; counted exactly.
  Check<int32_t>(std::numeric_limits<int32_t>::min(),
                 std::numeric_limits<int32_t>::max(),
                 std::numeric_limits<int32_t>::max(), 3);
  Check<int8_t>(127, -128, -100, 3);
  Make<int64_t>(std::numeric_limits<int64_t>::min(),
                std::numeric_limits<int64_t>::max(), 1);
  ExpectInvalid("Requires ((limit - start) / delta) <= 9223372036854775807");
  Make<int64_t>(std::numeric_limits<int64_t>::max(),
                std::numeric_limits<int64_t>::min(),
                std::numeric_limits<int64_t>::min());
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<int64_t>(
      *GetOutput(0),
      test::AsTensor<int64_t>({std::numeric_limits<int64_t>::max(), -1}));
}

TEST_F(RangeOpTest, LargeAndLegacyVectorScalars) {
  Check<int32_t>(0, 1 << 20, 1, 1 << 20);
  MakeNode("Range").Input(DT_INT32).Input(DT_INT32).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int32_t>(TensorShape({1}), {2});
  AddInputFromArray<int32_t>(TensorShape({1}), {5});
  AddInputFromArray<int32_t>(TensorShape({1}), {1});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<int32_t>(*GetOutput(0),
                                   test::AsTensor<int32_t>({2, 3, 4}));
}

TEST_F(RangeOpTest, RejectsNonScalars) {
  for (int bad = 0; bad < 3; ++bad) {
    MakeNode("Range").Input(DT_INT32).Input(DT_INT32).Input(DT_INT32);
    MF_ASSERT_OK(MakeOp());
    for (int i = 0; i < 3; ++i) {
      if (i == bad) {
        AddInputFromArray<int32_t>(TensorShape({2}), {1, 2});
      } else {
        AddInputFromArray<int32_t>(TensorShape({}), {1});
      }
    }
    const char* names[] = {"start", "limit", "delta"};
    ExpectInvalid(std::string(names[bad]) + " must be a scalar, not shape [2]");
  }
}

TEST_F(RangeOpTest, RejectsZeroDelta) {
  Make<int32_t>(0, 5, 0);
  ExpectInvalid("Requires delta != 0: 0");
  Make<float>(0, 5, 0);
  ExpectInvalid("Requires delta != 0: 0");
}

TEST_F(RangeOpTest, RejectsSignMismatch) {
  Make<int32_t>(5, 0, 1);
  ExpectInvalid("Requires start <= limit when delta > 0: 5/0");
  Make<int8_t>(0, 5, -1);
  ExpectInvalid("Requires start >= limit when delta < 0: 0/5");
  Make<float>(std::numeric_limits<float>::quiet_NaN(), 1.0f, 1.0f);
  ExpectInvalid("Requires start <= limit when delta > 0");
}

TEST_F(RangeOpTest, RejectsInfiniteCounts) {
  Make<float>(0.0f, std::numeric_limits<float>::infinity(), 1.0f);
  ExpectInvalid("Requires ((limit - start) / delta) <=");
  Make<double>(0.0, 1e300, 1e-300);
  ExpectInvalid("Requires ((limit - start) / delta) <=");
}

}  // namespace
}  // namespace minflow
