#include <cstdint>
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

// Direct triple loop in double: out[i,j] = sum_k op(a)[i,k] * op(b)[k,j].
template <typename T>
std::vector<double> ReferenceMatMul(const Tensor& a, const Tensor& b,
                                    bool transpose_a, bool transpose_b,
                                    int64_t* m_out, int64_t* n_out) {
  const int64_t m = a.dim_size(transpose_a ? 1 : 0);
  const int64_t k = a.dim_size(transpose_a ? 0 : 1);
  const int64_t n = b.dim_size(transpose_b ? 0 : 1);
  std::vector<double> out(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        const int64_t ai = transpose_a ? p * m + i : i * k + p;
        const int64_t bi = transpose_b ? j * k + p : p * n + j;
        sum += test::ValueAt<T>(a, ai) * test::ValueAt<T>(b, bi);
      }
      out[i * n + j] = sum;
    }
  }
  *m_out = m;
  *n_out = n;
  return out;
}

class MatMulOpTest : public test::OpsTestBase {
 protected:
  Status MakeMatMul(DataType dtype, bool transpose_a, bool transpose_b) {
    MakeNode("MatMul")
        .Input(dtype)
        .Input(dtype)
        .Attr("transpose_a", transpose_a)
        .Attr("transpose_b", transpose_b);
    return MakeOp();
  }

  // Runs op(a[m,k]) * op(b[k,n]) and checks it against the reference.
  template <typename T>
  void CheckAgainstReference(int64_t m, int64_t k, int64_t n, bool transpose_a,
                             bool transpose_b) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " m=" << m
                 << " k=" << k << " n=" << n << " ta=" << transpose_a
                 << " tb=" << transpose_b);
    MF_ASSERT_OK(MakeMatMul(DataTypeToEnum<T>::v(), transpose_a, transpose_b));
    const Tensor a = test::RandomTensor<T>(
        transpose_a ? TensorShape({k, m}) : TensorShape({m, k}), 1);
    const Tensor b = test::RandomTensor<T>(
        transpose_b ? TensorShape({n, k}) : TensorShape({k, n}), 2);
    AddInputTensor(a);
    AddInputTensor(b);
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(test::PredictedOutputShape(*node_def(), {a.shape(), b.shape()}),
              GetOutput(0)->shape().DebugString());
    int64_t rm = 0, rn = 0;
    const std::vector<double> ref =
        ReferenceMatMul<T>(a, b, transpose_a, transpose_b, &rm, &rn);
    test::ExpectNearReference<T>(*GetOutput(0), TensorShape({rm, rn}), ref,
                                 test::SumTolerance<T>(k));
  }

  template <typename T>
  void SweepShapes() {
    const int64_t shapes[][3] = {{1, 1, 1},  {2, 3, 4},  {7, 13, 5},
                                 {1, 17, 9}, {9, 17, 1}, {64, 33, 17},
                                 {31, 1, 29}};
    for (const auto& s : shapes) {
      for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
          CheckAgainstReference<T>(s[0], s[1], s[2], ta, tb);
        }
      }
    }
  }
};

TEST_F(MatMulOpTest, FloatMatchesReferenceForAllTransposes) {
  SweepShapes<float>();
}
TEST_F(MatMulOpTest, DoubleMatchesReferenceForAllTransposes) {
  SweepShapes<double>();
}
TEST_F(MatMulOpTest, Int32MatchesReferenceExactly) { SweepShapes<int32_t>(); }
TEST_F(MatMulOpTest, Int64MatchesReferenceExactly) { SweepShapes<int64_t>(); }
TEST_F(MatMulOpTest, HalfMatchesReference) { SweepShapes<half>(); }
TEST_F(MatMulOpTest, Bfloat16MatchesReference) { SweepShapes<bfloat16>(); }

TEST_F(MatMulOpTest, LargeProductIsShardedAndCorrect) {
  // Big enough for Eigen to split the contraction over the intra-op pool.
  CheckAgainstReference<float>(256, 192, 160, false, false);
  CheckAgainstReference<float>(130, 257, 67, true, true);
}

TEST_F(MatMulOpTest, OneRowIsAGemvAndCorrect) {
  // Note [GEMV over the intra-op pool]: one output row, wide enough.
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      CheckAgainstReference<float>(1, 300, 517, ta, tb);
      // Large enough to be split over the pool.
      CheckAgainstReference<float>(1, 1100, 1000, ta, tb);
      CheckAgainstReference<double>(1, 64, 64, ta, tb);
      // Below the size that takes that path.
      CheckAgainstReference<float>(1, 31, 517, ta, tb);
    }
  }
}

TEST_F(MatMulOpTest, NarrowOneRowProductsSplitTheDepth) {
  // Note [GEMV over the intra-op pool]: fewer columns than kMinGemvColumns,
  // one to four 16-float vectors a row, with the depth split over the test
  // device's two threads from 64K matrix elements on; the last rows, whose
  // vectors would run past b, go column by column.
  const int64_t shapes[][2] = {{256, 1},   {300, 10},  {16384, 10}, {3000, 16},
                               {4099, 17}, {5000, 40}, {2000, 63},  {257, 33}};
  for (const auto& s : shapes) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        CheckAgainstReference<float>(1, s[0], s[1], ta, tb);
      }
    }
  }
  CheckAgainstReference<double>(1, 4096, 10, false, false);
}

// Note [Packed GEMV panels]: a kernel marked by the constant_filters pass
// packs each b buffer it sees into column panels once and keeps them. Each
// run here brings a new buffer with new values, past the cache's bound,
// for widths around a panel's, both transpositions, and products split
// over the test device's two threads or not: every result must be that
// run's own product.
TEST_F(MatMulOpTest, MarkedConstBGivesEachBuffersOwnProduct) {
  const int64_t shapes[][2] = {{300, 517}, {1100, 1000}, {40, 64},
                               {64, 129},  {33, 1000},   {2, 256}};
  for (const auto& s : shapes) {
    for (bool tb : {false, true}) {
      const int64_t k = s[0], n = s[1];
      SCOPED_TRACE(::testing::Message()
                   << "k=" << k << " n=" << n << " tb=" << tb);
      MakeNode("MatMul")
          .Input(DT_FLOAT)
          .Input(DT_FLOAT)
          .Attr("transpose_a", false)
          .Attr("transpose_b", tb)
          .Attr("_is_filter_const", true);
      MF_ASSERT_OK(MakeOp());
      const Tensor a = test::RandomTensor<float>(TensorShape({1, k}), 1);
      for (int run = 0; run < 10; ++run) {
        SCOPED_TRACE(run);
        const Tensor b = test::RandomTensor<float>(
            tb ? TensorShape({n, k}) : TensorShape({k, n}), 20 + run);
        ClearInputs();
        AddInputTensor(a);
        AddInputTensor(b);
        MF_ASSERT_OK(RunOpKernel());
        int64_t rm = 0, rn = 0;
        const std::vector<double> ref =
            ReferenceMatMul<float>(a, b, false, tb, &rm, &rn);
        test::ExpectNearReference<float>(*GetOutput(0), TensorShape({rm, rn}),
                                         ref, test::SumTolerance<float>(k));
      }
    }
  }
}

// The panels are kept: rewriting a marked b in place, which a Const never
// is, goes unseen, and the product is still that of the packed values. An
// unmarked kernel reads b afresh.
TEST_F(MatMulOpTest, MarkedConstBIsPackedOnceAndKept) {
  for (bool marked : {true, false}) {
    SCOPED_TRACE(marked);
    auto& node = MakeNode("MatMul").Input(DT_FLOAT).Input(DT_FLOAT);
    if (marked) node.Attr("_is_filter_const", true);
    MF_ASSERT_OK(MakeOp());
    const Tensor a = test::RandomTensor<float>(TensorShape({1, 200}), 1);
    const Tensor b = test::RandomTensor<float>(TensorShape({200, 300}), 2);
    int64_t rm = 0, rn = 0;
    const std::vector<double> first =
        ReferenceMatMul<float>(a, b, false, false, &rm, &rn);
    ClearInputs();
    AddInputTensor(a);
    AddInputTensor(b);
    MF_ASSERT_OK(RunOpKernel());
    // The kernel's own input buffer (AddInputTensor copied b), rewritten.
    Tensor input_b = GetInput(1);
    input_b.flat<float>().setConstant(1.0f);
    MF_ASSERT_OK(RunOpKernel());
    const std::vector<double> rewritten =
        ReferenceMatMul<float>(a, input_b, false, false, &rm, &rn);
    test::ExpectNearReference<float>(*GetOutput(0), TensorShape({rm, rn}),
                                     marked ? first : rewritten,
                                     test::SumTolerance<float>(200));
  }
}

TEST_F(MatMulOpTest, SmallKnownProduct) {
  MF_ASSERT_OK(MakeMatMul(DT_FLOAT, false, false));
  AddInputFromArray<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  AddInputFromArray<float>(TensorShape({3, 2}), {7, 8, 9, 10, 11, 12});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({58, 64, 139, 154}, TensorShape({2, 2})));
}

TEST_F(MatMulOpTest, EmptyOuterDimensionGivesEmptyOutput) {
  MF_ASSERT_OK(MakeMatMul(DT_FLOAT, false, false));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 4})));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[0,4]");
}

TEST_F(MatMulOpTest, EmptyInnerDimensionGivesZeros) {
  MF_ASSERT_OK(MakeMatMul(DT_FLOAT, false, true));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 0})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 0})));
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({0, 0, 0, 0, 0, 0}, TensorShape({3, 2})));
}

TEST_F(MatMulOpTest, RejectsInnerDimensionsThatDiffer) {
  MF_ASSERT_OK(MakeMatMul(DT_FLOAT, false, false));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({4, 5})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Matrix size-incompatible: In[0]: [2,3], "
                                 "In[1]: [4,5]")));
}

TEST_F(MatMulOpTest, RejectsInnerDimensionsThatDifferAfterTranspose) {
  MF_ASSERT_OK(MakeMatMul(DT_FLOAT, true, false));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 5})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Matrix size-incompatible: In[0]: [2,3], "
                                 "In[1]: [3,5]")));
}

TEST_F(MatMulOpTest, RejectsNonMatrixA) {
  MF_ASSERT_OK(MakeMatMul(DT_FLOAT, false, false));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 3, 4})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({4, 5})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("In[0] is not a matrix. Instead it has "
                                 "shape [2,3,4]")));
}

TEST_F(MatMulOpTest, RejectsNonMatrixB) {
  MF_ASSERT_OK(MakeMatMul(DT_FLOAT, false, false));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("In[1] is not a matrix. Instead it has "
                                 "shape [3]")));
}

TEST_F(MatMulOpTest, RejectsOutputWhoseSizeOverflows) {
  MF_ASSERT_OK(MakeMatMul(DT_FLOAT, false, false));
  const int64_t huge = int64_t{1} << 40;
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({huge, 0})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, huge})));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace minflow
