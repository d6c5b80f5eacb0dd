// The header runs Eigen expressions on a ThreadPoolDevice, which Eigen only
// defines with EIGEN_USE_THREADS (as in cwise_ops_common.cc).
#define EIGEN_USE_THREADS

#include "src/kernels/cwise_ops_common.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "tests/kernels/cwise_test_util.h"

namespace minflow {
namespace {

std::string Str(const internal::BCastVec& v) {
  return absl::StrCat("[", absl::StrJoin(v, ","), "]");
}

// "x_reshape x_bcast y_reshape y_bcast output result", or "invalid".
std::string Plan(std::vector<int64_t> x, std::vector<int64_t> y,
                 bool fewer_dims = true) {
  const BCast b(x, y, fewer_dims);
  if (!b.IsValid()) return "invalid";
  return absl::StrCat(Str(b.x_reshape()), Str(b.x_bcast()), Str(b.y_reshape()),
                      Str(b.y_bcast()), " ", Str(b.output_shape()), " ",
                      Str(b.result_shape()));
}

TEST(BCastTest, SameShapesBecomeOneFlatDimension) {
  EXPECT_EQ(Plan({11, 7, 5, 3, 2}, {11, 7, 5, 3, 2}),
            "[2310][1][2310][1] [11,7,5,3,2] [2310]");
}

TEST(BCastTest, ScalarsAndOnes) {
  EXPECT_EQ(Plan({1, 1}, {1}), "[1][1][1][1] [1,1] [1]");
  EXPECT_EQ(Plan({}, {}), "[1][1][1][1] [] [1]");
  EXPECT_EQ(Plan({11, 7, 5, 3, 2}, {1}),
            "[2310][1][1][2310] [11,7,5,3,2] [2310]");
  EXPECT_EQ(Plan({11, 7, 5, 3, 2, 1}, {}),
            "[2310][1][1][2310] [11,7,5,3,2,1] [2310]");
  EXPECT_EQ(Plan({1}, {11, 7, 5, 3, 2}),
            "[1][2310][2310][1] [11,7,5,3,2] [2310]");
}

TEST(BCastTest, TrailingVectorAndMatrix) {
  EXPECT_EQ(Plan({11, 7, 5, 3, 2}, {2}),
            "[1155,2][1,1][1,2][1155,1] [11,7,5,3,2] [1155,2]");
  EXPECT_EQ(Plan({11, 7, 5, 3, 2}, {3, 2}),
            "[385,6][1,1][1,6][385,1] [11,7,5,3,2] [385,6]");
  EXPECT_EQ(Plan({11, 7, 5, 3, 2}, {3, 1}),
            "[385,3,2][1,1,1][1,3,1][385,1,2] [11,7,5,3,2] [385,3,2]");
}

TEST(BCastTest, BothSidesBroadcast) {
  EXPECT_EQ(Plan({11, 1, 5, 1, 2}, {7, 1, 3, 1}),
            "[11,1,5,1,2][1,7,1,3,1][1,7,1,3,1][11,1,5,1,2] [11,7,5,3,2] "
            "[11,7,5,3,2]");
  EXPECT_EQ(Plan({3, 1}, {1, 4}), "[3,1][1,4][1,4][3,1] [3,4] [3,4]");
}

TEST(BCastTest, ZeroSizedDimensions) {
  EXPECT_EQ(Plan({2, 0, 5}, {5}), "[0,5][1,1][1,5][0,1] [2,0,5] [0,5]");
  EXPECT_EQ(Plan({0}, {1}), "[0][1][1][0] [0] [0]");
  EXPECT_EQ(Plan({0}, {3}), "invalid");
}

TEST(BCastTest, IncompatibleShapesAreInvalid) {
  EXPECT_EQ(Plan({2, 3}, {4}), "invalid");
  EXPECT_EQ(Plan({5, 2}, {3, 2}), "invalid");
}

TEST(BCastTest, WithoutFewerDimsKeepsEveryDimension) {
  EXPECT_EQ(Plan({2, 1, 3}, {3}, false),
            "[2,1,3][1,1,1][1,1,3][2,1,1] [2,1,3] [2,1,3]");
}

TEST(BCastTest, BroadcastingRequired) {
  EXPECT_FALSE(BCast({2, 3}, {2, 3}).IsBroadcastingRequired());
  EXPECT_TRUE(BCast({2, 3}, {3}).IsBroadcastingRequired());
}

TEST(BCastTest, ThreeShapes) {
  const BCastList<3> b({absl::Span<const int64_t>({2, 1, 4}),
                        absl::Span<const int64_t>({3, 1}),
                        absl::Span<const int64_t>({})});
  ASSERT_TRUE(b.IsValid());
  EXPECT_EQ(Str(b.output_shape()), "[2,3,4]");
  EXPECT_EQ(Str(b.reshape(0)), "[2,1,4]");
  EXPECT_EQ(Str(b.bcast(0)), "[1,3,1]");
  EXPECT_EQ(Str(b.reshape(1)), "[1,3,1]");
  EXPECT_EQ(Str(b.reshape(2)), "[1,1,1]");
  EXPECT_EQ(Str(b.bcast(2)), "[2,3,4]");
}

TEST(BCastTest, ToIndexArrayPadsWithLeadingOnes) {
  const auto a = BCast::ToIndexArray<5>({3, 4});
  EXPECT_EQ(a[0], 1);
  EXPECT_EQ(a[2], 1);
  EXPECT_EQ(a[3], 3);
  EXPECT_EQ(a[4], 4);
}

TEST(BCastTest, StridesAreZeroAlongBroadcastDims) {
  EXPECT_EQ(Str(BCastStrides({3, 1, 4})), "[4,0,1]");
  EXPECT_EQ(Str(BCastStrides({1, 5})), "[0,1]");
}

// ForEachBroadcastRun visits every output element exactly once, in order,
// with the input offsets a naive broadcast computes, from any block start.
TEST(ForEachBroadcastRunTest, MatchesNaiveOffsetsFromEveryBlockStart) {
  const TensorShape x({2, 1, 3, 1});
  const TensorShape y({4, 1, 5});
  TensorShape out;
  ASSERT_TRUE(test::BroadcastShapes(x, y, &out));
  const BCast b(x.dim_sizes(), y.dim_sizes());
  const std::array<internal::BCastVec, 2> strides = {
      BCastStrides(b.x_reshape()), BCastStrides(b.y_reshape())};
  const int64_t total = out.num_elements();
  for (int64_t begin :
       {int64_t{0}, int64_t{1}, int64_t{4}, int64_t{7}, total - 1}) {
    for (int64_t end : {begin + 1, begin + 6, total}) {
      if (end > total) continue;
      int64_t next = begin;
      ForEachBroadcastRun<2>(
          b.result_shape(), strides, begin, end,
          [&](int64_t o, const std::array<int64_t, 2>& in, int64_t n) {
            ASSERT_EQ(o, next);
            ASSERT_GT(n, 0);
            for (int64_t k = 0; k < n; ++k) {
              EXPECT_EQ(in[0] + k * strides[0].back(),
                        test::BroadcastOffset(out, x, o + k));
              EXPECT_EQ(in[1] + k * strides[1].back(),
                        test::BroadcastOffset(out, y, o + k));
            }
            next = o + n;
          });
      EXPECT_EQ(next, end) << "begin " << begin;
    }
  }
}

}  // namespace
}  // namespace minflow
