#include "minflow/framework/op_def_util.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "minflow/attr_value.pb.h"
#include "minflow/framework/op_def_builder.h"
#include "minflow/op_def.pb.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr auto kInvalidArgument = absl::StatusCode::kInvalidArgument;

OpDef FromText(const std::string& text) {
  return ParseTextProtoOrDie<OpDef>(text);
}

OpDef Build(const OpDefBuilder& builder) {
  OpRegistrationData data;
  const Status s = builder.Finalize(&data);
  EXPECT_TRUE(s.ok()) << s;
  return data.op_def;
}

OpDefBuilder Op() { return OpDefBuilder("Op"); }

// --- TensorFlow's own op list ------------------------------------------------

// Parses tf_ops.pbtxt strictly (an unknown field is an error, so minflow's
// protos must carry every field TensorFlow writes); false when absent.
bool LoadTfOps(OpList* ops, std::string* error) {
  std::ifstream file(MINFLOW_TF_OPS_PBTXT);
  if (!file) return false;
  std::stringstream buffer;
  buffer << file.rdbuf();
  class Collector : public google::protobuf::io::ErrorCollector {
   public:
    explicit Collector(std::string* out) : out_(out) {}
    void AddError(int line, int column, const std::string& message) override {
      absl::StrAppend(out_, line + 1, ":", column + 1, ": ", message, "\n");
    }
    std::string* out_;
  } collector(error);
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&collector);
  if (!parser.ParseFromString(buffer.str(), ops) && error->empty()) {
    *error = "parse failed";
  }
  return true;
}

class TfOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(LoadTfOps(&ops_, &error))
        << "TensorFlow's op list is missing: " << MINFLOW_TF_OPS_PBTXT;
    ASSERT_THAT(error, IsEmpty()) << "tf_ops.pbtxt does not parse strictly";
  }
  OpList ops_;
};

TEST_F(TfOpsTest, EveryTensorFlowOpIsValid) {
  EXPECT_EQ(ops_.op_size(), 1563);
  int checked = 0;
  for (const OpDef& op : ops_.op()) {
    MF_EXPECT_OK(ValidateOpDef(op));
    MF_EXPECT_OK(OpDefCompatible(op, op));
    ++checked;
  }
  EXPECT_EQ(checked, ops_.op_size());
}

TEST_F(TfOpsTest, UsesTheNewestOpDefFields) {
  bool deprecation = false, distributed = false, full_type = false;
  for (const OpDef& op : ops_.op()) {
    deprecation |= op.has_deprecation();
    distributed |= op.is_distributed_communication();
    for (const auto& arg : op.output_arg()) {
      full_type |= arg.has_experimental_full_type();
    }
  }
  EXPECT_TRUE(deprecation);
  EXPECT_TRUE(distributed);
  EXPECT_TRUE(full_type);
}

TEST_F(TfOpsTest, TypeShortcutsMatchTensorFlowsExpansions) {
  // Each shortcut's list appears verbatim among TensorFlow's allowed values.
  for (DataTypeSlice shortcut :
       {NumberTypes(), RealNumberTypes(), QuantizedTypes()}) {
    bool found = false;
    for (const OpDef& op : ops_.op()) {
      for (const auto& attr : op.attr()) {
        const auto& types = attr.allowed_values().list().type();
        found |= std::equal(types.begin(), types.end(), shortcut.begin(),
                            shortcut.end());
      }
    }
    EXPECT_TRUE(found) << DataTypeSliceString(shortcut);
  }
}

TEST_F(TfOpsTest, LintFlagsOnlyAttrsThatCanNeverBeInferred) {
  for (const OpDef& op : ops_.op()) {
    if (op.name() == "VarHandleOp") {
      EXPECT_THAT(LintOpDef(op),
                  ElementsAre(HasSubstr("attr 'dtype: type' is not used")));
    }
  }
}

// --- ValidateOpDef -----------------------------------------------------------

TEST(OpDefUtilTest, ValidateOpDefRequiresCamelCaseNames) {
  MF_EXPECT_OK(ValidateOpDef(FromText("name: 'Ns>SubOp'")));
  MF_EXPECT_OK(ValidateOpDef(FromText("name: '_internal_op'")));
  for (const char* bad : {"lower", "Has-Dash", "", "A>b", "A>", "9Lives"}) {
    EXPECT_THAT(ValidateOpDef(FromText(absl::StrCat("name: '", bad, "'"))),
                StatusIs(kInvalidArgument,
                         HasSubstr(absl::StrCat("Invalid name: ", bad,
                                                " (Did you use CamelCase?)"))))
        << bad;
  }
}

TEST(OpDefUtilTest, ValidateOpDefRejectsDuplicateNames) {
  EXPECT_THAT(
      ValidateOpDef(FromText("name: 'X' attr { name: 'a' type: 'int' } "
                             "attr { name: 'a' type: 'int' }")),
      StatusIs(kInvalidArgument, HasSubstr("Duplicate name: a; in OpDef: ")));
  EXPECT_THAT(ValidateOpDef(FromText("name: 'X' input_arg { name: 'a' type: "
                                     "DT_INT32 } output_arg { name: 'a' "
                                     "type: DT_INT32 }")),
              StatusIs(kInvalidArgument, HasSubstr("Duplicate name: a")));
  EXPECT_THAT(ValidateOpDef(FromText("name: 'X' attr { name: 'T' type: "
                                     "'type' } input_arg { name: 'T' "
                                     "type_attr: 'T' }")),
              StatusIs(kInvalidArgument, HasSubstr("Duplicate name: T")));
}

TEST(OpDefUtilTest, ValidateOpDefRejectsMalformedArgAndAttrNames) {
  EXPECT_THAT(ValidateOpDef(FromText("name: 'X' attr { name: '9a' type: "
                                     "'int' }")),
              StatusIs(kInvalidArgument,
                       HasSubstr("Invalid name '9a' for attr: must start "
                                 "with a letter")));
  EXPECT_THAT(ValidateOpDef(FromText("name: 'X' input_arg { name: 'a-b' "
                                     "type: DT_FLOAT }")),
              StatusIs(kInvalidArgument,
                       HasSubstr("Invalid name 'a-b' for input 'a-b'")));
  EXPECT_THAT(ValidateOpDef(FromText("name: 'X' attr { name: 'float' type: "
                                     "'int' }")),
              StatusIs(kInvalidArgument,
                       HasSubstr("Attr can't have name float that matches a "
                                 "data type")));
  // Case matters: TensorFlow's type names are lowercase.
  MF_EXPECT_OK(
      ValidateOpDef(FromText("name: 'X' attr { name: 'Float' type: "
                             "'int' }")));
}

TEST(OpDefUtilTest, ValidateOpDefRejectsUnknownAttrTypes) {
  EXPECT_THAT(ValidateOpDef(FromText("name: 'X' attr { name: 'a' type: "
                                     "'foo' }")),
              StatusIs(kInvalidArgument,
                       HasSubstr("Unrecognized type 'foo' in attr 'a'")));
  EXPECT_THAT(ValidateOpDef(FromText("name: 'X' attr { name: 'a' type: "
                                     "'list(int' }")),
              StatusIs(kInvalidArgument,
                       HasSubstr("'list(' is missing ')' in attr a's type "
                                 "list(int")));
  EXPECT_THAT(ValidateOpDef(FromText("name: 'X' attr { name: 'a' type: "
                                     "'intx' }")),
              StatusIs(kInvalidArgument,
                       HasSubstr("Extra 'x' at the end of attr a's type "
                                 "intx")));
}

TEST(OpDefUtilTest, ValidateOpDefChecksMinimums) {
  EXPECT_THAT(ValidateOpDef(FromText("name: 'X' attr { name: 'a' type: "
                                     "'float' has_minimum: true }")),
              StatusIs(kInvalidArgument,
                       HasSubstr("Attr 'a' has minimum for unsupported type "
                                 "float")));
  EXPECT_THAT(ValidateOpDef(FromText("name: 'X' attr { name: 'a' type: "
                                     "'list(int)' has_minimum: true minimum: "
                                     "-2 }")),
              StatusIs(kInvalidArgument,
                       HasSubstr("Attr 'a' with list type must have a "
                                 "non-negative minimum, not -2")));
  EXPECT_THAT(ValidateOpDef(FromText("name: 'X' attr { name: 'a' type: "
                                     "'int' minimum: 3 }")),
              StatusIs(kInvalidArgument,
                       HasSubstr("Attr 'a' with has_minimum = false but "
                                 "minimum 3 not equal to default of 0")));
  MF_EXPECT_OK(
      ValidateOpDef(FromText("name: 'X' attr { name: 'a' type: "
                             "'int' has_minimum: true minimum: -7 "
                             "}")));
}

TEST(OpDefUtilTest, ValidateOpDefChecksAllowedValuesAndDefaults) {
  EXPECT_THAT(ValidateOpDef(FromText(
                  "name: 'X' attr { name: 't' type: 'type' allowed_values { "
                  "list { s: 'x' } } }")),
              StatusIs(kInvalidArgument,
                       HasSubstr("AttrValue had value with type "
                                 "'list(string)' when 'list(type)' expected\n"
                                 "\t for attr 't' in Op 'X'")));
  EXPECT_THAT(ValidateOpDef(FromText(
                  "name: 'X' attr { name: 't' type: 'type' default_value { "
                  "type: DT_BOOL } allowed_values { list { type: DT_FLOAT } "
                  "} }")),
              StatusIs(kInvalidArgument,
                       HasSubstr("Value for attr 't' of bool is not in the "
                                 "list of allowed values: float\n\t in Op "
                                 "'X'")));
  EXPECT_THAT(ValidateOpDef(FromText("name: 'X' attr { name: 'i' type: "
                                     "'int' default_value { s: 'x' } }")),
              StatusIs(kInvalidArgument,
                       HasSubstr("AttrValue had value with type 'string' when "
                                 "'int' expected\n\t for attr 'i'\n\t in Op "
                                 "'X'")));
}

TEST(OpDefUtilTest, ValidateOpDefChecksHowArgsAreTyped) {
  const struct {
    const char* op;
    const char* error;
  } kCases[] = {
      {"input_arg { name: 'a' }", "Missing type for input 'a'"},
      {"input_arg { name: 'a' type: DT_FLOAT type_attr: 'T' } attr { name: "
       "'T' type: 'type' }",
       "Exactly one of type, type_attr, type_list_attr must be set for input "
       "'a'"},
      {"input_arg { name: 'a' type_attr: 'T' }",
       "No attr with name 'T' for input 'a'"},
      {"output_arg { name: 'a' type_attr: 'T' } attr { name: 'T' type: 'int' "
       "}",
       "Attr 'T' used as type_attr for output 'a' has type int != type"},
      {"input_arg { name: 'a' type_list_attr: 'T' } attr { name: 'T' type: "
       "'type' }",
       "Attr 'T' used as type_list_attr for input 'a' has type type != "
       "list(type)"},
      {"input_arg { name: 'a' number_attr: 'N' type: DT_FLOAT }",
       "No attr with name 'N' for input 'a'"},
      {"input_arg { name: 'a' number_attr: 'N' type: DT_FLOAT } attr { name: "
       "'N' type: 'type' }",
       "Attr 'N' used as length for input 'a' has type type != int"},
      {"input_arg { name: 'a' number_attr: 'N' type: DT_FLOAT } attr { name: "
       "'N' type: 'int' }",
       "Attr 'N' used as length for input 'a' must have minimum"},
      {"input_arg { name: 'a' number_attr: 'N' type: DT_FLOAT } attr { name: "
       "'N' type: 'int' has_minimum: true minimum: -1 }",
       "Attr 'N' used as length for input 'a' must have minimum >= 0"},
      {"input_arg { name: 'a' number_attr: 'N' type_list_attr: 'L' } attr { "
       "name: 'N' type: 'int' has_minimum: true } attr { name: 'L' type: "
       "'list(type)' }",
       "Can't have both number_attr and type_list_attr for input 'a'"},
      {"input_arg { name: 'a' type: DT_FLOAT_REF }",
       "Illegal use of ref type 'float_ref'. Use 'Ref(type)' instead for "
       "input 'a'"},
      {"input_arg { name: 'a' type: 77 }",
       "Invalid DataType enum 77 for input 'a'"},
  };
  for (const auto& c : kCases) {
    EXPECT_THAT(ValidateOpDef(FromText(absl::StrCat("name: 'X' ", c.op))),
                StatusIs(kInvalidArgument, HasSubstr(c.error)))
        << c.op;
  }
}

// --- ValidateAttrValue -------------------------------------------------------

TEST(OpDefUtilTest, ValidateAttrValueChecksTypeMinimumAndAllowedValues) {
  const OpDef op = Build(Op().Attr("n: int >= 2")
                             .Attr("l: list(float) >= 1")
                             .Attr("t: {float, int32}")
                             .Attr("lt: list({float, int32})")
                             .Attr("e: {'a', 'b'}")
                             .Attr("le: list({'a', 'b'})"));
  const auto check = [&](const char* attr, const char* value) {
    return ValidateAttrValue(ParseTextProtoOrDie<AttrValue>(value),
                             *FindAttr(attr, op));
  };
  MF_EXPECT_OK(check("n", "i: 2"));
  EXPECT_THAT(check("n", "i: 1"),
              StatusIs(kInvalidArgument,
                       "Value for attr 'n' of 1 must be at least minimum 2"));
  EXPECT_THAT(check("n", "f: 1"),
              StatusIs(kInvalidArgument,
                       "AttrValue had value with type 'float' when 'int' "
                       "expected\n\t for attr 'n'"));
  EXPECT_THAT(check("l", "list { }"),
              StatusIs(kInvalidArgument,
                       "Length for attr 'l' of 0 must be at least minimum 1"));
  EXPECT_THAT(check("t", "type: DT_BOOL"),
              StatusIs(kInvalidArgument,
                       "Value for attr 't' of bool is not in the list of "
                       "allowed values: float, int32"));
  EXPECT_THAT(check("lt", "list { type: [DT_FLOAT, DT_HALF] }"),
              StatusIs(kInvalidArgument,
                       HasSubstr("Value for attr 'lt' of half is not in")));
  EXPECT_THAT(check("e", "s: 'c'"),
              StatusIs(kInvalidArgument,
                       "Value for attr 'e' of \"c\" is not in the list of "
                       "allowed values: \"a\", \"b\""));
  MF_EXPECT_OK(check("le", "list { s: ['b', 'a', 'b'] }"));
  EXPECT_THAT(check("t", "type: DT_INT32_REF"),
              StatusIs(kInvalidArgument,
                       HasSubstr("must not have reference type value of "
                                 "int32_ref")));
  EXPECT_THAT(
      check("t", "type: DT_INVALID"),
      StatusIs(kInvalidArgument, HasSubstr("AttrValue has invalid DataType")));
}

TEST(OpDefUtilTest, ValidateAttrValueRefusesAllowedValuesItCannotCheck) {
  const OpDef op = FromText(
      "name: 'X' attr { name: 'i' type: 'int' allowed_values { list { i: 1 } "
      "} }");
  EXPECT_THAT(
      ValidateAttrValue(ParseTextProtoOrDie<AttrValue>("i: 1"), op.attr(0)),
      StatusIs(absl::StatusCode::kUnimplemented,
               "Support for allowed_values not implemented for type "
               "int"));
}

// --- Lookups, summaries, deprecation
// -------------------------------------------

TEST(OpDefUtilTest, FindsAttrsAndArgsByName) {
  OpDef op = Build(Op().Attr("T: type").Input("x: T").Output("y: T"));
  ASSERT_NE(FindAttr("T", op), nullptr);
  EXPECT_EQ(FindAttr("T", op)->type(), "type");
  EXPECT_EQ(FindAttr("U", op), nullptr);
  EXPECT_EQ(FindInputArg("x", op)->type_attr(), "T");
  EXPECT_EQ(FindInputArg("y", op), nullptr);
  EXPECT_EQ(FindOutputArg("y", op)->type_attr(), "T");
  FindAttrMutable("T", &op)->set_description("d");
  EXPECT_EQ(op.attr(0).description(), "d");
}

TEST(OpDefUtilTest, SummarizeOpDefShowsSignatureAttrsAndFlags) {
  const OpDef op = Build(OpDefBuilder("Concat")
                             .Input("axis: int32")
                             .Input("values: N * T")
                             .Input("r: Ref(float)")
                             .Output("out: T")
                             .Attr("N: int >= 2")
                             .Attr("T: {float, int32} = DT_FLOAT")
                             .SetIsStateful());
  EXPECT_EQ(SummarizeOpDef(op),
            "Op<name=Concat; signature=axis:int32, values:N*T, r:Ref(float) "
            "-> out:T; attr=N:int,min=2; attr=T:type,default=DT_FLOAT,"
            "allowed=[DT_FLOAT, DT_INT32]; is_stateful=true>");
}

TEST(OpDefUtilTest, CheckOpDeprecationFailsFromTheDeprecationVersion) {
  const OpDef op = Build(Op().Deprecated(10, "Use Op2"));
  MF_EXPECT_OK(CheckOpDeprecation(op, 9));
  EXPECT_THAT(CheckOpDeprecation(op, 10),
              StatusIs(absl::StatusCode::kUnimplemented,
                       "Op Op is not available in GraphDef version 10. It has "
                       "been removed in version 10. Use Op2."));
  MF_EXPECT_OK(CheckOpDeprecation(Build(Op()), 1000));
}

TEST(OpDefUtilTest, LintFlagsTypeAttrsNoArgUses) {
  EXPECT_THAT(
      LintOpDef(Build(Op().Attr("T: type").Attr("L: list(type)"))),
      ElementsAre(HasSubstr("Op Op: attr 'T: type' is not used"),
                  HasSubstr("Op Op: attr 'L: list(type)' is not used")));
  EXPECT_THAT(LintOpDef(Build(Op().Attr("T: type").Input("x: T"))), IsEmpty());
  EXPECT_THAT(LintOpDef(Build(Op().Attr("T: type = DT_FLOAT"))), IsEmpty());
}

TEST(OpDefUtilTest, OpDefEqualIgnoresAttrOrderOnly) {
  const OpDef a = Build(Op().Attr("a: int").Attr("b: float").Input("x: int32"));
  const OpDef b = Build(Op().Attr("b: float").Attr("a: int").Input("x: int32"));
  EXPECT_TRUE(OpDefEqual(a, b));
  EXPECT_FALSE(OpDefEqual(a, Build(Op().Attr("a: int").Attr("b: float"))));
  EXPECT_FALSE(OpDefEqual(
      a, Build(Op().Attr("a: int = 1").Attr("b: float").Input("x: int32"))));
  EXPECT_TRUE(AttrDefEqual(a.attr(0), b.attr(1)));
}

TEST(OpDefUtilTest, RemoveDescriptionsKeepsOrDropsTheDeprecationNote) {
  OpDef op = Build(Op().Input("x: int32")
                       .Deprecated(3, "why")
                       .Doc("Summary.\n\nMore.\n\nx: The input.\n"));
  OpDef kept = op;
  RemoveNonDeprecationDescriptionsFromOpDef(&kept);
  EXPECT_EQ(kept.summary(), "");
  EXPECT_EQ(kept.description(), "");
  EXPECT_EQ(kept.input_arg(0).description(), "");
  EXPECT_EQ(kept.deprecation().explanation(), "why");
  RemoveDescriptionsFromOpDef(&op);
  EXPECT_EQ(op.deprecation().explanation(), "");
}

// --- OpDefCompatible: safe changes (TensorFlow's op_compatibility rules) ----

struct CompatCase {
  const char* name;
  OpDefBuilder old_op;
  OpDefBuilder new_op;
};

TEST(OpDefUtilTest, CompatibleChangesAreAccepted) {
  const CompatCase kCases[] = {
      {"unchanged",
       Op().Input("a: int32")
           .Input("b: T")
           .Input("c: N * int32")
           .Input("d: N * T")
           .Input("e: TList")
           .Output("o: string")
           .Attr("T: type")
           .Attr("N: int")
           .Attr("TList: list(type)"),
       Op().Input("a: int32")
           .Input("b: T")
           .Input("c: N * int32")
           .Input("d: N * T")
           .Input("e: TList")
           .Output("o: string")
           .Attr("T: type")
           .Attr("N: int")
           .Attr("TList: list(type)")},
      {"new attr with a default", Op().Output("o: string"),
       Op().Output("o: string").Attr("a: int = 42")},
      {"more allowed strings", Op().Attr("a: {'A', 'B'}"),
       Op().Attr("a: {'A', 'B', 'C'}")},
      {"restriction removed", Op().Attr("a: {int32, bool}"),
       Op().Attr("a: type")},
      {"more allowed types", Op().Attr("t: {int32, int64}"),
       Op().Attr("t: {int32, int64, bool}")},
      {"attrs reordered", Op().Attr("b: bool").Attr("a: int"),
       Op().Attr("a: int").Attr("b: bool")},
      {"type made polymorphic with the old type as default",
       Op().Input("a: int32"), Op().Input("a: T").Attr("T: type = DT_INT32")},
      {"single input made a list of default length 1", Op().Input("a: int32"),
       Op().Input("a: N * int32").Attr("N: int = 1")},
      {"single input made a polymorphic list", Op().Input("a: int32"),
       Op().Input("a: N * T").Attr("N: int = 1").Attr("T: type = DT_INT32")},
      {"single input made a type list", Op().Input("a: int32"),
       Op().Input("a: T").Attr("T: list(type) = [DT_INT32]")},
      {"polymorphic input made a list of the same type",
       Op().Input("a: T").Attr("T: type"),
       Op().Input("a: N * T").Attr("N: int = 1").Attr("T: type")},
      {"two inputs made one list", Op().Input("a: int32").Input("b: int32"),
       Op().Input("a: N * int32").Attr("N: int = 2")},
      {"two inputs of different types made one type list",
       Op().Input("a: int32").Input("b: float"),
       Op().Input("a: T").Attr("T: list(type) = [DT_INT32, DT_FLOAT]")},
      {"input renamed (inputs are positional)", Op().Input("x: int32"),
       Op().Input("y: int32")},
      {"new list input of default length 0", Op().Output("o: string"),
       Op().Input("a: N * int32").Output("o: string").Attr("N: int >= 0 = 0")},
      {"new polymorphic list input of default length 0", Op(),
       Op().Input("a: N * T")
           .Attr("N: int >= 0 = 0")
           .Attr("T: type = DT_BOOL")},
      {"new list input sharing an existing type attr",
       Op().Input("a: T").Attr("T: type"),
       Op().Input("a: T")
           .Input("b: N * T")
           .Attr("N: int >= 0 = 0")
           .Attr("T: type")},
      {"new type-list input defaulting to empty", Op(),
       Op().Input("a: T").Attr("T: list(type) >= 0 = []")},
      {"shorter type lists allowed",
       Op().Input("a: T").Attr("T: list(type) >= 2"),
       Op().Input("a: T").Attr("T: list(type) >= 1")},
      {"shorter same-type lists allowed",
       Op().Input("a: N * int32").Attr("N: int >= 2"),
       Op().Input("a: N * int32").Attr("N: int >= 1")},
      {"minimum removed", Op().Attr("n: int >= 3"), Op().Attr("n: int")},
      {"minimum lowered", Op().Attr("n: int >= 3"), Op().Attr("n: int >= 1")},
      {"Ref dropped from an input", Op().Input("i: Ref(int32)"),
       Op().Input("i: int32")},
      {"Ref added to an output", Op().Output("o: int32"),
       Op().Output("o: Ref(int32)")},
      {"default added to an existing attr", Op().Attr("a: int"),
       Op().Attr("a: int = 1234")},
      {"description and flags changed", Op().Input("x: int32"),
       Op().Input("x: int32").SetIsStateful().Doc("Now documented.")},
  };
  for (const CompatCase& c : kCases) {
    const Status s = OpDefCompatible(Build(c.old_op), Build(c.new_op));
    EXPECT_TRUE(s.ok()) << c.name << ": " << s;
  }
}

// --- OpDefCompatible: unsafe changes -----------------------------------------

TEST(OpDefUtilTest, IncompatibleChangesAreRejectedWithTheirReason) {
  const struct {
    const char* name;
    OpDefBuilder old_op;
    OpDefBuilder new_op;
    const char* reason;
  } kCases[] = {
      {"attr removed", Op().Attr("a: int"), Op(), "Attr 'a' removed"},
      {"attr added without default", Op(), Op().Attr("a: int"),
       "Attr 'a' added without default"},
      {"single input added", Op(), Op().Input("a: int32"),
       "Input signature mismatch '' vs. 'int32'"},
      {"list input added with length 1 by default", Op(),
       Op().Input("a: N * int32").Attr("N: int = 1"),
       "Input signature mismatch '' vs. 'int32'"},
      {"polymorphic list input added with length 1 by default", Op(),
       Op().Input("a: N * T").Attr("N: int = 1").Attr("T: type = DT_INT32"),
       "Input signature mismatch '' vs. 'int32'"},
      {"type-list input added with a non-empty default", Op(),
       Op().Input("a: T").Attr("T: list(type) = [DT_INT32]"),
       "Input signature mismatch '' vs. 'int32'"},
      {"input type changed", Op().Input("a: int32"), Op().Input("a: float"),
       "Input signature mismatch 'int32' vs. 'float'"},
      {"inputs reordered", Op().Input("b: int32").Input("a: float"),
       Op().Input("a: float").Input("b: int32"),
       "Input signature mismatch 'int32, float' vs. 'float, int32'"},
      {"input removed", Op().Input("a: float"), Op(),
       "Input signature mismatch 'float' vs. ''"},
      {"attr type changed", Op().Attr("a: bool"), Op().Attr("a: int"),
       "Attr 'a' changed type 'bool' -> 'int'"},
      {"attr made a scalar", Op().Attr("a: list(int)"), Op().Attr("a: int"),
       "Attr 'a' changed type 'list(int)' -> 'int'"},
      {"attr made a list", Op().Attr("a: int"), Op().Attr("a: list(int)"),
       "Attr 'a' changed type 'int' -> 'list(int)'"},
      {"polymorphic input made a list of any types",
       Op().Input("a: T").Attr("T: type"),
       Op().Input("a: T").Attr("T: list(type)"),
       "Attr 'T' changed type 'type' -> 'list(type)'"},
      {"list of one type made a list of any types",
       Op().Input("a: N * T").Attr("T: type").Attr("N: int"),
       Op().Input("a: T").Attr("T: list(type)").Attr("N: int = 1"),
       "Attr 'T' changed type 'type' -> 'list(type)'"},
      {"restriction added", Op().Attr("t: type"),
       Op().Attr("t: {int32, int64}"),
       "Attr 't' has a stricter set of allowed values; from no restriction "
       "to [DT_INT32, DT_INT64]"},
      {"allowed types narrowed", Op().Attr("t: {int32, int64, bool}"),
       Op().Attr("t: {int32, int64}"),
       "Attr 't' has a stricter set of allowed values; from [DT_INT32, "
       "DT_INT64, DT_BOOL] to [DT_INT32, DT_INT64]"},
      {"allowed strings narrowed", Op().Attr("e: {'a', 'b'}"),
       Op().Attr("e: {'a'}"),
       "Attr 'e' has a stricter set of allowed values; from [\"a\", \"b\"] "
       "to [\"a\"]"},
      {"minimum added", Op().Attr("n: int"), Op().Attr("n: int >= 3"),
       "Attr 'n' has a higher minimum; from no minimum to 3"},
      {"minimum raised", Op().Attr("n: int >= 1"), Op().Attr("n: int >= 3"),
       "Attr 'n' has a higher minimum; from 1 to 3"},
      {"Ref added to an input", Op().Input("i: int32"),
       Op().Input("i: Ref(int32)"), "Input 0 changed from non-ref to ref"},
      {"Ref dropped from an output", Op().Output("o: Ref(int32)"),
       Op().Output("o: int32"), "Output 0 changed from ref to non-ref"},
      {"output renamed", Op().Output("old: int32"), Op().Output("new: int32"),
       "Output signature mismatch 'old:int32' vs. 'new:int32'"},
      {"list output renamed", Op().Output("old: N*int32").Attr("N: int"),
       Op().Output("new: N*int32").Attr("N: int"),
       "Output signature mismatch 'old:N * int32' vs. 'new:N * int32'"},
      {"type-list output renamed", Op().Output("old: T").Attr("T: list(type)"),
       Op().Output("new: T").Attr("T: list(type)"),
       "Output signature mismatch 'old:T' vs. 'new:T'"},
      {"default changed", Op().Attr("a: int = 2"), Op().Attr("a: int = 1"),
       "Attr 'a' has changed its default value; from 2 to 1"},
      {"default removed", Op().Attr("a: int = 91"), Op().Attr("a: int"),
       "Attr 'a' has removed its default; from 91 to no default"},
  };
  for (const auto& c : kCases) {
    EXPECT_THAT(OpDefCompatible(Build(c.old_op), Build(c.new_op)),
                StatusIs(kInvalidArgument,
                         ::testing::AllOf(HasSubstr("Incompatible Op change: "),
                                          HasSubstr(c.reason))))
        << c.name;
  }
}

TEST(OpDefUtilTest, CompatibilityNamesOpsAndListsEveryReason) {
  const OpDef old_op = Build(Op().Attr("a: int").Attr("b: int >= 1"));
  const OpDef new_op = Build(Op().Attr("b: int >= 2").Attr("c: float"));
  EXPECT_THAT(OpDefIncompatibilities(old_op, new_op),
              ElementsAre("Attr 'a' removed",
                          "Attr 'b' has a higher minimum; from 1 to 2",
                          "Attr 'c' added without default"));
  EXPECT_THAT(OpDefCompatible(old_op, new_op),
              StatusIs(kInvalidArgument,
                       HasSubstr("; old: Op<name=Op; signature= -> ; "
                                 "attr=a:int; attr=b:int,min=1>; new: "
                                 "Op<name=Op;")));
  EXPECT_THAT(
      OpDefCompatible(Build(Op()), Build(OpDefBuilder("Other"))),
      StatusIs(kInvalidArgument, HasSubstr("Name mismatch 'Op' vs. 'Other'")));
}

TEST(OpDefUtilTest, CompatibilityOfMalformedOpDefsIsAnAnswerNotACrash) {
  // New OpDefs referring to attrs they lack, or with absurd default lengths.
  const OpDef old_op = Build(Op().Input("a: int32"));
  OpDef missing = FromText(
      "name: 'Op' input_arg { name: 'a' type_attr: 'T' number_attr: 'N' } "
      "input_arg { name: 'b' type_list_attr: 'L' }");
  EXPECT_THAT(OpDefCompatible(old_op, missing),
              StatusIs(kInvalidArgument,
                       HasSubstr("'<missing attr N> * <missing attr T>, "
                                 "<missing attr L>'")));
  OpDef huge = FromText(
      "name: 'Op' input_arg { name: 'a' type: DT_INT32 number_attr: 'N' } "
      "attr { name: 'N' type: 'int' has_minimum: true default_value { i: "
      "9000000000000000000 } }");
  EXPECT_THAT(OpDefCompatible(old_op, huge),
              StatusIs(kInvalidArgument,
                       HasSubstr("'int32' vs. '9000000000000000000 * int32'")));
}

TEST(OpDefUtilTest, OpDefAttrDefaultsUnchangedAllowsAddingADefaultOnly) {
  MF_EXPECT_OK(OpDefAttrDefaultsUnchanged(Build(Op().Attr("a: int")),
                                          Build(Op().Attr("a: int = 1"))));
  EXPECT_THAT(OpDefAttrDefaultsUnchanged(Build(Op().Attr("a: int = 1")),
                                         Build(Op().Attr("a: int"))),
              StatusIs(kInvalidArgument,
                       "Attr 'a' has removed its default; from 1 to no "
                       "default"));
  // Equal tensors written differently are the same default.
  MF_EXPECT_OK(OpDefAttrDefaultsUnchanged(
      Build(Op().Attr("t: tensor = { dtype: DT_INT32 tensor_shape { dim { "
                      "size: 2 } } int_val: [5, 5] }")),
      Build(Op().Attr("t: tensor = { dtype: DT_INT32 tensor_shape { dim { "
                      "size: 2 } } int_val: 5 }"))));
}

TEST(OpDefUtilTest, OpSpellingRoundTripsEveryNamedType) {
  const auto* descriptor = DataType_descriptor();
  for (int i = 0; i < descriptor->value_count(); ++i) {
    const auto dtype = static_cast<DataType>(descriptor->value(i)->number());
    if (dtype == DT_INVALID) continue;
    DataType parsed;
    const std::string name = internal::OpSpellingOfDataType(dtype);
    ASSERT_TRUE(internal::DataTypeFromOpSpelling(name, &parsed)) << name;
    EXPECT_EQ(parsed, dtype) << name;
  }
  DataType dt;
  EXPECT_FALSE(internal::DataTypeFromOpSpelling("Float", &dt));
  EXPECT_FALSE(internal::DataTypeFromOpSpelling("DT_FLOAT", &dt));
  EXPECT_FALSE(internal::DataTypeFromOpSpelling("invalid", &dt));
  ASSERT_TRUE(internal::DataTypeFromOpSpelling("float64", &dt));
  EXPECT_EQ(dt, DT_DOUBLE);
}

}  // namespace
}  // namespace minflow
