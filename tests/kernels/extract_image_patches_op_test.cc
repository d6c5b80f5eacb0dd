#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

struct Window {
  int64_t k_rows, k_cols, s_rows, s_cols, r_rows, r_cols;
  std::string padding;
};

class ExtractImagePatchesOpTest : public test::ArrayOpTest {
 protected:
  Status Make(DataType dtype, const Window& w) {
    MakeNode("ExtractImagePatches")
        .Input(dtype)
        .Attr("ksizes", {1, w.k_rows, w.k_cols, 1})
        .Attr("strides", {1, w.s_rows, w.s_cols, 1})
        .Attr("rates", {1, w.r_rows, w.r_cols, 1})
        .Attr("padding", w.padding);
    return MakeOp();
  }

  void Check(DataType dtype, const TensorShape& in, const Window& w) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(dtype) << " " << in.DebugString() << " k "
                 << w.k_rows << "x" << w.k_cols << " s " << w.s_rows << ","
                 << w.s_cols << " r " << w.r_rows << "," << w.r_cols << " "
                 << w.padding);
    MF_ASSERT_OK(Make(dtype, w));
    const Tensor input = test::MakeTestTensor(dtype, in);
    AddInputTensor(input);
    RunAndCheckShapes();
    // TF's window arithmetic, spelled out.
    const int64_t rows = in.dim_size(1), cols = in.dim_size(2);
    const int64_t eff_r = (w.k_rows - 1) * w.r_rows + 1;
    const int64_t eff_c = (w.k_cols - 1) * w.r_cols + 1;
    int64_t out_r, out_c, pad_r = 0, pad_c = 0;
    if (w.padding == "VALID") {
      out_r = (rows - eff_r + w.s_rows) / w.s_rows;
      out_c = (cols - eff_c + w.s_cols) / w.s_cols;
    } else {
      out_r = (rows + w.s_rows - 1) / w.s_rows;
      out_c = (cols + w.s_cols - 1) / w.s_cols;
      pad_r = std::max<int64_t>(0, (out_r - 1) * w.s_rows + eff_r - rows) / 2;
      pad_c = std::max<int64_t>(0, (out_c - 1) * w.s_cols + eff_c - cols) / 2;
    }
    out_r = std::max<int64_t>(out_r, 0);
    out_c = std::max<int64_t>(out_c, 0);
    const int64_t depth = in.dim_size(3);
    const TensorShape out(
        {in.dim_size(0), out_r, out_c, w.k_rows * w.k_cols * depth});
    const auto strides = test::Strides(in);
    std::vector<int64_t> src;
    for (int64_t e = 0; e < out.num_elements(); ++e) {
      const auto o = test::Unravel(e, out);
      const int64_t d = o[3] % depth;
      const int64_t kj = (o[3] / depth) % w.k_cols;
      const int64_t ki = o[3] / depth / w.k_cols;
      const int64_t y = o[1] * w.s_rows + ki * w.r_rows - pad_r;
      const int64_t x = o[2] * w.s_cols + kj * w.r_cols - pad_c;
      if (y < 0 || y >= rows || x < 0 || x >= cols) {
        src.push_back(-1);
      } else {
        src.push_back(o[0] * strides[0] + y * strides[1] + x * strides[2] + d);
      }
    }
    Tensor zero(dtype, TensorShape({}));
    VisitDataType(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      zero.base<T>()[0] = T();
    });
    test::ExpectEqual(*GetOutput(0),
                      test::GatherReference(input, out, src, &zero));
  }
};

TEST_F(ExtractImagePatchesOpTest, ValidAndSameWithStridesAndRates) {
  for (const Window& w : std::vector<Window>{{2, 2, 1, 1, 1, 1, "VALID"},
                                             {3, 3, 1, 1, 1, 1, "SAME"},
                                             {3, 2, 2, 3, 1, 1, "SAME"},
                                             {2, 3, 1, 2, 2, 1, "VALID"},
                                             {3, 3, 2, 2, 2, 2, "SAME"},
                                             {1, 1, 3, 3, 1, 1, "VALID"}}) {
    Check(DT_FLOAT, TensorShape({2, 7, 6, 3}), w);
  }
}

TEST_F(ExtractImagePatchesOpTest, EveryElementSize) {
  for (DataType dtype :
       {DT_INT8, DT_HALF, DT_FLOAT, DT_INT64, DT_COMPLEX128, DT_BOOL}) {
    Check(dtype, TensorShape({1, 4, 5, 2}), {3, 3, 1, 1, 1, 1, "SAME"});
  }
}

TEST_F(ExtractImagePatchesOpTest, EmptyAndLarge) {
  // A window larger than the image: no VALID patches from the kernel (as
  // TF's), while the shape function reports the negative size (as TF's).
  skip_shape_fn_ = true;
  Check(DT_FLOAT, TensorShape({1, 2, 2, 1}), {3, 3, 1, 1, 1, 1, "VALID"});
  skip_shape_fn_ = false;
  Check(DT_FLOAT, TensorShape({0, 4, 4, 1}), {2, 2, 1, 1, 1, 1, "SAME"});
  Check(DT_FLOAT, TensorShape({1, 4, 4, 0}), {2, 2, 1, 1, 1, 1, "SAME"});
  Check(DT_FLOAT, TensorShape({1, 64, 64, 8}), {3, 3, 1, 1, 1, 1, "SAME"});
}

TEST_F(ExtractImagePatchesOpTest, RejectsNonImageInput) {
  MF_ASSERT_OK(Make(DT_FLOAT, {2, 2, 1, 1, 1, 1, "VALID"}));
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({4, 4, 1})));
  ExpectInvalid("input must be 4-dimensional[4,4,1]");
}

TEST_F(ExtractImagePatchesOpTest, RejectsBadAttrs) {
  EXPECT_THAT(Make(DT_FLOAT, {0, 2, 1, 1, 1, 1, "VALID"}),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("ksizes is out of range.")));
  EXPECT_THAT(Make(DT_FLOAT, {2, 2, 1, -1, 1, 1, "VALID"}),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("strides is out of range.")));
  EXPECT_THAT(Make(DT_FLOAT, {2, 2, 1, 1, 0, 1, "VALID"}),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("rates is out of range.")));
  MakeNode("ExtractImagePatches")
      .Input(DT_FLOAT)
      .Attr("ksizes", {2, 2, 2, 1})
      .Attr("strides", {1, 1, 1, 1})
      .Attr("rates", {1, 1, 1, 1})
      .Attr("padding", "VALID");
  EXPECT_THAT(MakeOp(),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kUnimplemented,
                  ::testing::HasSubstr("Only support ksizes across space.")));
  MakeNode("ExtractImagePatches")
      .Input(DT_FLOAT)
      .Attr("ksizes", {1, 2, 2, 1, 1})
      .Attr("strides", {1, 1, 1, 1})
      .Attr("rates", {1, 1, 1, 1})
      .Attr("padding", "VALID");
  EXPECT_THAT(
      MakeOp(),
      ::minflow::testing::StatusIs(
          absl::StatusCode::kInvalidArgument,
          ::testing::HasSubstr("ksizes must have 4 elements, but got 5")));
}

// Issue 17: zero-sized patches and zero strides are errors, never an
// output.
TEST_F(ExtractImagePatchesOpTest, RejectsZeroSizedPatchesAndStrides) {
  EXPECT_THAT(Make(DT_FLOAT, {2, 0, 1, 1, 1, 1, "SAME"}),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("ksizes is out of range.")));
  EXPECT_THAT(Make(DT_FLOAT, {2, 2, 0, 1, 1, 1, "SAME"}),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("strides is out of range.")));
  EXPECT_THAT(Make(DT_FLOAT, {2, 2, 1, 0, 1, 1, "VALID"}),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("strides is out of range.")));
  EXPECT_THAT(Make(DT_FLOAT, {2, 2, 1, 1, 1, 0, "VALID"}),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("rates is out of range.")));
}

TEST_F(ExtractImagePatchesOpTest, RejectsHugeImagesAndPatches) {
  MF_ASSERT_OK(Make(DT_FLOAT, {2, 2, 1, 1, 1, 1, "VALID"}));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, int64_t{1} << 32, 2, 1})));
  ExpectInvalid("image rows and cols must be at most 2147483647");
  // (2^31-1)^2 taps times a depth of 8 overflows int64.
  MF_ASSERT_OK(Make(DT_FLOAT, {2147483647, 2147483647, 1, 1, 1, 1, "SAME"}));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 1, 1, 8})));
  ExpectInvalid("overflows int64");
}

}  // namespace
}  // namespace minflow
