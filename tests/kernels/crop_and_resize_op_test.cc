// CropAndResize against a reference computed here (grid coordinates in
// float as the op defines them, interpolation in double), TF's documented
// cases, the shape function, empty inputs and every error path.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"
#include "tests/kernels/nn_test_util.h"

namespace minflow {
namespace {

float Coordinate(int64_t i, int64_t n, float lo, float hi, int64_t size) {
  if (n > 1) {
    const float scale =
        (hi - lo) * static_cast<float>(size - 1) / static_cast<float>(n - 1);
    return lo * static_cast<float>(size - 1) + static_cast<float>(i) * scale;
  }
  return static_cast<float>(0.5 * (lo + hi) * static_cast<double>(size - 1));
}

class CropAndResizeOpTest : public test::ArrayOpTest {
 protected:
  void Make(DataType t, const char* method = "bilinear",
            float extrapolation = 0) {
    MakeNode("CropAndResize")
        .Input(t)
        .Input(DT_FLOAT)
        .Input(DT_INT32)
        .Input(DT_INT32)
        .Attr("method", method)
        .Attr("extrapolation_value", extrapolation);
    MF_ASSERT_OK(MakeOp());
  }
  void AddArgs(const std::vector<float>& boxes, const std::vector<int32_t>& ind,
               int32_t ch, int32_t cw) {
    AddInputFromArray<float>(
        TensorShape({static_cast<int64_t>(boxes.size()) / 4, 4}), boxes);
    AddInputFromArray<int32_t>(TensorShape({static_cast<int64_t>(ind.size())}),
                               ind);
    AddInputFromArray<int32_t>(TensorShape({2}), {ch, cw});
  }

  template <typename T>
  void Check(const TensorShape& shape, const std::vector<float>& boxes,
             const std::vector<int32_t>& ind, int32_t ch, int32_t cw,
             bool bilinear, float extrapolation) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " "
                 << shape.DebugString() << " crop " << ch << "x" << cw
                 << (bilinear ? " bilinear" : " nearest"));
    Make(DataTypeToEnum<T>::v(), bilinear ? "bilinear" : "nearest",
         extrapolation);
    const Tensor image = test::MakeTestTensor(DataTypeToEnum<T>::v(), shape);
    AddInputTensor(image);
    AddArgs(boxes, ind, ch, cw);
    RunAndCheckShapes();
    const int64_t h = shape.dim_size(1), w = shape.dim_size(2),
                  d = shape.dim_size(3);
    const int64_t nb = static_cast<int64_t>(ind.size());
    std::vector<double> ref;
    const auto at = [&](int64_t b, int64_t y, int64_t x, int64_t c) {
      return test::ValueAt<T>(image, ((b * h + y) * w + x) * d + c);
    };
    for (int64_t b = 0; b < nb; ++b) {
      const float* box = &boxes[4 * b];
      for (int64_t y = 0; y < ch; ++y) {
        const float iy = Coordinate(y, ch, box[0], box[2], h);
        for (int64_t x = 0; x < cw; ++x) {
          const float ix = Coordinate(x, cw, box[1], box[3], w);
          for (int64_t c = 0; c < d; ++c) {
            if (!(iy >= 0 && iy <= h - 1 && ix >= 0 && ix <= w - 1)) {
              ref.push_back(extrapolation);
            } else if (!bilinear) {
              ref.push_back(at(ind[b], std::lround(iy), std::lround(ix), c));
            } else {
              const int64_t y0 = std::floor(iy), y1 = std::ceil(iy);
              const int64_t x0 = std::floor(ix), x1 = std::ceil(ix);
              const double fy = iy - y0, fx = ix - x0;
              const double top =
                  at(ind[b], y0, x0, c) * (1 - fx) + at(ind[b], y0, x1, c) * fx;
              const double bot =
                  at(ind[b], y1, x0, c) * (1 - fx) + at(ind[b], y1, x1, c) * fx;
              ref.push_back(top * (1 - fy) + bot * fy);
            }
          }
        }
      }
    }
    test::ExpectNearReference<float>(*GetOutput(0),
                                     TensorShape({nb, ch, cw, d}), ref, 1e-3);
  }
};

const std::vector<float> kBoxes = {0,    0,    1,   1,     // whole image
                                   0.1,  0.2,  0.7, 0.9,   // inside
                                   0.9,  0.8,  0.2, 0.1,   // flipped
                                   -0.5, -0.2, 1.3, 0.6,   // partly outside
                                   0.5,  0.5,  0.5, 0.5};  // one point

TEST_F(CropAndResizeOpTest, BilinearAndNearestMatchReference) {
  const std::vector<int32_t> ind = {0, 1, 1, 0, 1};
  for (const bool bilinear : {true, false}) {
    Check<float>(TensorShape({2, 5, 7, 3}), kBoxes, ind, 4, 3, bilinear, -1);
    Check<float>(TensorShape({2, 5, 7, 3}), kBoxes, ind, 1, 1, bilinear, 0);
    Check<uint8_t>(TensorShape({2, 6, 4, 2}), kBoxes, ind, 3, 5, bilinear, 7);
    Check<int64_t>(TensorShape({2, 3, 3, 1}), kBoxes, ind, 2, 2, bilinear, 0);
    Check<double>(TensorShape({2, 4, 4, 2}), kBoxes, ind, 5, 5, bilinear, 0);
    Check<half>(TensorShape({2, 4, 4, 2}), kBoxes, ind, 3, 3, bilinear, 0);
  }
}

TEST_F(CropAndResizeOpTest, TensorFlowDocumentedCases) {
  // 2x2 image [1, 2; 3, 4]: the whole box at 1x1 is the centre, 2.5.
  Make(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({1, 2, 2, 1}), {1, 2, 3, 4});
  AddArgs({0, 0, 1, 1}, {0}, 1, 1);
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>({2.5f}, TensorShape({1, 1, 1, 1})));
  // Box [-1, -1, 1, 1] at 3x3 with extrapolation 9: the top row and left
  // column fall outside.
  Make(DT_FLOAT, "bilinear", 9);
  AddInputFromArray<float>(TensorShape({1, 2, 2, 1}), {1, 2, 3, 4});
  AddArgs({-1, -1, 1, 1}, {0}, 3, 3);
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>({9, 9, 9, 9, 1, 2, 9, 3, 4},
                                           TensorShape({1, 3, 3, 1})));
}

TEST_F(CropAndResizeOpTest, NanBoxesExtrapolate) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Make(DT_FLOAT, "bilinear", 5);
  AddInputFromArray<float>(TensorShape({1, 2, 2, 1}), {1, 2, 3, 4});
  AddArgs({nan, 0, 1, 1}, {0}, 2, 2);
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({5, 5, 5, 5}, TensorShape({1, 2, 2, 1})));
}

TEST_F(CropAndResizeOpTest, EmptyInputs) {
  Check<float>(TensorShape({1, 3, 3, 2}), {}, {}, 2, 2, true, 0);
  Check<float>(TensorShape({0, 3, 3, 2}), {}, {}, 2, 2, true, 0);
  Check<float>(TensorShape({1, 3, 3, 0}), {0, 0, 1, 1}, {0}, 2, 2, true, 0);
}

TEST_F(CropAndResizeOpTest, RejectsBadInput) {
  const auto run = [&](const TensorShape& image, const TensorShape& boxes,
                       const TensorShape& ind, std::vector<int32_t> ind_v,
                       const TensorShape& size, std::vector<int32_t> size_v) {
    Make(DT_FLOAT);
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, image));
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, boxes));
    AddInputFromArray<int32_t>(ind, ind_v);
    AddInputFromArray<int32_t>(size, size_v);
    return RunOpKernel();
  };
  using ::minflow::testing::StatusIs;
  using ::testing::HasSubstr;
  const auto invalid = [](const char* s) {
    return StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(s));
  };
  const TensorShape img({2, 3, 3, 1}), b1({1, 4}), i1({1}), s2({2});
  EXPECT_THAT(run(TensorShape({3, 3, 1}), b1, i1, {0}, s2, {2, 2}),
              invalid("input image must be 4-D"));
  EXPECT_THAT(run(TensorShape({1, 0, 3, 1}), b1, i1, {0}, s2, {2, 2}),
              invalid("image dimensions must be positive"));
  EXPECT_THAT(run(img, TensorShape({4}), i1, {0}, s2, {2, 2}),
              invalid("boxes must be 2-D"));
  EXPECT_THAT(run(img, TensorShape({1, 3}), i1, {0}, s2, {2, 2}),
              invalid("boxes must have 4 columns"));
  EXPECT_THAT(run(img, b1, TensorShape({1, 1}), {0}, s2, {2, 2}),
              invalid("box_index must be 1-D"));
  EXPECT_THAT(run(img, b1, TensorShape({2}), {0, 0}, s2, {2, 2}),
              invalid("box_index has incompatible shape"));
  EXPECT_THAT(run(img, b1, i1, {0}, TensorShape({1, 2}), {2, 2}),
              invalid("crop_size must be 1-D"));
  EXPECT_THAT(run(img, b1, i1, {0}, TensorShape({3}), {2, 2, 2}),
              invalid("crop_size must have two elements"));
  EXPECT_THAT(run(img, b1, i1, {0}, s2, {0, 2}),
              invalid("crop dimensions must be positive"));
  EXPECT_THAT(run(img, b1, i1, {2}, s2, {2, 2}),
              StatusIs(absl::StatusCode::kOutOfRange,
                       HasSubstr("box_index has values outside [0, "
                                 "batch_size): box_index[0] = 2")));
  EXPECT_THAT(
      run(img, b1, i1, {-1}, s2, {2, 2}),
      StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("box_index[0] = -1")));
}

}  // namespace
}  // namespace minflow
