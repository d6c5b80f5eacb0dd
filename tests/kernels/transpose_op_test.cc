#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "src/kernels/transpose_functor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

// out[o] = in[sum_i o_i * in_stride[perm[i]]].
std::vector<int64_t> TransposeSources(const TensorShape& in,
                                      const std::vector<int32_t>& perm,
                                      TensorShape* out) {
  std::vector<int64_t> out_dims;
  for (int32_t p : perm) out_dims.push_back(in.dim_size(p));
  *out = TensorShape(out_dims);
  const auto in_strides = test::Strides(in);
  std::vector<int64_t> src(out->num_elements());
  for (int64_t j = 0; j < out->num_elements(); ++j) {
    const auto o = test::Unravel(j, *out);
    int64_t s = 0;
    for (size_t i = 0; i < perm.size(); ++i) s += o[i] * in_strides[perm[i]];
    src[j] = s;
  }
  return src;
}

class TransposeOpTest : public test::ArrayOpTest {
 protected:
  void Check(DataType dtype, const TensorShape& in,
             const std::vector<int32_t>& perm, DataType tperm = DT_INT32) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(dtype) << " " << in.DebugString() << " perm "
                 << ::testing::PrintToString(perm));
    MakeNode("Transpose").Input(dtype).Input(tperm);
    MF_ASSERT_OK(MakeOp());
    const Tensor input = test::MakeTestTensor(dtype, in);
    AddInputTensor(input);
    AddPerm(perm, tperm);
    RunAndCheckShapes();
    TensorShape out;
    const auto src = TransposeSources(in, perm, &out);
    test::ExpectEqual(*GetOutput(0), test::GatherReference(input, out, src));
  }
  void AddPerm(const std::vector<int32_t>& perm, DataType tperm) {
    const TensorShape shape({static_cast<int64_t>(perm.size())});
    if (tperm == DT_INT32) {
      AddInputFromArray<int32_t>(shape, perm);
    } else {
      AddInputFromArray<int64_t>(
          shape, std::vector<int64_t>(perm.begin(), perm.end()));
    }
  }
  void MakeFloat(const TensorShape& in) {
    MakeNode("Transpose").Input(DT_FLOAT).Input(DT_INT32);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, in));
  }
};

TEST_F(TransposeOpTest, EveryPermutationOfRank4) {
  std::vector<int32_t> perm = {0, 1, 2, 3};
  do {
    Check(DT_FLOAT, TensorShape({2, 3, 4, 5}), perm);
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST_F(TransposeOpTest, EveryElementSize) {
  for (DataType dtype : test::MovementTypes()) {
    Check(dtype, TensorShape({3, 5}), {1, 0});
    Check(dtype, TensorShape({2, 3, 4}), {2, 0, 1}, DT_INT64);
    Check(dtype, TensorShape({2, 3, 4}), {1, 0, 2});
    Check(dtype, TensorShape({37, 41}), {1, 0});  // ragged tiles
  }
}

TEST_F(TransposeOpTest, Rank5AndMergedDims) {
  Check(DT_INT32, TensorShape({2, 3, 1, 4, 5}), {4, 3, 2, 1, 0});
  Check(DT_INT32, TensorShape({2, 3, 4, 5, 6}), {0, 3, 4, 1, 2});
  Check(DT_INT64, TensorShape({2, 3, 4, 5, 6}), {2, 3, 0, 1, 4});
}

TEST_F(TransposeOpTest, LargeEnoughToShard) {
  // 64^3 floats (1 MiB) over the fixture's two intra-op threads, on the
  // tiled path and on the row-copy path.
  Check(DT_FLOAT, TensorShape({64, 64, 64}), {2, 0, 1});
  Check(DT_FLOAT, TensorShape({64, 64, 64}), {1, 0, 2});
  Check(DT_HALF, TensorShape({8, 128, 130}), {0, 2, 1});
}

TEST_F(TransposeOpTest, IdentityAndUnitMovesShareTheBuffer) {
  for (const auto& [shape, perm] :
       std::vector<std::pair<TensorShape, std::vector<int32_t>>>{
           {TensorShape({2, 3}), {0, 1}},
           {TensorShape({2, 1, 3}), {1, 0, 2}},
           {TensorShape({1, 4, 1, 5}), {0, 2, 1, 3}},
           {TensorShape({7}), {0}},
           {TensorShape({}), {}}}) {
    Check(DT_FLOAT, shape, perm);
    EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)))
        << shape.DebugString();
  }
}

TEST_F(TransposeOpTest, EmptyTensors) {
  Check(DT_FLOAT, TensorShape({0, 3}), {1, 0});
  Check(DT_STRING, TensorShape({2, 0, 3}), {2, 1, 0});
}

TEST_F(TransposeOpTest, RejectsNonVectorPerm) {
  MakeFloat(TensorShape({2, 3}));
  AddInputFromArray<int32_t>(TensorShape({1, 2}), {1, 0});
  ExpectInvalid("perm must be rank 1, got shape [1,2]");
}

TEST_F(TransposeOpTest, RejectsPermOfWrongLength) {
  MakeFloat(TensorShape({2, 3}));
  AddInputFromArray<int32_t>(TensorShape({3}), {1, 0, 2});
  ExpectInvalid(
      "transpose expects a vector of size 2. But input(1) is a vector of "
      "size 3");
}

TEST_F(TransposeOpTest, RejectsOutOfRangePerm) {
  MakeFloat(TensorShape({2, 3}));
  AddInputFromArray<int32_t>(TensorShape({2}), {2, 0});
  ExpectInvalid("2 is out of range [0 .. 2)");
  MakeFloat(TensorShape({2, 3}));
  AddInputFromArray<int32_t>(TensorShape({2}), {-1, 0});
  ExpectInvalid("-1 is out of range [0 .. 2)");
  MakeNode("Transpose").Input(DT_FLOAT).Input(DT_INT64);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 3})));
  AddInputFromArray<int64_t>(TensorShape({2}), {int64_t{1} << 33, 0});
  ExpectInvalid("8589934592 is out of range [0 .. 2)");
}

TEST_F(TransposeOpTest, RejectsRepeatedPerm) {
  MakeFloat(TensorShape({2, 3}));
  AddInputFromArray<int32_t>(TensorShape({2}), {0, 0});
  ExpectInvalid("1 is missing from {0,0}.");
}

TEST(ReduceTransposeDimensionsTest, DropsUnitDimsAndMergesRuns) {
  absl::InlinedVector<int64_t, 8> dims;
  absl::InlinedVector<int32_t, 8> perm;
  const int64_t in[] = {64, 64, 64, 64};
  const int32_t p[] = {0, 3, 1, 2};
  internal::ReduceTransposeDimensions(in, p, &dims, &perm);
  EXPECT_EQ(dims, (absl::InlinedVector<int64_t, 8>{64, 4096, 64}));
  EXPECT_EQ(perm, (absl::InlinedVector<int32_t, 8>{0, 2, 1}));

  const int64_t in2[] = {2, 1, 3, 4};
  const int32_t p2[] = {3, 1, 0, 2};
  internal::ReduceTransposeDimensions(in2, p2, &dims, &perm);
  // The unit dim goes; input dims 0 and 2 (now 0, 1) stay adjacent.
  EXPECT_EQ(dims, (absl::InlinedVector<int64_t, 8>{6, 4}));
  EXPECT_EQ(perm, (absl::InlinedVector<int32_t, 8>{1, 0}));
}

TEST(DoTransposeTest, RejectsBadArguments) {
  const Tensor in = test::MakeTestTensor(DT_FLOAT, TensorShape({2, 3}));
  Tensor out(DT_FLOAT, TensorShape({3, 2}));
  const int32_t good[] = {1, 0};
  const int32_t repeated[] = {0, 0};
  const int32_t short_perm[] = {0};
  MF_EXPECT_OK(DoTranspose(nullptr, in, good, &out));
  EXPECT_FALSE(DoTranspose(nullptr, in, repeated, &out).ok());
  EXPECT_FALSE(DoTranspose(nullptr, in, short_perm, &out).ok());
  Tensor wrong(DT_FLOAT, TensorShape({2, 3}));
  EXPECT_FALSE(DoTranspose(nullptr, in, good, &wrong).ok());
}

}  // namespace
}  // namespace minflow
