// FunctionLibraryDefinition, ValidateFunctionDef and InstantiateFunction:
// what a GraphDef's library may hold, and how a FunctionDef's own dialect
// ("node:out_arg:index", "$T") becomes an ordinary body.
#include "minflow/framework/function.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/node_def.pb.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// y = x + 1, for any T.
constexpr char kAddOne[] = R"pb(
  signature {
    name: "AddOne"
    input_arg { name: "x" type_attr: "T" }
    output_arg { name: "y" type_attr: "T" }
    attr { name: "T" type: "type" }
  }
  node_def {
    name: "one"
    op: "Const"
    attr {
      key: "dtype"
      value { placeholder: "T" }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {}
          float_val: 1
        }
      }
    }
  }
  node_def {
    name: "add"
    op: "AddV2"
    input: "x"
    input: "one:output:0"
    attr {
      key: "T"
      value { placeholder: "T" }
    }
  }
  ret { key: "y" value: "add:z:0" }
)pb";

FunctionDef AddOne() { return ParseTextProtoOrDie<FunctionDef>(kAddOne); }

const NodeDef* FindNode(const GraphDef& graph, const std::string& name) {
  for (const NodeDef& n : graph.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

TEST(FunctionLibraryDefinitionTest, FunctionsResolveAsOpsNextToTheRegistry) {
  FunctionLibraryDefinition library(OpRegistry::Global());
  MF_ASSERT_OK(library.AddFunctionDef(AddOne()));
  EXPECT_EQ(library.num_functions(), 1);
  ASSERT_NE(library.Find("AddOne"), nullptr);
  EXPECT_EQ(library.Find("MatMul"), nullptr);

  const OpRegistrationData* reg = nullptr;
  MF_ASSERT_OK(library.LookUp("AddOne", &reg));
  EXPECT_TRUE(reg->is_function_op);
  EXPECT_EQ(reg->op_def.input_arg(0).name(), "x");
  MF_ASSERT_OK(library.LookUp("MatMul", &reg));
  EXPECT_FALSE(reg->is_function_op);
  EXPECT_THAT(library.LookUp("NoSuchOp", &reg),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("NoSuchOp")));
}

TEST(FunctionLibraryDefinitionTest, SameDefinitionTwiceIsFineAnotherIsNot) {
  FunctionLibraryDefinition library(OpRegistry::Global());
  MF_ASSERT_OK(library.AddFunctionDef(AddOne()));
  MF_EXPECT_OK(library.AddFunctionDef(AddOne()));
  FunctionDef other = AddOne();
  other.mutable_node_def(1)->set_op("Sub");
  EXPECT_THAT(library.AddFunctionDef(other),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'AddOne' is defined twice, differently")));
  FunctionDef named_like_op = AddOne();
  named_like_op.mutable_signature()->set_name("MatMul");
  EXPECT_THAT(library.AddFunctionDef(named_like_op),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("name of a registered op")));
}

TEST(FunctionLibraryDefinitionTest,
     OpsOfAFunctionAreCheckedWhenItIsInstantiated) {
  // Outer calls AddOne, which the library defines after it.
  FunctionDefLibrary proto = ParseTextProtoOrDie<FunctionDefLibrary>(R"pb(
    function {
      signature {
        name: "Outer"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "inner"
        op: "AddOne"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "y" value: "inner:y:0" }
    }
    gradient { function_name: "Outer" gradient_func: "OuterGrad" }
  )pb");
  *proto.add_function() = AddOne();
  FunctionLibraryDefinition library(OpRegistry::Global());
  MF_ASSERT_OK(library.AddLibrary(proto));
  EXPECT_THAT(library.ListFunctionNames(), ElementsAre("AddOne", "Outer"));
  FunctionDefLibrary written;
  library.ToProto(&written);
  ASSERT_EQ(written.function_size(), 2);
  EXPECT_EQ(written.function(0).signature().name(), "AddOne");
  ASSERT_EQ(written.gradient_size(), 1);
  EXPECT_EQ(written.gradient(0).gradient_func(), "OuterGrad");

  // An unknown op is found when the function is instantiated, not before.
  FunctionDefLibrary broken = proto;
  broken.mutable_function(0)->mutable_node_def(0)->set_op("AddTwo");
  FunctionLibraryDefinition other(OpRegistry::Global());
  MF_ASSERT_OK(other.AddLibrary(broken));
  InstantiationResult result;
  EXPECT_THAT(
      InstantiateFunction(*other.Find("Outer"), AttrSlice(), other, &result),
      StatusIs(absl::StatusCode::kNotFound,
               AllOf(HasSubstr("function 'Outer'"), HasSubstr("node 'inner'"),
                     HasSubstr("AddTwo"))));
}

TEST(ValidateFunctionDefTest, MissingRetIsAnError) {
  FunctionDef f = AddOne();
  f.mutable_ret()->clear();
  EXPECT_THAT(ValidateFunctionDef(f),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("function 'AddOne'"),
                             HasSubstr("output 'y' has no `ret`"))));
  // A `ret` for no output is ignored, as TensorFlow's own graphs need.
  f = AddOne();
  (*f.mutable_ret())["z"] = "add:z:0";
  MF_EXPECT_OK(ValidateFunctionDef(f));
}

TEST(ValidateFunctionDefTest, CollidingNodeNamesAreAnError) {
  FunctionDef f = AddOne();
  f.mutable_node_def(1)->set_name("one");
  EXPECT_THAT(ValidateFunctionDef(f),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("function 'AddOne', node 'one'"),
                             HasSubstr("two nodes of the function"))));
  f = AddOne();
  f.mutable_node_def(0)->set_name("x");
  EXPECT_THAT(ValidateFunctionDef(f),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("also an input arg's")));
}

TEST(ValidateFunctionDefTest, InputsMustNameArgsOrNodeOutputs) {
  FunctionDef f = AddOne();
  f.mutable_node_def(1)->set_input(1, "one:0");
  EXPECT_THAT(ValidateFunctionDef(f),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("node 'add'"),
                             HasSubstr("'node:out_arg:index'"))));
  f = AddOne();
  f.mutable_node_def(1)->set_input(0, "w");
  EXPECT_THAT(ValidateFunctionDef(f),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'w' is neither an input arg")));
  f = AddOne();
  f.mutable_node_def(1)->set_input(1, "two:output:0");
  EXPECT_THAT(
      ValidateFunctionDef(f),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("names no node")));
  f = AddOne();
  f.mutable_signature()->add_control_output("done");
  (*f.mutable_control_ret())["done"] = "missing";
  EXPECT_THAT(ValidateFunctionDef(f),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("`control_ret` 'done' names 'missing'")));
}

TEST(InstantiateFunctionTest, SubstitutesPlaceholdersAndResolvesPorts) {
  AttrValueMap attrs;
  attrs["T"].set_type(DT_INT32);
  InstantiationResult result;
  MF_ASSERT_OK(InstantiateFunction(AddOne(), AttrSlice(&attrs),
                                   *OpRegistry::Global(), &result));
  EXPECT_THAT(result.arg_types, ElementsAre(DT_INT32));
  EXPECT_THAT(result.ret_types, ElementsAre(DT_INT32));
  const NodeDef* arg = FindNode(result.body, "x");
  ASSERT_NE(arg, nullptr);
  EXPECT_EQ(arg->op(), "_Arg");
  EXPECT_EQ(arg->attr().at("T").type(), DT_INT32);
  const NodeDef* one = FindNode(result.body, "one");
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(one->attr().at("dtype").type(), DT_INT32);
  const NodeDef* add = FindNode(result.body, "add");
  ASSERT_NE(add, nullptr);
  EXPECT_THAT(add->input(), ElementsAre("x", "one:0"));
  const NodeDef* ret = FindNode(result.body, "y_RetVal");
  ASSERT_NE(ret, nullptr);
  EXPECT_EQ(ret->op(), "_Retval");
  EXPECT_THAT(ret->input(), ElementsAre("add:0"));
}

TEST(InstantiateFunctionTest, ArgAttrsGoOntoTheArgNodes) {
  FunctionDef f = AddOne();
  auto& arg_attrs = (*f.mutable_arg_attr())[0];
  (*arg_attrs.mutable_attr())["_user_specified_name"].set_s("inputs");
  // T and index are the instantiation's own.
  (*arg_attrs.mutable_attr())["T"].set_type(DT_STRING);
  AttrValueMap attrs;
  attrs["T"].set_type(DT_FLOAT);
  InstantiationResult result;
  MF_ASSERT_OK(InstantiateFunction(f, AttrSlice(&attrs), *OpRegistry::Global(),
                                   &result));
  const NodeDef* arg = FindNode(result.body, "x");
  ASSERT_NE(arg, nullptr);
  EXPECT_EQ(arg->attr().at("_user_specified_name").s(), "inputs");
  EXPECT_EQ(arg->attr().at("T").type(), DT_FLOAT);
  EXPECT_EQ(arg->attr().at("index").i(), 0);
}

TEST(ValidateFunctionDefTest, ArgAttrOfNoInputArgIsAnError) {
  FunctionDef f = AddOne();
  (*(*f.mutable_arg_attr())[1].mutable_attr())["_user_specified_name"].set_s(
      "y");
  EXPECT_THAT(ValidateFunctionDef(f),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("function 'AddOne'"),
                             HasSubstr("`arg_attr` names input arg 1, but the "
                                       "function has 1"))));
}

TEST(InstantiateFunctionTest, ExpandsListArgsAndMultiOutputArgs) {
  // Takes N tensors, splits their sum's Switch into two outputs.
  const FunctionDef f = ParseTextProtoOrDie<FunctionDef>(R"pb(
    signature {
      name: "SumSwitch"
      input_arg { name: "xs" type: DT_FLOAT number_attr: "N" }
      input_arg { name: "p" type: DT_BOOL }
      output_arg { name: "f" type: DT_FLOAT }
      output_arg { name: "t" type: DT_FLOAT }
      attr { name: "N" type: "int" minimum: 1 has_minimum: true }
    }
    node_def {
      name: "sum"
      op: "AddN"
      input: "xs"
      attr {
        key: "N"
        value { placeholder: "N" }
      }
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node_def {
      name: "s"
      op: "Switch"
      input: "sum:sum:0"
      input: "p"
      input: "^xs"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    ret { key: "f" value: "s:output_false:0" }
    ret { key: "t" value: "s:output_true:0" }
  )pb");
  AttrValueMap attrs;
  attrs["N"].set_i(3);
  InstantiationResult result;
  MF_ASSERT_OK(InstantiateFunction(f, AttrSlice(&attrs), *OpRegistry::Global(),
                                   &result));
  EXPECT_THAT(result.arg_types,
              ElementsAre(DT_FLOAT, DT_FLOAT, DT_FLOAT, DT_BOOL));
  const NodeDef* sum = FindNode(result.body, "sum");
  ASSERT_NE(sum, nullptr);
  EXPECT_THAT(sum->input(), ElementsAre("xs_0", "xs_1", "xs_2"));
  const NodeDef* s = FindNode(result.body, "s");
  ASSERT_NE(s, nullptr);
  EXPECT_THAT(s->input(), ElementsAre("sum:0", "p", "^xs_0", "^xs_1", "^xs_2"));
  EXPECT_THAT(FindNode(result.body, "f_RetVal")->input(), ElementsAre("s:0"));
  EXPECT_THAT(FindNode(result.body, "t_RetVal")->input(), ElementsAre("s:1"));
}

TEST(InstantiateFunctionTest, AHugeListLengthIsRefusedBeforeAllocating) {
  const FunctionDef f = ParseTextProtoOrDie<FunctionDef>(R"pb(
    signature {
      name: "Many"
      input_arg { name: "xs" type: DT_FLOAT number_attr: "N" }
      output_arg { name: "y" type: DT_FLOAT }
      attr { name: "N" type: "int" }
    }
    ret { key: "y" value: "xs" }
  )pb");
  AttrValueMap attrs;
  attrs["N"].set_i(int64_t{1} << 40);
  InstantiationResult result;
  EXPECT_THAT(
      InstantiateFunction(f, AttrSlice(&attrs), *OpRegistry::Global(), &result),
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          AllOf(HasSubstr("function 'Many'"), HasSubstr("N = 1099511627776"))));
}

TEST(InstantiateFunctionTest, ErrorsNameTheFunctionAndNode) {
  AttrValueMap none;
  InstantiationResult result;
  EXPECT_THAT(
      InstantiateFunction(AddOne(), AttrSlice(&none), *OpRegistry::Global(),
                          &result),
      StatusIs(absl::StatusCode::kNotFound,
               AllOf(HasSubstr("function 'AddOne'"), HasSubstr("'T'"))));
  AttrValueMap attrs;
  attrs["T"].set_type(DT_FLOAT);
  FunctionDef f = AddOne();
  f.mutable_node_def(1)->set_input(1, "one:out:0");
  EXPECT_THAT(
      InstantiateFunction(f, AttrSlice(&attrs), *OpRegistry::Global(), &result),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("function 'AddOne', node 'add'"),
                     HasSubstr("has no output arg 'out' (it has: output)"))));
  f = AddOne();
  f.mutable_node_def(1)->set_input(1, "one:output:1");
  EXPECT_THAT(
      InstantiateFunction(f, AttrSlice(&attrs), *OpRegistry::Global(), &result),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("output arg 'output' has 1 tensor(s)")));
}

TEST(FunctionInstantiationKeyTest, SortsAttrs) {
  AttrValueMap attrs;
  attrs["b"].set_i(2);
  attrs["a"].set_type(DT_FLOAT);
  EXPECT_EQ(FunctionInstantiationKey("f", AttrSlice(&attrs)),
            "f[a=DT_FLOAT, b=2]");
}

}  // namespace
}  // namespace minflow
