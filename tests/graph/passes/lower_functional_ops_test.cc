// The lower_functional_ops pass and what it stands on: shape inference into
// function bodies (Note [Shapes through functions]), the library kept on the
// Graph and written back on export, and the rewritten graph (no calls or
// functional ops left, TF1 frames that BuildControlFlowInfo accepts, shapes
// on the new nodes). Values are checked end to end in
// tests/runtime/functional_ops_test.cc.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/logging.h"
#include "minflow/framework/function.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/control_flow.h"
#include "minflow/graph/function_body.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_pipeline.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

// x: [2,3]. `grow` concatenates its input with itself on axis 0, so a
// While over it changes its loop variable's shape every iteration.
constexpr char kGraph[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "shape"
      value {
        shape {
          dim { size: 2 }
          dim { size: 3 }
        }
      }
    }
  }
  node {
    name: "pred"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_BOOL }
    }
  }
  node {
    name: "call"
    op: "StatefulPartitionedCall"
    input: "x"
    attr {
      key: "Tin"
      value { list { type: DT_FLOAT } }
    }
    attr {
      key: "Tout"
      value { list { type: DT_FLOAT } }
    }
    attr {
      key: "f"
      value { func { name: "grow" } }
    }
  }
  node {
    name: "pick"
    op: "If"
    input: "pred"
    input: "x"
    attr {
      key: "Tcond"
      value { type: DT_BOOL }
    }
    attr {
      key: "Tin"
      value { list { type: DT_FLOAT } }
    }
    attr {
      key: "Tout"
      value { list { type: DT_FLOAT } }
    }
    attr {
      key: "then_branch"
      value { func { name: "grow" } }
    }
    attr {
      key: "else_branch"
      value { func { name: "same" } }
    }
  }
  node {
    name: "fixed"
    op: "If"
    input: "pred"
    input: "x"
    attr {
      key: "Tcond"
      value { type: DT_BOOL }
    }
    attr {
      key: "Tin"
      value { list { type: DT_FLOAT } }
    }
    attr {
      key: "Tout"
      value { list { type: DT_FLOAT } }
    }
    attr {
      key: "then_branch"
      value { func { name: "grow" } }
    }
    attr {
      key: "else_branch"
      value { func { name: "same" } }
    }
    attr {
      key: "output_shapes"
      value {
        list {
          shape {
            dim { size: -1 }
            dim { size: 3 }
          }
        }
      }
    }
  }
  node {
    name: "loop"
    op: "While"
    input: "x"
    attr {
      key: "T"
      value { list { type: DT_FLOAT } }
    }
    attr {
      key: "cond"
      value { func { name: "small" } }
    }
    attr {
      key: "body"
      value { func { name: "grow" } }
    }
  }
  node {
    name: "steady"
    op: "While"
    input: "x"
    attr {
      key: "T"
      value { list { type: DT_FLOAT } }
    }
    attr {
      key: "cond"
      value { func { name: "small" } }
    }
    attr {
      key: "body"
      value { func { name: "same" } }
    }
  }
  versions { producer: 2100 }
  library {
    function {
      signature {
        name: "grow"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "axis"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT32
              tensor_shape {}
              int_val: 0
            }
          }
        }
      }
      node_def {
        name: "concat"
        op: "ConcatV2"
        input: "x"
        input: "x"
        input: "axis:output:0"
        attr {
          key: "N"
          value { i: 2 }
        }
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
        attr {
          key: "Tidx"
          value { type: DT_INT32 }
        }
      }
      ret { key: "y" value: "concat:output:0" }
    }
    function {
      signature {
        name: "same"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      ret { key: "y" value: "x" }
    }
    function {
      signature {
        name: "small"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "ok" type: DT_BOOL }
      }
      node_def {
        name: "size"
        op: "Size"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
        attr {
          key: "out_type"
          value { type: DT_INT32 }
        }
      }
      node_def {
        name: "limit"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT32
              tensor_shape {}
              int_val: 100
            }
          }
        }
      }
      node_def {
        name: "less"
        op: "Less"
        input: "size:output:0"
        input: "limit:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      ret { key: "ok" value: "less:z:0" }
    }
  }
)pb";

std::unique_ptr<GraphPipeline> Prepare() {
  std::unique_ptr<GraphPipeline> pipeline;
  MF_CHECK_OK(GraphPipeline::Prepare(ParseTextProtoOrDie<GraphDef>(kGraph),
                                     GraphPipelineOptions(), &pipeline));
  return pipeline;
}

std::string ShapeOf(const Graph& graph, const std::string& node) {
  const Node* n = graph.FindNodeByName(node);
  return n == nullptr ? "(no node)" : n->output_shape(0).DebugString();
}

TEST(FunctionShapesTest, CallsAndFunctionalOpsGetTheirBodiesShapes) {
  std::unique_ptr<GraphPipeline> pipeline = Prepare();
  const Graph& g = pipeline->graph();
  EXPECT_EQ(ShapeOf(g, "call"), "[4,3]");
  // The branches give [4,3] and [2,3]: relaxed.
  EXPECT_EQ(ShapeOf(g, "pick"), "[?,3]");
  // output_shapes, when given, is what the node has.
  EXPECT_EQ(ShapeOf(g, "fixed"), "[?,3]");
  // The body doubles dim 0 every iteration: relaxed until stable.
  EXPECT_EQ(ShapeOf(g, "loop"), "[?,3]");
  EXPECT_EQ(ShapeOf(g, "steady"), "[2,3]");
}

TEST(FunctionShapesTest, TheLibraryStaysOnTheGraphAndIsExported) {
  std::unique_ptr<GraphPipeline> pipeline = Prepare();
  ASSERT_NE(pipeline->graph().flib_def(), nullptr);
  EXPECT_EQ(pipeline->graph().flib_def()->num_functions(), 3);
  GraphDef exported;
  pipeline->graph().ToGraphDef(&exported);
  ASSERT_EQ(exported.library().function_size(), 3);
  EXPECT_EQ(exported.library().function(0).signature().name(), "grow");
  // And it imports again, to the same shapes.
  std::unique_ptr<GraphPipeline> again;
  MF_ASSERT_OK(
      GraphPipeline::Prepare(exported, GraphPipelineOptions(), &again));
  EXPECT_EQ(ShapeOf(again->graph(), "loop"), "[?,3]");
  std::unique_ptr<GraphPipeline> clone = pipeline->Clone();
  EXPECT_EQ(clone->graph().flib_def(), pipeline->graph().flib_def());
}

TEST(FunctionShapesTest, ABodyShapeErrorNamesTheFunction) {
  GraphDef graph = ParseTextProtoOrDie<GraphDef>(kGraph);
  // ConcatV2 of [2,3] with itself on axis 5 is out of range.
  graph.mutable_library()
      ->mutable_function(0)
      ->mutable_node_def(0)
      ->mutable_attr()
      ->at("value")
      .mutable_tensor()
      ->set_int_val(0, 5);
  std::unique_ptr<GraphPipeline> pipeline;
  EXPECT_THAT(GraphPipeline::Prepare(graph, GraphPipelineOptions(), &pipeline),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("In function 'grow'"),
                             HasSubstr("concat"), HasSubstr("{{node call}}"))));
}

TEST(LowerFunctionalOpsTest, NoCallsRemainAndFramesAreValid) {
  std::unique_ptr<GraphPipeline> pipeline = Prepare();
  PreparedGraph prepared;
  MF_ASSERT_OK(pipeline->PrepareForSignature(
      {"x", "pred"}, {"call", "pick", "fixed", "loop", "steady"}, {},
      SignatureOptions(), &prepared));
  const Graph& g = *prepared.graph;
  int enters = 0;
  for (const Node* n : g.nodes()) {
    NameAttrList call;
    EXPECT_FALSE(GetFunctionCall(*n, g.flib_def(), &call)) << n->name();
    EXPECT_FALSE(IsFunctionalControlFlowOp(n->type_string())) << n->name();
    if (n->IsOp("Enter")) ++enters;
  }
  EXPECT_EQ(enters, 2);  // one loop variable in each of the two loops
  ControlFlowInfo info;
  MF_EXPECT_OK(BuildControlFlowInfo(g, &info));
  // Inlined nodes are named under their call and keep their shapes.
  EXPECT_EQ(ShapeOf(g, "call/concat"), "[4,3]");
  ASSERT_FALSE(prepared.passes.empty());
  EXPECT_EQ(prepared.passes[0].name(), "lower_functional_ops");
  EXPECT_GT(prepared.passes[0].nodes_after(),
            prepared.passes[0].nodes_before());
}

TEST(LowerFunctionalOpsTest, SwitchingThePassOffKeepsTheCalls) {
  std::unique_ptr<GraphPipeline> pipeline = Prepare();
  SignatureOptions options;
  options.passes.disabled.push_back("lower_functional_ops");
  PreparedGraph prepared;
  MF_ASSERT_OK(
      pipeline->PrepareForSignature({"x"}, {"call"}, {}, options, &prepared));
  EXPECT_NE(prepared.graph->FindNodeByName("call"), nullptr);
}

TEST(LowerFunctionalOpsTest, InliningThatWouldExplodeIsRefused) {
  // f0 calls f1 twice, f1 calls f2 twice, ...: 2^24 copies of f24's body.
  GraphDef graph = ParseTextProtoOrDie<GraphDef>(R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node { name: "call" op: "f0" input: "x" }
  )pb");
  constexpr int kLevels = 25;
  for (int level = 0; level < kLevels; ++level) {
    FunctionDef* f = graph.mutable_library()->add_function();
    f->mutable_signature()->set_name(absl::StrCat("f", level));
    auto* in = f->mutable_signature()->add_input_arg();
    in->set_name("x");
    in->set_type(DT_FLOAT);
    auto* out = f->mutable_signature()->add_output_arg();
    out->set_name("y");
    out->set_type(DT_FLOAT);
    if (level + 1 == kLevels) {
      (*f->mutable_ret())["y"] = "x";
      continue;
    }
    const std::string next = absl::StrCat("f", level + 1);
    NodeDef* a = f->add_node_def();
    a->set_name("a");
    a->set_op(next);
    a->add_input("x");
    NodeDef* b = f->add_node_def();
    b->set_name("b");
    b->set_op(next);
    b->add_input("a:y:0");
    (*f->mutable_ret())["y"] = "b:y:0";
  }
  std::unique_ptr<GraphPipeline> pipeline;
  MF_ASSERT_OK(
      GraphPipeline::Prepare(graph, GraphPipelineOptions(), &pipeline));
  PreparedGraph prepared;
  EXPECT_THAT(pipeline->PrepareForSignature({"x"}, {"call"}, {},
                                            SignatureOptions(), &prepared),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       AllOf(HasSubstr("more than 100000 nodes"),
                             HasSubstr("lower_functional_ops"))));
}

}  // namespace
}  // namespace minflow
