#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class InvertPermutationOpTest : public test::ArrayOpTest {};

TEST_F(InvertPermutationOpTest, InvertsBothIndexTypes) {
  // tf.math.invert_permutation([3, 4, 0, 2, 1]) = [2, 4, 3, 0, 1]
  MakeNode("InvertPermutation").Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int32_t>(TensorShape({5}), {3, 4, 0, 2, 1});
  RunAndCheckShapes();
  test::ExpectTensorEqual<int32_t>(*GetOutput(0),
                                   test::AsTensor<int32_t>({2, 4, 3, 0, 1}));
  MakeNode("InvertPermutation").Input(DT_INT64);
  MF_ASSERT_OK(MakeOp());
  std::vector<int64_t> perm(1000);
  for (int64_t i = 0; i < 1000; ++i) perm[i] = (i * 7) % 1000;
  AddInputFromArray<int64_t>(TensorShape({1000}), perm);
  RunAndCheckShapes();
  const Tensor& out = *GetOutput(0);
  for (int64_t i = 0; i < 1000; ++i) {
    EXPECT_EQ(out.base<int64_t>()[perm[i]], i);
  }
  MakeNode("InvertPermutation").Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int32_t>(TensorShape({0}), {});
  RunAndCheckShapes();
  EXPECT_EQ(GetOutput(0)->NumElements(), 0);
}

TEST_F(InvertPermutationOpTest, RejectsNonPermutations) {
  MakeNode("InvertPermutation").Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int32_t>(TensorShape({1, 2}), {0, 1});
  ExpectInvalid("invert_permutation expects a 1D vector.");
  MakeNode("InvertPermutation").Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int32_t>(TensorShape({3}), {0, 3, 1});
  ExpectInvalid("3 is not between 0 and 3");
  MakeNode("InvertPermutation").Input(DT_INT64);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int64_t>(TensorShape({3}), {0, -1, 1});
  ExpectInvalid("-1 is not between 0 and 3");
  MakeNode("InvertPermutation").Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int32_t>(TensorShape({3}), {1, 0, 1});
  ExpectInvalid("1 is duplicated in the input.");
  // Checked before the input is read or the output allocated.
  MakeNode("InvertPermutation").Input(DT_INT64);
  MF_ASSERT_OK(MakeOp());
  std::vector<Tensor> inputs = {
      HugeTensor(DT_INT64, TensorShape({int64_t{1} << 31}))};
  EXPECT_THAT(RunOnTensors(&inputs),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("permutation of nonnegative int32s "
                                       "must have <= int32 max elements")));
}

}  // namespace
}  // namespace minflow
