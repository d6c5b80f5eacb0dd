#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

// Where diagonal d of a rows x cols matrix starts in its packed row, walking
// the diagonal itself (the kernels walk matrix elements instead).
struct Packing {
  int64_t rows, cols, lower, upper, max_len;
  std::string align;
  int64_t Len(int64_t d) const {
    return std::min(rows + std::min<int64_t>(0, d),
                    cols - std::max<int64_t>(0, d));
  }
  int64_t Offset(int64_t d) const {
    const bool right_super = align == "RIGHT_LEFT" || align == "RIGHT_RIGHT";
    const bool right_sub = align == "LEFT_RIGHT" || align == "RIGHT_RIGHT";
    const bool right = (d >= 0 && right_super) || (d <= 0 && right_sub);
    return right ? max_len - Len(d) : 0;
  }
  // Calls fn(matrix flat index, packed flat index) for every element of
  // the diagonals in range, within one batch.
  template <typename Fn>
  void ForEach(Fn fn) const {
    for (int64_t d = lower; d <= upper; ++d) {
      for (int64_t n = 0; n < Len(d); ++n) {
        const int64_t i = n + std::max<int64_t>(0, -d);
        const int64_t j = n + std::max<int64_t>(0, d);
        fn(i * cols + j, (upper - d) * max_len + Offset(d) + n);
      }
    }
  }
};

class MatrixDiagOpTest : public test::ArrayOpTest {
 protected:
  void MakeDiag(DataType dtype, const std::string& align = "RIGHT_LEFT") {
    MakeNode("MatrixDiagV3")
        .Input(dtype)
        .Input(DT_INT32)
        .Input(DT_INT32)
        .Input(DT_INT32)
        .Input(dtype)
        .Attr("align", align);
    MF_ASSERT_OK(MakeOp());
  }
  void MakeSet(DataType dtype, const std::string& align = "RIGHT_LEFT") {
    MakeNode("MatrixSetDiagV3")
        .Input(dtype)
        .Input(dtype)
        .Input(DT_INT32)
        .Attr("align", align);
    MF_ASSERT_OK(MakeOp());
  }
  void AddK(const std::vector<int32_t>& k) {
    if (k.size() == 1) {
      AddInputFromArray<int32_t>(TensorShape({}), {k[0]});
    } else {
      AddInputFromArray<int32_t>(TensorShape({static_cast<int64_t>(k.size())}),
                                 k);
    }
  }
  void AddDiagArgs(int32_t rows, int32_t cols, float pad) {
    AddInputFromArray<int32_t>(TensorShape({}), {rows});
    AddInputFromArray<int32_t>(TensorShape({}), {cols});
    AddInputFromArray<float>(TensorShape({}), {pad});
  }

  // MatrixDiagV3 of `batch` x packed diagonals into rows x cols matrices,
  // and MatrixSetDiagV3 of the same diagonals into test matrices, both
  // against Packing.
  void CheckBoth(DataType dtype, int64_t batch, int64_t rows, int64_t cols,
                 int32_t lower, int32_t upper, const std::string& align) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(dtype) << " batch " << batch << " " << rows
                 << "x" << cols << " k " << lower << ".." << upper << " "
                 << align);
    Packing p{rows, cols, lower, upper, 0, align};
    p.max_len = std::min(rows + std::min<int64_t>(upper, 0),
                         cols - std::max<int64_t>(lower, 0));
    const int64_t num_diags = upper - lower + 1;
    std::vector<int64_t> diag_dims = {batch};
    if (num_diags > 1) diag_dims.push_back(num_diags);
    diag_dims.push_back(p.max_len);
    const TensorShape diag_shape(diag_dims);
    const TensorShape matrix_shape({batch, rows, cols});
    const Tensor diag = test::MakeTestTensor(dtype, diag_shape, 1000);
    const Tensor pad = test::MakeTestTensor(dtype, TensorShape({}), 7);
    const Tensor base = test::MakeTestTensor(dtype, matrix_shape);
    const std::vector<int32_t> k = {lower, upper};

    // Packed diagonals -> matrix: -1 means padding.
    std::vector<int64_t> from_diag(matrix_shape.num_elements(), -1);
    std::vector<int64_t> set_src(matrix_shape.num_elements());
    for (int64_t i = 0; i < matrix_shape.num_elements(); ++i) set_src[i] = i;
    for (int64_t b = 0; b < batch; ++b) {
      p.ForEach([&](int64_t m, int64_t d) {
        from_diag[b * rows * cols + m] = b * num_diags * p.max_len + d;
        set_src[b * rows * cols + m] =
            matrix_shape.num_elements() + b * num_diags * p.max_len + d;
      });
    }

    MakeDiag(dtype, align);
    AddInputTensor(diag);
    AddK(k);
    AddInputFromArray<int32_t>(TensorShape({}), {static_cast<int32_t>(rows)});
    AddInputFromArray<int32_t>(TensorShape({}), {static_cast<int32_t>(cols)});
    AddInputTensor(pad);
    RunAndCheckShapes();
    test::ExpectEqual(*GetOutput(0), test::GatherReference(diag, matrix_shape,
                                                           from_diag, &pad));

    MakeSet(dtype, align);
    AddInputTensor(base);
    AddInputTensor(diag);
    AddK(k);
    RunAndCheckShapes();
    // Sources past the matrix index into the diagonals.
    Tensor both(dtype, TensorShape({matrix_shape.num_elements() +
                                    diag_shape.num_elements()}));
    VisitDataType(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      std::copy_n(base.base<const T>(), base.NumElements(), both.base<T>());
      std::copy_n(diag.base<const T>(), diag.NumElements(),
                  both.base<T>() + base.NumElements());
    });
    test::ExpectEqual(*GetOutput(0),
                      test::GatherReference(both, matrix_shape, set_src));
  }
};

TEST_F(MatrixDiagOpTest, DocumentedMatrixDiagExamples) {
  // The main diagonal: [1, 2, 3, 4] -> diag(1, 2, 3, 4).
  MakeDiag(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({4}), {1, 2, 3, 4});
  AddK({0});
  AddDiagArgs(-1, -1, 0);
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 4},
                            TensorShape({4, 4})));
  // A superdiagonal: k = 1 of [4, 5, 6] is a 4x4 matrix.
  MakeDiag(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({3}), {4, 5, 6});
  AddK({1});
  AddDiagArgs(-1, -1, 0);
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({0, 4, 0, 0, 0, 0, 5, 0, 0, 0, 0, 6, 0, 0, 0, 0},
                            TensorShape({4, 4})));
  // A tridiagonal band, RIGHT_LEFT and LEFT_RIGHT packings.
  const std::vector<float> expected = {1, 8, 0, 4, 2, 9, 0, 5, 3};
  MakeDiag(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({3, 3}), {0, 8, 9, 1, 2, 3, 4, 5, 0});
  AddK({-1, 1});
  AddDiagArgs(-1, -1, 0);
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>(expected, TensorShape({3, 3})));
  MakeDiag(DT_FLOAT, "LEFT_RIGHT");
  AddInputFromArray<float>(TensorShape({3, 3}), {8, 9, 0, 1, 2, 3, 0, 4, 5});
  AddK({-1, 1});
  AddDiagArgs(-1, -1, 0);
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>(expected, TensorShape({3, 3})));
  // Rectangular: k = -1 of [1, 2] with 3 rows and 4 columns ...
  MakeDiag(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  AddK({-1});
  AddDiagArgs(3, 4, 0);
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>({0, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0},
                                           TensorShape({3, 4})));
  // ... and with the columns inferred and padding 9.
  MakeDiag(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  AddK({-1});
  AddDiagArgs(3, -1, 9);
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({9, 9, 1, 9, 9, 2}, TensorShape({3, 2})));
}

TEST_F(MatrixDiagOpTest, DocumentedMatrixSetDiagExamples) {
  const std::vector<float> sevens(12, 7);
  // The main diagonal and a superdiagonal of a 3x4 matrix.
  MakeSet(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({3, 4}), sevens);
  AddInputFromArray<float>(TensorShape({3}), {1, 2, 3});
  AddK({0});
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>({1, 7, 7, 7, 7, 2, 7, 7, 7, 7, 3, 7},
                                           TensorShape({3, 4})));
  MakeSet(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({3, 4}), sevens);
  AddInputFromArray<float>(TensorShape({3}), {1, 2, 3});
  AddK({1});
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>({7, 1, 7, 7, 7, 7, 2, 7, 7, 7, 7, 3},
                                           TensorShape({3, 4})));
  // A band k = (-1, 2), in both packings.
  const std::vector<float> expected = {1, 6, 9, 7, 4, 2, 5, 1, 7, 5, 3, 8};
  MakeSet(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({3, 4}), sevens);
  AddInputFromArray<float>(TensorShape({4, 3}),
                           {0, 9, 1, 6, 5, 8, 1, 2, 3, 4, 5, 0});
  AddK({-1, 2});
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>(expected, TensorShape({3, 4})));
  MakeSet(DT_FLOAT, "LEFT_RIGHT");
  AddInputFromArray<float>(TensorShape({3, 4}), sevens);
  AddInputFromArray<float>(TensorShape({4, 3}),
                           {9, 1, 0, 6, 5, 8, 1, 2, 3, 0, 4, 5});
  AddK({-1, 2});
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>(expected, TensorShape({3, 4})));
}

TEST_F(MatrixDiagOpTest, EveryAlignmentBandAndType) {
  for (const char* align :
       {"RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"}) {
    for (const auto& [lower, upper] : std::vector<std::pair<int, int>>{
             {0, 0}, {-2, 1}, {-1, 3}, {1, 2}, {-3, -1}, {2, 2}}) {
      CheckBoth(DT_FLOAT, 2, 4, 5, lower, upper, align);
      CheckBoth(DT_INT64, 1, 5, 4, lower, upper, align);
    }
    CheckBoth(DT_INT8, 3, 3, 3, -1, 1, align);
    CheckBoth(DT_COMPLEX128, 2, 2, 3, 0, 1, align);
    CheckBoth(DT_BOOL, 2, 3, 2, -1, 0, align);
  }
}

TEST_F(MatrixDiagOpTest, EmptyInputs) {
  // No batches.
  MakeDiag(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({0, 3}), {});
  AddK({0});
  AddDiagArgs(-1, -1, 0);
  RunAndCheckShapes();
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0, 3, 3}));
  // Empty diagonals make 0x0 matrices.
  MakeDiag(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({2, 0}), {});
  AddK({0});
  AddDiagArgs(-1, -1, 0);
  RunAndCheckShapes();
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({2, 0, 0}));
  MakeSet(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({2, 0, 3}), {});
  AddInputFromArray<float>(TensorShape({2, 0}), {});
  AddK({0});
  RunAndCheckShapes();
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({2, 0, 3}));
}

TEST_F(MatrixDiagOpTest, MatrixDiagRejectsBadInputs) {
  auto run = [&](const TensorShape& diag, const std::vector<int32_t>& k,
                 const TensorShape& k_shape, int32_t rows, int32_t cols,
                 const std::string& msg) {
    MakeDiag(DT_FLOAT);
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, diag));
    AddInputFromArray<int32_t>(k_shape, k);
    AddDiagArgs(rows, cols, 0);
    ExpectInvalid(msg);
  };
  run(TensorShape({3}), {0, 1, 2}, TensorShape({3}), -1, -1,
      "diag_index must have only one or two elements, received 3 elements.");
  run(TensorShape({3}), {}, TensorShape({0}), -1, -1,
      "diag_index must have only one or two elements, received 0 elements.");
  run(TensorShape({3}), {0, 1, 2, 3}, TensorShape({2, 2}), -1, -1,
      "diag_index must be a scalar or vector, received shape: [2,2]");
  run(TensorShape({3}), {1, 0}, TensorShape({2}), -1, -1,
      "lower_diag_index must not be larger than upper_diag_index: 1 > 0");
  run(TensorShape({}), {0}, TensorShape({}), -1, -1,
      "diagonal must be at least 1-dim, received shape: []");
  run(TensorShape({3, 3}), {-1, 2}, TensorShape({2}), -1, -1,
      "The number of diagonals provided in the input does not match the "
      "lower_diag_index and upper_diag_index range.");
  run(TensorShape({4}), {-1, 0}, TensorShape({2}), -1, -1,
      "The number of diagonals provided in the input does not match");
  run(TensorShape({3}), {0}, TensorShape({}), 2, -1,
      "The number of rows is too small.");
  run(TensorShape({3}), {1}, TensorShape({}), -1, 3,
      "The number of columns is too small.");
  run(TensorShape({3}), {0}, TensorShape({}), 4, 4,
      "The number of rows or columns is not consistent with the specified "
      "d_lower, d_upper, and diagonal.");
  MakeDiag(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  AddK({0});
  AddInputFromArray<int32_t>(TensorShape({1}), {2});
  AddInputFromArray<int32_t>(TensorShape({}), {2});
  AddInputFromArray<float>(TensorShape({}), {0});
  ExpectInvalid("num_rows must be a scalar, but got shape [1]");
  MakeDiag(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  AddK({0});
  AddInputFromArray<int32_t>(TensorShape({}), {2});
  AddInputFromArray<int32_t>(TensorShape({0}), {});
  AddInputFromArray<float>(TensorShape({}), {0});
  ExpectInvalid("num_cols must be a scalar, but got shape [0]");
  MakeDiag(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  AddK({0});
  AddInputFromArray<int32_t>(TensorShape({}), {2});
  AddInputFromArray<int32_t>(TensorShape({}), {2});
  AddInputFromArray<float>(TensorShape({0}), {});
  ExpectInvalid("padding_value must be a scalar, but got shape [0]");
}

TEST_F(MatrixDiagOpTest, MatrixSetDiagRejectsBadInputs) {
  auto run = [&](const TensorShape& input, const TensorShape& diag,
                 const std::vector<int32_t>& k, const std::string& msg) {
    MakeSet(DT_FLOAT);
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, input));
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, diag));
    AddK(k);
    ExpectInvalid(msg);
  };
  run(TensorShape({3}), TensorShape({3}), {0},
      "input must be at least 2-dim, received shape: [3]");
  run(TensorShape({3, 3}), TensorShape({}), {0},
      "diagonal must be at least 1-dim, received shape: []");
  run(TensorShape({3, 4}), TensorShape({3}), {4},
      "lower_diag_index is out of bound: 4 It must be between -3 and 4");
  run(TensorShape({3, 4}), TensorShape({2, 3}), {-3, 0},
      "lower_diag_index is out of bound: -3 It must be between -3 and 4");
  run(TensorShape({3, 4}), TensorShape({2, 3}), {0, 4},
      "upper_diag_index is out of bound: 4 It must be between -3 and 4");
  run(TensorShape({3, 4}), TensorShape({2, 3}), {1, 0},
      "lower_diag_index must not be larger than upper_diag_index: 1 > 0");
  run(TensorShape({3, 4}), TensorShape({3, 3}), {-1, 0},
      "The number of diagonals provided in `diag` is not consistent with "
      "`lower_diag_index` and `upper_diag_index`");
  run(TensorShape({3, 4}), TensorShape({3}), {-1, 0},
      "The number of diagonals provided in `diag` is not consistent");
  run(TensorShape({2, 3, 4}), TensorShape({3, 3}), {0},
      "Either first dimensions of diagonal don't match input.shape[:-2]");
  run(TensorShape({3, 4}), TensorShape({4}), {0},
      "Expected diagonal shape: [3]");
}

}  // namespace
}  // namespace minflow
