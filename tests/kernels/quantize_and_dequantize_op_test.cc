#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/nn_test_util.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

// The shape function's prediction for fully known inputs, with "in0"
// (input 0's shape itself, as an unchanged-shape function gives) resolved.
std::string PredictedShape(const NodeDef& node_def,
                           const std::vector<TensorShape>& shapes) {
  const std::string p = test::PredictedOutputShape(node_def, shapes);
  return p == "in0" ? shapes[0].DebugString() : p;
}

struct Options {
  bool signed_input = true;
  int num_bits = 8;
  bool range_given = false;
  bool narrow_range = false;
  bool half_up = false;
  int axis = -1;
};

// The op's contract in double for one slice's values.
std::vector<double> ReferenceSlice(const std::vector<double>& x, double lo,
                                   double hi, const Options& o) {
  if (!o.range_given) {
    lo = *std::min_element(x.begin(), x.end());
    hi = *std::max_element(x.begin(), x.end());
  }
  const double half = std::ldexp(1.0, o.num_bits - 1);
  const double min_q =
      o.signed_input ? (o.narrow_range ? -half + 1 : -half) : 0;
  const double max_q =
      o.signed_input ? half - 1 : std::ldexp(1.0, o.num_bits) - 1;
  const double big = std::numeric_limits<double>::max();
  const double s_min = min_q * lo > 0 ? min_q / lo : big;
  const double s_max = max_q * hi > 0 ? max_q / hi : big;
  double scale, inv;
  if (s_min < s_max) {
    scale = s_min;
    inv = lo / min_q;
    hi = max_q * inv;
  } else {
    scale = s_max;
    inv = hi / max_q;
    lo = min_q * inv;
  }
  std::vector<double> out;
  for (double v : x) {
    if (o.range_given) v = std::min(std::max(v, lo), hi);
    const double r =
        o.half_up ? std::floor(v * scale + 0.5) : std::nearbyint(v * scale);
    out.push_back(r * inv);
  }
  return out;
}

class QuantizeAndDequantizeOpTest : public test::OpsTestBase {
 protected:
  Status Make(const std::string& op, DataType dtype, const Options& o) {
    auto& b = MakeNode(op)
                  .Input(dtype)
                  .Input(dtype)
                  .Input(dtype)
                  .Attr("signed_input", o.signed_input)
                  .Attr("range_given", o.range_given)
                  .Attr("narrow_range", o.narrow_range)
                  .Attr("axis", o.axis);
    if (op == "QuantizeAndDequantizeV3") {
      b.Input(DT_INT32);
    } else {
      b.Attr("num_bits", o.num_bits)
          .Attr("round_mode", o.half_up ? "HALF_UP" : "HALF_TO_EVEN");
    }
    return MakeOp();
  }

  // Runs `op` on `values` of `shape` with range [lo, hi] (per channel
  // along o.axis when given as vectors) and compares with the reference.
  template <typename T>
  void Check(const std::string& op, const Options& o, const TensorShape& shape,
             const std::vector<double>& values, const std::vector<double>& lo,
             const std::vector<double>& hi) {
    SCOPED_TRACE(::testing::Message()
                 << op << " " << DataTypeString(DataTypeToEnum<T>::v())
                 << " bits=" << o.num_bits << " signed=" << o.signed_input
                 << " given=" << o.range_given << " narrow=" << o.narrow_range
                 << " half_up=" << o.half_up << " axis=" << o.axis);
    MF_ASSERT_OK(Make(op, DataTypeToEnum<T>::v(), o));
    std::vector<T> in(values.begin(), values.end());
    AddInputFromArray<T>(shape, in);
    const TensorShape range_shape =
        o.axis == -1 ? TensorShape({}) : TensorShape({shape.dim_size(o.axis)});
    AddInputFromArray<T>(range_shape, std::vector<T>(lo.begin(), lo.end()));
    AddInputFromArray<T>(range_shape, std::vector<T>(hi.begin(), hi.end()));
    if (op == "QuantizeAndDequantizeV3") {
      AddInputFromArray<int32_t>(TensorShape({}), {o.num_bits});
    }
    MF_ASSERT_OK(RunOpKernel());
    std::vector<TensorShape> shapes = {shape, range_shape, range_shape};
    if (op == "QuantizeAndDequantizeV3") shapes.push_back(TensorShape({}));
    EXPECT_EQ(PredictedShape(*node_def(), shapes),
              GetOutput(0)->shape().DebugString());
    // Slices [outer, depth, inner] as the op sees them.
    const int64_t depth = o.axis == -1 ? 1 : shape.dim_size(o.axis);
    int64_t inner = 1;
    for (int d = o.axis + 1; o.axis != -1 && d < shape.dims(); ++d) {
      inner *= shape.dim_size(d);
    }
    if (o.axis == -1) inner = shape.num_elements();
    const int64_t outer = shape.num_elements() / (depth * inner);
    std::vector<double> ref(values.size());
    for (int64_t c = 0; c < depth; ++c) {
      std::vector<double> slice;
      for (int64_t q = 0; q < outer; ++q) {
        for (int64_t i = 0; i < inner; ++i) {
          slice.push_back(static_cast<double>(in[(q * depth + c) * inner + i]));
        }
      }
      const std::vector<double> got = ReferenceSlice(slice, lo[c], hi[c], o);
      int64_t k = 0;
      for (int64_t q = 0; q < outer; ++q) {
        for (int64_t i = 0; i < inner; ++i) {
          ref[(q * depth + c) * inner + i] = got[k++];
        }
      }
    }
    test::ExpectNearReference<T>(*GetOutput(0), shape, ref, 1e-6);
  }
};

TEST_F(QuantizeAndDequantizeOpTest, DocumentedSignedEightBitExample) {
  MF_ASSERT_OK(Make("QuantizeAndDequantizeV2", DT_FLOAT, Options()));
  AddInputFromArray<float>(TensorShape({6}), {-1, -0.5, 0, 0.3, 0.8, 0.555});
  AddInputFromArray<float>(TensorShape({}), {0});
  AddInputFromArray<float>(TensorShape({}), {0});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorNear<float>(
      *GetOutput(0),
      test::AsTensor<float>({-1, -0.5, 0, 38.0 / 128, 102.0 / 128, 71.0 / 128}),
      1e-6);
}

TEST_F(QuantizeAndDequantizeOpTest, RoundModesDifferOnTies) {
  Options o;
  o.range_given = true;
  const std::vector<float> in = {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 200, -300};
  for (bool half_up : {false, true}) {
    o.half_up = half_up;
    MF_ASSERT_OK(Make("QuantizeAndDequantizeV4", DT_FLOAT, o));
    AddInputFromArray<float>(TensorShape({8}), in);
    AddInputFromArray<float>(TensorShape({}), {-128});
    AddInputFromArray<float>(TensorShape({}), {127});
    MF_ASSERT_OK(RunOpKernel());
    const std::vector<float> want =
        half_up ? std::vector<float>{-2, -1, 0, 1, 2, 3, 127, -128}
                : std::vector<float>{-2, -2, 0, 0, 2, 2, 127, -128};
    test::ExpectTensorEqual<float>(*GetOutput(0), test::AsTensor<float>(want));
  }
}

TEST_F(QuantizeAndDequantizeOpTest, MatchesReference) {
  const Tensor r = test::RandomTensor<double>(TensorShape({2, 3, 4}), 5);
  std::vector<double> values;
  for (int i = 0; i < 24; ++i) values.push_back(r.flat<double>()(i) * 2.5);
  for (const char* op : {"QuantizeAndDequantizeV2", "QuantizeAndDequantizeV3",
                         "QuantizeAndDequantizeV4"}) {
    for (int bits : {2, 4, 8, 12}) {
      for (bool sign : {true, false}) {
        for (bool given : {false, true}) {
          for (bool narrow : {false, true}) {
            Options o;
            o.num_bits = bits;
            o.signed_input = sign;
            o.range_given = given;
            o.narrow_range = narrow;
            Check<float>(op, o, TensorShape({2, 3, 4}), values, {-1.7}, {1.1});
            Check<double>(op, o, TensorShape({2, 3, 4}), values, {-0.4}, {2.0});
            o.axis = 1;
            Check<float>(op, o, TensorShape({2, 3, 4}), values,
                         {-1.0, -0.3, 0.0}, {1.0, 0.5, 2.0});
            o.axis = 2;
            Check<double>(op, o, TensorShape({2, 3, 4}), values,
                          {-1, -2, -0.5, 0}, {1, 0.25, 2, 0});
          }
        }
      }
    }
  }
}

TEST_F(QuantizeAndDequantizeOpTest, EmptyInput) {
  Options o;
  o.axis = 0;
  MF_ASSERT_OK(Make("QuantizeAndDequantizeV2", DT_FLOAT, o));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 0})));
  AddInputFromArray<float>(TensorShape({2}), {0, 0});
  AddInputFromArray<float>(TensorShape({2}), {0, 0});
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[2,0]");
}

TEST_F(QuantizeAndDequantizeOpTest, RejectsNumBitsOutOfRange) {
  Options o;
  o.num_bits = 0;
  EXPECT_THAT(Make("QuantizeAndDequantizeV2", DT_FLOAT, o),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("num_bits is out of range: 0")));
  o.num_bits = 62;
  EXPECT_THAT(Make("QuantizeAndDequantizeV4", DT_FLOAT, o),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("num_bits is out of range: 62")));
  o.signed_input = false;
  MF_EXPECT_OK(Make("QuantizeAndDequantizeV4", DT_FLOAT, o));
  o.num_bits = 63;
  EXPECT_THAT(Make("QuantizeAndDequantizeV4", DT_FLOAT, o),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("num_bits is out of range: 63")));
}

TEST_F(QuantizeAndDequantizeOpTest, V3RejectsBadNumBitsTensor) {
  for (bool scalar : {false, true}) {
    MF_ASSERT_OK(Make("QuantizeAndDequantizeV3", DT_FLOAT, Options()));
    AddInputFromArray<float>(TensorShape({2}), {1, 2});
    AddInputFromArray<float>(TensorShape({}), {-1});
    AddInputFromArray<float>(TensorShape({}), {1});
    if (scalar) {
      AddInputFromArray<int32_t>(TensorShape({}), {0});
      EXPECT_THAT(RunOpKernel(),
                  StatusIs(absl::StatusCode::kInvalidArgument,
                           HasSubstr("num_bits is out of range: 0")));
    } else {
      AddInputFromArray<int32_t>(TensorShape({1}), {8});
      EXPECT_THAT(RunOpKernel(),
                  StatusIs(absl::StatusCode::kInvalidArgument,
                           HasSubstr("The `num_bits` tensor should be a "
                                     "scalar. Got dimensions: 1")));
    }
  }
}

TEST_F(QuantizeAndDequantizeOpTest, RejectsBadAxisAndRanges) {
  struct Case {
    int axis;
    bool range_given;
    TensorShape min_shape, max_shape;
    float min, max;
    const char* message;
  };
  const Case cases[] = {
      {-2, false, TensorShape({}), TensorShape({}), 0, 0,
       "Axis must be at least -1. Found -2"},
      {2, false, TensorShape({}), TensorShape({}), 0, 0,
       "Shape must be at least rank 3 but is rank 2"},
      {-1, true, TensorShape({1}), TensorShape({}), 0, 0,
       "`input_min` must be rank 0 when axis is -1, but got shape [1]"},
      {-1, true, TensorShape({}), TensorShape({1}), 0, 0,
       "`input_max` must be rank 0 when axis is -1, but got shape [1]"},
      {1, true, TensorShape({2}), TensorShape({3}), 0, 0,
       "input_min_tensor has incorrect size, was 2 expected 3 to match dim 1"},
      {1, true, TensorShape({3}), TensorShape({4}), 0, 0,
       "input_max_tensor has incorrect size, was 4 expected 3 to match dim 1"},
      {-1, true, TensorShape({}), TensorShape({}), 1, -1,
       "Invalid range: input_min 1 > input_max -1"},
      {0, true, TensorShape({2}), TensorShape({2}), 0.5, 0.25,
       "Invalid range: input_min 0.5 > input_max 0.25"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    Options o;
    o.axis = c.axis;
    o.range_given = c.range_given;
    MF_ASSERT_OK(Make("QuantizeAndDequantizeV2", DT_FLOAT, o));
    AddInputTensor(test::RandomTensor<float>(TensorShape({2, 3}), 1));
    AddInputTensor(test::AsTensor<float>(
        std::vector<float>(c.min_shape.num_elements(), c.min), c.min_shape));
    AddInputTensor(test::AsTensor<float>(
        std::vector<float>(c.max_shape.num_elements(), c.max), c.max_shape));
    EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                        HasSubstr(c.message)));
  }
}

TEST_F(QuantizeAndDequantizeOpTest, RejectsUnknownRoundMode) {
  MakeNode("QuantizeAndDequantizeV2")
      .Input(DT_FLOAT)
      .Input(DT_FLOAT)
      .Input(DT_FLOAT)
      .Attr("round_mode", "HALF_DOWN");
  EXPECT_THAT(MakeOp(), StatusIs(absl::StatusCode::kInvalidArgument,
                                 HasSubstr("HALF_DOWN")));
}

}  // namespace
}  // namespace minflow
