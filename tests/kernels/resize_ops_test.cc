// ResizeBilinear, ResizeNearestNeighbor and ResizeBicubic against a
// reference computed here in double (input coordinates in float, as
// TensorFlow defines them: see Note [Resize coordinates] in
// src/kernels/resize_ops.cc), the shape function against every output, and
// every error path.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "tests/kernels/nn_test_util.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/shape_inference_testutil.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

enum class Method { kNearest, kBilinear, kBicubic };

const char* OpName(Method m) {
  switch (m) {
    case Method::kNearest:
      return "ResizeNearestNeighbor";
    case Method::kBilinear:
      return "ResizeBilinear";
    case Method::kBicubic:
      return "ResizeBicubic";
  }
  return "";
}

struct ResizeCase {
  std::vector<int64_t> input;  // N, H, W, C
  int32_t out_height;
  int32_t out_width;
};

struct Mode {
  bool align_corners;
  bool half_pixel_centers;
};

constexpr Mode kModes[] = {{false, false}, {true, false}, {false, true}};

// The input coordinate of output index `o`, computed in float as the op
// defines it.
float Coordinate(int64_t o, int64_t in, int64_t out, Mode mode, bool nearest) {
  const float scale =
      mode.align_corners && out > 1
          ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
          : static_cast<float>(in) / static_cast<float>(out);
  if (!mode.half_pixel_centers) return static_cast<float>(o) * scale;
  const float centre = (static_cast<float>(o) + 0.5f) * scale;
  return nearest ? centre : centre - 0.5f;
}

int64_t Clamp(int64_t i, int64_t size) {
  return std::min(std::max<int64_t>(i, 0), size - 1);
}

// Keys' cubic convolution kernel.
double Keys(double x, double a) {
  x = std::abs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

// Indices and weights of one output index along one dimension: the taps
// the method blends.
void Taps(Method method, int64_t o, int64_t in, int64_t out, Mode mode,
          std::vector<int64_t>* index, std::vector<double>* weight) {
  index->clear();
  weight->clear();
  const float c = Coordinate(o, in, out, mode, method == Method::kNearest);
  if (method == Method::kNearest) {
    const double picked =
        mode.align_corners ? std::round(c) : std::floor(static_cast<double>(c));
    index->push_back(Clamp(static_cast<int64_t>(picked), in));
    weight->push_back(1.0);
    return;
  }
  const double lower = std::floor(static_cast<double>(c));
  const double frac = static_cast<double>(c) - lower;
  if (method == Method::kBilinear) {
    index->push_back(Clamp(static_cast<int64_t>(lower), in));
    index->push_back(Clamp(static_cast<int64_t>(std::ceil(c)), in));
    weight->push_back(1 - frac);
    weight->push_back(frac);
    return;
  }
  // Bicubic: the fraction on TensorFlow's 1/1024 grid.
  const double t = std::lrint(static_cast<float>(frac) * 1024) / 1024.0;
  const double a = mode.half_pixel_centers ? -0.5 : -0.75;
  double sum = 0;
  for (int k = -1; k <= 2; ++k) {
    const int64_t at = static_cast<int64_t>(lower) + k;
    double w = Keys(t - k, a);
    if (mode.half_pixel_centers && (at < 0 || at >= in)) w = 0;
    index->push_back(Clamp(at, in));
    weight->push_back(w);
    sum += w;
  }
  if (mode.half_pixel_centers) {
    for (double& w : *weight) w /= sum;
  }
}

template <typename T>
std::vector<double> Reference(Method method, const ResizeCase& c, Mode mode,
                              const Tensor& input) {
  const int64_t n = c.input[0], h = c.input[1], w = c.input[2], ch = c.input[3];
  std::vector<double> out;
  std::vector<int64_t> yi, xi;
  std::vector<double> yw, xw;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t y = 0; y < c.out_height; ++y) {
      Taps(method, y, h, c.out_height, mode, &yi, &yw);
      for (int64_t x = 0; x < c.out_width; ++x) {
        Taps(method, x, w, c.out_width, mode, &xi, &xw);
        for (int64_t k = 0; k < ch; ++k) {
          double v = 0;
          for (size_t i = 0; i < yi.size(); ++i) {
            for (size_t j = 0; j < xi.size(); ++j) {
              v += yw[i] * xw[j] *
                   test::ValueAt<T>(input,
                                    ((b * h + yi[i]) * w + xi[j]) * ch + k);
            }
          }
          out.push_back(v);
        }
      }
    }
  }
  return out;
}

class ResizeOpsTest : public test::OpsTestBase {
 protected:
  Status MakeResize(Method method, DataType dtype, Mode mode) {
    MakeNode(OpName(method))
        .Input(dtype)
        .Input(DT_INT32)
        .Attr("align_corners", mode.align_corners)
        .Attr("half_pixel_centers", mode.half_pixel_centers);
    return MakeOp();
  }

  // The shape function's prediction for `input` resized to `size`, with the
  // input's own dims written as numbers.
  std::string Predicted(const TensorShape& input, const Tensor& size) {
    ShapeInferenceTestOp op(node_def()->op());
    op.node_def = *node_def();
    op.SetInputTensor(1, size);
    const StatusOr<std::string> out = ShapeInferenceTestutil::Infer(
        op, input.DebugString() + ";" + size.shape().DebugString());
    if (!out.ok()) return "error: " + std::string(out.status().message());
    std::string s = *out;
    const auto replace = [&s](const std::string& from, int64_t to) {
      const size_t at = s.find(from);
      if (at != std::string::npos)
        s.replace(at, from.size(), std::to_string(to));
    };
    replace("d0_0", input.dim_size(0));
    replace("d0_3", input.dim_size(3));
    return s;
  }

  template <typename In, typename Out>
  void Check(Method method, const ResizeCase& c, Mode mode) {
    SCOPED_TRACE(::testing::Message()
                 << OpName(method) << " "
                 << DataTypeString(DataTypeToEnum<In>::v()) << " input "
                 << TensorShape(c.input).DebugString() << " -> " << c.out_height
                 << "x" << c.out_width << " align_corners "
                 << mode.align_corners << " half_pixel_centers "
                 << mode.half_pixel_centers);
    MF_ASSERT_OK(MakeResize(method, DataTypeToEnum<In>::v(), mode));
    const Tensor input = test::RandomTensor<In>(TensorShape(c.input), 11);
    const Tensor size = test::AsTensor<int32_t>({c.out_height, c.out_width});
    AddInputTensor(input);
    AddInputTensor(size);
    MF_ASSERT_OK(RunOpKernel());
    const TensorShape want({c.input[0], c.out_height, c.out_width, c.input[3]});
    EXPECT_EQ(Predicted(input.shape(), size), want.DebugString());
    EXPECT_EQ(GetOutput(0)->shape(), want);
    const std::vector<double> ref = Reference<In>(method, c, mode, input);
    // Copies are exact; blends round in float.
    const double tol = method == Method::kNearest ? 0.0 : 1e-5;
    test::ExpectNearReference<Out>(*GetOutput(0), want, ref, tol);
  }

  template <typename In, typename Out>
  void Sweep(Method method) {
    const std::vector<ResizeCase> cases = {
        {{1, 2, 2, 1}, 4, 4},   // up by 2
        {{2, 3, 5, 2}, 7, 4},   // up in rows, down in cols
        {{1, 5, 7, 3}, 2, 3},   // down
        {{1, 4, 4, 1}, 4, 4},   // same size
        {{1, 3, 3, 1}, 1, 1},   // one pixel out (align_corners: in / out)
        {{1, 1, 1, 2}, 3, 2},   // one pixel in
        {{3, 6, 4, 1}, 9, 10},  // odd ratios
        {{1, 7, 3, 4}, 3, 7},
    };
    for (const Mode& mode : kModes) {
      for (const ResizeCase& c : cases) Check<In, Out>(method, c, mode);
    }
  }
};

TEST_F(ResizeOpsTest, NearestNeighborMatchesReference) {
  Sweep<float, float>(Method::kNearest);
  Sweep<uint8_t, uint8_t>(Method::kNearest);
  Sweep<int32_t, int32_t>(Method::kNearest);
  Sweep<double, double>(Method::kNearest);
}

TEST_F(ResizeOpsTest, BilinearMatchesReference) {
  Sweep<float, float>(Method::kBilinear);
  Sweep<uint8_t, float>(Method::kBilinear);
  Sweep<int64_t, float>(Method::kBilinear);
  Sweep<double, float>(Method::kBilinear);
}

TEST_F(ResizeOpsTest, BicubicMatchesReference) {
  Sweep<float, float>(Method::kBicubic);
  Sweep<int16_t, float>(Method::kBicubic);
  Sweep<int32_t, float>(Method::kBicubic);
}

TEST_F(ResizeOpsTest, HalfAndBfloat16InputsAreResized) {
  for (Method m : {Method::kBilinear, Method::kBicubic}) {
    Check<half, float>(m, {{1, 3, 4, 2}, 5, 3}, kModes[2]);
    Check<bfloat16, float>(m, {{1, 3, 4, 2}, 5, 3}, kModes[0]);
  }
  Check<half, half>(Method::kNearest, {{1, 3, 4, 2}, 5, 3}, kModes[1]);
}

TEST_F(ResizeOpsTest, KnownValuesOfTheThreeConventions) {
  // A 1x2 row [0, 10] resized to 1x4.
  struct Want {
    Method method;
    Mode mode;
    std::vector<float> values;
  };
  const Want wants[] = {
      // Legacy: o * 0.5 -> 0, 0.5, 1, 1.5 (clamped).
      {Method::kBilinear, {false, false}, {0, 5, 10, 10}},
      // align_corners: o * 1/3.
      {Method::kBilinear, {true, false}, {0, 10.0f / 3, 20.0f / 3, 10}},
      // half_pixel_centers: (o + 0.5) * 0.5 - 0.5 -> -0.25, .25, .75, 1.25.
      {Method::kBilinear, {false, true}, {0, 2.5, 7.5, 10}},
      {Method::kNearest, {false, false}, {0, 0, 10, 10}},
      {Method::kNearest, {true, false}, {0, 0, 10, 10}},
      {Method::kNearest, {false, true}, {0, 0, 10, 10}},
  };
  for (const Want& w : wants) {
    SCOPED_TRACE(OpName(w.method));
    MF_ASSERT_OK(MakeResize(w.method, DT_FLOAT, w.mode));
    AddInputFromArray<float>(TensorShape({1, 1, 2, 1}), {0, 10});
    AddInputFromArray<int32_t>(TensorShape({2}), {1, 4});
    MF_ASSERT_OK(RunOpKernel());
    for (int i = 0; i < 4; ++i) {
      EXPECT_NEAR(GetOutput(0)->flat<float>()(i), w.values[i], 1e-5) << i;
    }
  }
}

TEST_F(ResizeOpsTest, EmptyBatchGivesEmptyOutput) {
  for (Method m : {Method::kNearest, Method::kBilinear, Method::kBicubic}) {
    MF_ASSERT_OK(MakeResize(m, DT_FLOAT, kModes[0]));
    AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 3, 3, 2})));
    AddInputFromArray<int32_t>(TensorShape({2}), {5, 6});
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[0,5,6,2]");
  }
}

TEST_F(ResizeOpsTest, LargeOutputIsSharded) {
  Check<float, float>(Method::kBilinear, {{2, 40, 30, 3}, 97, 61}, kModes[2]);
  Check<float, float>(Method::kBicubic, {{1, 33, 40, 2}, 70, 50}, kModes[0]);
  Check<uint8_t, uint8_t>(Method::kNearest, {{2, 50, 50, 3}, 101, 99},
                          kModes[1]);
}

// --- errors

TEST_F(ResizeOpsTest, RejectsAlignCornersWithHalfPixelCenters) {
  for (Method m : {Method::kNearest, Method::kBilinear, Method::kBicubic}) {
    EXPECT_THAT(MakeResize(m, DT_FLOAT, {true, true}),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("If half_pixel_centers is True, "
                                   "align_corners must be False.")));
  }
}

struct BadInput {
  std::vector<int64_t> images;
  std::vector<int64_t> size_shape;
  std::vector<int32_t> size;
  const char* error;
};

TEST_F(ResizeOpsTest, RejectsBadImagesAndSizes) {
  const int64_t big = int64_t{1} << 31;
  const BadInput bad[] = {
      {{3, 3, 1}, {2}, {2, 2}, "input must be 4-dimensional[3,3,1]"},
      {{1, 3, 3, 1}, {1, 2}, {2, 2}, "shape_t must be 1-dimensional[1,2]"},
      {{1, 3, 3, 1}, {3}, {2, 2, 2}, "shape_t must have two elements[3]"},
      {{1, 3, 3, 1}, {2}, {0, 2}, "output dimensions must be positive"},
      {{1, 3, 3, 1}, {2}, {2, -1}, "output dimensions must be positive"},
      {{1, 3, 3, 0}, {2}, {2, 2}, "image must have at least one channel"},
      {{1, 0, 3, 1}, {2}, {2, 2}, "input image must be of non-zero size"},
      // An empty batch holds no data, so the sizes can be anything.
      {{0, big, 1, 1},
       {2},
       {2, 2},
       "input sizes must be between 0 and max "
       "int32"},
  };
  for (Method m : {Method::kNearest, Method::kBilinear, Method::kBicubic}) {
    for (const BadInput& b : bad) {
      SCOPED_TRACE(::testing::Message() << OpName(m) << " " << b.error);
      MF_ASSERT_OK(MakeResize(m, DT_FLOAT, kModes[0]));
      AddInputTensor(Tensor(DT_FLOAT, TensorShape(b.images)));
      AddInputFromArray<int32_t>(TensorShape(b.size_shape), b.size);
      EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr(b.error)));
    }
  }
}

TEST_F(ResizeOpsTest, NearestNeighborRejectsImagesOf2To24Pixels) {
  // Float coordinates cannot name every pixel past 2^24 (an empty batch:
  // nothing is allocated).
  MF_ASSERT_OK(MakeResize(Method::kNearest, DT_FLOAT, kModes[0]));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 1 << 24, 2, 1})));
  AddInputFromArray<int32_t>(TensorShape({2}), {2, 2});
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("nearest neighbor requires max height & "
                                 "width of 2^24")));
}

TEST_F(ResizeOpsTest, RejectsTypesTheOpsDoNotAllow) {
  for (Method m : {Method::kNearest, Method::kBilinear, Method::kBicubic}) {
    for (DataType dtype : {DT_UINT32, DT_BOOL}) {
      EXPECT_THAT(MakeResize(m, dtype, kModes[0]),
                  StatusIs(absl::StatusCode::kInvalidArgument,
                           HasSubstr("is not in the list of allowed values")))
          << OpName(m) << " " << DataTypeString(dtype);
    }
  }
}

}  // namespace
}  // namespace minflow
