#include "minflow/framework/attr_value_util.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/attr_value.pb.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::ProtoToText;
using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

constexpr auto kInvalidArgument = absl::StatusCode::kInvalidArgument;

AttrValue V(const std::string& text) {
  return ParseTextProtoOrDie<AttrValue>(text);
}

// --- AttrValueHasType --------------------------------------------------------

TEST(AttrValueUtilTest, HasTypeAcceptsEachScalarAndListType) {
  const struct {
    const char* value;
    const char* type;
  } kCases[] = {
      {"s: 'x'", "string"},
      {"i: 1", "int"},
      {"f: 1.5", "float"},
      {"b: true", "bool"},
      {"type: DT_FLOAT", "type"},
      {"shape { dim { size: 2 } }", "shape"},
      {"tensor { dtype: DT_INT32 int_val: 1 }", "tensor"},
      {"func { name: 'f' }", "func"},
      {"list { s: ['a', 'b'] }", "list(string)"},
      {"list { i: [1, 2] }", "list(int)"},
      {"list { f: [1] }", "list(float)"},
      {"list { b: [true] }", "list(bool)"},
      {"list { type: [DT_INT32] }", "list(type)"},
      {"list { shape { } }", "list(shape)"},
      {"list { tensor { dtype: DT_FLOAT } }", "list(tensor)"},
      {"list { func { name: 'f' } }", "list(func)"},
  };
  for (const auto& c : kCases) {
    MF_EXPECT_OK(AttrValueHasType(V(c.value), c.type));
  }
}

TEST(AttrValueUtilTest, HasTypeTreatsEmptyAndUnsetListsAsAnyList) {
  MF_EXPECT_OK(AttrValueHasType(V("list { }"), "list(int)"));
  MF_EXPECT_OK(AttrValueHasType(V("list { }"), "list(type)"));
  MF_EXPECT_OK(AttrValueHasType(AttrValue(), "list(string)"));
  EXPECT_THAT(AttrValueHasType(AttrValue(), "int"),
              StatusIs(kInvalidArgument,
                       "AttrValue missing value with expected type 'int'"));
  EXPECT_THAT(AttrValueHasType(V("list { }"), "int"),
              StatusIs(kInvalidArgument,
                       "AttrValue missing value with expected type 'int'"));
}

TEST(AttrValueUtilTest, HasTypeNamesBothTypesOnMismatch) {
  EXPECT_THAT(AttrValueHasType(V("i: 1"), "string"),
              StatusIs(kInvalidArgument,
                       "AttrValue had value with type 'int' when 'string' "
                       "expected"));
  EXPECT_THAT(AttrValueHasType(V("list { i: 1 }"), "int"),
              StatusIs(kInvalidArgument,
                       "AttrValue had value with type 'list(int)' when 'int' "
                       "expected"));
  EXPECT_THAT(AttrValueHasType(V("i: 1"), "list(int)"),
              StatusIs(kInvalidArgument,
                       "AttrValue had value with type 'int' when 'list(int)' "
                       "expected"));
  EXPECT_THAT(AttrValueHasType(V("list { i: 1 f: 2 }"), "list(int)"),
              StatusIs(kInvalidArgument,
                       "AttrValue had value with type 'list(float)' when "
                       "'list(int)' expected"));
  EXPECT_THAT(AttrValueHasType(V("placeholder: 'T'"), "type"),
              StatusIs(kInvalidArgument,
                       "AttrValue had value with unexpected type "
                       "'placeholder'"));
}

TEST(AttrValueUtilTest, HasTypeRejectsRefInvalidAndUnknownDataTypes) {
  EXPECT_THAT(AttrValueHasType(V("type: DT_FLOAT_REF"), "type"),
              StatusIs(kInvalidArgument,
                       "AttrValue must not have reference type value of "
                       "float_ref"));
  AttrValue invalid;
  invalid.set_type(DT_INVALID);
  EXPECT_THAT(AttrValueHasType(invalid, "type"),
              StatusIs(kInvalidArgument, "AttrValue has invalid DataType"));
  AttrValue unknown;
  unknown.set_type(static_cast<DataType>(77));
  EXPECT_THAT(
      AttrValueHasType(unknown, "type"),
      StatusIs(kInvalidArgument, "AttrValue has invalid DataType enum: 77"));
  EXPECT_THAT(AttrValueHasType(V("list { type: [DT_INT32, DT_HALF_REF] }"),
                               "list(type)"),
              StatusIs(kInvalidArgument, HasSubstr("half_ref")));
  // Newer TensorFlow types are valid attr values.
  MF_EXPECT_OK(AttrValueHasType(V("type: DT_FLOAT8_E4M3FN"), "type"));
}

// --- ParseAttrValue ----------------------------------------------------------

TEST(AttrValueUtilTest, ParsesTensorFlowSyntaxForEveryType) {
  const struct {
    const char* type;
    const char* text;
    const char* expected;
  } kCases[] = {
      {"string", "'foo'", "s: 'foo'"},
      {"string", "\"a\\nb\"", "s: 'a\\nb'"},
      {"int", "-7", "i: -7"},
      {"float", "1.0", "f: 1"},
      {"float", "-inf", "f: -inf"},
      {"bool", "true", "b: true"},
      {"type", "DT_INT32", "type: DT_INT32"},
      {"shape", "{ dim { size: 1 } dim { size: -1 } }",
       "shape { dim { size: 1 } dim { size: -1 } }"},
      {"tensor", "{ dtype: DT_INT32 int_val: 5 }",
       "tensor { dtype: DT_INT32 int_val: 5 }"},
      {"func", "{ name: 'f' attr { key: 'T' value { type: DT_FLOAT } } }",
       "func { name: 'f' attr { key: 'T' value { type: DT_FLOAT } } }"},
      {"list(int)", "[]", "list { }"},
      {"list(int)", " [ 2, 3, 5, 7 ] ", "list { i: [2, 3, 5, 7] }"},
      {"list(string)", "['a', \"b\"]", "list { s: ['a', 'b'] }"},
      {"list(type)", "[DT_FLOAT, DT_INT64]",
       "list { type: [DT_FLOAT, DT_INT64] }"},
      {"list(shape)", "[{ dim { size: 2 } }, { unknown_rank: true }]",
       "list { shape { dim { size: 2 } } shape { unknown_rank: true } }"},
      {"placeholder", "'T'", "placeholder: 'T'"},
  };
  for (const auto& c : kCases) {
    AttrValue out;
    MF_EXPECT_OK(ParseAttrValueOrError(c.type, c.text, &out));
    EXPECT_EQ(ProtoToText(out), ProtoToText(V(c.expected)))
        << c.type << " " << c.text;
    EXPECT_TRUE(ParseAttrValue(c.type, c.text, &out));
  }
}

TEST(AttrValueUtilTest, ParseRejectsMalformedText) {
  const struct {
    const char* type;
    const char* text;
  } kCases[] = {
      {"int", "'foo'"},
      {"int", "1.5"},
      {"int", "[1]"},
      {"float", "[1.25]"},
      {"type", "float"},
      {"type", "DT_NOPE"},
      {"bool", "yes"},
      {"string", "foo"},
      {"list(int)", "7"},
      {"list(int)", "[7, 'x']"},
      {"list(float)", "[[1]]"},
      {"list(float)", "["},
      {"list(int)", ""},
      {"int", ""},
      {"int", "1 s: 'x'"},
      {"shape", "{ dim { size: 1 }"},
      {"int", "1 } list { i: 2"},
      {"list(int)", "[1] } s: 'x' list { i: [2]"},
  };
  for (const auto& c : kCases) {
    AttrValue out;
    EXPECT_FALSE(ParseAttrValue(c.type, c.text, &out))
        << c.type << " " << c.text << " -> " << out.ShortDebugString();
  }
}

TEST(AttrValueUtilTest, ParseErrorSaysWhatAndWhy) {
  AttrValue out;
  EXPECT_THAT(ParseAttrValueOrError("int", "'foo'", &out),
              StatusIs(kInvalidArgument,
                       HasSubstr("Could not parse ''foo'' as a value of type "
                                 "'int': ")));
  EXPECT_THAT(ParseAttrValueOrError("list(int)", "7", &out),
              StatusIs(kInvalidArgument,
                       "Could not parse '7' as a value of type 'list(int)': a "
                       "list value must be written as [...]"));
  EXPECT_THAT(
      ParseAttrValueOrError("list(list(int))", "[]", &out),
      StatusIs(kInvalidArgument, "Unknown attr type 'list(list(int))'"));
  EXPECT_THAT(ParseAttrValueOrError("complex", "1", &out),
              StatusIs(kInvalidArgument, "Unknown attr type 'complex'"));
}

TEST(AttrValueUtilTest, ParseRefusesDeeplyNestedTensorsWithoutCrashing) {
  // TensorProto nests through variant_val { tensors { ... } }.
  const auto nested = [](int depth) {
    std::string text = "{ ";
    for (int i = 0; i < depth; ++i) text += "variant_val { tensors { ";
    for (int i = 0; i < depth; ++i) text += "} } ";
    return text + "}";
  };
  AttrValue out;
  EXPECT_TRUE(ParseAttrValue("tensor", nested(10), &out));
  EXPECT_FALSE(ParseAttrValue("tensor", nested(100000), &out));
}

// --- SummarizeAttrValue -----------------------------------------------------

TEST(AttrValueUtilTest, SummarizesEveryKindOfValue) {
  EXPECT_EQ(SummarizeAttrValue(V("s: 'a\\nb'")), "\"a\\nb\"");
  EXPECT_EQ(SummarizeAttrValue(V("i: -3")), "-3");
  EXPECT_EQ(SummarizeAttrValue(V("f: 0.5")), "0.5");
  EXPECT_EQ(SummarizeAttrValue(V("b: false")), "false");
  EXPECT_EQ(SummarizeAttrValue(V("type: DT_HALF")), "DT_HALF");
  EXPECT_EQ(SummarizeAttrValue(V("shape { dim { size: 2 } dim { size: -1 } }")),
            "[2,?]");
  EXPECT_EQ(SummarizeAttrValue(V("shape { unknown_rank: true }")), "?");
  EXPECT_EQ(SummarizeAttrValue(V("shape { dim { size: -7 } }")),
            "<invalid shape>");
  EXPECT_EQ(SummarizeAttrValue(V("tensor { dtype: DT_INT32 int_val: 5 }")),
            "Tensor<type: int32 shape: [] values: 5>");
  EXPECT_THAT(SummarizeAttrValue(V("tensor { dtype: DT_INT32 tensor_shape { "
                                   "dim { size: 1 } } int_val: [1, 2] }")),
              HasSubstr("<Invalid TensorProto: "));
  // A tensor too large to decode is described, not decoded.
  EXPECT_EQ(SummarizeAttrValue(V("tensor { dtype: DT_FLOAT tensor_shape { dim "
                                 "{ size: 1000000000 } } float_val: 1 }")),
            "Tensor<type: float shape: [1000000000] values: ...>");
  EXPECT_EQ(SummarizeAttrValue(V("list { i: [1, 2, 3] }")), "[1, 2, 3]");
  EXPECT_EQ(SummarizeAttrValue(V("list { type: [DT_INT32, DT_BOOL] }")),
            "[DT_INT32, DT_BOOL]");
  EXPECT_EQ(SummarizeAttrValue(V("list { }")), "[]");
  EXPECT_EQ(SummarizeAttrValue(V("func { name: 'f' attr { key: 'b' value { "
                                 "i: 1 } } attr { key: 'a' value { b: true } "
                                 "} }")),
            "f[a=true, b=1]");
  EXPECT_EQ(SummarizeAttrValue(V("placeholder: 'T'")), "$T");
  EXPECT_EQ(SummarizeAttrValue(AttrValue()), "<Unknown AttrValue type>");
}

TEST(AttrValueUtilTest, SummaryElidesLongStringsAndLists) {
  AttrValue s;
  SetAttrValue(std::string(100, 'x'), &s);
  EXPECT_EQ(SummarizeAttrValue(s),
            absl::StrCat("\"", std::string(10, 'x'), "...",
                         std::string(10, 'x'), "\""));
  std::vector<int64_t> many(40);
  for (int i = 0; i < 40; ++i) many[i] = i;
  AttrValue l;
  SetAttrValue(many, &l);
  EXPECT_EQ(SummarizeAttrValue(l),
            "[0, 1, 2, 3, 4, ...(30 more)..., 35, 36, 37, 38, 39]");
}

// --- AreAttrValuesEqual -----------------------------------------------------

TEST(AttrValueUtilTest, EqualityIsStructural) {
  EXPECT_TRUE(AreAttrValuesEqual(V("i: 3"), V("i: 3")));
  EXPECT_FALSE(AreAttrValuesEqual(V("i: 3"), V("i: 4")));
  EXPECT_FALSE(AreAttrValuesEqual(V("i: 0"), V("f: 0")));
  EXPECT_FALSE(AreAttrValuesEqual(V("list { }"), AttrValue()));
  EXPECT_TRUE(AreAttrValuesEqual(V("list { s: ['a'] }"), V("list { s: 'a' }")));
  EXPECT_FALSE(
      AreAttrValuesEqual(V("list { i: [1, 2] }"), V("list { i: [2, 1] }")));
}

TEST(AttrValueUtilTest, TensorsCompareByValue) {
  EXPECT_TRUE(AreAttrValuesEqual(
      V("tensor { dtype: DT_INT32 tensor_shape { dim { size: 3 } } int_val: "
        "7 }"),
      V("tensor { dtype: DT_INT32 tensor_shape { dim { size: 3 } } int_val: "
        "[7, 7, 7] }")));
  EXPECT_FALSE(
      AreAttrValuesEqual(V("tensor { dtype: DT_INT32 int_val: 7 }"),
                         V("tensor { dtype: DT_INT64 int64_val: 7 }")));
  EXPECT_TRUE(AreAttrValuesEqual(
      V("list { tensor { dtype: DT_FLOAT float_val: 1 } }"),
      V("list { tensor { dtype: DT_FLOAT float_val: [1] } }")));
  // Huge tensors are not decoded: equal only when written identically.
  const char* huge =
      "tensor { dtype: DT_FLOAT tensor_shape { dim { size: 100000000 } } "
      "float_val: 1 }";
  EXPECT_TRUE(AreAttrValuesEqual(V(huge), V(huge)));
  EXPECT_FALSE(AreAttrValuesEqual(
      V(huge), V("tensor { dtype: DT_FLOAT tensor_shape { dim { size: "
                 "100000000 } } float_val: [1, 1] }")));
}

TEST(AttrValueUtilTest, FunctionsCompareAttrMapsInAnyOrder) {
  AttrValue a =
      V("func { name: 'f' attr { key: 'x' value { i: 1 } } attr { "
        "key: 'y' value { b: true } } }");
  AttrValue b =
      V("func { name: 'f' attr { key: 'y' value { b: true } } attr { "
        "key: 'x' value { i: 1 } } }");
  EXPECT_TRUE(AreAttrValuesEqual(a, b));
  EXPECT_FALSE(AreAttrValuesEqual(a, V("func { name: 'g' }")));
  EXPECT_FALSE(AreAttrValuesEqual(
      a, V("func { name: 'f' attr { key: 'x' value { i: 2 } } attr { key: "
           "'y' value { b: true } } }")));
}

// --- SetAttrValue -----------------------------------------------------------

TEST(AttrValueUtilTest, SetAttrValueCoversScalars) {
  AttrValue v;
  SetAttrValue("abc", &v);
  EXPECT_EQ(v.s(), "abc");
  SetAttrValue(std::string("def"), &v);
  EXPECT_EQ(v.s(), "def");
  SetAttrValue(absl::string_view("ghi"), &v);
  EXPECT_EQ(v.s(), "ghi");
  SetAttrValue(int64_t{1} << 40, &v);
  EXPECT_EQ(v.i(), int64_t{1} << 40);
  SetAttrValue(7, &v);
  EXPECT_EQ(v.i(), 7);
  SetAttrValue(2.5f, &v);
  EXPECT_EQ(v.f(), 2.5f);
  SetAttrValue(0.25, &v);
  EXPECT_EQ(v.f(), 0.25f);
  SetAttrValue(true, &v);
  EXPECT_TRUE(v.b());
  SetAttrValue(DT_BFLOAT16, &v);
  EXPECT_EQ(v.type(), DT_BFLOAT16);
  SetAttrValue(TensorShape({2, 3}), &v);
  EXPECT_EQ(SummarizeAttrValue(v), "[2,3]");
  SetAttrValue(PartialTensorShape({-1, 3}), &v);
  EXPECT_EQ(SummarizeAttrValue(v), "[?,3]");
  SetAttrValue(Tensor(int32_t{4}), &v);
  EXPECT_EQ(SummarizeAttrValue(v), "Tensor<type: int32 shape: [] values: 4>");
  NameAttrList f;
  f.set_name("fn");
  SetAttrValue(f, &v);
  EXPECT_EQ(v.func().name(), "fn");
}

TEST(AttrValueUtilTest, SetAttrValueCoversListsIncludingEmptyOnes) {
  AttrValue v;
  SetAttrValue(std::vector<std::string>{"a", "b"}, &v);
  EXPECT_EQ(SummarizeAttrValue(v), "[\"a\", \"b\"]");
  SetAttrValue(std::vector<int64_t>{}, &v);
  EXPECT_TRUE(v.has_list());
  MF_EXPECT_OK(AttrValueHasType(v, "list(int)"));
  SetAttrValue(std::vector<int32_t>{1, 2}, &v);
  EXPECT_EQ(SummarizeAttrValue(v), "[1, 2]");
  SetAttrValue(std::vector<float>{0.5f}, &v);
  EXPECT_EQ(SummarizeAttrValue(v), "[0.5]");
  SetAttrValue(std::vector<bool>{true, false}, &v);
  EXPECT_EQ(SummarizeAttrValue(v), "[true, false]");
  SetAttrValue(DataTypeVector{DT_FLOAT, DT_INT8}, &v);
  EXPECT_EQ(SummarizeAttrValue(v), "[DT_FLOAT, DT_INT8]");
  SetAttrValue(std::vector<TensorShape>{TensorShape({1}), TensorShape()}, &v);
  EXPECT_EQ(SummarizeAttrValue(v), "[[1], []]");
  SetAttrValue(std::vector<PartialTensorShape>{PartialTensorShape()}, &v);
  EXPECT_EQ(SummarizeAttrValue(v), "[?]");
  SetAttrValue(std::vector<Tensor>{Tensor(1.5f)}, &v);
  EXPECT_EQ(SummarizeAttrValue(v),
            "[Tensor<type: float shape: [] values: 1.5>]");
}

}  // namespace
}  // namespace minflow
