#include "minflow/core/proto_limits.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/graph.pb.h"
#include "minflow/tensor.pb.h"
#include "tests/testlib/nested_proto.h"

namespace minflow {
namespace {

TEST(ProtoLimitsTest, CountsNestedMessageLevels) {
  // 4 + 2 * pairs levels below the GraphDef.
  const std::string at_limit =
      test::NestedMessageBytes(test::DeepGraphDefFields(48));
  const std::string past_limit =
      test::NestedMessageBytes(test::DeepGraphDefFields(49));
  EXPECT_FALSE(ProtoNestsDeeperThan(at_limit, *GraphDef::descriptor(), 100));
  EXPECT_TRUE(ProtoNestsDeeperThan(at_limit, *GraphDef::descriptor(), 99));
  EXPECT_TRUE(ProtoNestsDeeperThan(past_limit, *GraphDef::descriptor(), 100));
}

TEST(ProtoLimitsTest, ScansAHundredThousandLevelsWithoutRecursing) {
  const std::string bytes =
      test::NestedMessageBytes(test::DeepGraphDefFields(50000));
  EXPECT_TRUE(ProtoNestsDeeperThan(bytes, *GraphDef::descriptor(),
                                   kProtoRecursionLimit));
}

TEST(ProtoLimitsTest, BytesFieldsAreNotMessages) {
  // tensor_content (field 4) holds bytes that would read as deep messages.
  std::vector<int> fields = {4};
  for (int i = 0; i < 200; ++i) fields.insert(fields.end(), {15, 3});
  EXPECT_FALSE(ProtoNestsDeeperThan(test::NestedMessageBytes(fields),
                                    *TensorProto::descriptor(), 100));
}

TEST(ProtoLimitsTest, MalformedBytesAreNotCalledDeep) {
  const std::string bytes =
      test::NestedMessageBytes(test::DeepGraphDefFields(100));
  // A length past the end of the enclosing message.
  EXPECT_FALSE(
      ProtoNestsDeeperThan(bytes.substr(0, 10), *GraphDef::descriptor(), 100));
  // A group start tag (wire type 3).
  EXPECT_FALSE(
      ProtoNestsDeeperThan(std::string("\x0b", 1), *GraphDef::descriptor(), 1));
  // A varint that never ends.
  EXPECT_FALSE(ProtoNestsDeeperThan(std::string("\x08\xff\xff", 3),
                                    *GraphDef::descriptor(), 1));
}

}  // namespace
}  // namespace minflow
