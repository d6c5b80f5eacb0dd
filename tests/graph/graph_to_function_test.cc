#include "minflow/graph/graph_to_function.h"

#include <memory>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "minflow/framework/function.h"
#include "minflow/framework/op.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/function_body.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

// scale(x, k) = (x * k, k): a node reading both args, a return that is an
// arg itself, and a multi-output op (Unpack) read at index 1.
constexpr char kFunction[] = R"pb(
  signature {
    name: "scale"
    input_arg { name: "x" type: DT_FLOAT }
    input_arg { name: "k" type: DT_FLOAT }
    output_arg { name: "y" type: DT_FLOAT }
    output_arg { name: "k_out" type: DT_FLOAT }
    output_arg { name: "second" type: DT_FLOAT }
  }
  node_def {
    name: "mul"
    op: "Mul"
    input: "x"
    input: "k"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node_def {
    name: "parts"
    op: "Unpack"
    input: "mul:z:0"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "num"
      value { i: 2 }
    }
    attr {
      key: "axis"
      value { i: 0 }
    }
  }
  ret { key: "y" value: "mul:z:0" }
  ret { key: "k_out" value: "k" }
  ret { key: "second" value: "parts:output:1" }
)pb";

class GraphToFunctionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FunctionDef fdef;
    ASSERT_TRUE(
        google::protobuf::TextFormat::ParseFromString(kFunction, &fdef));
    library_ =
        std::make_shared<FunctionLibraryDefinition>(OpRegistry::Global());
    MF_ASSERT_OK(library_->AddFunctionDef(fdef));
    NameAttrList call;
    call.set_name("scale");
    MF_ASSERT_OK(InstantiateFunctionBody(library_, call, VersionDef(), &body_));
  }

  std::shared_ptr<FunctionLibraryDefinition> library_;
  FunctionBody body_;
};

TEST_F(GraphToFunctionTest, ABodyGoesBackToAnEquivalentFunction) {
  FunctionDef out;
  MF_ASSERT_OK(GraphToFunctionDef(*body_.graph, "scale_again", &out));
  EXPECT_EQ(out.signature().name(), "scale_again");
  ASSERT_EQ(out.signature().input_arg_size(), 2);
  ASSERT_EQ(out.signature().output_arg_size(), 3);
  EXPECT_EQ(out.signature().input_arg(0).type(), DT_FLOAT);
  // The outputs keep their order: the product, the arg k, Unpack's 2nd.
  const auto& ret = out.ret();
  const std::string k = out.signature().input_arg(1).name();
  EXPECT_EQ(ret.at(out.signature().output_arg(0).name()), "mul:z:0");
  EXPECT_EQ(ret.at(out.signature().output_arg(1).name()), k);
  EXPECT_EQ(ret.at(out.signature().output_arg(2).name()), "parts:output:1");
  // It instantiates again, with the same number of nodes.
  MF_ASSERT_OK(library_->AddFunctionDef(out));
  NameAttrList call;
  call.set_name("scale_again");
  FunctionBody again;
  MF_ASSERT_OK(InstantiateFunctionBody(library_, call, VersionDef(), &again));
  EXPECT_EQ(again.graph->num_nodes(), body_.graph->num_nodes());
}

TEST_F(GraphToFunctionTest, ArgIndicesMustRunWithoutGaps) {
  // Removing the first _Arg leaves indices {1}: index 0 is missing.
  body_.graph->RemoveNode(body_.arg_nodes[0]);
  FunctionDef out;
  EXPECT_THAT(GraphToFunctionDef(*body_.graph, "gappy", &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Function 'gappy' has no _Arg node with "
                                 "index 0")));
}

}  // namespace
}  // namespace minflow
