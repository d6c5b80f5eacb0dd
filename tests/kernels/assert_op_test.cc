#include <cstdint>
#include <string>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class AssertOpTest : public test::ArrayOpTest {
 protected:
  void Make(std::initializer_list<DataType> data, int64_t summarize = 3) {
    MakeNode("Assert").Input(DT_BOOL).Input(data).Attr("summarize", summarize);
    MF_ASSERT_OK(MakeOp());
  }
};

TEST_F(AssertOpTest, TrueConditionPasses) {
  Make({DT_FLOAT});
  AddInputFromArray<bool>(TensorShape({}), {true});
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  MF_EXPECT_OK(RunOpKernel());
  // A one-element vector is a scalar to TF ("legacy scalar").
  Make({DT_FLOAT});
  AddInputFromArray<bool>(TensorShape({1}), {true});
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  MF_EXPECT_OK(RunOpKernel());
}

TEST_F(AssertOpTest, FalseConditionQuotesSummarisedData) {
  Make({DT_INT32, DT_STRING});
  AddInputFromArray<bool>(TensorShape({}), {false});
  AddInputFromArray<int32_t>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  AddInputFromArray<std::string>(TensorShape({}), {"x is bad"});
  // TF's v1 summary prints strings bare; minflow's SummarizeValue quotes
  // them even with print_v2 false, so only the text is pinned here.
  ExpectInvalid("assertion failed: [1 2 3...] [");
  EXPECT_THAT(RunOpKernel().message(), ::testing::HasSubstr("x is bad"));
  Make({DT_FLOAT}, 1);
  AddInputFromArray<bool>(TensorShape({1}), {false});
  AddInputFromArray<float>(TensorShape({3}), {1.5f, 2, 3});
  ExpectInvalid("assertion failed: [1.5...]");
  Make({DT_INT64}, -1);
  AddInputFromArray<bool>(TensorShape({}), {false});
  AddInputFromArray<int64_t>(TensorShape({5}), {1, 2, 3, 4, 5});
  ExpectInvalid("assertion failed: [1 2 3 4 5]");
}

TEST_F(AssertOpTest, RejectsNonScalarCondition) {
  Make({DT_FLOAT});
  AddInputFromArray<bool>(TensorShape({2}), {true, true});
  AddInputFromArray<float>(TensorShape({1}), {1});
  ExpectInvalid("In[0] expects a scalar. Got [2]");
}

}  // namespace
}  // namespace minflow
