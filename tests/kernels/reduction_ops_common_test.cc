#include "src/kernels/reduction_ops_common.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

// "data_reshape reduce_first out_reshape out_shape".
std::string Simplified(const TensorShape& shape, std::vector<int32_t> axes,
                       bool keep_dims = false) {
  const Tensor data(DT_FLOAT, shape);
  const Tensor axis = test::AsTensor<int32_t>(absl::Span<const int32_t>(axes));
  ReductionHelper h;
  const Status s = h.Simplify(data, axis, keep_dims);
  if (!s.ok()) return std::string(s.message());
  return absl::StrCat("[", absl::StrJoin(h.data_reshape(), ","), "] ",
                      h.reduce_first_axis() ? "R" : "K", " ",
                      h.out_reshape().DebugString(), " ",
                      h.out_shape().DebugString());
}

TEST(ReductionHelperTest, MergesRunsOfReducedAndKeptDims) {
  EXPECT_EQ(Simplified(TensorShape({2, 3, 4}), {1}), "[2,3,4] K [2,4] [2,4]");
  EXPECT_EQ(Simplified(TensorShape({2, 3, 4}), {0, 1}), "[6,4] R [4] [4]");
  EXPECT_EQ(Simplified(TensorShape({2, 3, 4}), {0, 2}), "[2,3,4] R [3] [3]");
  EXPECT_EQ(Simplified(TensorShape({2, 3, 4}), {}), "[24] K [24] [2,3,4]");
}

TEST(ReductionHelperTest, SizeOneDimsJoinThePreviousRun) {
  // TensorFlow's example: [2,1,3,1,5] over {1,4} is [6,5] over {1}.
  EXPECT_EQ(Simplified(TensorShape({2, 1, 3, 1, 5}), {1, 4}),
            "[6,5] K [6] [2,3,1]");
  EXPECT_EQ(Simplified(TensorShape({1, 1, 4}), {2}), "[4] R [] [1,1]");
}

TEST(ReductionHelperTest, KeepDimsAndNegativeAxes) {
  EXPECT_EQ(Simplified(TensorShape({2, 3, 4}), {-1}, true),
            "[6,4] K [6] [2,3,1]");
  EXPECT_EQ(Simplified(TensorShape({2, 3, 4}), {-3, 2}, true),
            "[2,3,4] R [3] [1,3,1]");
}

TEST(ReductionHelperTest, ScalarLikeInputsReduceNothing) {
  EXPECT_EQ(Simplified(TensorShape({}), {}), "[] R [] []");
  EXPECT_EQ(Simplified(TensorShape({1, 1}), {0}), "[] R [] [1]");
}

TEST(ReductionHelperTest, PermutationPutsReducedRunsLast) {
  const Tensor data(DT_FLOAT, TensorShape({2, 3, 4, 5, 6}));
  ReductionHelper h;
  MF_ASSERT_OK(h.Simplify(data, test::AsTensor<int64_t>({1, 3}), false));
  EXPECT_EQ(h.ndims(), 5);
  EXPECT_FALSE(h.reduce_first_axis());
  EXPECT_EQ(absl::StrJoin(h.permutation(), ","), "0,2,4,1,3");
  EXPECT_EQ(h.shuffled_shape().DebugString(), "[2,4,6,3,5]");

  ReductionHelper r;
  MF_ASSERT_OK(r.Simplify(data, test::AsTensor<int64_t>({0, 2, 4}), false));
  EXPECT_TRUE(r.reduce_first_axis());
  EXPECT_EQ(absl::StrJoin(r.permutation(), ","), "1,3,0,2,4");
  EXPECT_EQ(r.shuffled_shape().DebugString(), "[3,5,2,4,6]");
}

TEST(ReductionHelperTest, RejectsOutOfRangeAxis) {
  const Tensor data(DT_FLOAT, TensorShape({2, 3}));
  ReductionHelper h;
  EXPECT_THAT(h.Simplify(data, test::AsTensor<int32_t>({2}), false),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Invalid reduction dimension (2 for input "
                                 "with 2 dimension(s)")));
  EXPECT_THAT(h.Simplify(data, test::AsTensor<int64_t>({-3}), false),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Invalid reduction dimension (-3")));
}

TEST(ReductionHelperTest, RejectsDuplicateAxes) {
  const Tensor data(DT_FLOAT, TensorShape({2, 3}));
  ReductionHelper h;
  EXPECT_THAT(h.Simplify(data, test::AsTensor<int32_t>({1, -1}), false),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Axes contains duplicate dimension: 1")));
}

TEST(ReductionHelperTest, RejectsNonIntegerAxes) {
  const Tensor data(DT_FLOAT, TensorShape({2, 3}));
  ReductionHelper h;
  EXPECT_THAT(h.Simplify(data, test::AsTensor<float>({1}), false),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must be int32 or int64")));
}

}  // namespace
}  // namespace minflow
