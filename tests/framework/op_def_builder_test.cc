#include "minflow/framework/op_def_builder.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_def_util.h"
#include "minflow/op_def.pb.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::ProtoToText;
using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

// The type lists TensorFlow 2.21 writes for the shortcuts (enum order; see
// tf_ops.pbtxt, e.g. AccumulateNV2 for numbertype).
constexpr char kNumberTypes[] =
    "DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, "
    "DT_COMPLEX64, DT_INT64, DT_QINT8, DT_QUINT8, DT_QINT32, DT_BFLOAT16, "
    "DT_QINT16, DT_QUINT16, DT_UINT16, DT_COMPLEX128, DT_HALF, DT_UINT32, "
    "DT_UINT64";
constexpr char kRealNumberTypes[] =
    "DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_INT64, "
    "DT_BFLOAT16, DT_UINT16, DT_HALF, DT_UINT32, DT_UINT64";
constexpr char kQuantizedTypes[] =
    "DT_QINT8, DT_QUINT8, DT_QINT32, DT_QINT16, DT_QUINT16";

OpDef Finalized(const OpDefBuilder& builder) {
  OpRegistrationData data;
  const Status s = builder.Finalize(&data);
  EXPECT_TRUE(s.ok()) << s;
  return data.op_def;
}

// The builder's OpDef equals `expected` (text format, without the name),
// and it passes the registry's validation.
void ExpectOpDef(const OpDefBuilder& builder, const std::string& expected) {
  const OpDef actual = Finalized(builder);
  MF_EXPECT_OK(ValidateOpDef(actual));
  const OpDef want = ParseTextProtoOrDie<OpDef>(
      absl::StrCat("name: '", builder.op_name(), "' ", expected));
  EXPECT_EQ(ProtoToText(actual), ProtoToText(want));
}

// Finalize fails with exactly `message`.
void ExpectFailure(const OpDefBuilder& builder, const std::string& message) {
  OpRegistrationData data;
  const Status s = builder.Finalize(&data);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, message));
}

OpDefBuilder B() { return OpDefBuilder("Test"); }

// --- TensorFlow's "Create an op" guide, every example ---------------------
// Ops with a unique name go through a registry (and so its validation);
// ZeroOut and MyGeneralUnaryOp have several versions and are built directly.

// The guide's examples with a unique name, registered in a registry of
// their own so that they cannot collide with built-ins of the same name
// (minflow registers Example, for one).
std::vector<OpDefBuilder> GuideBuilders() {
  return {
      OpDefBuilder("Example")
          .Attr("T: numbertype")
          .Input("input: T")
          .Output("input_times_two: T"),
      OpDefBuilder("EnumExample").Attr("e: {'apple', 'orange'}"),
      OpDefBuilder("RestrictedTypeExample").Attr("t: {int32, float, bool}"),
      OpDefBuilder("NumberType").Attr("t: numbertype"),
      OpDefBuilder("NumberOrBooleanType").Attr("t: {numbertype, bool}"),
      OpDefBuilder("MinIntExample").Attr("a: int >= 2"),
      OpDefBuilder("TypeListExample").Attr("a: list({int32, float}) >= 3"),
      OpDefBuilder("AttrDefaultExample").Attr("i: int = 0"),
      OpDefBuilder("AttrConstraintAndDefaultExample").Attr("i: int >= 1 = 1"),
      OpDefBuilder("AttrDefaultExampleForAllTypes")
          .Attr("s: string = 'foo'")
          .Attr("i: int = 0")
          .Attr("f: float = 1.0")
          .Attr("b: bool = true")
          .Attr("ty: type = DT_INT32")
          .Attr("sh: shape = { dim { size: 1 } dim { size: 2 } }")
          .Attr("te: tensor = { dtype: DT_INT32 int_val: 5 }")
          .Attr("l_empty: list(int) = []")
          .Attr("l_int: list(int) = [2, 3, 5, 7]"),
      OpDefBuilder("StringToNumber")
          .Input("string_tensor: string")
          .Output("output: out_type")
          .Attr("out_type: {float, int32} = DT_FLOAT")
          .Doc(R"doc(
Converts each string in the input Tensor to the specified numeric type.
)doc"),
      OpDefBuilder("PolymorphicListExample")
          .Attr("T: list(type)")
          .Input("in: T")
          .Output("out: T"),
      OpDefBuilder("ListTypeRestrictionExample")
          .Attr("T: list({float, double})")
          .Input("in: T")
          .Output("out: T"),
      OpDefBuilder("IntListInputExample")
          .Attr("N: int")
          .Input("in: N * int32")
          .Output("out: int32"),
      OpDefBuilder("SameListInputExample")
          .Attr("N: int")
          .Attr("T: type")
          .Input("in: N * T")
          .Output("out: T"),
      OpDefBuilder("MinLengthIntListExample")
          .Attr("N: int >= 2")
          .Input("in: N * int32")
          .Output("out: int32"),
      OpDefBuilder("MinimumLengthPolymorphicListExample")
          .Attr("T: list(type) >= 3")
          .Input("in: T")
          .Output("out: T"),
      OpDefBuilder("MultipleInsAndOuts")
          .Input("y: int32")
          .Input("z: float")
          .Output("a: string")
          .Output("b: int32"),
      OpDefBuilder("BuiltInTypesExample")
          .Input("integers: int32")
          .Input("complex_numbers: complex64"),
      OpDefBuilder("PolymorphicSingleInput").Attr("T: type").Input("in: T"),
      OpDefBuilder("RestrictedPolymorphicSingleInput")
          .Attr("T: {int32, int64}")
          .Input("in: T"),
      OpDefBuilder("ArbitraryTensorSequenceExample")
          .Attr("T: list(type)")
          .Input("in: T")
          .Output("out: T"),
      OpDefBuilder("RestrictedTensorSequenceExample")
          .Attr("T: list({int32, int64})")
          .Input("in: T")
          .Output("out: T"),
      OpDefBuilder("Int32SequenceExample")
          .Attr("NumTensors: int")
          .Input("in: NumTensors * int32"),
      OpDefBuilder("SameTypeSequenceExample")
          .Attr("NumTensors: int")
          .Attr("T: type")
          .Input("in: NumTensors * T"),
  };
}

const OpRegistry& GuideRegistry() {
  static const OpRegistry* const registry = [] {
    auto* registry = new OpRegistry;
    for (const OpDefBuilder& builder : GuideBuilders()) {
      registry->Register([builder](OpRegistrationData* data) {
        return builder.Finalize(data);
      });
    }
    return registry;
  }();
  return *registry;
}

TEST(OpDefBuilderTest, EveryGuideExampleRegisters) {
  EXPECT_EQ(GuideRegistry().GetRegisteredOps().op_size(), 25);
  for (const OpRegistrationError& e : GuideRegistry().registration_errors()) {
    ADD_FAILURE() << e.status;
  }
}

class GuideExampleTest
    : public ::testing::TestWithParam<std::pair<const char*, std::string>> {};

TEST_P(GuideExampleTest, RegistersTheOpDefTensorFlowGives) {
  const auto& [name, expected] = GetParam();
  const OpDef* op_def = nullptr;
  MF_ASSERT_OK(GuideRegistry().LookUpOpDef(name, &op_def));
  const OpDef want =
      ParseTextProtoOrDie<OpDef>(absl::StrCat("name: '", name, "' ", expected));
  EXPECT_EQ(ProtoToText(*op_def), ProtoToText(want));
}

INSTANTIATE_TEST_SUITE_P(
    OpDefBuilderTest, GuideExampleTest,
    ::testing::Values(
        std::pair{"Example",
                  absl::StrCat("input_arg { name: 'input' type_attr: 'T' } "
                               "output_arg { name: 'input_times_two' "
                               "type_attr: 'T' } "
                               "attr { name: 'T' type: 'type' allowed_values "
                               "{ list { type: [",
                               kNumberTypes, "] } } }")},
        std::pair{"EnumExample",
                  std::string("attr { name: 'e' type: 'string' allowed_values "
                              "{ list { s: ['apple', 'orange'] } } }")},
        std::pair{"RestrictedTypeExample",
                  std::string("attr { name: 't' type: 'type' allowed_values "
                              "{ list { type: [DT_INT32, DT_FLOAT, DT_BOOL] "
                              "} } }")},
        std::pair{"NumberType",
                  absl::StrCat("attr { name: 't' type: 'type' allowed_values "
                               "{ list { type: [",
                               kNumberTypes, "] } } }")},
        std::pair{"NumberOrBooleanType",
                  absl::StrCat("attr { name: 't' type: 'type' allowed_values "
                               "{ list { type: [",
                               kNumberTypes, ", DT_BOOL] } } }")},
        std::pair{"MinIntExample",
                  std::string("attr { name: 'a' type: 'int' has_minimum: true "
                              "minimum: 2 }")},
        std::pair{"TypeListExample",
                  std::string("attr { name: 'a' type: 'list(type)' "
                              "has_minimum: true minimum: 3 allowed_values { "
                              "list { type: [DT_INT32, DT_FLOAT] } } }")},
        std::pair{"AttrDefaultExample",
                  std::string("attr { name: 'i' type: 'int' default_value { "
                              "i: 0 } }")},
        std::pair{"AttrConstraintAndDefaultExample",
                  std::string("attr { name: 'i' type: 'int' default_value { "
                              "i: 1 } has_minimum: true minimum: 1 }")},
        std::pair{
            "AttrDefaultExampleForAllTypes",
            std::string(
                "attr { name: 's' type: 'string' default_value { s: 'foo' } } "
                "attr { name: 'i' type: 'int' default_value { i: 0 } } "
                "attr { name: 'f' type: 'float' default_value { f: 1 } } "
                "attr { name: 'b' type: 'bool' default_value { b: true } } "
                "attr { name: 'ty' type: 'type' default_value { type: "
                "DT_INT32 } } "
                "attr { name: 'sh' type: 'shape' default_value { shape { dim "
                "{ size: 1 } dim { size: 2 } } } } "
                "attr { name: 'te' type: 'tensor' default_value { tensor { "
                "dtype: DT_INT32 int_val: 5 } } } "
                "attr { name: 'l_empty' type: 'list(int)' default_value { "
                "list { } } } "
                "attr { name: 'l_int' type: 'list(int)' default_value { list "
                "{ i: [2, 3, 5, 7] } } }")},
        std::pair{
            "StringToNumber",
            std::string("input_arg { name: 'string_tensor' type: DT_STRING } "
                        "output_arg { name: 'output' type_attr: 'out_type' } "
                        "attr { name: 'out_type' type: 'type' default_value { "
                        "type: DT_FLOAT } allowed_values { list { type: "
                        "[DT_FLOAT, DT_INT32] } } } "
                        "summary: 'Converts each string in the input Tensor to "
                        "the specified numeric type.'")},
        std::pair{"PolymorphicListExample",
                  std::string("input_arg { name: 'in' type_list_attr: 'T' } "
                              "output_arg { name: 'out' type_list_attr: 'T' } "
                              "attr { name: 'T' type: 'list(type)' "
                              "has_minimum: true minimum: 1 }")},
        std::pair{"ListTypeRestrictionExample",
                  std::string("input_arg { name: 'in' type_list_attr: 'T' } "
                              "output_arg { name: 'out' type_list_attr: 'T' } "
                              "attr { name: 'T' type: 'list(type)' "
                              "has_minimum: true minimum: 1 allowed_values { "
                              "list { type: [DT_FLOAT, DT_DOUBLE] } } }")},
        std::pair{"IntListInputExample",
                  std::string("input_arg { name: 'in' type: DT_INT32 "
                              "number_attr: 'N' } "
                              "output_arg { name: 'out' type: DT_INT32 } "
                              "attr { name: 'N' type: 'int' has_minimum: true "
                              "minimum: 1 }")},
        std::pair{"SameListInputExample",
                  std::string("input_arg { name: 'in' type_attr: 'T' "
                              "number_attr: 'N' } "
                              "output_arg { name: 'out' type_attr: 'T' } "
                              "attr { name: 'N' type: 'int' has_minimum: true "
                              "minimum: 1 } attr { name: 'T' type: 'type' }")},
        std::pair{"MinLengthIntListExample",
                  std::string("input_arg { name: 'in' type: DT_INT32 "
                              "number_attr: 'N' } "
                              "output_arg { name: 'out' type: DT_INT32 } "
                              "attr { name: 'N' type: 'int' has_minimum: true "
                              "minimum: 2 }")},
        std::pair{"MinimumLengthPolymorphicListExample",
                  std::string("input_arg { name: 'in' type_list_attr: 'T' } "
                              "output_arg { name: 'out' type_list_attr: 'T' } "
                              "attr { name: 'T' type: 'list(type)' "
                              "has_minimum: true minimum: 3 }")},
        std::pair{"MultipleInsAndOuts",
                  std::string("input_arg { name: 'y' type: DT_INT32 } "
                              "input_arg { name: 'z' type: DT_FLOAT } "
                              "output_arg { name: 'a' type: DT_STRING } "
                              "output_arg { name: 'b' type: DT_INT32 }")},
        std::pair{"BuiltInTypesExample",
                  std::string("input_arg { name: 'integers' type: DT_INT32 } "
                              "input_arg { name: 'complex_numbers' type: "
                              "DT_COMPLEX64 }")},
        std::pair{"PolymorphicSingleInput",
                  std::string("input_arg { name: 'in' type_attr: 'T' } "
                              "attr { name: 'T' type: 'type' }")},
        std::pair{"RestrictedPolymorphicSingleInput",
                  std::string("input_arg { name: 'in' type_attr: 'T' } "
                              "attr { name: 'T' type: 'type' allowed_values { "
                              "list { type: [DT_INT32, DT_INT64] } } }")},
        std::pair{"ArbitraryTensorSequenceExample",
                  std::string("input_arg { name: 'in' type_list_attr: 'T' } "
                              "output_arg { name: 'out' type_list_attr: 'T' } "
                              "attr { name: 'T' type: 'list(type)' "
                              "has_minimum: true minimum: 1 }")},
        std::pair{"RestrictedTensorSequenceExample",
                  std::string("input_arg { name: 'in' type_list_attr: 'T' } "
                              "output_arg { name: 'out' type_list_attr: 'T' } "
                              "attr { name: 'T' type: 'list(type)' "
                              "has_minimum: true minimum: 1 allowed_values { "
                              "list { type: [DT_INT32, DT_INT64] } } }")},
        std::pair{"Int32SequenceExample",
                  std::string("input_arg { name: 'in' type: DT_INT32 "
                              "number_attr: 'NumTensors' } "
                              "attr { name: 'NumTensors' type: 'int' "
                              "has_minimum: true minimum: 1 }")},
        std::pair{"SameTypeSequenceExample",
                  std::string("input_arg { name: 'in' type_attr: 'T' "
                              "number_attr: 'NumTensors' } "
                              "attr { name: 'NumTensors' type: 'int' "
                              "has_minimum: true minimum: 1 } "
                              "attr { name: 'T' type: 'type' }")}),
    [](const auto& info) { return std::string(info.param.first); });

TEST(OpDefBuilderTest, GuideZeroOutInt32Only) {
  ExpectOpDef(
      OpDefBuilder("ZeroOut").Input("to_zero: int32").Output("zeroed: int32"),
      "input_arg { name: 'to_zero' type: DT_INT32 } "
      "output_arg { name: 'zeroed' type: DT_INT32 }");
}

TEST(OpDefBuilderTest, GuideZeroOutWithPreserveIndex) {
  ExpectOpDef(OpDefBuilder("ZeroOut")
                  .Attr("preserve_index: int")
                  .Input("to_zero: int32")
                  .Output("zeroed: int32"),
              "input_arg { name: 'to_zero' type: DT_INT32 } "
              "output_arg { name: 'zeroed' type: DT_INT32 } "
              "attr { name: 'preserve_index' type: 'int' }");
}

TEST(OpDefBuilderTest, GuideZeroOutFloatOrInt32) {
  ExpectOpDef(OpDefBuilder("ZeroOut")
                  .Attr("T: {float, int32}")
                  .Input("to_zero: T")
                  .Output("zeroed: T"),
              "input_arg { name: 'to_zero' type_attr: 'T' } "
              "output_arg { name: 'zeroed' type_attr: 'T' } "
              "attr { name: 'T' type: 'type' allowed_values { list { type: "
              "[DT_FLOAT, DT_INT32] } } }");
}

TEST(OpDefBuilderTest, GuideZeroOutFloatOrInt32DefaultingToInt32) {
  ExpectOpDef(OpDefBuilder("ZeroOut")
                  .Attr("T: {float, int32} = DT_INT32")
                  .Input("to_zero: T")
                  .Output("zeroed: T"),
              "input_arg { name: 'to_zero' type_attr: 'T' } "
              "output_arg { name: 'zeroed' type_attr: 'T' } "
              "attr { name: 'T' type: 'type' default_value { type: DT_INT32 } "
              "allowed_values { list { type: [DT_FLOAT, DT_INT32] } } }");
}

TEST(OpDefBuilderTest, GuideZeroOutFloatDoubleOrInt32) {
  ExpectOpDef(OpDefBuilder("ZeroOut")
                  .Attr("T: {float, double, int32}")
                  .Input("to_zero: T")
                  .Output("zeroed: T"),
              "input_arg { name: 'to_zero' type_attr: 'T' } "
              "output_arg { name: 'zeroed' type_attr: 'T' } "
              "attr { name: 'T' type: 'type' allowed_values { list { type: "
              "[DT_FLOAT, DT_DOUBLE, DT_INT32] } } }");
}

TEST(OpDefBuilderTest, GuideZeroOutRealNumberType) {
  ExpectOpDef(OpDefBuilder("ZeroOut")
                  .Attr("T: realnumbertype")
                  .Input("to_zero: T")
                  .Output("zeroed: T"),
              absl::StrCat("input_arg { name: 'to_zero' type_attr: 'T' } "
                           "output_arg { name: 'zeroed' type_attr: 'T' } "
                           "attr { name: 'T' type: 'type' allowed_values { "
                           "list { type: [",
                           kRealNumberTypes, "] } } }"));
}

TEST(OpDefBuilderTest, GuideMyGeneralUnaryOpBothVersionsAreCompatible) {
  const OpDef v1 = Finalized(
      OpDefBuilder("MyGeneralUnaryOp").Input("in: float").Output("out: float"));
  ExpectOpDef(
      OpDefBuilder("MyGeneralUnaryOp").Input("in: float").Output("out: float"),
      "input_arg { name: 'in' type: DT_FLOAT } "
      "output_arg { name: 'out' type: DT_FLOAT }");
  const OpDefBuilder v2_builder = OpDefBuilder("MyGeneralUnaryOp")
                                      .Input("in: T")
                                      .Output("out: T")
                                      .Attr("T: numerictype = DT_FLOAT");
  ExpectOpDef(v2_builder,
              absl::StrCat("input_arg { name: 'in' type_attr: 'T' } "
                           "output_arg { name: 'out' type_attr: 'T' } "
                           "attr { name: 'T' type: 'type' default_value { "
                           "type: DT_FLOAT } allowed_values { list { type: [",
                           kNumberTypes, "] } } }"));
  // The guide's point: the polymorphic version keeps old graphs working.
  MF_EXPECT_OK(OpDefCompatible(v1, Finalized(v2_builder)));
}

// --- Attr specs ------------------------------------------------------------

TEST(OpDefBuilderTest, AttrAcceptsEveryTypeAndWhitespace) {
  ExpectOpDef(B().Attr("a:string"), "attr { name: 'a' type: 'string' }");
  ExpectOpDef(B().Attr("A: int"), "attr { name: 'A' type: 'int' }");
  ExpectOpDef(B().Attr("a1 :float"), "attr { name: 'a1' type: 'float' }");
  ExpectOpDef(B().Attr("a_a : bool"), "attr { name: 'a_a' type: 'bool' }");
  ExpectOpDef(B().Attr("aB  :  type"), "attr { name: 'aB' type: 'type' }");
  ExpectOpDef(B().Attr("aB_3\t: shape"), "attr { name: 'aB_3' type: 'shape' }");
  ExpectOpDef(B().Attr("t: tensor"), "attr { name: 't' type: 'tensor' }");
  ExpectOpDef(B().Attr("f: func"), "attr { name: 'f' type: 'func' }");
  ExpectOpDef(B().Attr("XYZ\t:\tlist(type)"),
              "attr { name: 'XYZ' type: 'list(type)' }");
  for (const char* type :
       {"string", "int", "float", "bool", "type", "shape", "tensor", "func"}) {
    ExpectOpDef(B().Attr(absl::StrCat("l: list ( ", type, " )")),
                absl::StrCat("attr { name: 'l' type: 'list(", type, ")' }"));
  }
}

TEST(OpDefBuilderTest, RejectsMalformedAttrNames) {
  ExpectFailure(B().Attr("_:string"),
                "Trouble parsing '<name>:' from Attr(\"_:string\") for Op "
                "Test");
  ExpectFailure(B().Attr("9:string"),
                "Trouble parsing '<name>:' from Attr(\"9:string\") for Op "
                "Test");
  ExpectFailure(B().Attr(":string"),
                "Trouble parsing '<name>:' from Attr(\":string\") for Op Test");
  ExpectFailure(B().Attr("string"),
                "Trouble parsing '<name>:' from Attr(\"string\") for Op Test");
}

TEST(OpDefBuilderTest, RejectsUnknownAttrTypes) {
  ExpectFailure(B().Attr("a:invalid"),
                "Trouble parsing type string at 'invalid' from "
                "Attr(\"a:invalid\") for Op Test");
  ExpectFailure(B().Attr("b:"),
                "Trouble parsing type string at '' from Attr(\"b:\") for Op "
                "Test");
  ExpectFailure(B().Attr("a: int32"),
                "Extra '32' unparsed at the end from Attr(\"a: int32\") for "
                "Op Test");
}

TEST(OpDefBuilderTest, RejectsNestedLists) {
  ExpectFailure(B().Attr("a: list(list(int))"),
                "Trouble parsing type string at 'list(int))' from "
                "Attr(\"a: list(list(int))\") for Op Test");
  ExpectFailure(B().Attr("a: list(int"),
                "Expected ) to close 'list(', not: '' from Attr(\"a: "
                "list(int\") for Op Test");
}

TEST(OpDefBuilderTest, ExpandsTypeShortcutsInTensorFlowOrder) {
  ExpectOpDef(B().Attr("a: numbertype"),
              absl::StrCat("attr { name: 'a' type: 'type' allowed_values { "
                           "list { type: [",
                           kNumberTypes, "] } } }"));
  ExpectOpDef(B().Attr("a: numerictype"),
              absl::StrCat("attr { name: 'a' type: 'type' allowed_values { "
                           "list { type: [",
                           kNumberTypes, "] } } }"));
  ExpectOpDef(B().Attr("a: realnumbertype"),
              absl::StrCat("attr { name: 'a' type: 'type' allowed_values { "
                           "list { type: [",
                           kRealNumberTypes, "] } } }"));
  ExpectOpDef(B().Attr("a: quantizedtype"),
              absl::StrCat("attr { name: 'a' type: 'type' allowed_values { "
                           "list { type: [",
                           kQuantizedTypes, "] } } }"));
  ExpectOpDef(B().Attr("a: list(realnumbertype)"),
              absl::StrCat("attr { name: 'a' type: 'list(type)' "
                           "allowed_values { list { type: [",
                           kRealNumberTypes, "] } } }"));
  ExpectOpDef(B().Attr("a: {realnumbertype, qint8}"),
              absl::StrCat("attr { name: 'a' type: 'type' allowed_values { "
                           "list { type: [",
                           kRealNumberTypes, ", DT_QINT8] } } }"));
}

TEST(OpDefBuilderTest, ParsesTypeSets) {
  ExpectOpDef(B().Attr("a:{string,int32}"),
              "attr { name: 'a' type: 'type' allowed_values { list { type: "
              "[DT_STRING, DT_INT32] } } }");
  ExpectOpDef(B().Attr("a: { float , complex64 } "),
              "attr { name: 'a' type: 'type' allowed_values { list { type: "
              "[DT_FLOAT, DT_COMPLEX64] } } }");
  ExpectOpDef(B().Attr("a: {float, complex64,} "),
              "attr { name: 'a' type: 'type' allowed_values { list { type: "
              "[DT_FLOAT, DT_COMPLEX64] } } }");
  // TensorFlow's aliases and newer types are spelled as TensorFlow does.
  ExpectOpDef(B().Attr("a: {float32, float64, float16, int4, float8_e5m2}"),
              "attr { name: 'a' type: 'type' allowed_values { list { type: "
              "[DT_FLOAT, DT_DOUBLE, DT_HALF, DT_INT4, DT_FLOAT8_E5M2] } } }");
  ExpectOpDef(B().Attr("a: list({float, string, bool})"),
              "attr { name: 'a' type: 'list(type)' allowed_values { list { "
              "type: [DT_FLOAT, DT_STRING, DT_BOOL] } } }");
}

TEST(OpDefBuilderTest, RejectsMalformedTypeSets) {
  ExpectFailure(B().Attr("a:{}"),
                "Trouble parsing type string at '}' from Attr(\"a:{}\") for "
                "Op Test");
  ExpectFailure(B().Attr("a:{,}"),
                "Trouble parsing type string at ',}' from Attr(\"a:{,}\") for "
                "Op Test");
  ExpectFailure(B().Attr("a:{invalid}"),
                "Unrecognized type string 'invalid' from "
                "Attr(\"a:{invalid}\") for Op Test");
  ExpectFailure(B().Attr("a:{Float}"),
                "Trouble parsing type string at 'Float}' from "
                "Attr(\"a:{Float}\") for Op Test");
  ExpectFailure(B().Attr("a:{\"str\", float}"),
                "Trouble parsing allowed string at 'float}' from "
                "Attr(\"a:{\"str\", float}\") for Op Test");
  ExpectFailure(B().Attr("a:{ float, \"str\" }"),
                "Trouble parsing type string at '\"str\" }' from Attr(\"a:{ "
                "float, \"str\" }\") for Op Test");
  ExpectFailure(B().Attr("a:{float,,string}"),
                "Trouble parsing type string at ',string}' from "
                "Attr(\"a:{float,,string}\") for Op Test");
  ExpectFailure(B().Attr("a:{float int32}"),
                "Expected , or } after types in list, not: 'int32}' from "
                "Attr(\"a:{float int32}\") for Op Test");
}

TEST(OpDefBuilderTest, ParsesStringEnumsWithEitherQuoteAndEscapes) {
  ExpectOpDef(B().Attr(R"(a: { "X", "yz" })"),
              "attr { name: 'a' type: 'string' allowed_values { list { s: "
              "['X', 'yz'] } } }");
  ExpectOpDef(B().Attr(R"(a: { "X", "yz", })"),
              "attr { name: 'a' type: 'string' allowed_values { list { s: "
              "['X', 'yz'] } } }");
  ExpectOpDef(B().Attr(R"(a: list({ 'red fish', 'blue fish' }))"),
              "attr { name: 'a' type: 'list(string)' allowed_values { list { "
              "s: ['red fish', 'blue fish'] } } }");
  ExpectOpDef(B().Attr(R"(a: list({ "single' ", 'double"' }))"),
              "attr { name: 'a' type: 'list(string)' allowed_values { list { "
              "s: [\"single' \", 'double\"'] } } }");
  ExpectOpDef(B().Attr(R"(a: list({ 'escape\'\n', "from\\\"NY" }))"),
              "attr { name: 'a' type: 'list(string)' allowed_values { list { "
              "s: [\"escape'\\n\", 'from\\\\\"NY'] } } }");
  ExpectFailure(B().Attr(R"(a: {'x' 'y'})"),
                "Expected , or } after strings in list, not: ''y'}' from "
                "Attr(\"a: {'x' 'y'}\") for Op Test");
  ExpectFailure(B().Attr(R"(a: {'x)"),
                "Trouble parsing allowed string at ''x' from Attr(\"a: "
                "{'x\") for Op Test");
}

TEST(OpDefBuilderTest, ParsesMinimumsUpToInt64Limits) {
  ExpectOpDef(B().Attr("i: int >= -5"),
              "attr { name: 'i' type: 'int' has_minimum: true minimum: -5 }");
  ExpectOpDef(B().Attr("i: int >= 9223372036854775807"),
              "attr { name: 'i' type: 'int' has_minimum: true minimum: "
              "9223372036854775807 }");
  ExpectOpDef(B().Attr("i: int >= -9223372036854775808"),
              "attr { name: 'i' type: 'int' has_minimum: true minimum: "
              "-9223372036854775808 }");
  ExpectOpDef(B().Attr("i: list(bool) >= 4"),
              "attr { name: 'i' type: 'list(bool)' has_minimum: true minimum: "
              "4 }");
}

TEST(OpDefBuilderTest, RejectsUnparsableOrAbsurdMinimums) {
  ExpectFailure(B().Attr("i: int >= a"),
                "Could not parse integer lower limit after '>=', found ' a' "
                "instead from Attr(\"i: int >= a\") for Op Test");
  ExpectFailure(B().Attr("i: int >= -a"),
                "Could not parse integer lower limit after '>=', found ' -a' "
                "instead from Attr(\"i: int >= -a\") for Op Test");
  ExpectFailure(B().Attr("i: int >= 9223372036854775808"),
                "Could not parse integer lower limit after '>=', found ' "
                "9223372036854775808' instead from Attr(\"i: int >= "
                "9223372036854775808\") for Op Test");
  ExpectFailure(B().Attr("i: int >= -9223372036854775809"),
                "Could not parse integer lower limit after '>=', found ' "
                "-9223372036854775809' instead from Attr(\"i: int >= "
                "-9223372036854775809\") for Op Test");
  // A minimum only makes sense for int and lists.
  ExpectFailure(B().Attr("f: float >= 1"),
                "Extra '>= 1' unparsed at the end from Attr(\"f: float >= "
                "1\") for Op Test");
  // A negative list length is parsed but refused by validation.
  const OpDef op = Finalized(B().Attr("l: list(int) >= -1"));
  EXPECT_THAT(ValidateOpDef(op),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Attr 'l' with list type must have a "
                                 "non-negative minimum, not -1")));
}

TEST(OpDefBuilderTest, ParsesDefaultsOfEveryType) {
  ExpectOpDef(B().Attr(R"(a:string="foo")"),
              "attr { name: 'a' type: 'string' default_value { s: 'foo' } }");
  ExpectOpDef(B().Attr("a:float = 1.25"),
              "attr { name: 'a' type: 'float' default_value { f: 1.25 } }");
  ExpectOpDef(B().Attr("a: bool = false"),
              "attr { name: 'a' type: 'bool' default_value { b: false } }");
  ExpectOpDef(B().Attr("a:shape = { dim { size: -1 } dim { size: 4 } }"),
              "attr { name: 'a' type: 'shape' default_value { shape { dim { "
              "size: -1 } dim { size: 4 } } } }");
  ExpectOpDef(B().Attr("a: shape = { unknown_rank: true }"),
              "attr { name: 'a' type: 'shape' default_value { shape { "
              "unknown_rank: true } } }");
  ExpectOpDef(B().Attr("a: func = { name: 'f' }"),
              "attr { name: 'a' type: 'func' default_value { func { name: 'f' "
              "} } }");
  ExpectOpDef(B().Attr(R"(a:list(string)=["foo", "bar"])"),
              "attr { name: 'a' type: 'list(string)' default_value { list { "
              "s: ['foo', 'bar'] } } }");
  ExpectOpDef(B().Attr("a:list(bool)=[true, false, true]"),
              "attr { name: 'a' type: 'list(bool)' default_value { list { b: "
              "[true, false, true] } } }");
  ExpectOpDef(B().Attr("a:list(int)=[0, -1, 2, -4, 8]"),
              "attr { name: 'a' type: 'list(int)' default_value { list { i: "
              "[0, -1, 2, -4, 8] } } }");
  ExpectOpDef(B().Attr("a:list(int)=[  ]"),
              "attr { name: 'a' type: 'list(int)' default_value { list { } } "
              "}");
  ExpectOpDef(B().Attr("a: list(type) = [DT_INT32, DT_FLOAT]"),
              "attr { name: 'a' type: 'list(type)' default_value { list { "
              "type: [DT_INT32, DT_FLOAT] } } }");
  ExpectOpDef(B().Attr("a: list(shape) = [{ dim { size: 2 } }, {}]"),
              "attr { name: 'a' type: 'list(shape)' default_value { list { "
              "shape { dim { size: 2 } } shape { } } } }");
}

TEST(OpDefBuilderTest, RejectsUnparsableDefaults) {
  ExpectFailure(B().Attr(R"(a:int="foo")"),
                "Could not parse default value '\"foo\"' from "
                "Attr(\"a:int=\"foo\"\") for Op Test");
  ExpectFailure(B().Attr("a:float = [1.25]"),
                "Could not parse default value '[1.25]' from Attr(\"a:float "
                "= [1.25]\") for Op Test");
  ExpectFailure(B().Attr(R"(a:list(int)=[7, "foo"])"),
                "Could not parse default value '[7, \"foo\"]' from "
                "Attr(\"a:list(int)=[7, \"foo\"]\") for Op Test");
  ExpectFailure(B().Attr("a:list(float) = [[1.25]]"),
                "Could not parse default value '[[1.25]]' from "
                "Attr(\"a:list(float) = [[1.25]]\") for Op Test");
  ExpectFailure(B().Attr("a:list(float) = 1.25"),
                "Could not parse default value '1.25' from "
                "Attr(\"a:list(float) = 1.25\") for Op Test");
  ExpectFailure(B().Attr("a:list(string)='foo'"),
                "Could not parse default value ''foo'' from "
                "Attr(\"a:list(string)='foo'\") for Op Test");
  ExpectFailure(B().Attr("a:list(float) = ["),
                "Could not parse default value '[' from Attr(\"a:list(float) "
                "= [\") for Op Test");
  ExpectFailure(B().Attr("a:list(float) = "),
                "Could not parse default value '' from Attr(\"a:list(float) "
                "= \") for Op Test");
  ExpectFailure(B().Attr("a: type = float"),
                "Could not parse default value 'float' from Attr(\"a: type = "
                "float\") for Op Test");
  // A second field smuggled after the value is not a default of this type.
  ExpectFailure(B().Attr("a: int = 1 s: 'x'"),
                "Could not parse default value '1 s: 'x'' from Attr(\"a: int "
                "= 1 s: 'x'\") for Op Test");
}

TEST(OpDefBuilderTest, RejectsDefaultsThatBreakTheirOwnConstraint) {
  ExpectFailure(B().Attr("i: int >= 1 = 0"),
                "Default value 0 does not satisfy the attr's own constraints: "
                "Value for attr 'i' of 0 must be at least minimum 1 from "
                "Attr(\"i: int >= 1 = 0\") for Op Test");
  ExpectFailure(B().Attr("t: {float, int32} = DT_BOOL"),
                "Default value DT_BOOL does not satisfy the attr's own "
                "constraints: Value for attr 't' of bool is not in the list "
                "of allowed values: float, int32 from Attr(\"t: {float, "
                "int32} = DT_BOOL\") for Op Test");
  ExpectFailure(B().Attr("e: {'a', 'b'} = 'c'"),
                "Default value \"c\" does not satisfy the attr's own "
                "constraints: Value for attr 'e' of \"c\" is not in the list "
                "of allowed values: \"a\", \"b\" from Attr(\"e: {'a', 'b'} = "
                "'c'\") for Op Test");
  ExpectFailure(B().Attr("l: list(int) >= 2 = [1]"),
                "Default value [1] does not satisfy the attr's own "
                "constraints: Length for attr 'l' of 1 must be at least "
                "minimum 2 from Attr(\"l: list(int) >= 2 = [1]\") for Op "
                "Test");
  ExpectFailure(B().Attr("t: type = DT_FLOAT_REF"),
                "Default value DT_FLOAT_REF does not satisfy the attr's own "
                "constraints: AttrValue must not have reference type value "
                "of float_ref\n\t for attr 't' from Attr(\"t: type = "
                "DT_FLOAT_REF\") for Op Test");
}

// --- Input and output specs --------------------------------------------------

TEST(OpDefBuilderTest, ParsesConcreteAndRefArgsInOrder) {
  ExpectOpDef(B().Input("a: int32"), "input_arg { name: 'a' type: DT_INT32 }");
  ExpectOpDef(B().Output("b: string"),
              "output_arg { name: 'b' type: DT_STRING }");
  ExpectOpDef(B().Input("c: float  "),
              "input_arg { name: 'c' type: DT_FLOAT }");
  ExpectOpDef(B().Output("d: Ref  (  bool ) "),
              "output_arg { name: 'd' type: DT_BOOL is_ref: true }");
  ExpectOpDef(B().Input("a: bool")
                  .Output("c: complex64")
                  .Input("b: int64")
                  .Output("d: string"),
              "input_arg { name: 'a' type: DT_BOOL } "
              "input_arg { name: 'b' type: DT_INT64 } "
              "output_arg { name: 'c' type: DT_COMPLEX64 } "
              "output_arg { name: 'd' type: DT_STRING }");
  ExpectOpDef(B().Input("a: float32"),
              "input_arg { name: 'a' type: DT_FLOAT }");
}

TEST(OpDefBuilderTest, ParsesPolymorphicAndListArgs) {
  ExpectOpDef(B().Input("a: foo").Attr("foo: type"),
              "input_arg { name: 'a' type_attr: 'foo' } "
              "attr { name: 'foo' type: 'type' }");
  ExpectOpDef(B().Output("a: foo").Attr("foo: { bool, int32 }"),
              "output_arg { name: 'a' type_attr: 'foo' } "
              "attr { name: 'foo' type: 'type' allowed_values { list { type: "
              "[DT_BOOL, DT_INT32] } } }");
  ExpectOpDef(B().Input("a: n * int32").Attr("n: int"),
              "input_arg { name: 'a' number_attr: 'n' type: DT_INT32 } "
              "attr { name: 'n' type: 'int' has_minimum: true minimum: 1 }");
  ExpectOpDef(B().Output("b: n * foo").Attr("n: int").Attr("foo: type"),
              "output_arg { name: 'b' number_attr: 'n' type_attr: 'foo' } "
              "attr { name: 'n' type: 'int' has_minimum: true minimum: 1 } "
              "attr { name: 'foo' type: 'type' }");
  ExpectOpDef(B().Input("c: foo").Attr("foo: list(type)"),
              "input_arg { name: 'c' type_list_attr: 'foo' } "
              "attr { name: 'foo' type: 'list(type)' has_minimum: true "
              "minimum: 1 }");
  ExpectOpDef(B().Input("a: Ref(N * T)").Attr("N: int").Attr("T: type"),
              "input_arg { name: 'a' type_attr: 'T' number_attr: 'N' is_ref: "
              "true } attr { name: 'N' type: 'int' has_minimum: true minimum: "
              "1 } attr { name: 'T' type: 'type' }");
}

TEST(OpDefBuilderTest, ExplicitMinimumOverridesTheImplicitOne) {
  ExpectOpDef(B().Input("values: num_values * dtype")
                  .Output("output: anything")
                  .Attr("anything: list(type) >= 0")
                  .Attr("dtype: type")
                  .Attr("num_values: int >= 0"),
              "input_arg { name: 'values' type_attr: 'dtype' number_attr: "
              "'num_values' } "
              "output_arg { name: 'output' type_list_attr: 'anything' } "
              "attr { name: 'anything' type: 'list(type)' has_minimum: true "
              "minimum: 0 } "
              "attr { name: 'dtype' type: 'type' } "
              "attr { name: 'num_values' type: 'int' has_minimum: true "
              "minimum: 0 }");
}

TEST(OpDefBuilderTest, RejectsMalformedArgSpecs) {
  ExpectFailure(B().Input("9: int32"),
                "Trouble parsing 'name:' from Input(\"9: int32\") for Op Test");
  ExpectFailure(B().Output("_: int32"),
                "Trouble parsing 'name:' from Output(\"_: int32\") for Op "
                "Test");
  ExpectFailure(B().Input(": int32"),
                "Trouble parsing 'name:' from Input(\": int32\") for Op Test");
  ExpectFailure(B().Output("int32"),
                "Trouble parsing 'name:' from Output(\"int32\") for Op Test");
  ExpectFailure(B().Input("CAPS: int32"),
                "Trouble parsing 'name:' from Input(\"CAPS: int32\") for Op "
                "Test");
  ExpectFailure(B().Input("_underscore: int32"),
                "Trouble parsing 'name:' from Input(\"_underscore: int32\") "
                "for Op Test");
  ExpectFailure(B().Input("0digit: int32"),
                "Trouble parsing 'name:' from Input(\"0digit: int32\") for Op "
                "Test");
  ExpectFailure(B().Input("a: _"),
                "Trouble parsing either a type or an attr name at '_' from "
                "Input(\"a: _\") for Op Test");
  ExpectFailure(B().Input("a: 9"),
                "Trouble parsing either a type or an attr name at '9' from "
                "Input(\"a: 9\") for Op Test");
  ExpectFailure(B().Input("a: 9 * int32"),
                "Trouble parsing either a type or an attr name at '9 * int32' "
                "from Input(\"a: 9 * int32\") for Op Test");
  ExpectFailure(B().Input("a: x * _").Attr("x: type"),
                "Extra '* _' unparsed at the end from Input(\"a: x * _\") for "
                "Op Test");
  ExpectFailure(B().Input("a: x * y extra").Attr("x: int").Attr("y: type"),
                "Extra 'extra' unparsed at the end from Input(\"a: x * y "
                "extra\") for Op Test");
  ExpectFailure(B().Input("a: Ref(int32"),
                "Did not find closing ')' for 'Ref(', instead found: '' from "
                "Input(\"a: Ref(int32\") for Op Test");
  ExpectFailure(B().Input("a: Ref"),
                "Reference to unknown attr 'Ref' from Input(\"a: Ref\") for "
                "Op Test");
  ExpectFailure(B().Input("a: Ref(x y").Attr("x: type"),
                "Did not find closing ')' for 'Ref(', instead found: 'y' from "
                "Input(\"a: Ref(x y\") for Op Test");
  ExpectFailure(B().Input("a: x * y").Attr("x: int"),
                "Reference to unknown attr 'y' from Input(\"a: x * y\") for "
                "Op Test");
  ExpectFailure(B().Input("a: x").Attr("x: int"),
                "Reference to attr 'x' with type int that isn't type or "
                "list(type) from Input(\"a: x\") for Op Test");
  ExpectFailure(B().Input("a: n * float").Attr("n: type"),
                "Length attr 'n' has type type, not int from Input(\"a: n * "
                "float\") for Op Test");
  ExpectFailure(B().Input("a: n * float"),
                "Reference to unknown attr 'n' from Input(\"a: n * float\") "
                "for Op Test");
}

TEST(OpDefBuilderTest, RejectsUnknownTypesAndUndeclaredAttrs) {
  ExpectFailure(B().Input("a: float128"),
                "Reference to unknown attr 'float128' from Input(\"a: "
                "float128\") for Op Test");
  ExpectFailure(B().Output("y: T"),
                "Reference to unknown attr 'T' from Output(\"y: T\") for Op "
                "Test");
  // Type names are case sensitive, as in TensorFlow.
  ExpectFailure(B().Input("a: Float"),
                "Reference to unknown attr 'Float' from Input(\"a: Float\") "
                "for Op Test");
}

TEST(OpDefBuilderTest, RejectsDuplicateNames) {
  ExpectFailure(B().Attr("a: int").Attr("a: float"),
                "Duplicate name 'a' from Attr(\"a: float\") for Op Test");
  ExpectFailure(B().Input("x: float").Input("x: int32"),
                "Duplicate name 'x' from Input(\"x: int32\") for Op Test");
  ExpectFailure(B().Input("x: float").Output("x: float"),
                "Duplicate name 'x' from Output(\"x: float\") for Op Test");
  ExpectFailure(B().Attr("x: int").Input("x: float"),
                "Duplicate name 'x' from Input(\"x: float\") for Op Test");
}

TEST(OpDefBuilderTest, ReportsEveryErrorNotJustTheFirst) {
  ExpectFailure(B().Attr("9: int").Input("x: nope").SetIsStateful(),
                "Trouble parsing '<name>:' from Attr(\"9: int\") for Op Test\n"
                "Reference to unknown attr 'nope' from Input(\"x: nope\") for "
                "Op Test");
}

TEST(OpDefBuilderTest, EveryTruncatedSpecParsesOrNamesTheSpec) {
  const std::string attr = "a: list({'x', \"y\\n\"}) >= 1 = ['x', \"y\\n\"]";
  for (size_t n = 0; n <= attr.size(); ++n) {
    const std::string spec = attr.substr(0, n);
    OpRegistrationData data;
    const Status s = OpDefBuilder("Test").Attr(spec).Finalize(&data);
    if (!s.ok()) {
      EXPECT_THAT(
          std::string(s.message()),
          HasSubstr(absl::StrCat("from Attr(\"", spec, "\") for Op Test")));
    }
  }
  const std::string input = "a: Ref(N * T)";
  for (size_t n = 0; n <= input.size(); ++n) {
    const std::string spec = input.substr(0, n);
    OpRegistrationData data;
    const Status s = OpDefBuilder("Test")
                         .Attr("N: int")
                         .Attr("T: type")
                         .Input(spec)
                         .Finalize(&data);
    if (!s.ok()) {
      EXPECT_THAT(
          std::string(s.message()),
          HasSubstr(absl::StrCat("from Input(\"", spec, "\") for Op Test")));
    }
  }
}

TEST(OpDefBuilderTest, UnusedTypeAttrIsAllowedAsInTensorFlow) {
  // VarHandleOp has such an attr; LintOpDef flags it instead.
  ExpectOpDef(B().Attr("dtype: type").Output("h: resource"),
              "output_arg { name: 'h' type: DT_RESOURCE } "
              "attr { name: 'dtype' type: 'type' } is_stateful: true");
}

// --- Flags, docs, shape functions --------------------------------------------

TEST(OpDefBuilderTest, SettersSetTheirFlags) {
  ExpectOpDef(B().SetIsStateful(), "is_stateful: true");
  ExpectOpDef(B().SetIsCommutative().SetIsAggregate(),
              "is_commutative: true is_aggregate: true");
  ExpectOpDef(B().SetAllowsUninitializedInput(),
              "allows_uninitialized_input: true");
  ExpectOpDef(B().SetIsDistributedCommunication(),
              "is_distributed_communication: true");
}

TEST(OpDefBuilderTest, ResourceArgMakesTheOpStateful) {
  ExpectOpDef(B().Input("a: resource"),
              "input_arg { name: 'a' type: DT_RESOURCE } is_stateful: true");
}

TEST(OpDefBuilderTest, DeprecatedRecordsVersionAndRejectsASecondCall) {
  ExpectOpDef(B().Deprecated(8, "Use Bar instead"),
              "deprecation { version: 8 explanation: 'Use Bar instead' }");
  ExpectFailure(B().Deprecated(8, "a").Deprecated(9, "b"),
                "Deprecated called twice for Op Test");
}

TEST(OpDefBuilderTest, ControlOutputsAreNamedAndUnique) {
  ExpectOpDef(B().ControlOutput("done").ControlOutput("flushed"),
              "control_output: ['done', 'flushed']");
  ExpectFailure(B().ControlOutput("9x"),
                "Trouble parsing 'name' from ControlOutput(\"9x\") for Op "
                "Test");
  ExpectFailure(B().ControlOutput("a").ControlOutput("a"),
                "Duplicate name 'a' from ControlOutput(\"a\") for Op Test");
}

TEST(OpDefBuilderTest, DocSplitsSummaryDescriptionAndArgDocs) {
  ExpectOpDef(
      B().Input("concat_dim: int32")
          .Input("values: num_values * dtype")
          .Output("output: dtype")
          .Attr("dtype: type")
          .Attr("num_values: int >= 2")
          .Doc(R"doc(
Concatenate N Tensors along one dimension.

Longer text,
over two lines.

concat_dim: The (scalar) dimension along which to concatenate.  Must be
  in the range [0, rank(values...)).
values: The N Tensors to concatenate.
output: A Tensor with the concatenation of values stacked along the
    concat_dim dimension.
  Less indented.
num_values: How many.
)doc"),
      R"pb(
        input_arg {
          name: "concat_dim"
          description: "The (scalar) dimension along which to concatenate.  Must be\nin the range [0, rank(values...))."
          type: DT_INT32
        }
        input_arg {
          name: "values"
          description: "The N Tensors to concatenate."
          type_attr: "dtype"
          number_attr: "num_values"
        }
        output_arg {
          name: "output"
          description: "A Tensor with the concatenation of values stacked along the\n  concat_dim dimension.\nLess indented."
          type_attr: "dtype"
        }
        attr { name: "dtype" type: "type" }
        attr {
          name: "num_values"
          type: "int"
          description: "How many."
          has_minimum: true
          minimum: 2
        }
        summary: "Concatenate N Tensors along one dimension."
        description: "Longer text,\nover two lines."
      )pb");
}

TEST(OpDefBuilderTest, DocRejectsUnknownNamesAndASecondCall) {
  ExpectFailure(B().Input("a: int32").Doc("Summary\n\na: For a.\nb: No b.\n"),
                "No matching input/output/attr for name 'b' from Doc() for Op "
                "Test");
  ExpectFailure(B().Doc("What's").Doc("up, doc?"),
                "Extra call to Doc() for Op Test");
}

TEST(OpDefBuilderTest, KeepsTheShapeFunctionAndRejectsASecond) {
  const auto fn = [](shape_inference::InferenceContext*) {
    return errors::Unknown("shape fn was called");
  };
  OpRegistrationData data;
  MF_ASSERT_OK(B().SetShapeFn(fn).Finalize(&data));
  ASSERT_TRUE(data.shape_inference_fn != nullptr);
  EXPECT_THAT(data.shape_inference_fn(nullptr),
              StatusIs(absl::StatusCode::kUnknown, "shape fn was called"));
  ExpectFailure(B().SetShapeFn(fn).SetShapeFn(fn),
                "SetShapeFn called twice for Op Test");
}

TEST(OpDefBuilderTest, FinalizeIsRepeatable) {
  const OpDefBuilder builder = B().Attr("T: type").Input("x: T");
  EXPECT_EQ(ProtoToText(Finalized(builder)), ProtoToText(Finalized(builder)));
}

}  // namespace
}  // namespace minflow
