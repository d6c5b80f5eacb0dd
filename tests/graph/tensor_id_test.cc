#include "minflow/graph/tensor_id.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(TensorIdTest, NodeInputsOfEveryForm) {
  TensorIdView id;
  MF_ASSERT_OK(ParseNodeInput("x", &id));
  EXPECT_EQ("x", id.node);
  EXPECT_EQ(0, id.port);
  MF_ASSERT_OK(ParseNodeInput("scope/x:12", &id));
  EXPECT_EQ("scope/x", id.node);
  EXPECT_EQ(12, id.port);
  EXPECT_FALSE(id.IsControl());
  MF_ASSERT_OK(ParseNodeInput("^a/b", &id));
  EXPECT_EQ("a/b", id.node);
  EXPECT_TRUE(id.IsControl());
  EXPECT_EQ(kControlSlot, id.port);
}

TEST(TensorIdTest, MalformedNodeInputsNameThemselves) {
  TensorIdView id;
  for (const char* bad : {"", ":1", "x:", "x:-1", "x:y", "x:1.5"}) {
    EXPECT_THAT(ParseNodeInput(bad, &id),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr(absl::StrCat("'", bad, "'"))))
        << bad;
  }
  EXPECT_THAT(ParseNodeInput("^", &id),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Empty control input")));
  EXPECT_THAT(ParseNodeInput("x:y", &id),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("malformed output port")));
}

TEST(TensorIdTest, FeedAndFetchNames) {
  TensorId id;
  MF_ASSERT_OK(ParseTensorName("logits:1", &id));
  EXPECT_EQ("logits", id.node);
  EXPECT_EQ(1, id.port);
  EXPECT_EQ("logits:1", id.ToString());
  MF_ASSERT_OK(ParseTensorName("a:b:0", &id));  // the last colon splits
  EXPECT_EQ("a:b", id.node);
  EXPECT_THAT(
      ParseTensorName("^x", &id),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("control input")));
  EXPECT_THAT(ParseTensorName("x:-2", &id),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Tensor name 'x:-2'")));
  EXPECT_THAT(
      ParseTensorName("", &id),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("names no node")));
}

TEST(ParseTensorNameTest, AcceptsNodeAndNodeWithPort) {
  TensorId id;
  MF_ASSERT_OK(ParseTensorName("a", &id));
  EXPECT_EQ(id.node, "a");
  EXPECT_EQ(id.port, 0);
  EXPECT_EQ(id.ToString(), "a:0");
  MF_ASSERT_OK(ParseTensorName("a:0", &id));
  EXPECT_EQ(id.node, "a");
  EXPECT_EQ(id.port, 0);
  MF_ASSERT_OK(ParseTensorName("scope/sub_1/op.x:12", &id));
  EXPECT_EQ(id.node, "scope/sub_1/op.x");
  EXPECT_EQ(id.port, 12);
  EXPECT_EQ(id.ToString(), "scope/sub_1/op.x:12");
  // A reused TensorId takes nothing from its previous value.
  MF_ASSERT_OK(ParseTensorName("b", &id));
  EXPECT_EQ(id.node, "b");
  EXPECT_EQ(id.port, 0);
}

TEST(ParseTensorNameTest, RejectsMalformedNames) {
  for (const char* bad : {"", ":1", "a:-1", "a:x", "a:", "a:1x", "^a", "^a:0",
                          "a:99999999999999999999"}) {
    SCOPED_TRACE(bad);
    TensorId id;
    EXPECT_THAT(
        ParseTensorName(bad, &id),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 AllOf(HasSubstr(absl::StrCat("Tensor name '", bad, "'")),
                       HasSubstr("'node' or 'node:port'"))));
  }
}

}  // namespace
}  // namespace minflow
