#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class TopKOpTest : public test::ArrayOpTest {
 protected:
  void Make(DataType dtype, DataType index_type = DT_INT32,
            DataType tk = DT_INT32) {
    MakeNode("TopKV2")
        .Input(dtype)
        .Input(tk)
        .Attr("sorted", true)
        .Attr("index_type", index_type);
    MF_ASSERT_OK(MakeOp());
  }
  void AddK(int64_t k, DataType tk = DT_INT32) {
    if (tk == DT_INT16) {
      AddInputFromArray<int16_t>(TensorShape({}), {static_cast<int16_t>(k)});
    } else if (tk == DT_INT32) {
      AddInputFromArray<int32_t>(TensorShape({}), {static_cast<int32_t>(k)});
    } else {
      AddInputFromArray<int64_t>(TensorShape({}), {k});
    }
  }

  // Reference: a stable sort of each row by value, descending (NaN first),
  // so equal values keep ascending indices.
  template <typename T>
  void Check(const TensorShape& shape, const std::vector<T>& values, int64_t k,
             DataType index_type = DT_INT32, DataType tk = DT_INT32) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " "
                 << shape.DebugString() << " k=" << k << " "
                 << DataTypeString(index_type));
    Make(DataTypeToEnum<T>::v(), index_type, tk);
    const Tensor input = test::AsTensor<T>(absl::Span<const T>(values), shape);
    AddInputTensor(input);
    AddK(k, tk);
    RunAndCheckShapes();
    const int64_t cols = shape.dim_size(shape.dims() - 1);
    const int64_t rows = cols == 0 ? 0 : shape.num_elements() / cols;
    std::vector<int64_t> src;
    std::vector<int64_t> want_indices;
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<int64_t> order(cols);
      for (int64_t c = 0; c < cols; ++c) order[c] = c;
      auto key = [&](int64_t c) {
        const double v = static_cast<double>(values[r * cols + c]);
        return std::isnan(v) ? std::numeric_limits<double>::infinity() : v;
      };
      auto is_nan = [&](int64_t c) {
        return std::isnan(static_cast<double>(values[r * cols + c]));
      };
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        if (is_nan(a) != is_nan(b)) return is_nan(a);
        return key(a) > key(b);
      });
      for (int64_t i = 0; i < k; ++i) {
        src.push_back(r * cols + order[i]);
        want_indices.push_back(order[i]);
      }
    }
    TensorShape out = shape;
    out.set_dim(shape.dims() - 1, k);
    test::ExpectEqual(*GetOutput(0), test::GatherReference(input, out, src));
    const Tensor* got = GetOutput(1);
    ASSERT_EQ(got->dtype(), index_type);
    ASSERT_EQ(got->shape(), out);
    for (int64_t i = 0; i < out.num_elements(); ++i) {
      int64_t v = 0;
      switch (index_type) {
        case DT_INT16:
          v = got->base<const int16_t>()[i];
          break;
        case DT_INT32:
          v = got->base<const int32_t>()[i];
          break;
        default:
          v = got->base<const int64_t>()[i];
      }
      EXPECT_EQ(v, want_indices[i]) << "index " << i;
    }
  }
};

std::vector<float> Floats(int64_t n, uint32_t seed, int distinct) {
  std::mt19937 rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) {
    x = static_cast<float>(
            std::uniform_int_distribution<int>(0, distinct)(rng)) -
        distinct / 2.0f;
  }
  return v;
}

TEST_F(TopKOpTest, TopOfRowsWithTiesByLowerIndex) {
  Check<float>(TensorShape({2, 5}), {3, 1, 3, 2, 3, 0, -1, 0, -1, 5}, 3);
  Check<int32_t>(TensorShape({6}), {4, 4, 4, 4, 4, 4}, 4, DT_INT64, DT_INT64);
  Check<float>(TensorShape({2, 2, 7}), Floats(28, 1, 4), 7);  // k == cols
  Check<float>(TensorShape({3, 50}), Floats(150, 2, 5), 1);   // k == 1
  Check<double>(TensorShape({4, 33}), std::vector<double>(132, 1.5), 10);
}

TEST_F(TopKOpTest, EveryRealType) {
  const std::vector<float> f = Floats(24, 3, 6);
  Check<float>(TensorShape({3, 8}), f, 3);
  Check<double>(TensorShape({3, 8}), std::vector<double>(f.begin(), f.end()),
                3);
  Check<half>(
      TensorShape({3, 8}),
      [&] {
        std::vector<half> v;
        for (float x : f) v.push_back(half(x));
        return v;
      }(),
      3, DT_INT16, DT_INT16);
  Check<bfloat16>(
      TensorShape({3, 8}),
      [&] {
        std::vector<bfloat16> v;
        for (float x : f) v.push_back(bfloat16(x));
        return v;
      }(),
      8);
  Check<int8_t>(TensorShape({3, 8}), std::vector<int8_t>(f.begin(), f.end()),
                2);
  Check<uint8_t>(TensorShape({2, 4}), {200, 3, 255, 0, 1, 1, 0, 7}, 2);
  Check<int64_t>(TensorShape({2, 3}),
                 {std::numeric_limits<int64_t>::min(), 0,
                  std::numeric_limits<int64_t>::max(), 5, 5, -5},
                 2);
  Check<uint64_t>(TensorShape({3}), {1, ~uint64_t{0}, 7}, 3);
}

TEST_F(TopKOpTest, NaNsRankFirstAndNeverBreakTheOrder) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Check<float>(TensorShape({8}), {1, nan, inf, -inf, nan, 0, -0.0f, 2}, 5);
  std::vector<float> many = Floats(2000, 4, 50);
  for (size_t i = 0; i < many.size(); i += 7) many[i] = nan;
  Check<float>(TensorShape({4, 500}), many, 100);
}

TEST_F(TopKOpTest, EmptyAndLarge) {
  Check<float>(TensorShape({3, 4}), std::vector<float>(12, 1), 0);
  Check<float>(TensorShape({0, 4}), {}, 2);
  Check<float>(TensorShape({4, 0}), {}, 0);
  Check<float>(TensorShape({256, 1000}), Floats(256000, 5, 1000), 16);
  Check<float>(TensorShape({100000}), Floats(100000, 6, 100000), 7);
}

TEST_F(TopKOpTest, RejectsBadK) {
  Make(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({3}), {1, 2, 3});
  AddInputFromArray<int32_t>(TensorShape({1}), {1});
  ExpectInvalid("k must be scalar, got shape [1]");
  Make(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({3}), {1, 2, 3});
  AddK(-1);
  ExpectInvalid("Need k >= 0, got -1");
  Make(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  AddK(4);
  ExpectInvalid("input must have at least k columns. Had 3, needed 4");
}

TEST_F(TopKOpTest, RejectsScalarInput) {
  Make(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({}), {1});
  AddK(0);
  ExpectInvalid("input must be >= 1-D, got shape []");
}

TEST_F(TopKOpTest, RejectsIndicesPastTheIndexType) {
  Make(DT_FLOAT, DT_INT16);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({1, 40000})));
  AddK(1);
  ExpectInvalid("input has 40000 columns, too many for index_type int16");
  Make(DT_FLOAT);
  std::vector<Tensor> inputs = {
      HugeTensor(DT_FLOAT, TensorShape({0, int64_t{1} << 31})),
      test::AsScalar<int32_t>(1)};
  EXPECT_THAT(RunOnTensors(&inputs),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("Last dimension of flattened input "
                                       "must be <= INT_MAX, got 2147483648")));
}

}  // namespace
}  // namespace minflow
