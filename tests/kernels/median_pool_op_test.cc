// MedianPool2D: the selection networks proved exhaustively (0-1 principle),
// the kernel against a sort-every-window reference over shapes, dtypes,
// strides, paddings and both paths (networks, sliding window), the order of
// NaN and signed zeros, every attr and input check, and the two example
// graphs (fused and ExtractImagePatches + TopKV2) agreeing bit for bit.
#include "src/kernels/median_pool_op.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/allocator.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/runtime/session.h"
#include "tests/kernels/nn_test_util.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using internal::BuildMedianNetwork;
using internal::MedianNetwork;
using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

// --- the networks alone

// Runs `net` on one window of 0/1 values in which column c holds zeros[c]
// zeros (a sorted column), and returns the value left on the output wire.
int RunOnZeroOne(const MedianNetwork& net, const std::vector<int>& zeros) {
  std::vector<int> wire(net.rows * net.cols);
  for (int c = 0; c < net.cols; ++c) {
    // Ones first, so the column sort has to order them.
    std::vector<int> column(net.rows);
    for (int k = 0; k < net.rows; ++k) column[k] = k < net.rows - zeros[c];
    for (const auto& op : net.column_sort) {
      if (column[op.lo] > column[op.hi])
        std::swap(column[op.lo], column[op.hi]);
    }
    for (int k = 0; k < net.rows; ++k) wire[c * net.rows + k] = column[k];
  }
  for (const auto& op : net.select) {
    const int a = wire[op.lo];
    const int b = wire[op.hi];
    wire[op.lo] = std::min(a, b);
    wire[op.hi] = std::max(a, b);
  }
  return wire[net.output];
}

// By the 0-1 principle a comparator network selects rank r of every input
// iff it does of every 0/1 input; with sorted columns those are the
// (rows + 1)^cols choices of zeros per column.
TEST(MedianNetworkTest, SelectsLowerMedianOfEveryZeroOneWindow) {
  for (int rows = 1; rows <= 6; ++rows) {
    for (int cols = 1; cols <= 6; ++cols) {
      SCOPED_TRACE(::testing::Message() << rows << "x" << cols);
      const MedianNetwork net = BuildMedianNetwork(rows, cols);
      const int n = rows * cols;
      std::vector<int> zeros(cols, 0);
      while (true) {
        int total = 0;
        for (int z : zeros) total += z;
        // The lower median is 0 iff more than (n - 1) / 2 values are 0.
        const int want = total > (n - 1) / 2 ? 0 : 1;
        ASSERT_EQ(RunOnZeroOne(net, zeros), want)
            << "zeros per column " << ::testing::PrintToString(zeros);
        int c = 0;
        while (c < cols && ++zeros[c] > rows) zeros[c++] = 0;
        if (c == cols) break;
      }
    }
  }
}

TEST(MedianNetworkTest, LargestShapesSelectTheLowerMedianOfRandomWindows) {
  std::mt19937 rng(7);
  for (const auto& [rows, cols] : std::vector<std::pair<int, int>>{
           {8, 8}, {7, 9}, {1, 64}, {64, 1}, {2, 32}, {5, 12}, {7, 7}}) {
    SCOPED_TRACE(::testing::Message() << rows << "x" << cols);
    const MedianNetwork net = BuildMedianNetwork(rows, cols);
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<int> wire(rows * cols);
      for (int& v : wire) v = static_cast<int>(rng() % 20);
      std::vector<int> sorted = wire;
      std::sort(sorted.begin(), sorted.end());
      for (int c = 0; c < cols; ++c) {
        int* column = wire.data() + c * rows;
        for (const auto& op : net.column_sort) {
          if (column[op.lo] > column[op.hi]) {
            std::swap(column[op.lo], column[op.hi]);
          }
        }
      }
      for (const auto& op : net.select) {
        if (wire[op.lo] > wire[op.hi]) std::swap(wire[op.lo], wire[op.hi]);
      }
      ASSERT_EQ(wire[net.output], sorted[(rows * cols - 1) / 2]);
    }
  }
}

TEST(MedianNetworkTest, SmallWindowsNeedFewCompareExchanges) {
  EXPECT_LE(BuildMedianNetwork(3, 3).select.size(), 12u);
  EXPECT_LE(BuildMedianNetwork(5, 5).select.size(), 61u);
  EXPECT_TRUE(BuildMedianNetwork(1, 1).select.empty());
  // A single column needs only its sort.
  EXPECT_TRUE(BuildMedianNetwork(7, 1).select.empty());
}

// --- the kernel against a reference

// The kernel's order (see Note [Median order]): NaN above everything, -0
// just below +0.
template <typename T>
bool OrderedBefore(const T& a, const T& b) {
  if constexpr (std::is_integral<T>::value) {
    return a < b;
  } else {
    const double x = static_cast<double>(static_cast<float>(a));
    const double y = static_cast<double>(static_cast<float>(b));
    if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
    if (x != y) return x < y;
    return std::signbit(x) && !std::signbit(y);
  }
}
template <>
bool OrderedBefore<double>(const double& x, const double& y) {
  if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
  if (x != y) return x < y;
  return std::signbit(x) && !std::signbit(y);
}

template <typename T>
bool IsNan(const T& v) {
  if constexpr (std::is_integral<T>::value) {
    return false;
  } else {
    return std::isnan(static_cast<double>(static_cast<float>(v)));
  }
}
template <>
bool IsNan<double>(const double& v) {
  return std::isnan(v);
}

template <typename T>
double AsDouble(const T& v) {
  if constexpr (std::is_integral<T>::value || std::is_same<T, double>::value) {
    return static_cast<double>(v);
  } else {
    return static_cast<double>(static_cast<float>(v));
  }
}

struct MedianCase {
  std::vector<int64_t> input;  // N, H, W, C
  int64_t k_h = 1, k_w = 1;
  int64_t s_h = 1, s_w = 1;
  std::string padding = "VALID";
};

std::string Describe(const MedianCase& c) {
  return absl::StrCat(TensorShape(c.input).DebugString(), " ksize ", c.k_h, "x",
                      c.k_w, " strides ", c.s_h, ",", c.s_w, " ", c.padding);
}

void OutputAndPad(const MedianCase& c, int64_t in, int64_t k, int64_t stride,
                  int64_t* out, int64_t* pad) {
  if (c.padding == "VALID") {
    *out = (in - k + stride) / stride;
    *pad = 0;
  } else {
    *out = (in + stride - 1) / stride;
    *pad = std::max<int64_t>(0, (*out - 1) * stride + k - in) / 2;
  }
}

// Sorts each window's in-image values and takes index (n - 1) / 2.
template <typename T>
Tensor ReferenceMedian(const MedianCase& c, const Tensor& input) {
  const int64_t n = c.input[0], h = c.input[1], w = c.input[2], ch = c.input[3];
  int64_t oh, ow, pt, pl;
  OutputAndPad(c, h, c.k_h, c.s_h, &oh, &pt);
  OutputAndPad(c, w, c.k_w, c.s_w, &ow, &pl);
  Tensor out(DataTypeToEnum<T>::v(), TensorShape({n, oh, ow, ch}));
  const T* in = input.base<const T>();
  T* o = out.base<T>();
  std::vector<T> window;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t q = 0; q < ch; ++q) {
          window.clear();
          const int64_t y0 = y * c.s_h - pt, x0 = x * c.s_w - pl;
          for (int64_t iy = std::max<int64_t>(y0, 0);
               iy < std::min(y0 + c.k_h, h); ++iy)
            for (int64_t ix = std::max<int64_t>(x0, 0);
                 ix < std::min(x0 + c.k_w, w); ++ix) {
              window.push_back(in[((b * h + iy) * w + ix) * ch + q]);
            }
          std::sort(window.begin(), window.end(), OrderedBefore<T>);
          o[((b * oh + y) * ow + x) * ch + q] = window[(window.size() - 1) / 2];
        }
  return out;
}

// Equal bits, except that any NaN matches any NaN.
template <typename T>
void ExpectSameValues(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.shape().DebugString(), want.shape().DebugString());
  const T* g = got.base<const T>();
  const T* w = want.base<const T>();
  int reported = 0;
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    if (IsNan(g[i]) && IsNan(w[i])) continue;
    if (std::memcmp(&g[i], &w[i], sizeof(T)) == 0) continue;
    ADD_FAILURE() << "element " << i << ": got " << AsDouble(g[i]) << ", want "
                  << AsDouble(w[i]);
    if (++reported == 10) return;
  }
}

class MedianPoolOpTest : public test::OpsTestBase {
 protected:
  Status Make(DataType dtype, std::vector<int64_t> ksize,
              std::vector<int64_t> strides, const std::string& padding) {
    MakeNode("MedianPool2D")
        .Input(dtype)
        .Attr("ksize", ksize)
        .Attr("strides", strides)
        .Attr("padding", padding);
    return MakeOp();
  }

  template <typename T>
  void Check(const MedianCase& c, const Tensor& input) {
    SCOPED_TRACE(::testing::Message() << DataTypeString(DataTypeToEnum<T>::v())
                                      << " " << Describe(c));
    MF_ASSERT_OK(Make(DataTypeToEnum<T>::v(), {1, c.k_h, c.k_w, 1},
                      {1, c.s_h, c.s_w, 1}, c.padding));
    AddInputTensor(input);
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(test::PredictedOutputShape(*node_def(), {input.shape()}),
              GetOutput(0)->shape().DebugString());
    ExpectSameValues<T>(*GetOutput(0), ReferenceMedian<T>(c, input));
  }

  template <typename T>
  void Check(const MedianCase& c, uint32_t seed = 3) {
    Check<T>(c, test::RandomTensor<T>(TensorShape(c.input), seed));
  }

  // Window shapes and borders both paths meet; every case is small.
  static std::vector<MedianCase> Cases() {
    return {
        {{1, 5, 5, 1}, 3, 3, 1, 1, "SAME"},
        {{2, 7, 9, 3}, 3, 3, 1, 1, "VALID"},
        {{1, 8, 8, 4}, 2, 2, 2, 2, "VALID"},  // even window
        {{1, 6, 7, 5}, 2, 3, 1, 1, "SAME"},   // even and odd
        {{1, 9, 11, 2}, 5, 5, 1, 1, "SAME"},
        {{2, 9, 11, 3}, 5, 5, 2, 2, "SAME"},
        {{1, 7, 7, 33}, 3, 3, 1, 1, "SAME"},  // depth past one lane block
        {{1, 5, 6, 2}, 1, 1, 1, 1, "VALID"},
        {{1, 3, 4, 2}, 7, 7, 1, 1, "SAME"},  // window larger than the image
        {{1, 10, 12, 3}, 4, 1, 1, 1, "SAME"},
        {{1, 10, 12, 3}, 1, 4, 1, 1, "SAME"},
        {{1, 10, 9, 2}, 3, 3, 3, 2, "SAME"},
        {{1, 11, 13, 2}, 2, 2, 1, 5, "VALID"},  // stride past the window
        {{1, 9, 10, 3}, 8, 8, 1, 1, "SAME"},    // the largest network
        {{1, 12, 13, 3}, 9, 9, 1, 1, "SAME"},   // sliding window from here
        {{1, 12, 13, 3}, 9, 9, 2, 3, "VALID"},
        {{1, 14, 30, 2}, 3, 25, 1, 1, "SAME"},
        {{1, 20, 17, 2}, 11, 7, 4, 1, "SAME"},  // restarts as windows skip
        {{1, 3, 4, 2}, 100000, 100000, 1, 1, "SAME"},  // the whole image
    };
  }
};

TEST_F(MedianPoolOpTest, FloatMatchesReference) {
  for (const MedianCase& c : Cases()) Check<float>(c);
}
TEST_F(MedianPoolOpTest, DoubleMatchesReference) {
  for (const MedianCase& c : Cases()) Check<double>(c);
}
TEST_F(MedianPoolOpTest, HalfAndBfloat16MatchReference) {
  for (const MedianCase& c : Cases()) {
    Check<half>(c);
    Check<bfloat16>(c);
  }
}
TEST_F(MedianPoolOpTest, IntegersMatchReference) {
  // Values in [-3, 3]: windows full of ties.
  for (const MedianCase& c : Cases()) {
    Check<int32_t>(c);
    Check<int64_t>(c);
    Check<uint8_t>(c);
  }
}
TEST_F(MedianPoolOpTest, EveryRealTypeMatchesReference) {
  const MedianCase c{{2, 6, 7, 3}, 3, 2, 1, 1, "SAME"};
  Check<int8_t>(c);
  Check<int16_t>(c);
  Check<uint16_t>(c);
  Check<uint32_t>(c);
  Check<uint64_t>(c);
}

TEST_F(MedianPoolOpTest, ManyChannelsAreTiled) {
  // Too many channels for one pass of the scratch budget.
  Check<float>({{1, 4, 5, 3000}, 3, 3, 1, 1, "SAME"});
  Check<int8_t>({{1, 3, 4, 9000}, 2, 2, 1, 1, "SAME"});
  Check<double>({{1, 4, 4, 700}, 9, 9, 1, 1, "SAME"});
}

TEST_F(MedianPoolOpTest, LargeInputIsSharded) {
  Check<float>({{2, 64, 64, 16}, 3, 3, 1, 1, "SAME"});
  Check<float>({{1, 48, 40, 8}, 5, 5, 1, 1, "VALID"});
  Check<int32_t>({{1, 40, 40, 4}, 10, 10, 1, 1, "SAME"});
}

TEST_F(MedianPoolOpTest, EvenWindowTakesTheLowerMiddle) {
  MF_ASSERT_OK(Make(DT_FLOAT, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"));
  AddInputFromArray<float>(TensorShape({1, 2, 4, 1}),
                           {4, 1, 10, 30, 3, 2, 20, 40});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>({2, 20}, TensorShape({1, 1, 2, 1})));
}

TEST_F(MedianPoolOpTest, PaddingIsNotAValue) {
  // 3x3 SAME on a 2x2 image: every window holds the 4 pixels, never zeros.
  MF_ASSERT_OK(Make(DT_FLOAT, {1, 3, 3, 1}, {1, 1, 1, 1}, "SAME"));
  AddInputFromArray<float>(TensorShape({1, 2, 2, 1}), {5, 6, 7, 8});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({6, 6, 6, 6}, TensorShape({1, 2, 2, 1})));
}

TEST_F(MedianPoolOpTest, NanRanksAboveInfinity) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  // Windows of 3 along a row: {1, nan, 2} -> 2; {nan, 2, nan} -> nan;
  // {2, nan, inf} -> inf; {nan, inf, -inf} -> inf.
  MF_ASSERT_OK(Make(DT_FLOAT, {1, 1, 3, 1}, {1, 1, 1, 1}, "VALID"));
  AddInputFromArray<float>(TensorShape({1, 1, 6, 1}),
                           {1, nan, 2, nan, inf, -inf});
  MF_ASSERT_OK(RunOpKernel());
  const float* out = GetOutput(0)->base<const float>();
  EXPECT_EQ(out[0], 2.0f);
  EXPECT_TRUE(std::isnan(out[1]));
  EXPECT_EQ(out[2], inf);
  EXPECT_EQ(out[3], inf);
}

TEST_F(MedianPoolOpTest, NegativeZeroSortsBelowPositiveZero) {
  // The lower median of {+0, -0} (either order) is -0.
  MF_ASSERT_OK(Make(DT_DOUBLE, {1, 1, 2, 1}, {1, 1, 1, 1}, "VALID"));
  AddInputFromArray<double>(TensorShape({1, 1, 3, 1}), {0.0, -0.0, 0.0});
  MF_ASSERT_OK(RunOpKernel());
  const double* out = GetOutput(0)->base<const double>();
  EXPECT_TRUE(std::signbit(out[0]));
  EXPECT_TRUE(std::signbit(out[1]));
}

TEST_F(MedianPoolOpTest, SpecialValuesMatchReferenceOnBothPaths) {
  // Random specials, dense enough that many windows meet several NaNs.
  const MedianCase cases[] = {{{1, 9, 10, 5}, 3, 3, 1, 1, "SAME"},
                              {{1, 12, 11, 3}, 9, 9, 1, 1, "SAME"}};
  for (const MedianCase& c : cases) {
    for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
      std::mt19937 rng(11);
      const double specials[] = {std::numeric_limits<double>::quiet_NaN(),
                                 -std::numeric_limits<double>::quiet_NaN(),
                                 std::numeric_limits<double>::infinity(),
                                 -std::numeric_limits<double>::infinity(),
                                 0.0,
                                 -0.0,
                                 1.0,
                                 -1.0};
      Tensor input(dtype, TensorShape(c.input));
      for (int64_t i = 0; i < input.NumElements(); ++i) {
        const double v = specials[rng() % 8];
        switch (dtype) {
          case DT_FLOAT:
            input.base<float>()[i] = static_cast<float>(v);
            break;
          case DT_DOUBLE:
            input.base<double>()[i] = v;
            break;
          case DT_HALF:
            input.base<half>()[i] = static_cast<half>(static_cast<float>(v));
            break;
          default:
            input.base<bfloat16>()[i] =
                static_cast<bfloat16>(static_cast<float>(v));
            break;
        }
      }
      switch (dtype) {
        case DT_FLOAT:
          Check<float>(c, input);
          break;
        case DT_DOUBLE:
          Check<double>(c, input);
          break;
        case DT_HALF:
          Check<half>(c, input);
          break;
        default:
          Check<bfloat16>(c, input);
          break;
      }
    }
  }
}

TEST_F(MedianPoolOpTest, NanResultIsTheQuietNan) {
  MF_ASSERT_OK(Make(DT_FLOAT, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"));
  uint32_t bits = 0xFFC00123u;  // a negative NaN with a payload
  float odd_nan;
  std::memcpy(&odd_nan, &bits, sizeof(bits));
  AddInputFromArray<float>(TensorShape({1, 1, 1, 1}), {odd_nan});
  MF_ASSERT_OK(RunOpKernel());
  std::memcpy(&bits, GetOutput(0)->base<const float>(), sizeof(bits));
  EXPECT_EQ(bits, 0x7FC00000u);
}

TEST_F(MedianPoolOpTest, EmptyInputsGiveEmptyOutputs) {
  for (const auto& [shape, padding, want] :
       std::vector<std::tuple<TensorShape, std::string, std::string>>{
           {TensorShape({0, 5, 5, 3}), "SAME", "[0,5,5,3]"},
           {TensorShape({2, 5, 5, 0}), "SAME", "[2,5,5,0]"},
           {TensorShape({1, 0, 5, 3}), "SAME", "[1,0,5,3]"},
           {TensorShape({1, 2, 5, 3}), "VALID", "[1,0,3,3]"}}) {
    MF_ASSERT_OK(Make(DT_FLOAT, {1, 3, 3, 1}, {1, 1, 1, 1}, padding));
    AddInputTensor(Tensor(DT_FLOAT, shape));
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(GetOutput(0)->shape().DebugString(), want);
  }
}

TEST_F(MedianPoolOpTest, ValidWindowPastTheImageGivesEmptyOutput) {
  // (2 - 3 + 2) / 2 = 0 rows: no window, no error (as MaxPool's kernel);
  // the shape function rejects the known shape at graph time, as TF's.
  MF_ASSERT_OK(Make(DT_FLOAT, {1, 3, 1, 1}, {1, 2, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 2, 4, 1})));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[1,0,4,1]");
  EXPECT_THAT(
      test::PredictedOutputShape(*node_def(), {TensorShape({1, 2, 4, 1})}),
      HasSubstr("error"));
}

// --- attrs, checked when the kernel is made

TEST_F(MedianPoolOpTest, RejectsKsizeOfLengthThree) {
  EXPECT_THAT(Make(DT_FLOAT, {1, 2, 2}, {1, 1, 1, 1}, "VALID"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ksize")));
}

TEST_F(MedianPoolOpTest, RejectsKsizeOrStridesOfLengthFive) {
  EXPECT_THAT(Make(DT_FLOAT, {1, 2, 2, 1, 1}, {1, 1, 1, 1}, "VALID"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Sliding window ksize field must specify 4 "
                                 "dimensions")));
  EXPECT_THAT(Make(DT_FLOAT, {1, 2, 2, 1}, {1, 1, 1, 1, 1}, "VALID"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Sliding window stride field must specify 4 "
                                 "dimensions")));
}

TEST_F(MedianPoolOpTest, RejectsZeroOrNegativeKsizeAndStrides) {
  EXPECT_THAT(Make(DT_FLOAT, {1, 0, 2, 1}, {1, 1, 1, 1}, "VALID"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Sliding window ksize for dimension 1 was "
                                 "zero.")));
  EXPECT_THAT(Make(DT_FLOAT, {1, 2, 2, 1}, {1, 0, 1, 1}, "VALID"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Sliding window stride for dimension 1 must "
                                 "be > 0, but got 0")));
  EXPECT_THAT(Make(DT_FLOAT, {1, 2, 2, 1}, {1, 1, -3, 1}, "SAME"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must be > 0, but got -3")));
}

TEST_F(MedianPoolOpTest, RejectsPoolingOverBatchOrDepth) {
  for (const auto& [ksize, strides] :
       std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
           {{1, 1, 1, 2}, {1, 1, 1, 2}},
           {{1, 2, 2, 2}, {1, 1, 1, 1}},
           {{1, 2, 2, 1}, {1, 1, 1, 2}},
           {{2, 2, 2, 1}, {1, 1, 1, 1}},
           {{1, 2, 2, 1}, {2, 1, 1, 1}}}) {
    EXPECT_THAT(Make(DT_FLOAT, ksize, strides, "VALID"),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("MedianPool2D does not pool over the batch "
                                   "or depth dimensions")))
        << ::testing::PrintToString(ksize) << " "
        << ::testing::PrintToString(strides);
  }
}

TEST_F(MedianPoolOpTest, RejectsHugeKsize) {
  EXPECT_THAT(
      Make(DT_FLOAT, {1, int64_t{1} << 33, 2, 1}, {1, 1, 1, 1}, "VALID"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("must each be at most 2147483647")));
}

TEST_F(MedianPoolOpTest, RejectsOtherPaddingsAndFormats) {
  EXPECT_THAT(Make(DT_FLOAT, {1, 2, 2, 1}, {1, 1, 1, 1}, "EXPLICIT"),
              StatusIs(absl::StatusCode::kInvalidArgument));
  MakeNode("MedianPool2D")
      .Input(DT_FLOAT)
      .Attr("ksize", {1, 2, 2, 1})
      .Attr("strides", {1, 1, 1, 1})
      .Attr("padding", "VALID")
      .Attr("data_format", "NCHW");
  EXPECT_THAT(MakeOp(), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Make(DT_COMPLEX64, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID"),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// --- inputs, checked in Compute

TEST_F(MedianPoolOpTest, RejectsInputOfRankThree) {
  MF_ASSERT_OK(Make(DT_FLOAT, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({4, 4, 3})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tensor_in must be 4-dimensional: [4,4,3]")));
}

TEST_F(MedianPoolOpTest, RejectsValidWindowFarPastTheImage) {
  MF_ASSERT_OK(Make(DT_FLOAT, {1, 5, 1, 1}, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 3, 3, 1})));
  EXPECT_THAT(
      RunOpKernel(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Computed output size would be negative: -1")));
}

TEST_F(MedianPoolOpTest, RejectsHugeInputRows) {
  MF_ASSERT_OK(Make(DT_FLOAT, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, int64_t{1} << 32, 1, 0})));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("Input rows too large")));
}

TEST_F(MedianPoolOpTest, ScratchComesFromTheDeviceAllocator) {
  // Room for the input and output but not for the per-thread scratch.
  const TensorShape shape({1, 8, 8, 4});
  // Static: the fixture frees its tensors after the test body returns.
  static CpuAllocator small(2 * shape.num_elements() * sizeof(float) + 256);
  set_allocator(&small);
  MF_ASSERT_OK(Make(DT_FLOAT, {1, 3, 3, 1}, {1, 1, 1, 1}, "SAME"));
  AddInputTensor(test::RandomTensor<float>(shape, 1));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kResourceExhausted,
                                      HasSubstr("scratch for MedianPool2D")));
}

// --- the example graphs

Tensor RunGraph(const std::string& file, const Tensor& input) {
  GraphDef graph;
  const Status read = ReadGraphDefFile(
      std::string(MINFLOW_EXAMPLE_GRAPHS) + "/" + file, &graph);
  EXPECT_TRUE(read.ok()) << read;
  auto session = Session::Create(graph, SessionOptions());
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return Tensor();
  std::vector<Tensor> outputs;
  const Status run =
      (*session)->Run({{"input", input}}, {"output"}, {}, &outputs);
  EXPECT_TRUE(run.ok()) << run;
  return run.ok() ? outputs[0] : Tensor();
}

TEST(MedianPoolGraphsTest, FusedAndCompositeGraphsAgreeBitForBit) {
  for (const TensorShape& shape :
       {TensorShape({1, 23, 31, 3}), TensorShape({2, 9, 7, 40}),
        TensorShape({1, 3, 3, 1})}) {
    SCOPED_TRACE(shape.DebugString());
    Tensor input = test::RandomTensor<float>(shape, 5);
    // Plenty of ties.
    float* v = input.base<float>();
    for (int64_t i = 0; i < input.NumElements(); i += 3) {
      // + 0.0f: no -0, whose tie with +0 TopK breaks by position.
      v[i] = std::round(v[i] * 4.0f) + 0.0f;
    }
    const Tensor fused = RunGraph("median_pool_fused.pbtxt", input);
    const Tensor composite = RunGraph("median_pool_composite.pbtxt", input);
    ASSERT_EQ(fused.shape().DebugString(),
              TensorShape({shape.dim_size(0), shape.dim_size(1) - 2,
                           shape.dim_size(2) - 2, shape.dim_size(3)})
                  .DebugString());
    ASSERT_EQ(composite.shape().DebugString(), fused.shape().DebugString());
    EXPECT_EQ(
        std::memcmp(fused.base<const float>(), composite.base<const float>(),
                    fused.NumElements() * sizeof(float)),
        0);
  }
}

}  // namespace
}  // namespace minflow
