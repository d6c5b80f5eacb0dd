#include <algorithm>
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

// Reference: for each output batch (by div/mod over the broadcast batch
// shape), a direct triple loop in double.
template <typename T>
std::vector<double> ReferenceBatchMatMul(const Tensor& x, const Tensor& y,
                                         bool adj_x, bool adj_y,
                                         TensorShape* out_shape) {
  const int xr = x.dims() - 2, yr = y.dims() - 2;
  const int rank = std::max(xr, yr);
  std::vector<int64_t> xb(rank, 1), yb(rank, 1), ob(rank);
  for (int i = 0; i < xr; ++i) xb[rank - xr + i] = x.dim_size(i);
  for (int i = 0; i < yr; ++i) yb[rank - yr + i] = y.dim_size(i);
  int64_t batch = 1;
  for (int i = 0; i < rank; ++i) {
    ob[i] = std::max(xb[i], yb[i]);
    if (xb[i] == 0 || yb[i] == 0) ob[i] = 0;
    batch *= ob[i];
  }
  const int64_t xrows = x.dim_size(x.dims() - 2),
                xcols = x.dim_size(x.dims() - 1);
  const int64_t yrows = y.dim_size(y.dims() - 2),
                ycols = y.dim_size(y.dims() - 1);
  const int64_t m = adj_x ? xcols : xrows, k = adj_x ? xrows : xcols;
  const int64_t n = adj_y ? yrows : ycols;
  std::vector<int64_t> out_dims(ob);
  out_dims.push_back(m);
  out_dims.push_back(n);
  *out_shape = TensorShape(out_dims);
  std::vector<double> out(batch * m * n, 0.0);
  for (int64_t b = 0; b < batch; ++b) {
    int64_t rem = b, xi = 0, yi = 0, xs = 1, ys = 1;
    for (int i = rank - 1; i >= 0; --i) {
      const int64_t c = rem % ob[i];
      rem /= ob[i];
      xi += (xb[i] == 1 ? 0 : c) * xs;
      yi += (yb[i] == 1 ? 0 : c) * ys;
      xs *= xb[i];
      ys *= yb[i];
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          const int64_t a =
              xi * xrows * xcols + (adj_x ? p * xcols + i : i * xcols + p);
          const int64_t c =
              yi * yrows * ycols + (adj_y ? j * ycols + p : p * ycols + j);
          sum += test::ValueAt<T>(x, a) * test::ValueAt<T>(y, c);
        }
        out[(b * m + i) * n + j] = sum;
      }
    }
  }
  return out;
}

class BatchMatMulV2OpTest : public test::OpsTestBase {
 protected:
  // The op under test; V1 and V3 subclasses change it.
  virtual Status Make(DataType dtype, bool adj_x, bool adj_y) {
    MakeNode("BatchMatMulV2")
        .Input(dtype)
        .Input(dtype)
        .Attr("adj_x", adj_x)
        .Attr("adj_y", adj_y);
    return MakeOp();
  }

  template <typename T>
  void Check(const TensorShape& x_shape, const TensorShape& y_shape, bool adj_x,
             bool adj_y) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " x="
                 << x_shape.DebugString() << " y=" << y_shape.DebugString()
                 << " adj_x=" << adj_x << " adj_y=" << adj_y);
    MF_ASSERT_OK(Make(DataTypeToEnum<T>::v(), adj_x, adj_y));
    const Tensor x = test::RandomTensor<T>(x_shape, 3);
    const Tensor y = test::RandomTensor<T>(y_shape, 4);
    AddInputTensor(x);
    AddInputTensor(y);
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(test::PredictedOutputShape(*node_def(), {x.shape(), y.shape()}),
              GetOutput(0)->shape().DebugString());
    TensorShape want_shape;
    const std::vector<double> ref =
        ReferenceBatchMatMul<T>(x, y, adj_x, adj_y, &want_shape);
    const int64_t k = x.dim_size(x.dims() - (adj_x ? 2 : 1));
    test::ExpectNearReference<T>(*GetOutput(0), want_shape, ref,
                                 test::SumTolerance<T>(k));
  }

  struct Case {
    std::vector<int64_t> x, y;
  };

  // Shapes given for adj = false; transposed inner dims for adj = true.
  template <typename T>
  void Sweep() {
    const Case cases[] = {
        {{3, 4}, {4, 5}},              // no batch dims
        {{2, 3, 4}, {2, 4, 5}},        // same batch
        {{1, 3, 4}, {5, 4, 2}},        // broadcast x
        {{4, 3, 4}, {1, 4, 2}},        // broadcast y
        {{3, 4}, {2, 2, 4, 5}},        // rank mismatch
        {{2, 1, 3, 4}, {1, 3, 4, 5}},  // both broadcast
        {{7, 1, 5}, {7, 5, 1}},        // vectors
        {{2, 3, 9, 7}, {3, 7, 11}},    // odd sizes
    };
    SweepCases<T>(cases);
  }

  template <typename T>
  void SweepCases(absl::Span<const Case> cases) {
    for (const Case& c : cases) {
      for (bool ax : {false, true}) {
        for (bool ay : {false, true}) {
          std::vector<int64_t> xs = c.x, ys = c.y;
          if (ax) std::swap(xs[xs.size() - 1], xs[xs.size() - 2]);
          if (ay) std::swap(ys[ys.size() - 1], ys[ys.size() - 2]);
          Check<T>(TensorShape(xs), TensorShape(ys), ax, ay);
        }
      }
    }
  }
};

TEST_F(BatchMatMulV2OpTest, FloatMatchesReference) { Sweep<float>(); }
TEST_F(BatchMatMulV2OpTest, DoubleMatchesReference) { Sweep<double>(); }
TEST_F(BatchMatMulV2OpTest, Int32MatchesReference) { Sweep<int32_t>(); }
TEST_F(BatchMatMulV2OpTest, Int64MatchesReference) { Sweep<int64_t>(); }
TEST_F(BatchMatMulV2OpTest, HalfMatchesReference) { Sweep<half>(); }
TEST_F(BatchMatMulV2OpTest, Bfloat16MatchesReference) { Sweep<bfloat16>(); }

TEST_F(BatchMatMulV2OpTest, ManySmallProductsAreShardedAcrossBatches) {
  Check<float>(TensorShape({64, 16, 24}), TensorShape({64, 24, 16}), false,
               false);
  Check<float>(TensorShape({8, 128, 64}), TensorShape({8, 128, 64}), false,
               true);
}

TEST_F(BatchMatMulV2OpTest, BigProductsUseThreadsInsideEachProduct) {
  // 200 * 170 * 150 multiply-adds per product: above the outer/inner split.
  Check<float>(TensorShape({3, 200, 150}), TensorShape({1, 150, 170}), false,
               false);
  Check<float>(TensorShape({2, 150, 200}), TensorShape({2, 170, 150}), true,
               true);
}

TEST_F(BatchMatMulV2OpTest, EmptyBatchGivesEmptyOutput) {
  MF_ASSERT_OK(Make(DT_FLOAT, false, false));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 3, 4})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 4, 5})));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[0,3,5]");
}

TEST_F(BatchMatMulV2OpTest, EmptyInnerDimensionGivesZeros) {
  MF_ASSERT_OK(Make(DT_FLOAT, false, false));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 2, 0})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 3})));
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>(std::vector<float>(12, 0.0f),
                                           TensorShape({2, 2, 3})));
}

TEST_F(BatchMatMulV2OpTest, RejectsRankOneX) {
  MF_ASSERT_OK(Make(DT_FLOAT, false, false));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 4})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("In[0] ndims must be >= 2: 1")));
}

TEST_F(BatchMatMulV2OpTest, RejectsScalarY) {
  MF_ASSERT_OK(Make(DT_FLOAT, false, false));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 4})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("In[1] ndims must be >= 2: 0")));
}

TEST_F(BatchMatMulV2OpTest, RejectsIncompatibleBatchDimensions) {
  MF_ASSERT_OK(Make(DT_FLOAT, false, false));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 3, 4})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 4, 5})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("In[0] and In[1] must have compatible batch "
                                 "dimensions: [2,3,4] vs. [3,4,5]")));
}

TEST_F(BatchMatMulV2OpTest, RejectsInnerDimensionsThatDiffer) {
  MF_ASSERT_OK(Make(DT_FLOAT, false, true));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 3, 4})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 5, 3})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Matrix size-incompatible: In[0]: [2,3,4], "
                                 "In[1]: [2,5,3]")));
}

TEST_F(BatchMatMulV2OpTest, RejectsOutputWhoseSizeOverflows) {
  MF_ASSERT_OK(Make(DT_FLOAT, false, false));
  const int64_t huge = int64_t{1} << 40;
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({huge, 1, 0})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 0, huge})));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument));
}

// BatchMatMulV3 with Ta == Tb == Tout, the CPU kernels TensorFlow has.
class BatchMatMulV3OpTest : public BatchMatMulV2OpTest {
 protected:
  Status Make(DataType dtype, bool adj_x, bool adj_y) override {
    MakeNode("BatchMatMulV3")
        .Input(dtype)
        .Input(dtype)
        .Attr("Tout", dtype)
        .Attr("adj_x", adj_x)
        .Attr("adj_y", adj_y);
    return MakeOp();
  }
};

TEST_F(BatchMatMulV3OpTest, FloatMatchesReference) { Sweep<float>(); }
TEST_F(BatchMatMulV3OpTest, Int64MatchesReference) { Sweep<int64_t>(); }
TEST_F(BatchMatMulV3OpTest, HalfMatchesReference) { Sweep<half>(); }

TEST_F(BatchMatMulV3OpTest, RejectsIncompatibleBatchDimensions) {
  MF_ASSERT_OK(Make(DT_FLOAT, false, false));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 3, 4})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 4, 5})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must have compatible batch dimensions")));
}

TEST_F(BatchMatMulV3OpTest, MixedInputTypesHaveNoCpuKernel) {
  MakeNode("BatchMatMulV3")
      .Input(DT_INT8)
      .Input(DT_INT8)
      .Attr("Tout", DT_INT32);
  EXPECT_THAT(MakeOp(), StatusIs(absl::StatusCode::kNotFound));
}

// BatchMatMul (V1): equal ranks and batch dims, no broadcasting.
class BatchMatMulV1OpTest : public BatchMatMulV2OpTest {
 protected:
  Status Make(DataType dtype, bool adj_x, bool adj_y) override {
    MakeNode("BatchMatMul")
        .Input(dtype)
        .Input(dtype)
        .Attr("adj_x", adj_x)
        .Attr("adj_y", adj_y);
    return MakeOp();
  }

  template <typename T>
  void SweepV1() {
    const Case cases[] = {
        {{3, 4}, {4, 5}},
        {{2, 3, 4}, {2, 4, 5}},
        {{2, 3, 9, 7}, {2, 3, 7, 11}},
        {{7, 1, 5}, {7, 5, 1}},
    };
    SweepCases<T>(cases);
  }
};

TEST_F(BatchMatMulV1OpTest, FloatMatchesReference) { SweepV1<float>(); }
TEST_F(BatchMatMulV1OpTest, DoubleMatchesReference) { SweepV1<double>(); }
TEST_F(BatchMatMulV1OpTest, Int32MatchesReference) { SweepV1<int32_t>(); }
TEST_F(BatchMatMulV1OpTest, Bfloat16MatchesReference) { SweepV1<bfloat16>(); }

TEST_F(BatchMatMulV1OpTest, EmptyBatchGivesEmptyOutput) {
  MF_ASSERT_OK(Make(DT_FLOAT, false, false));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 3, 4})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 4, 5})));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[0,3,5]");
}

TEST_F(BatchMatMulV1OpTest, RejectsDifferentRanks) {
  MF_ASSERT_OK(Make(DT_FLOAT, false, false));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 4})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 4, 5})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("In[0] and In[1] has different ndims: [3,4] "
                                 "vs. [2,4,5]")));
}

TEST_F(BatchMatMulV1OpTest, RejectsRankOne) {
  MF_ASSERT_OK(Make(DT_FLOAT, false, false));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("In[0] and In[1] ndims must be >= 2: 1")));
}

TEST_F(BatchMatMulV1OpTest, RejectsBroadcastBatchDims) {
  MF_ASSERT_OK(Make(DT_FLOAT, false, false));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({1, 3, 4})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 4, 5})));
  EXPECT_THAT(
      RunOpKernel(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("In[0].dim(0) and In[1].dim(0) must be the same: "
                         "[1,3,4] vs [2,4,5]")));
}

TEST_F(BatchMatMulV1OpTest, RejectsInnerDimensionsThatDiffer) {
  MF_ASSERT_OK(Make(DT_FLOAT, false, false));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 3, 4})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 5, 3})));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("Matrix size-incompatible")));
}

}  // namespace
}  // namespace minflow
