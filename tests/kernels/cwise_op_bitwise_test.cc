#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

// The reference of each op on values widened to 64 bits.
template <typename T>
T Reference(const std::string& op, T x, T y) {
  using U = typename std::make_unsigned<T>::type;
  const int bits = sizeof(T) * 8;
  const int64_t shift =
      y < 0 ? 0
            : (static_cast<int64_t>(y) > bits - 1 ? bits - 1
                                                  : static_cast<int64_t>(y));
  if (op == "BitwiseAnd") return static_cast<T>(x & y);
  if (op == "BitwiseOr") return static_cast<T>(x | y);
  if (op == "BitwiseXor") return static_cast<T>(x ^ y);
  if (op == "LeftShift") {
    return static_cast<T>(
        static_cast<U>(static_cast<uint64_t>(static_cast<U>(x)) << shift));
  }
  // RightShift: floor division by 2^shift, which is what an arithmetic
  // shift computes on negative values.
  if (std::is_signed<T>::value && x < 0) {
    const int64_t v = static_cast<int64_t>(x);
    const int64_t d = int64_t{1} << shift;
    return static_cast<T>(v >= 0 ? v / d : -((-v + d - 1) / d));
  }
  return static_cast<T>(static_cast<uint64_t>(static_cast<U>(x)) >> shift);
}

class BitwiseOpTest : public test::ArrayOpTest {
 protected:
  template <typename T>
  void CheckBinary(const std::string& op, const TensorShape& xs,
                   const TensorShape& ys, const TensorShape& out_shape) {
    SCOPED_TRACE(::testing::Message()
                 << op << " " << DataTypeString(DataTypeToEnum<T>::v()) << " "
                 << xs.DebugString() << " " << ys.DebugString());
    const DataType dtype = DataTypeToEnum<T>::v();
    MakeNode(op).Input(dtype).Input(dtype);
    MF_ASSERT_OK(MakeOp());
    const bool shift = op == "LeftShift" || op == "RightShift";
    const int bits = sizeof(T) * 8;
    std::vector<T> x, y;
    for (int64_t i = 0; i < xs.num_elements(); ++i) {
      x.push_back(static_cast<T>(i * 2654435761u + 0x5A5A5A5Au * (i % 3)));
    }
    for (int64_t i = 0; i < ys.num_elements(); ++i) {
      // Shift amounts cover negatives, 0 .. bits - 1 and past the width.
      y.push_back(shift ? static_cast<T>(static_cast<int64_t>(i % (bits + 4)) -
                                         (std::is_signed<T>::value ? 2 : 0))
                        : static_cast<T>(i * 40503u + 7));
    }
    AddInputFromArray<T>(xs, x);
    AddInputFromArray<T>(ys, y);
    RunAndCheckShapes();
    // Broadcast by aligning trailing dims.
    std::vector<T> expected;
    for (int64_t e = 0; e < out_shape.num_elements(); ++e) {
      const auto o = test::Unravel(e, out_shape);
      auto pick = [&](const TensorShape& s) {
        int64_t f = 0;
        const int off = out_shape.dims() - s.dims();
        for (int d = 0; d < s.dims(); ++d) {
          f = f * s.dim_size(d) + (s.dim_size(d) == 1 ? 0 : o[d + off]);
        }
        return f;
      };
      expected.push_back(Reference<T>(op, x[pick(xs)], y[pick(ys)]));
    }
    test::ExpectTensorEqual<T>(*GetOutput(0),
                               test::AsTensor<T>(expected, out_shape));
  }

  template <typename T>
  void CheckAllBinary() {
    for (const char* op :
         {"BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift"}) {
      CheckBinary<T>(op, TensorShape({3, 40}), TensorShape({3, 40}),
                     TensorShape({3, 40}));
      CheckBinary<T>(op, TensorShape({2, 1, 5}), TensorShape({4, 1}),
                     TensorShape({2, 4, 5}));
      CheckBinary<T>(op, TensorShape({}), TensorShape({70}), TensorShape({70}));
      CheckBinary<T>(op, TensorShape({70}), TensorShape({}), TensorShape({70}));
      CheckBinary<T>(op, TensorShape({0, 3}), TensorShape({3}),
                     TensorShape({0, 3}));
    }
  }

  template <typename T>
  void CheckInvert() {
    MakeNode("Invert").Input(DataTypeToEnum<T>::v());
    MF_ASSERT_OK(MakeOp());
    std::vector<T> x, expected;
    for (int64_t i = 0; i < 50; ++i) {
      x.push_back(static_cast<T>(i * 2654435761u));
      expected.push_back(static_cast<T>(~static_cast<uint64_t>(x.back())));
    }
    AddInputFromArray<T>(TensorShape({5, 10}), x);
    RunAndCheckShapes();
    test::ExpectTensorEqual<T>(
        *GetOutput(0), test::AsTensor<T>(expected, TensorShape({5, 10})));
  }
};

TEST_F(BitwiseOpTest, DocumentedExamples) {
  // TensorFlow's: bitwise_and([0, 5, 3, 14], [5, 0, 7, 11]) = [0, 0, 3, 10],
  // bitwise_or -> [5, 5, 7, 15], bitwise_xor -> [5, 5, 4, 5].
  const std::vector<int32_t> lhs = {0, 5, 3, 14};
  const std::vector<int32_t> rhs = {5, 0, 7, 11};
  for (const auto& [op, out] :
       std::vector<std::pair<std::string, std::vector<int32_t>>>{
           {"BitwiseAnd", {0, 0, 3, 10}},
           {"BitwiseOr", {5, 5, 7, 15}},
           {"BitwiseXor", {5, 5, 4, 5}}}) {
    MakeNode(op).Input(DT_INT32).Input(DT_INT32);
    MF_ASSERT_OK(MakeOp());
    AddInputFromArray<int32_t>(TensorShape({4}), lhs);
    AddInputFromArray<int32_t>(TensorShape({4}), rhs);
    RunAndCheckShapes();
    test::ExpectTensorEqual<int32_t>(*GetOutput(0),
                                     test::AsTensor<int32_t>(out));
  }
  // right_shift([-1, -5, -3, -14], [5, 0, 7, 11]) = [-1, -5, -1, -1].
  MakeNode("RightShift").Input(DT_INT8).Input(DT_INT8);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int8_t>(TensorShape({4}), {-1, -5, -3, -14});
  AddInputFromArray<int8_t>(TensorShape({4}), {5, 0, 7, 11});
  RunAndCheckShapes();
  test::ExpectTensorEqual<int8_t>(*GetOutput(0),
                                  test::AsTensor<int8_t>({-1, -5, -1, -1}));
  // left_shift(int8 [-1, -5, -3, -14], [5, 0, 7, 11]) = [-32, -5, -128, 0].
  MakeNode("LeftShift").Input(DT_INT8).Input(DT_INT8);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int8_t>(TensorShape({4}), {-1, -5, -3, -14});
  AddInputFromArray<int8_t>(TensorShape({4}), {5, 0, 7, 11});
  RunAndCheckShapes();
  test::ExpectTensorEqual<int8_t>(*GetOutput(0),
                                  test::AsTensor<int8_t>({-32, -5, -128, 0}));
}

TEST_F(BitwiseOpTest, BinaryOpsOnEveryType) {
  CheckAllBinary<int8_t>();
  CheckAllBinary<int16_t>();
  CheckAllBinary<int32_t>();
  CheckAllBinary<int64_t>();
  CheckAllBinary<uint8_t>();
  CheckAllBinary<uint16_t>();
  CheckAllBinary<uint32_t>();
  CheckAllBinary<uint64_t>();
}

TEST_F(BitwiseOpTest, InvertOnEveryType) {
  CheckInvert<int8_t>();
  CheckInvert<int16_t>();
  CheckInvert<int32_t>();
  CheckInvert<int64_t>();
  CheckInvert<uint8_t>();
  CheckInvert<uint16_t>();
  CheckInvert<uint32_t>();
  CheckInvert<uint64_t>();
  MakeNode("Invert").Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int32_t>(TensorShape({0}), {});
  RunAndCheckShapes();
  EXPECT_EQ(GetOutput(0)->NumElements(), 0);
}

TEST_F(BitwiseOpTest, RejectsIncompatibleShapes) {
  MakeNode("BitwiseAnd").Input(DT_INT32).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int32_t>(TensorShape({2}), {1, 2});
  AddInputFromArray<int32_t>(TensorShape({3}), {1, 2, 3});
  ExpectInvalid("Incompatible shapes: [2] vs. [3]");
}

}  // namespace
}  // namespace minflow
