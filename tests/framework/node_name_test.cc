#include "minflow/framework/node_name.h"

#include "gtest/gtest.h"

namespace minflow {
namespace {

TEST(NodeNameTest, TensorFlowsSyntax) {
  for (const char* ok : {"a", "A1", ".x", "0", "scope/op_1", "a>b", "a-b.c"}) {
    EXPECT_TRUE(IsValidNodeName(ok)) << ok;
  }
  for (const char* bad : {"", "_a", "/a", "-a", "a b", "a:0", "^a", "a!"}) {
    EXPECT_FALSE(IsValidNodeName(bad)) << bad;
  }
}

TEST(NodeNameTest, FunctionBodiesMayStartWithAnUnderscore) {
  EXPECT_TRUE(IsValidNodeName("_arg0", /*allow_leading_underscore=*/true));
  EXPECT_FALSE(IsValidNodeName("_arg0"));
  EXPECT_FALSE(IsValidNodeName("_a b", /*allow_leading_underscore=*/true));
}

}  // namespace
}  // namespace minflow
