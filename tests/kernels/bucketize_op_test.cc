#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class BucketizeOpTest : public test::ArrayOpTest {
 protected:
  void Make(DataType dtype, const std::vector<float>& boundaries) {
    MakeNode("Bucketize").Input(dtype).Attr("boundaries", boundaries);
    MF_ASSERT_OK(MakeOp());
  }
};

// The reference: how many boundaries are <= v.
int32_t Bucket(double v, const std::vector<float>& b) {
  int32_t n = 0;
  for (float x : b) n += static_cast<double>(x) <= v;
  return n;
}

TEST_F(BucketizeOpTest, DocumentedExample) {
  // TensorFlow's example: boundaries [0, 10, 100],
  // [[-5, 10000], [150, 10], [5, 100]] -> [[0, 3], [3, 2], [1, 3]].
  Make(DT_INT32, {0, 10, 100});
  AddInputFromArray<int32_t>(TensorShape({3, 2}), {-5, 10000, 150, 10, 5, 100});
  RunAndCheckShapes();
  test::ExpectTensorEqual<int32_t>(
      *GetOutput(0),
      test::AsTensor<int32_t>({0, 3, 3, 2, 1, 3}, TensorShape({3, 2})));
}

TEST_F(BucketizeOpTest, EveryTypeAgainstReference) {
  const std::vector<float> b = {-2.5f, -1.0f, 0.0f, 0.5f, 3.0f, 3.0f, 7.25f};
  std::vector<double> values;
  for (int i = -12; i <= 32; ++i) values.push_back(i * 0.25);
  std::vector<int32_t> expected;
  for (double v : values) expected.push_back(Bucket(v, b));
  const TensorShape shape({static_cast<int64_t>(values.size())});

  Make(DT_FLOAT, b);
  AddInputFromArray<float>(shape,
                           std::vector<float>(values.begin(), values.end()));
  RunAndCheckShapes();
  test::ExpectTensorEqual<int32_t>(*GetOutput(0),
                                   test::AsTensor<int32_t>(expected));
  Make(DT_DOUBLE, b);
  AddInputFromArray<double>(shape, values);
  RunAndCheckShapes();
  test::ExpectTensorEqual<int32_t>(*GetOutput(0),
                                   test::AsTensor<int32_t>(expected));

  std::vector<int64_t> ints;
  std::vector<int32_t> int_expected;
  for (int i = -4; i <= 9; ++i) {
    ints.push_back(i);
    int_expected.push_back(Bucket(i, b));
  }
  Make(DT_INT64, b);
  AddInputFromArray<int64_t>(TensorShape({14}), ints);
  RunAndCheckShapes();
  test::ExpectTensorEqual<int32_t>(*GetOutput(0),
                                   test::AsTensor<int32_t>(int_expected));
}

TEST_F(BucketizeOpTest, EmptyInputsAndBoundaries) {
  Make(DT_FLOAT, {1, 2});
  AddInputFromArray<float>(TensorShape({2, 0}), {});
  RunAndCheckShapes();
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({2, 0}));
  Make(DT_FLOAT, {});
  AddInputFromArray<float>(TensorShape({3}), {-1, 0, 1});
  RunAndCheckShapes();
  test::ExpectTensorEqual<int32_t>(*GetOutput(0),
                                   test::AsTensor<int32_t>({0, 0, 0}));
}

TEST_F(BucketizeOpTest, RejectsUnsortedBoundaries) {
  MakeNode("Bucketize")
      .Input(DT_FLOAT)
      .Attr("boundaries", std::vector<float>{0, 2, 1});
  EXPECT_THAT(MakeOp(),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("Expected sorted boundaries")));
}

}  // namespace
}  // namespace minflow
