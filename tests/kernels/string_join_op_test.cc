#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

class StringJoinOpTest : public test::OpsTestBase {
 protected:
  Status Join(const std::vector<Tensor>& inputs, const std::string& sep) {
    const DataTypeVector dtypes(inputs.size(), DT_STRING);
    MakeNode("StringJoin").Input(DataTypeSlice(dtypes)).Attr("separator", sep);
    MF_RETURN_IF_ERROR(MakeOp());
    for (const Tensor& t : inputs) AddInputTensor(t);
    return RunOpKernel();
  }
};

TEST_F(StringJoinOpTest, ScalarsRepeatAcrossTheOtherInputsShape) {
  MF_ASSERT_OK(Join({test::AsTensor<tstring>({"a", "b"}), Tensor("-"),
                     test::AsTensor<tstring>({"x", "y"})},
                    "/"));
  test::ExpectTensorEqual<tstring>(*GetOutput(0),
                                   test::AsTensor<tstring>({"a/-/x", "b/-/y"}));
}

TEST_F(StringJoinOpTest, AllScalarsGiveAScalar) {
  MF_ASSERT_OK(Join({Tensor("ckpt"), Tensor("_temp/part")}, ""));
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape());
  EXPECT_EQ(GetOutput(0)->scalar<tstring>()(), "ckpt_temp/part");
}

TEST_F(StringJoinOpTest, RejectsInputsOfDifferentShapes) {
  EXPECT_THAT(Join({test::AsTensor<tstring>({"a", "b"}),
                    test::AsTensor<tstring>({"x", "y", "z"})},
                   ""),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Input shapes do not match")));
}

}  // namespace
}  // namespace minflow
