#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "tests/kernels/nn_test_util.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

struct ArgmaxCase {
  std::vector<int64_t> input;  // N, H, W, C
  int64_t k_h, k_w, s_h, s_w;
  std::string padding = "VALID";
};

// The first maximum of each window in row-major order and its flat index.
template <typename T>
void ReferenceArgmax(const ArgmaxCase& c, const Tensor& input,
                     bool include_batch, TensorShape* shape,
                     std::vector<double>* values,
                     std::vector<int64_t>* indices) {
  const int64_t n = c.input[0], h = c.input[1], w = c.input[2], ch = c.input[3];
  int64_t out[2], pad[2];
  const int64_t in[2] = {h, w}, k[2] = {c.k_h, c.k_w}, s[2] = {c.s_h, c.s_w};
  for (int i = 0; i < 2; ++i) {
    if (c.padding == "VALID") {
      out[i] = (in[i] - k[i] + s[i]) / s[i];
      pad[i] = 0;
    } else {
      out[i] = (in[i] + s[i] - 1) / s[i];
      pad[i] = std::max<int64_t>(0, (out[i] - 1) * s[i] + k[i] - in[i]) / 2;
    }
  }
  *shape = TensorShape({n, out[0], out[1], ch});
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < out[0]; ++y)
      for (int64_t x = 0; x < out[1]; ++x)
        for (int64_t q = 0; q < ch; ++q) {
          double best = 0;
          int64_t best_index = -1;
          for (int64_t i = 0; i < c.k_h; ++i)
            for (int64_t j = 0; j < c.k_w; ++j) {
              const int64_t iy = y * c.s_h - pad[0] + i;
              const int64_t ix = x * c.s_w - pad[1] + j;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              const double v =
                  test::ValueAt<T>(input, ((b * h + iy) * w + ix) * ch + q);
              if (best_index < 0 || v > best) {
                best = v;
                best_index =
                    (((include_batch ? b * h : 0) + iy) * w + ix) * ch + q;
              }
            }
          values->push_back(best);
          indices->push_back(best_index);
        }
}

class MaxPoolWithArgmaxOpTest : public test::OpsTestBase {
 protected:
  Status MakePool(DataType dtype, std::vector<int64_t> ksize,
                  std::vector<int64_t> strides, const std::string& padding,
                  bool include_batch = false) {
    MakeNode("MaxPoolWithArgmax")
        .Input(dtype)
        .Attr("T", dtype)
        .Attr("Targmax", DT_INT64)
        .Attr("ksize", ksize)
        .Attr("strides", strides)
        .Attr("padding", padding)
        .Attr("include_batch_in_index", include_batch);
    return MakeOp();
  }

  template <typename T>
  void Check(const ArgmaxCase& c, bool include_batch) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " input "
                 << TensorShape(c.input).DebugString() << " window " << c.k_h
                 << "x" << c.k_w << " strides " << c.s_h << "," << c.s_w << " "
                 << c.padding << " include_batch " << include_batch);
    MF_ASSERT_OK(MakePool(DataTypeToEnum<T>::v(), {1, c.k_h, c.k_w, 1},
                          {1, c.s_h, c.s_w, 1}, c.padding, include_batch));
    const Tensor input = test::RandomTensor<T>(TensorShape(c.input), 11);
    AddInputTensor(input);
    MF_ASSERT_OK(RunOpKernel());
    // Both outputs: the values and the indices have one shape.
    EXPECT_EQ(test::PredictedOutputShape(*node_def(), {input.shape()}),
              GetOutput(0)->shape().DebugString() + ";" +
                  GetOutput(1)->shape().DebugString());
    TensorShape shape;
    std::vector<double> values;
    std::vector<int64_t> indices;
    ReferenceArgmax<T>(c, input, include_batch, &shape, &values, &indices);
    test::ExpectNearReference<T>(*GetOutput(0), shape, values, 0);
    test::ExpectTensorEqual<int64_t>(*GetOutput(1),
                                     test::AsTensor<int64_t>(indices, shape));
  }

  template <typename T>
  void Sweep() {
    // Integer inputs in [-3, 3] make ties common: the first one must win.
    const std::vector<ArgmaxCase> cases = {
        {{2, 4, 4, 3}, 2, 2, 2, 2},         {{2, 5, 7, 2}, 3, 3, 1, 1, "SAME"},
        {{3, 6, 5, 1}, 3, 2, 2, 3, "SAME"}, {{1, 7, 8, 4}, 2, 3, 3, 2},
        {{2, 3, 3, 2}, 3, 3, 1, 1},
    };
    for (const ArgmaxCase& c : cases) {
      Check<T>(c, false);
      Check<T>(c, true);
    }
  }
};

TEST_F(MaxPoolWithArgmaxOpTest, FloatMatchesReference) { Sweep<float>(); }
TEST_F(MaxPoolWithArgmaxOpTest, Int32MatchesReference) { Sweep<int32_t>(); }
TEST_F(MaxPoolWithArgmaxOpTest, DoubleMatchesReference) { Sweep<double>(); }

TEST_F(MaxPoolWithArgmaxOpTest, DocumentedIndexFormula) {
  // Two 2x2 images, one channel: image 0 peaks at (1,0), image 1 at (0,1).
  for (bool include_batch : {false, true}) {
    MF_ASSERT_OK(
        MakePool(DT_FLOAT, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID", include_batch));
    AddInputFromArray<float>(TensorShape({2, 2, 2, 1}),
                             {1, 2, 9, 3, 4, 8, 5, 6});
    MF_ASSERT_OK(RunOpKernel());
    test::ExpectTensorEqual<float>(
        *GetOutput(0),
        test::AsTensor<float>({9, 8}, TensorShape({2, 1, 1, 1})));
    test::ExpectTensorEqual<int64_t>(
        *GetOutput(1), test::AsTensor<int64_t>({2, include_batch ? 5 : 1},
                                               TensorShape({2, 1, 1, 1})));
  }
}

TEST_F(MaxPoolWithArgmaxOpTest, LowestValueAndNaNFollowTensorFlow) {
  const float lowest = std::numeric_limits<float>::lowest();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  MF_ASSERT_OK(MakePool(DT_FLOAT, {1, 1, 3, 1}, {1, 1, 3, 1}, "VALID"));
  // A window of lowest() still points at its first element; a leading NaN
  // is kept, a later one never replaces a number.
  AddInputFromArray<float>(TensorShape({1, 3, 3, 1}),
                           {lowest, lowest, lowest, nan, 1, 2, 1, nan, 0});
  MF_ASSERT_OK(RunOpKernel());
  const Tensor& values = *GetOutput(0);
  EXPECT_EQ(values.base<const float>()[0], lowest);
  EXPECT_TRUE(values.base<const float>()[1] != values.base<const float>()[1]);
  EXPECT_EQ(values.base<const float>()[2], 1.0f);
  test::ExpectTensorEqual<int64_t>(
      *GetOutput(1),
      test::AsTensor<int64_t>({0, 3, 6}, TensorShape({1, 3, 1, 1})));
}

TEST_F(MaxPoolWithArgmaxOpTest, RejectsEmptyInputAsTensorFlow) {
  MF_ASSERT_OK(MakePool(DT_FLOAT, {1, 2, 2, 1}, {1, 1, 1, 1}, "SAME"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 3, 3, 1})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tensor_in must not be empty (2)")));
}

// Issue 17: zero-sized windows and strides are errors, never a result.
TEST_F(MaxPoolWithArgmaxOpTest, RejectsBadAttrs) {
  struct Case {
    std::vector<int64_t> ksize, strides;
    absl::StatusCode code;
    const char* message;
  };
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  const auto kUnimplemented = absl::StatusCode::kUnimplemented;
  for (const Case& c : {
           Case{{1, 0, 2, 1},
                {1, 1, 1, 1},
                kInvalid,
                "Sliding window ksize for dimension 1 was zero."},
           Case{{1, 2, 2, 1},
                {1, 1, 0, 1},
                kInvalid,
                "Sliding window stride for dimension 2 must be > 0"},
           Case{{1, 2, 2, 1, 1},
                {1, 1, 1, 1},
                kInvalid,
                "Sliding window ksize field must specify 4 dimensions"},
           Case{{1, 2, 2, 1},
                {1, 1, 1, 1, 1},
                kInvalid,
                "Sliding window stride field must specify 4 dimensions"},
           Case{{2, 2, 2, 1},
                {1, 1, 1, 1},
                kUnimplemented,
                "Pooling is not yet supported on the batch dimension."},
           Case{{1, 1, 1, 2},
                {1, 1, 1, 2},
                kUnimplemented,
                "does not support pooling across depth"},
       }) {
    SCOPED_TRACE(c.message);
    EXPECT_THAT(MakePool(DT_FLOAT, c.ksize, c.strides, "VALID"),
                StatusIs(c.code, HasSubstr(c.message)));
  }
}

TEST_F(MaxPoolWithArgmaxOpTest, RejectsBadInputs) {
  MF_ASSERT_OK(MakePool(DT_FLOAT, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 3, 1})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tensor_in must be 4-dimensional (2)")));
  MF_ASSERT_OK(MakePool(DT_FLOAT, {1, 4, 2, 1}, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 2, 3, 1})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Computed output size would be negative")));
}

}  // namespace
}  // namespace minflow
