#include "minflow/core/status.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/framework/tf_compat.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

TEST(StatusTest, ErrorHelpersJoinArgumentsAndSetCode) {
  const Status s = errors::InvalidArgument("dim ", 3, " must be >= ", 0.5);
  EXPECT_THAT(
      s, StatusIs(absl::StatusCode::kInvalidArgument, "dim 3 must be >= 0.5"));
  EXPECT_TRUE(errors::IsInvalidArgument(s));
  EXPECT_FALSE(errors::IsNotFound(s));
  EXPECT_TRUE(errors::IsNotFound(errors::NotFound("x")));
  EXPECT_TRUE(errors::IsResourceExhausted(errors::ResourceExhausted("x")));
  EXPECT_TRUE(errors::IsUnimplemented(errors::Unimplemented("x")));
  EXPECT_TRUE(errors::IsInternal(errors::Internal("x")));
  EXPECT_TRUE(errors::IsCancelled(errors::Cancelled("x")));
  EXPECT_TRUE(errors::IsDeadlineExceeded(errors::DeadlineExceeded("x")));
  EXPECT_TRUE(errors::IsFailedPrecondition(errors::FailedPrecondition("x")));
  EXPECT_TRUE(errors::IsOutOfRange(errors::OutOfRange("x")));
  EXPECT_TRUE(errors::IsAlreadyExists(errors::AlreadyExists("x")));
}

Status FailsWhen(bool fail) {
  if (fail) return errors::Internal("boom");
  return OkStatus();
}

Status UsesReturnIfError(bool fail, int* reached) {
  MF_RETURN_IF_ERROR(FailsWhen(fail));
  ++*reached;
  return OkStatus();
}

Status UsesTfAlias(bool fail) {
  TF_RETURN_IF_ERROR(FailsWhen(fail));
  return OkStatus();
}

TEST(StatusTest, ReturnIfErrorStopsAtFirstError) {
  int reached = 0;
  EXPECT_THAT(UsesReturnIfError(true, &reached),
              StatusIs(absl::StatusCode::kInternal, "boom"));
  EXPECT_EQ(reached, 0);
  EXPECT_TRUE(UsesReturnIfError(false, &reached).ok());
  EXPECT_EQ(reached, 1);
  EXPECT_FALSE(UsesTfAlias(true).ok());
  EXPECT_TRUE(UsesTfAlias(false).ok());
}

StatusOr<int> Half(int x) {
  if (x % 2 != 0) return errors::InvalidArgument("x must be even, but got ", x);
  return x / 2;
}

Status Quarter(int x, int* out) {
  MF_ASSIGN_OR_RETURN(int half, Half(x));
  MF_ASSIGN_OR_RETURN(*out, Half(half));
  return OkStatus();
}

TEST(StatusTest, AssignOrReturnAssignsOrPropagates) {
  int out = 0;
  MF_EXPECT_OK(Quarter(8, &out));
  EXPECT_EQ(out, 2);
  EXPECT_THAT(Quarter(6, &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("got 3")));
}

TEST(StatusTest, MacrosAreSafeInUnbracedIfElse) {
  int reached = 0;
  // Would not compile, or would bind the else wrongly, if the macro were not
  // a single statement.
  auto f = [&](bool fail) -> Status {
    if (fail)
      MF_RETURN_IF_ERROR(FailsWhen(true));
    else
      ++reached;
    return OkStatus();
  };
  EXPECT_FALSE(f(true).ok());
  EXPECT_TRUE(f(false).ok());
  EXPECT_EQ(reached, 1);
}

TEST(StatusTest, ContextHelpersKeepCodeAndOkStaysOk) {
  const Status s = errors::InvalidArgument("bad shape");
  const Status with_node =
      errors::AttachNodeContext(s, "dense/MatMul", "MatMul");
  EXPECT_THAT(with_node,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "bad shape\n\t [[{{node dense/MatMul}} = MatMul]]"));
  EXPECT_THAT(errors::Prefix(s, "While importing: "),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "While importing: bad shape"));
  EXPECT_THAT(
      errors::AppendToMessage(s, "more"),
      StatusIs(absl::StatusCode::kInvalidArgument, "bad shape\n\tmore"));
  EXPECT_TRUE(errors::AttachNodeContext(OkStatus(), "n", "Op").ok());
  EXPECT_TRUE(errors::Prefix(OkStatus(), "p").ok());
  EXPECT_EQ(errors::FormatNodeNameForError("a/b"), "{{node a/b}}");
}

TEST(StatusDeathTest, FailedCheckAbortsWithInternalErrorMessage) {
  EXPECT_DEATH(MF_CHECK(1 + 1 == 3) << "extra",
               "internal error, please report");
  EXPECT_DEATH(MF_CHECK_EQ(2, 3), "2 vs 3");
}

}  // namespace
}  // namespace minflow
