#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/framework/op_kernel.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

class PlaceholderOpTest : public test::OpsTestBaseP {};

TEST_P(PlaceholderOpTest, UnfedPlaceholderNamesItselfDtypeAndShape) {
  MakeNode("Placeholder", "x")
      .Attr("dtype", DT_FLOAT)
      .Attr("shape", PartialTensorShape({-1, 3}));
  MF_ASSERT_OK(MakeOp());
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("You must feed a value for placeholder "
                                 "tensor 'x' with dtype float and shape "
                                 "[?,3]")));
}

TEST_P(PlaceholderOpTest, UnknownOrScalarShapeIsLeftOut) {
  MakeNode("Placeholder", "y").Attr("dtype", DT_INT32);
  MF_ASSERT_OK(MakeOp());
  const Status s = RunOpKernel();
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("You must feed a value for placeholder "
                                    "tensor 'y' with dtype int32")));
  EXPECT_THAT(std::string(s.message()), ::testing::Not(HasSubstr("shape")));

  MakeNode("Placeholder", "z")
      .Attr("dtype", DT_BOOL)
      .Attr("shape", PartialTensorShape({}));
  MF_ASSERT_OK(MakeOp());
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("placeholder tensor 'z' with dtype bool")));
}

MF_INSTANTIATE_KERNEL_TEST_DEVICES(PlaceholderOpTest);

}  // namespace
}  // namespace minflow
