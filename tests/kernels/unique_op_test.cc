#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class UniqueOpTest : public test::ArrayOpTest {
 protected:
  void Make(DataType dtype, DataType out_idx = DT_INT32) {
    MakeNode("Unique").Input(dtype).Attr("out_idx", out_idx);
    MF_ASSERT_OK(MakeOp());
  }
};

TEST_F(UniqueOpTest, TfDocumentedExample) {
  // tf.unique([1, 1, 2, 4, 4, 4, 7, 8, 8]) = [1, 2, 4, 7, 8], idx
  // [0, 0, 1, 2, 2, 2, 3, 4, 4]
  Make(DT_INT32);
  AddInputFromArray<int32_t>(TensorShape({9}), {1, 1, 2, 4, 4, 4, 7, 8, 8});
  RunAndCheckShapes();
  test::ExpectTensorEqual<int32_t>(*GetOutput(0),
                                   test::AsTensor<int32_t>({1, 2, 4, 7, 8}));
  test::ExpectTensorEqual<int32_t>(
      *GetOutput(1), test::AsTensor<int32_t>({0, 0, 1, 2, 2, 2, 3, 4, 4}));
}

TEST_F(UniqueOpTest, FirstAppearanceOrderForSeveralTypes) {
  Make(DT_STRING, DT_INT64);
  AddInputFromArray<std::string>(
      TensorShape({5}),
      {"b", "a long string past SSO", "b", "c", "a long string past SSO"});
  RunAndCheckShapes();
  test::ExpectTensorEqual<std::string>(
      *GetOutput(0),
      test::AsTensor<std::string>({"b", "a long string past SSO", "c"}));
  test::ExpectTensorEqual<int64_t>(*GetOutput(1),
                                   test::AsTensor<int64_t>({0, 1, 0, 2, 1}));
  Make(DT_HALF);
  AddInputFromArray<half>(TensorShape({4}),
                          {half(1.5f), half(-2.f), half(1.5f), half(-2.f)});
  RunAndCheckShapes();
  test::ExpectTensorEqual<half>(*GetOutput(0),
                                test::AsTensor<half>({half(1.5f), half(-2.f)}));
  test::ExpectTensorEqual<int32_t>(*GetOutput(1),
                                   test::AsTensor<int32_t>({0, 1, 0, 1}));
  Make(DT_BOOL);
  AddInputFromArray<bool>(TensorShape({3}), {false, false, true});
  RunAndCheckShapes();
  test::ExpectTensorEqual<bool>(*GetOutput(0),
                                test::AsTensor<bool>({false, true}));
}

TEST_F(UniqueOpTest, AgreesWithAQuadraticReference) {
  Make(DT_FLOAT, DT_INT64);
  std::vector<float> x(5000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i * 37 % 101);
  AddInputFromArray<float>(TensorShape({5000}), x);
  RunAndCheckShapes();
  std::vector<float> y;
  std::vector<int64_t> idx;
  for (float v : x) {
    size_t j = 0;
    while (j < y.size() && y[j] != v) ++j;
    if (j == y.size()) y.push_back(v);
    idx.push_back(static_cast<int64_t>(j));
  }
  test::ExpectTensorEqual<float>(*GetOutput(0), test::AsTensor<float>(y));
  test::ExpectTensorEqual<int64_t>(*GetOutput(1), test::AsTensor<int64_t>(idx));
}

TEST_F(UniqueOpTest, ZerosMergeNansDoNot) {
  Make(DT_DOUBLE);
  AddInputFromArray<double>(TensorShape({4}),
                            {0.0, -0.0, std::nan(""), std::nan("")});
  RunAndCheckShapes();
  EXPECT_EQ(GetOutput(0)->NumElements(), 3);
  test::ExpectTensorEqual<int32_t>(*GetOutput(1),
                                   test::AsTensor<int32_t>({0, 0, 1, 2}));
}

TEST_F(UniqueOpTest, EmptyAndErrors) {
  Make(DT_INT64);
  AddInputFromArray<int64_t>(TensorShape({0}), {});
  RunAndCheckShapes();
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0}));
  EXPECT_EQ(GetOutput(1)->shape(), TensorShape({0}));
  Make(DT_INT32);
  AddInputFromArray<int32_t>(TensorShape({2, 1}), {1, 2});
  ExpectInvalid("unique expects a 1D vector.");
  Make(DT_INT8);
  std::vector<Tensor> inputs = {
      HugeTensor(DT_INT8, TensorShape({int64_t{1} << 32}))};
  EXPECT_THAT(RunOnTensors(&inputs),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr("unique does not support input tensors "
                                       "larger than 2147483647 elements")));
}

}  // namespace
}  // namespace minflow
