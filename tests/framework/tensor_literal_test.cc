#include "minflow/framework/tensor_literal.h"

#include <cmath>
#include <cstdint>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

Tensor Parse(const std::string& text) {
  Tensor t;
  const Status s = ParseTensorLiteral(text, &t);
  EXPECT_TRUE(s.ok()) << text << ": " << s;
  return t;
}

Status ParseError(const std::string& text) {
  Tensor t;
  return ParseTensorLiteral(text, &t);
}

TEST(TensorLiteralTest, IntegersDefaultToInt32) {
  test::ExpectTensorEqual<int32_t>(test::AsTensor<int32_t>({1, 2, 3}),
                                   Parse("[1,2,3]"));
  test::ExpectTensorEqual<int32_t>(test::AsScalar<int32_t>(-7), Parse(" -7 "));
  test::ExpectTensorEqual<int32_t>(
      test::AsTensor<int32_t>({1, 2, 3, 4}, TensorShape({2, 2})),
      Parse("[[1, 2], [3, 4]]"));
}

TEST(TensorLiteralTest, RealsDefaultToFloat) {
  test::ExpectTensorEqual<float>(test::AsTensor<float>({1.5f, 2.0f}),
                                 Parse("[1.5, 2]"));
  test::ExpectTensorEqual<float>(test::AsTensor<float>({1e-3f}),
                                 Parse("[1e-3]"));
  const Tensor inf = Parse("-inf");
  EXPECT_EQ(DT_FLOAT, inf.dtype());
  EXPECT_TRUE(std::isinf(inf.scalar<float>()()));
}

TEST(TensorLiteralTest, DtypePrefix) {
  test::ExpectTensorEqual<int64_t>(test::AsTensor<int64_t>({2, -1}),
                                   Parse("int64:[2,-1]"));
  test::ExpectTensorEqual<int64_t>(test::AsTensor<int64_t>({int64_t{1} << 40}),
                                   Parse("DT_INT64:[1099511627776]"));
  test::ExpectTensorEqual<double>(test::AsTensor<double>({1, 2.5}),
                                  Parse("double: [1, 2.5]"));
  test::ExpectTensorEqual<uint8_t>(test::AsTensor<uint8_t>({255}),
                                   Parse("uint8:[255]"));
  EXPECT_EQ(DT_HALF, Parse("half:[1]").dtype());
  EXPECT_EQ(DT_BFLOAT16, Parse("bfloat16:1.5").dtype());
  test::ExpectTensorEqual<float>(test::AsTensor<float>({3}),
                                 Parse("float:[3]"));
}

TEST(TensorLiteralTest, DefaultDtypeForUnprefixedLiterals) {
  Tensor t;
  MF_ASSERT_OK(ParseTensorLiteral("[1, 2]", DT_FLOAT, &t));
  test::ExpectTensorEqual<float>(test::AsTensor<float>({1, 2}), t);
  MF_ASSERT_OK(ParseTensorLiteral("int64:[1]", DT_FLOAT, &t));
  EXPECT_EQ(DT_INT64, t.dtype());
  EXPECT_THAT(ParseTensorLiteral("[1.5]", DT_INT32, &t),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expected an integer for int32")));
}

TEST(TensorLiteralTest, BoolsAndStrings) {
  test::ExpectTensorEqual<bool>(test::AsTensor<bool>({true, false}),
                                Parse("[true,false]"));
  const Tensor s = Parse(R"(["a:b", "c\"d"])");
  ASSERT_EQ(DT_STRING, s.dtype());
  EXPECT_EQ("a:b", s.flat<std::string>()(0));
  EXPECT_EQ("c\"d", s.flat<std::string>()(1));
  EXPECT_EQ(DT_STRING, Parse(R"(string:["x"])").dtype());
}

TEST(TensorLiteralTest, EmptyLists) {
  const Tensor empty = Parse("[]");
  EXPECT_EQ(DT_INT32, empty.dtype());
  EXPECT_EQ(TensorShape({0}), empty.shape());
  EXPECT_EQ(TensorShape({2, 0}), Parse("[[],[]]").shape());
  EXPECT_EQ(DT_INT64, Parse("int64:[]").dtype());
}

TEST(TensorLiteralTest, RejectsBadLiterals) {
  EXPECT_THAT(ParseError("[1,2"), StatusIs(absl::StatusCode::kInvalidArgument,
                                           HasSubstr("expected ',' or ']'")));
  EXPECT_THAT(
      ParseError("[[1],[2,3]]"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ragged list")));
  EXPECT_THAT(
      ParseError("[[1],2]"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ragged list")));
  EXPECT_THAT(
      ParseError("[1,true]"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("mixed kinds")));
  EXPECT_THAT(ParseError("3000000000"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("does not fit int32 (write int64:")));
  EXPECT_THAT(ParseError("int8:[128]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("128 does not fit int8")));
  EXPECT_THAT(ParseError("uint32:[-1]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("does not fit uint32")));
  EXPECT_THAT(ParseError("int32:[1.5]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expected an integer for int32")));
  EXPECT_THAT(ParseError("bool:[1]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expected true or false")));
  EXPECT_THAT(ParseError("complex64:[1]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("cannot be written as a literal")));
  EXPECT_THAT(ParseError("int99:[1]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown dtype 'int99'")));
  EXPECT_THAT(ParseError("[1] 2"), StatusIs(absl::StatusCode::kInvalidArgument,
                                            HasSubstr("unexpected text")));
  EXPECT_THAT(ParseError("abc"), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("'abc' is not a number")));
  EXPECT_THAT(ParseError("\"open"), StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("unterminated string")));
  EXPECT_THAT(ParseError(""), StatusIs(absl::StatusCode::kInvalidArgument,
                                       HasSubstr("expected a value")));
  EXPECT_THAT(ParseError(std::string(300, '[') + std::string(300, ']')),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("nesting too deep")));
}

}  // namespace
}  // namespace minflow
