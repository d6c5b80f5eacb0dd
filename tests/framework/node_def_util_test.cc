#include "minflow/framework/node_def_util.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/framework/op_def_builder.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

constexpr auto kInvalidArgument = absl::StatusCode::kInvalidArgument;

OpDef MakeOp(const OpDefBuilder& builder) {
  OpRegistrationData data;
  const Status s = builder.Finalize(&data);
  EXPECT_TRUE(s.ok()) << s;
  return data.op_def;
}

NodeDef Node(const std::string& text) {
  return ParseTextProtoOrDie<NodeDef>(text);
}

// --- AttrSlice and summaries -------------------------------------------------

TEST(NodeDefUtilTest, AttrSliceFindsAttrsAndNamesTheNodeWhenMissing) {
  const NodeDef node =
      Node("name: 'n' op: 'Op' attr { key: 'a' value { i: 1 } }");
  const AttrSlice attrs(node);
  EXPECT_EQ(attrs.size(), 1);
  ASSERT_NE(attrs.Find("a"), nullptr);
  EXPECT_EQ(attrs.Find("a")->i(), 1);
  EXPECT_EQ(attrs.Find("b"), nullptr);
  const AttrValue* value = nullptr;
  EXPECT_THAT(attrs.Find("b", &value),
              StatusIs(absl::StatusCode::kNotFound,
                       "No attr named 'b' in NodeDef:\n\t [[{{node n}}]]"));
  EXPECT_THAT(attrs.Find("_internal", &value),
              StatusIs(absl::StatusCode::kNotFound,
                       "No attr named '_internal' in NodeDef:"));
  EXPECT_EQ(AttrSlice().size(), 0);
}

TEST(NodeDefUtilTest, AttrSliceFindsAttrsInLargeMaps) {
  NodeDef node = Node("name: 'n' op: 'Op'");
  for (int i = 0; i < 40; ++i) AddNodeAttr(absl::StrCat("a", i), i, &node);
  const AttrSlice attrs(node);
  ASSERT_NE(attrs.Find("a33"), nullptr);
  EXPECT_EQ(attrs.Find("a33")->i(), 33);
  EXPECT_EQ(attrs.Find("a40"), nullptr);
}

TEST(NodeDefUtilTest, AttrSliceComparesAndSummarizes) {
  const NodeDef a = Node(
      "name: 'n' op: 'Op' attr { key: 'b' value { i: 1 } } attr { key: 'a' "
      "value { s: 'x' } }");
  const NodeDef b = Node(
      "name: 'm' op: 'Op' attr { key: 'a' value { s: 'x' } } attr { key: 'b' "
      "value { i: 1 } }");
  EXPECT_TRUE(AttrSlice(a).EqualAttrs(AttrSlice(b)));
  EXPECT_FALSE(AttrSlice(a).EqualAttrs(AttrSlice()));
  EXPECT_EQ(AttrSlice(a).SummarizeNode(), "{{node n}} = Op[a=\"x\", b=1]()");
  EXPECT_EQ(AttrSlice(&a.attr()).SummarizeNode(), "[a=\"x\", b=1]");
}

TEST(NodeDefUtilTest, SummarizeNodeDefSortsAttrsAndShowsDeviceAndInputs) {
  const NodeDef node = Node(
      "name: 'add' op: 'Add' input: ['x', 'y:1', '^c'] device: '/cpu:0' "
      "attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: '_class' value { list { s: 'loc:@x' } } }");
  EXPECT_EQ(SummarizeNodeDef(node),
            "{{node add}} = Add[T=DT_FLOAT, _class=[\"loc:@x\"], "
            "_device=\"/cpu:0\"](x, y:1, ^c)");
  EXPECT_EQ(SummarizeNodeDef(node, 1),
            "{{node add}} = Add[T=DT_FLOAT, _class=[\"loc:@x\"], "
            "_device=\"/cpu:0\"](x, ...)");
  EXPECT_EQ(SummarizeAttrs(node),
            "T=DT_FLOAT, _class=[\"loc:@x\"], _device=\"/cpu:0\"");
}

TEST(NodeDefUtilTest, FormatNodeDefForErrorPrefersOriginalNames) {
  EXPECT_EQ(FormatNodeDefForError(Node("name: 'n'")), "{{node n}}");
  EXPECT_EQ(FormatNodeDefForError(Node(
                "name: 'fused' experimental_debug_info { original_node_names: "
                "['a', 'b'] }")),
            "{{node a}}, {{node b}}");
  EXPECT_THAT(AttachDef(errors::Internal("boom"), Node("name: 'n'")),
              StatusIs(absl::StatusCode::kInternal, "boom\n\t [[{{node n}}]]"));
  MF_EXPECT_OK(AttachDef(OkStatus(), Node("name: 'n'")));
}

// --- GetNodeAttr -------------------------------------------------------------

class GetNodeAttrTest : public ::testing::Test {
 protected:
  NodeDef node_ = Node(R"pb(
    name: "n"
    op: "Op"
    attr {
      key: "s"
      value { s: "str" }
    }
    attr {
      key: "i"
      value { i: 5 }
    }
    attr {
      key: "big"
      value { i: 5000000000 }
    }
    attr {
      key: "f"
      value { f: 2.5 }
    }
    attr {
      key: "b"
      value { b: true }
    }
    attr {
      key: "t"
      value { type: DT_HALF }
    }
    attr {
      key: "sh"
      value {
        shape {
          dim { size: 2 }
          dim { size: -1 }
        }
      }
    }
    attr {
      key: "bad_sh"
      value { shape { dim { size: -5 } } }
    }
    attr {
      key: "te"
      value { tensor { dtype: DT_INT32 int_val: 3 } }
    }
    attr {
      key: "bad_te"
      value {
        tensor {
          dtype: DT_INT32
          tensor_shape { dim { size: 1 } }
          int_val: [ 1, 2 ]
        }
      }
    }
    attr {
      key: "fn"
      value { func { name: "f" } }
    }
    attr {
      key: "ls"
      value { list { s: [ "a", "b" ] } }
    }
    attr {
      key: "li"
      value { list { i: [ 1, 5000000000 ] } }
    }
    attr {
      key: "lf"
      value { list { f: [ 1, 2 ] } }
    }
    attr {
      key: "lb"
      value { list { b: [ true, false ] } }
    }
    attr {
      key: "lt"
      value { list { type: [ DT_INT32, DT_BOOL ] } }
    }
    attr {
      key: "lsh"
      value { list { shape { dim { size: 3 } } } }
    }
    attr {
      key: "lte"
      value { list { tensor { dtype: DT_FLOAT float_val: 1 } } }
    }
    attr {
      key: "lfn"
      value { list { func { name: "g" } } }
    }
    attr {
      key: "empty"
      value { list {} }
    }
  )pb");
};

TEST_F(GetNodeAttrTest, ReadsEveryScalarType) {
  std::string s;
  int64_t i64 = 0;
  int32_t i32 = 0;
  float f = 0;
  bool b = false;
  DataType t = DT_INVALID;
  TensorShapeProto shape_proto;
  PartialTensorShape partial;
  TensorProto tensor_proto;
  Tensor tensor;
  NameAttrList func;
  const TensorProto* tensor_ptr = nullptr;
  const NameAttrList* func_ptr = nullptr;
  MF_ASSERT_OK(GetNodeAttr(node_, "s", &s));
  MF_ASSERT_OK(GetNodeAttr(node_, "i", &i64));
  MF_ASSERT_OK(GetNodeAttr(node_, "i", &i32));
  MF_ASSERT_OK(GetNodeAttr(node_, "f", &f));
  MF_ASSERT_OK(GetNodeAttr(node_, "b", &b));
  MF_ASSERT_OK(GetNodeAttr(node_, "t", &t));
  MF_ASSERT_OK(GetNodeAttr(node_, "sh", &shape_proto));
  MF_ASSERT_OK(GetNodeAttr(node_, "sh", &partial));
  MF_ASSERT_OK(GetNodeAttr(node_, "te", &tensor_proto));
  MF_ASSERT_OK(GetNodeAttr(node_, "te", &tensor));
  MF_ASSERT_OK(GetNodeAttr(node_, "fn", &func));
  MF_ASSERT_OK(GetNodeAttr(node_, "te", &tensor_ptr));
  MF_ASSERT_OK(GetNodeAttr(node_, "fn", &func_ptr));
  EXPECT_EQ(s, "str");
  EXPECT_EQ(i64, 5);
  EXPECT_EQ(i32, 5);
  EXPECT_EQ(f, 2.5f);
  EXPECT_TRUE(b);
  EXPECT_EQ(t, DT_HALF);
  EXPECT_EQ(shape_proto.dim_size(), 2);
  EXPECT_EQ(partial.DebugString(), "[2,?]");
  EXPECT_EQ(tensor_proto.int_val(0), 3);
  EXPECT_EQ(tensor.DebugString(), "Tensor<type: int32 shape: [] values: 3>");
  EXPECT_EQ(func.name(), "f");
  EXPECT_EQ(tensor_ptr->int_val(0), 3);
  EXPECT_EQ(func_ptr->name(), "f");
  EXPECT_EQ(GetNodeAttrString(node_, "s"), "str");
  EXPECT_EQ(GetNodeAttrString(node_, "i"), "");
  EXPECT_EQ(GetNodeAttrString(node_, "nope"), "");
}

TEST_F(GetNodeAttrTest, ReadsEveryListType) {
  std::vector<std::string> ls;
  std::vector<int64_t> li;
  std::vector<float> lf;
  std::vector<bool> lb;
  std::vector<DataType> lt;
  DataTypeVector ltv;
  std::vector<TensorShapeProto> lshp;
  std::vector<TensorShape> lsh;
  std::vector<PartialTensorShape> lpsh;
  std::vector<TensorProto> ltp;
  std::vector<Tensor> lte;
  std::vector<NameAttrList> lfn;
  std::vector<int64_t> empty;
  MF_ASSERT_OK(GetNodeAttr(node_, "ls", &ls));
  MF_ASSERT_OK(GetNodeAttr(node_, "li", &li));
  MF_ASSERT_OK(GetNodeAttr(node_, "lf", &lf));
  MF_ASSERT_OK(GetNodeAttr(node_, "lb", &lb));
  MF_ASSERT_OK(GetNodeAttr(node_, "lt", &lt));
  MF_ASSERT_OK(GetNodeAttr(node_, "lt", &ltv));
  MF_ASSERT_OK(GetNodeAttr(node_, "lsh", &lshp));
  MF_ASSERT_OK(GetNodeAttr(node_, "lsh", &lsh));
  MF_ASSERT_OK(GetNodeAttr(node_, "lsh", &lpsh));
  MF_ASSERT_OK(GetNodeAttr(node_, "lte", &ltp));
  MF_ASSERT_OK(GetNodeAttr(node_, "lte", &lte));
  MF_ASSERT_OK(GetNodeAttr(node_, "lfn", &lfn));
  MF_ASSERT_OK(GetNodeAttr(node_, "empty", &empty));
  EXPECT_THAT(ls, ElementsAre("a", "b"));
  EXPECT_THAT(li, ElementsAre(1, 5000000000));
  EXPECT_THAT(lf, ElementsAre(1.0f, 2.0f));
  EXPECT_THAT(lb, ElementsAre(true, false));
  EXPECT_THAT(lt, ElementsAre(DT_INT32, DT_BOOL));
  EXPECT_THAT(ltv, ElementsAre(DT_INT32, DT_BOOL));
  EXPECT_EQ(lshp.size(), 1u);
  ASSERT_EQ(lsh.size(), 1u);
  EXPECT_EQ(lsh[0].DebugString(), "[3]");
  EXPECT_EQ(lpsh[0].DebugString(), "[3]");
  EXPECT_EQ(ltp.size(), 1u);
  ASSERT_EQ(lte.size(), 1u);
  EXPECT_EQ(lte[0].dtype(), DT_FLOAT);
  ASSERT_EQ(lfn.size(), 1u);
  EXPECT_EQ(lfn[0].name(), "g");
  EXPECT_TRUE(empty.empty());
}

TEST_F(GetNodeAttrTest, ErrorsNameTheAttrAndBothTypes) {
  std::string s;
  EXPECT_THAT(GetNodeAttr(node_, "i", &s),
              StatusIs(kInvalidArgument,
                       "AttrValue had value with type 'int' when 'string' "
                       "expected\n\t for attr 'i'\n\t [[{{node n}}]]"));
  std::vector<int64_t> li;
  EXPECT_THAT(GetNodeAttr(node_, "i", &li),
              StatusIs(kInvalidArgument,
                       HasSubstr("AttrValue had value with type 'int' when "
                                 "'list(int)' expected\n\t for attr 'i'")));
  DataType t;
  EXPECT_THAT(GetNodeAttr(node_, "lt", &t),
              StatusIs(kInvalidArgument,
                       HasSubstr("type 'list(type)' when 'type' expected")));
  int64_t missing;
  EXPECT_THAT(GetNodeAttr(node_, "nope", &missing),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("No attr named 'nope' in NodeDef")));
}

TEST_F(GetNodeAttrTest, ErrorsWhenTheValueDoesNotFit) {
  int32_t i32;
  EXPECT_THAT(GetNodeAttr(node_, "big", &i32),
              StatusIs(kInvalidArgument,
                       "Attr big has value 5000000000 out of range for an "
                       "int32"));
  std::vector<int32_t> li32;
  EXPECT_THAT(
      GetNodeAttr(node_, "li", &li32),
      StatusIs(kInvalidArgument, HasSubstr("out of range for an int32")));
  TensorShape shape;
  EXPECT_THAT(GetNodeAttr(node_, "sh", &shape),
              StatusIs(kInvalidArgument, HasSubstr("for attr 'sh'")));
  PartialTensorShape partial;
  EXPECT_THAT(GetNodeAttr(node_, "bad_sh", &partial),
              StatusIs(kInvalidArgument, HasSubstr("for attr 'bad_sh'")));
  Tensor tensor;
  EXPECT_THAT(GetNodeAttr(node_, "bad_te", &tensor),
              StatusIs(kInvalidArgument,
                       HasSubstr("Attr bad_te has a value that can't be "
                                 "converted to a Tensor")));
}

TEST_F(GetNodeAttrTest, TryGetReturnsFalseAndKeepsTheValue) {
  int32_t i32 = 42;
  EXPECT_FALSE(TryGetNodeAttr(node_, "big", &i32));
  EXPECT_FALSE(TryGetNodeAttr(node_, "s", &i32));
  EXPECT_FALSE(TryGetNodeAttr(node_, "nope", &i32));
  EXPECT_EQ(i32, 42);
  EXPECT_TRUE(TryGetNodeAttr(node_, "i", &i32));
  EXPECT_EQ(i32, 5);
  std::vector<std::string> ls;
  EXPECT_TRUE(TryGetNodeAttr(node_, "ls", &ls));
  EXPECT_THAT(ls, ElementsAre("a", "b"));
  const TensorProto* tensor = nullptr;
  EXPECT_TRUE(TryGetNodeAttr(node_, "te", &tensor));
  EXPECT_FALSE(TryGetNodeAttr(node_, "fn", &tensor));
  TensorShape shape;
  EXPECT_FALSE(TryGetNodeAttr(node_, "sh", &shape));
}

TEST(NodeDefUtilTest, AddNodeAttrSetsAnySupportedValue) {
  NodeDef node;
  AddNodeAttr("T", DT_FLOAT, &node);
  AddNodeAttr("N", 3, &node);
  AddNodeAttr("name", "x", &node);
  AddNodeAttr("shape", TensorShape({2}), &node);
  AddNodeAttr("types", DataTypeVector{DT_INT32}, &node);
  AddNodeAttr("N", 4, &node);  // replaces
  EXPECT_TRUE(HasNodeAttr(node, "T"));
  EXPECT_FALSE(HasNodeAttr(node, "U"));
  EXPECT_EQ(SummarizeAttrs(node),
            "N=4, T=DT_FLOAT, name=\"x\", shape=[2], types=[DT_INT32]");
}

// --- AddDefaultsToNodeDef / ValidateNodeDef
// ------------------------------------

TEST(NodeDefUtilTest, AddDefaultsFillsOnlyMissingAttrs) {
  const OpDef op = MakeOp(OpDefBuilder("Op")
                              .Attr("a: int = 1")
                              .Attr("b: string = 'x'")
                              .Attr("c: float"));
  NodeDef node = Node("name: 'n' op: 'Op' attr { key: 'a' value { i: 7 } }");
  AddDefaultsToNodeDef(op, &node);
  EXPECT_EQ(SummarizeAttrs(node), "a=7, b=\"x\"");
}

class ValidateNodeDefTest : public ::testing::Test {
 protected:
  const OpDef op_ = MakeOp(OpDefBuilder("Concat")
                               .Input("axis: int32")
                               .Input("values: N * T")
                               .Output("out: T")
                               .Attr("N: int >= 2")
                               .Attr("T: {float, int32}"));
  NodeDef Valid() {
    return Node(
        "name: 'c' op: 'Concat' input: ['a', 'v', 'v:1', '^dep'] "
        "attr { key: 'N' value { i: 2 } } attr { key: 'T' value { type: "
        "DT_FLOAT } }");
  }
};

TEST_F(ValidateNodeDefTest, AcceptsAValidNodeWithInternalAttrs) {
  NodeDef node = Valid();
  AddNodeAttr("_class", std::vector<std::string>{"loc:@v"}, &node);
  MF_EXPECT_OK(ValidateNodeDef(node, op_));
}

TEST_F(ValidateNodeDefTest, RejectsAnotherOp) {
  NodeDef node = Valid();
  node.set_op("Pack");
  EXPECT_THAT(
      ValidateNodeDef(node, op_),
      StatusIs(kInvalidArgument, HasSubstr("NodeDef op 'Pack' does not match "
                                           "Op<name=Concat;")));
}

TEST_F(ValidateNodeDefTest, RejectsMisplacedOrMalformedControlInputs) {
  NodeDef node = Valid();
  node.add_input("late");
  EXPECT_THAT(ValidateNodeDef(node, op_),
              StatusIs(kInvalidArgument,
                       "Non-control input 'late' after control input in "
                       "NodeDef: {{node c}}"));
  node = Valid();
  node.set_input(3, "^dep:1");
  EXPECT_THAT(ValidateNodeDef(node, op_),
              StatusIs(kInvalidArgument,
                       "Control input '^dep:1' must not have ':' in NodeDef: "
                       "{{node c}}"));
}

TEST_F(ValidateNodeDefTest, RejectsUnknownAndMissingAttrs) {
  NodeDef node = Valid();
  AddNodeAttr("extra", 1, &node);
  EXPECT_THAT(ValidateNodeDef(node, op_),
              StatusIs(kInvalidArgument,
                       HasSubstr("NodeDef mentions attr 'extra' not in "
                                 "Op<name=Concat;")));
  node = Valid();
  node.mutable_attr()->erase("T");
  EXPECT_THAT(ValidateNodeDef(node, op_),
              StatusIs(kInvalidArgument,
                       HasSubstr("NodeDef missing attr 'T' from Op<name="
                                 "Concat;")));
  node.mutable_attr()->erase("N");
  EXPECT_THAT(ValidateNodeDef(node, op_),
              StatusIs(kInvalidArgument,
                       HasSubstr("NodeDef missing attrs 'N', 'T' from")));
}

TEST_F(ValidateNodeDefTest, ChecksAttrTypesMinimumsAndAllowedValues) {
  NodeDef node = Valid();
  AddNodeAttr("T", DT_BOOL, &node);
  EXPECT_THAT(ValidateNodeDef(node, op_),
              StatusIs(kInvalidArgument,
                       AllOf(HasSubstr("Value for attr 'T' of bool is not in "
                                       "the list of allowed values: float, "
                                       "int32"),
                             HasSubstr("; NodeDef: {{node c}}; "
                                       "Op<name=Concat;"))));
  node = Valid();
  AddNodeAttr("N", 1, &node);
  EXPECT_THAT(ValidateNodeDef(node, op_),
              StatusIs(kInvalidArgument,
                       HasSubstr("Value for attr 'N' of 1 must be at least "
                                 "minimum 2")));
  node = Valid();
  AddNodeAttr("N", "two", &node);
  EXPECT_THAT(ValidateNodeDef(node, op_),
              StatusIs(kInvalidArgument,
                       HasSubstr("AttrValue had value with type 'string' when "
                                 "'int' expected\n\t for attr 'N'")));
}

TEST_F(ValidateNodeDefTest, CountsInputsAfterListExpansion) {
  NodeDef node = Valid();
  AddNodeAttr("N", 3, &node);
  EXPECT_THAT(ValidateNodeDef(node, op_),
              StatusIs(kInvalidArgument,
                       HasSubstr("NodeDef expected inputs 'int32, float, "
                                 "float, float' do not match 3 inputs "
                                 "specified; Op<name=Concat;")));
  const OpDef single = MakeOp(OpDefBuilder("Single").Input("a: int32"));
  EXPECT_THAT(ValidateNodeDef(Node("name: 'n' op: 'Single'"), single),
              StatusIs(kInvalidArgument,
                       HasSubstr("NodeDef expected inputs 'int32' do not match "
                                 "0 inputs specified")));
}

TEST_F(ValidateNodeDefTest, RefusesAbsurdListLengthsWithoutAllocating) {
  NodeDef node = Valid();
  AddNodeAttr("N", int64_t{1} << 40, &node);
  EXPECT_THAT(ValidateNodeDef(node, op_),
              StatusIs(kInvalidArgument,
                       HasSubstr("Attr 'N' asks for 1099511627776 tensors "
                                 "for 'values', more than the limit of "
                                 "16777216")));
  // Large but legal: the count is compared before any type is listed.
  AddNodeAttr("N", int64_t{1} << 23, &node);
  EXPECT_THAT(ValidateNodeDef(node, op_),
              StatusIs(kInvalidArgument,
                       HasSubstr("NodeDef expected inputs 8388609 inputs do "
                                 "not match 3 inputs specified")));
}

TEST_F(ValidateNodeDefTest, SkipsPlaceholderAttrValues) {
  const OpDef op = MakeOp(OpDefBuilder("Op").Attr("k: int"));
  MF_EXPECT_OK(ValidateNodeDef(
      Node("name: 'n' op: 'Op' attr { key: 'k' value { placeholder: 'K' } }"),
      op));
}

// --- Types and ranges
// -----------------------------------------------------------

TEST(NodeDefUtilTest, InOutTypesExpandListsAndApplyRefs) {
  const OpDef op = MakeOp(OpDefBuilder("Op")
                              .Input("a: N * T")
                              .Input("b: L")
                              .Input("c: Ref(int64)")
                              .Output("d: Ref(T)")
                              .Output("e: N * int32")
                              .Attr("N: int >= 0")
                              .Attr("T: type")
                              .Attr("L: list(type) >= 0"));
  const NodeDef node = Node(
      "name: 'n' op: 'Op' attr { key: 'N' value { i: 2 } } attr { key: 'T' "
      "value { type: DT_HALF } } attr { key: 'L' value { list { type: "
      "[DT_BOOL, DT_STRING] } } }");
  DataTypeVector inputs, outputs;
  MF_ASSERT_OK(InOutTypesForNode(node, op, &inputs, &outputs));
  EXPECT_THAT(inputs,
              ElementsAre(DT_HALF, DT_HALF, DT_BOOL, DT_STRING, DT_INT64_REF));
  EXPECT_THAT(outputs, ElementsAre(DT_HALF_REF, DT_INT32, DT_INT32));

  DataType type;
  MF_ASSERT_OK(InputTypeForNode(node, op, 3, &type));
  EXPECT_EQ(type, DT_STRING);
  MF_ASSERT_OK(OutputTypeForNode(node, op, 0, &type));
  EXPECT_EQ(type, DT_HALF_REF);
  EXPECT_THAT(InputTypeForNode(node, op, 5, &type),
              StatusIs(kInvalidArgument, "Input 5 not found for node n"));
  EXPECT_THAT(OutputTypeForNode(node, op, -1, &type),
              StatusIs(kInvalidArgument, "Output -1 not found for node n"));
  int num_outputs = 0;
  MF_ASSERT_OK(NumOutputsForNode(node, op, &num_outputs));
  EXPECT_EQ(num_outputs, 3);

  NameRangeMap in_ranges, out_ranges;
  MF_ASSERT_OK(NameRangesForNode(node, op, &in_ranges, &out_ranges));
  EXPECT_THAT(in_ranges,
              UnorderedElementsAre(Pair("a", Pair(0, 2)), Pair("b", Pair(2, 4)),
                                   Pair("c", Pair(4, 5))));
  EXPECT_THAT(out_ranges, UnorderedElementsAre(Pair("d", Pair(0, 1)),
                                               Pair("e", Pair(1, 3))));
  MF_EXPECT_OK(NameRangesForNode(node, op, nullptr, nullptr));
}

TEST(NodeDefUtilTest, InOutTypesNeedTheAttrsTheyUse) {
  const OpDef op = MakeOp(OpDefBuilder("Op").Input("a: T").Attr("T: type"));
  DataTypeVector inputs, outputs;
  EXPECT_THAT(
      InOutTypesForNode(Node("name: 'n' op: 'Op'"), op, &inputs, &outputs),
      StatusIs(absl::StatusCode::kNotFound,
               HasSubstr("No attr named 'T' in NodeDef")));
  const OpDef ref_of_ref =
      MakeOp(OpDefBuilder("Op").Input("a: Ref(T)").Attr("T: type"));
  inputs.clear();
  EXPECT_THAT(
      InputTypesForNode(
          Node("name: 'n' attr { key: 'T' value { type: DT_FLOAT_REF } }"),
          ref_of_ref, &inputs),
      StatusIs(kInvalidArgument,
               HasSubstr("AttrValue must not have reference type value of "
                         "float_ref\n\t for attr 'T'")));
}

// --- Attr inference from input types
// ------------------------------------------

class InferAttrsTest : public ::testing::Test {
 protected:
  const OpDef op_ = MakeOp(OpDefBuilder("Op")
                               .Input("x: T")
                               .Input("ys: N * T")
                               .Input("zs: L")
                               .Input("r: Ref(int32)")
                               .Attr("T: {float, int32}")
                               .Attr("N: int >= 0")
                               .Attr("L: list(type) >= 0"));
  NodeDef node_ = Node("name: 'n' op: 'Op'");
};

TEST_F(InferAttrsTest, SetsTypeLengthAndListAttrs) {
  MF_ASSERT_OK(InferAttrsFromInputTypes(
      op_,
      {{DT_FLOAT}, {DT_FLOAT, DT_FLOAT}, {DT_BOOL, DT_INT8}, {DT_INT32_REF}},
      &node_));
  EXPECT_EQ(SummarizeAttrs(node_), "L=[DT_BOOL, DT_INT8], N=2, T=DT_FLOAT");
  // The node is then complete and valid.
  for (const char* input : {"a", "b", "c", "d", "e", "f"})
    node_.add_input(input);
  MF_EXPECT_OK(ValidateNodeDef(node_, op_));
}

TEST_F(InferAttrsTest, RefInputsFeedPlainArgs) {
  MF_ASSERT_OK(InferAttrsFromInputTypes(
      op_, {{DT_INT32_REF}, {}, {DT_FLOAT_REF}, {DT_INT32_REF}}, &node_));
  EXPECT_EQ(SummarizeAttrs(node_), "L=[DT_FLOAT], N=0, T=DT_INT32");
}

TEST_F(InferAttrsTest, ReportsDisagreements) {
  EXPECT_THAT(InferAttrsFromInputTypes(
                  op_, {{DT_FLOAT}, {DT_INT32}, {}, {DT_INT32_REF}}, &node_),
              StatusIs(kInvalidArgument,
                       "Inconsistent values for attr 'T' DT_FLOAT vs. DT_INT32 "
                       "(from the types of input 'ys') for Op Op"));
  node_ = Node("name: 'n' op: 'Op'");
  EXPECT_THAT(
      InferAttrsFromInputTypes(
          op_, {{DT_FLOAT}, {DT_FLOAT, DT_INT32}, {}, {DT_INT32_REF}}, &node_),
      StatusIs(kInvalidArgument,
               "Input 'ys' of Op Op must have tensors of one type, but "
               "got float and int32"));
  node_ = Node("name: 'n' op: 'Op'");
  EXPECT_THAT(
      InferAttrsFromInputTypes(op_, {{DT_FLOAT}, {}, {}, {DT_INT32}}, &node_),
      StatusIs(kInvalidArgument,
               "Input 'r' of Op Op needs a reference input, but got "
               "int32"));
  node_ = Node("name: 'n' op: 'Op'");
  EXPECT_THAT(InferAttrsFromInputTypes(
                  op_, {{DT_FLOAT}, {}, {}, {DT_FLOAT_REF}}, &node_),
              StatusIs(kInvalidArgument,
                       "Input 'r' of Op Op must be int32, but got float"));
  EXPECT_THAT(
      InferAttrsFromInputTypes(op_, {{DT_FLOAT, DT_FLOAT}, {}, {}, {}}, &node_),
      StatusIs(kInvalidArgument,
               "Input 'x' of Op Op takes one tensor, but got 2"));
  EXPECT_THAT(InferAttrsFromInputTypes(op_, {{DT_FLOAT}}, &node_),
              StatusIs(kInvalidArgument,
                       "Op Op has 4 input args, but types for 1 were given"));
  // Disallowed types are ValidateNodeDef's business.
  node_ = Node("name: 'n' op: 'Op' input: ['a', 'b']");
  MF_ASSERT_OK(InferAttrsFromInputTypes(
      op_, {{DT_BOOL}, {}, {}, {DT_INT32_REF}}, &node_));
  EXPECT_THAT(ValidateNodeDef(node_, op_),
              StatusIs(kInvalidArgument, HasSubstr("attr 'T' of bool")));
}

TEST_F(InferAttrsTest, SplitsAFlatListWhenOnlyOneLengthIsUnknown) {
  AddNodeAttr("L", DataTypeVector{DT_BOOL}, &node_);
  MF_ASSERT_OK(InferAttrsFromFlatInputTypes(
      op_, {DT_INT32, DT_INT32, DT_INT32, DT_BOOL, DT_INT32_REF}, &node_));
  EXPECT_EQ(SummarizeAttrs(node_), "L=[DT_BOOL], N=2, T=DT_INT32");

  NodeDef ambiguous = Node("name: 'n' op: 'Op'");
  EXPECT_THAT(
      InferAttrsFromFlatInputTypes(op_, {DT_FLOAT, DT_INT32_REF}, &ambiguous),
      StatusIs(kInvalidArgument,
               "Cannot tell how 2 input types split among the lists "
               "of Op Op whose lengths are set by attrs 'N', 'L'; set "
               "all but one of them first"));
  NodeDef too_few = Node("name: 'n' op: 'Op'");
  AddNodeAttr("N", 3, &too_few);
  AddNodeAttr("L", DataTypeVector{}, &too_few);
  EXPECT_THAT(InferAttrsFromFlatInputTypes(op_, {DT_FLOAT}, &too_few),
              StatusIs(kInvalidArgument,
                       "Op Op cannot take 1 inputs here (5 are needed by its "
                       "fixed-size args)"));
}

TEST(NodeDefUtilTest, FlatSplitSharesOneLengthAmongArgs) {
  const OpDef op = MakeOp(OpDefBuilder("Op")
                              .Input("a: N * int32")
                              .Input("b: N * float")
                              .Attr("N: int"));
  NodeDef node = Node("name: 'n' op: 'Op'");
  MF_ASSERT_OK(InferAttrsFromFlatInputTypes(
      op, {DT_INT32, DT_INT32, DT_FLOAT, DT_FLOAT}, &node));
  EXPECT_EQ(SummarizeAttrs(node), "N=2");
  NodeDef odd = Node("name: 'n' op: 'Op'");
  EXPECT_THAT(
      InferAttrsFromFlatInputTypes(op, {DT_INT32, DT_INT32, DT_FLOAT}, &odd),
      StatusIs(kInvalidArgument, HasSubstr("cannot take 3 inputs")));
}

}  // namespace
}  // namespace minflow
