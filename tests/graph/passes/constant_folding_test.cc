// The constant_folding pass, run through the graph pipeline as a session
// runs it.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/config.pb.h"
#include "minflow/core/logging.h"
#include "minflow/framework/device.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/graph/subgraph.h"
#include "minflow/runtime/session.h"
#include "tests/graph/passes/pass_test_util.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;

std::string IntConst(const std::string& name, int value) {
  return absl::StrCat(
      "node { name: '", name,
      "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} "
      "float_val: ",
      value, " } } } }\n");
}

std::string Binary(const std::string& name, const std::string& op,
                   const std::string& a, const std::string& b,
                   const std::string& extra = "") {
  return absl::StrCat("node { name: '", name, "' op: '", op, "' input: '", a,
                      "' input: '", b, "' ", extra,
                      " attr { key: 'T' value { type: DT_FLOAT } } }\n");
}

constexpr char kX[] =
    "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: "
    "DT_FLOAT } } attr { key: 'shape' value { shape {} } } }\n";

// (2 + 3) * 4 = 20 folds; x + 20 does not.
const std::string kGraph = IntConst("two", 2) + IntConst("three", 3) +
                           IntConst("four", 4) +
                           Binary("sum", "AddV2", "two", "three") +
                           Binary("prod", "Mul", "sum", "four") + kX +
                           Binary("out", "AddV2", "x", "prod");

using Prepared = test::PreparedSignature;

Prepared Prepare(const std::string& text, const std::vector<std::string>& feeds,
                 const std::vector<std::string>& fetches,
                 const std::vector<std::string>& targets = {},
                 bool folding = true) {
  PassSelection passes;
  if (!folding) passes.disabled = {"constant_folding"};
  return test::PrepareSignature(ParseTextProtoOrDie<GraphDef>(text), feeds,
                                fetches, targets, passes);
}

float ConstValue(const Node& n) {
  Tensor t;
  MF_CHECK_OK(TensorFromProto(n.def().attr().at("value").tensor(), &t));
  return t.scalar<float>()();
}

// What the pipeline recorded for this pass (others run too).
const GraphPassRecord* FoldingRecord(
    const std::vector<GraphPassRecord>& records) {
  return test::FindPassRecord(records, "constant_folding");
}

TEST(ConstantFoldingTest, FoldsAChainOfConstantsIntoOne) {
  Prepared p = Prepare(kGraph, {"x"}, {"out"});
  const Graph& g = *p.graph.graph;
  EXPECT_EQ(nullptr, g.FindNodeByName("sum"));
  EXPECT_EQ(nullptr, g.FindNodeByName("prod"));
  EXPECT_EQ(nullptr, g.FindNodeByName("two"));  // nothing reads it any more
  const Node* folded = g.FindNodeByName("prod/folded");
  ASSERT_NE(nullptr, folded);
  EXPECT_TRUE(folded->IsConstant());
  EXPECT_EQ(20.0f, ConstValue(*folded));
  EXPECT_EQ("[]", folded->output_shape(0).DebugString());
  const Node* out = g.FindNodeByName("out");
  ASSERT_NE(nullptr, out);
  const Edge* in1;
  MF_ASSERT_OK(out->input_edge(1, &in1));
  EXPECT_EQ(folded, in1->src);
  const GraphPassRecord* found = FoldingRecord(p.graph.passes);
  ASSERT_NE(nullptr, found);
  const GraphPassRecord& record = *found;
  EXPECT_TRUE(record.ran());
  // _arg, out, _retval, two..prod (5) -> _arg, out, _retval, prod/folded.
  EXPECT_EQ(8, record.nodes_before());
  EXPECT_EQ(4, record.nodes_after());
}

TEST(ConstantFoldingTest, SwitchedOffLeavesTheGraph) {
  Prepared p = Prepare(kGraph, {"x"}, {"out"}, {}, /*folding=*/false);
  EXPECT_NE(nullptr, p.graph.graph->FindNodeByName("sum"));
  const GraphPassRecord* record = FoldingRecord(p.graph.passes);
  ASSERT_NE(nullptr, record);
  EXPECT_FALSE(record->ran());
}

TEST(ConstantFoldingTest, KeepsControlOrder) {
  // `after` waits for prod by control; then for what replaces it.
  const std::string text =
      kGraph + "node { name: 'after' op: 'NoOp' input: '^prod' }\n";
  Prepared p = Prepare(text, {"x"}, {"out"}, {"after"});
  const Graph& g = *p.graph.graph;
  const Node* folded = g.FindNodeByName("prod/folded");
  ASSERT_NE(nullptr, folded);
  const Node* after = g.FindNodeByName("after");
  ASSERT_NE(nullptr, after);
  bool waits = false;
  for (const Edge* e : after->in_edges()) {
    waits = waits || (e->IsControlEdge() && e->src == folded);
  }
  EXPECT_TRUE(waits);
}

TEST(ConstantFoldingTest, TargetsAreNotFolded) {
  // sum runs as a target: it stays, and so does what reads it.
  Prepared p = Prepare(kGraph, {"x"}, {"out"}, {"sum"});
  const Graph& g = *p.graph.graph;
  EXPECT_NE(nullptr, g.FindNodeByName("sum"));
  EXPECT_NE(nullptr, g.FindNodeByName("prod"));
  EXPECT_EQ(nullptr, g.FindNodeByName("prod/folded"));
}

TEST(ConstantFoldingTest, ANodeWithThousandsOfOutputsIsNotFolded) {
  // Split of an empty vector into 2000 empty parts: each would become a
  // Const; past 1024 outputs the node stays as it is.
  const std::string text = R"pb(
    node {
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
    node {
      name: "empty"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape { dim { size: 0 } }
          }
        }
      }
    }
    node {
      name: "parts"
      op: "Split"
      input: "axis"
      input: "empty"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
      attr {
        key: "num_split"
        value { i: 2000 }
      }
    }
  )pb";
  Prepared p = Prepare(text, {}, {"parts:0", "parts:1999"});
  const Graph& g = *p.graph.graph;
  const Node* parts = g.FindNodeByName("parts");
  ASSERT_NE(nullptr, parts);
  EXPECT_EQ("Split", parts->type_string());
  EXPECT_LT(g.num_nodes(), 10);
}

TEST(ConstantFoldingTest, AKernelErrorIsLeftForTheRunToReport) {
  // Gathering index 5 of 3 elements: the shape function cannot tell, the
  // kernel refuses. The node stays, and the run reports the kernel's error
  // naming it.
  const std::string text = R"pb(
    node {
      name: "params"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape { dim { size: 3 } }
            float_val: [ 1, 2, 3 ]
          }
        }
      }
    }
    node {
      name: "indices"
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
            tensor_shape { dim { size: 1 } }
            int_val: 5
          }
        }
      }
    }
    node {
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
    node {
      name: "gather"
      op: "GatherV2"
      input: "params"
      input: "indices"
      input: "axis"
      attr {
        key: "Tparams"
        value { type: DT_FLOAT }
      }
      attr {
        key: "Tindices"
        value { type: DT_INT32 }
      }
      attr {
        key: "Taxis"
        value { type: DT_INT32 }
      }
    }
  )pb";
  Prepared p = Prepare(text, {}, {"gather"});
  EXPECT_NE(nullptr, p.graph.graph->FindNodeByName("gather"));
  EXPECT_EQ(nullptr, p.graph.graph->FindNodeByName("gather/folded"));
  auto session =
      Session::Create(ParseTextProtoOrDie<GraphDef>(text), SessionOptions());
  MF_ASSERT_OK(session.status());
  std::vector<Tensor> out;
  EXPECT_THAT(
      (*session)->Run({}, {"gather"}, {}, &out),
      ::minflow::testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                   ::testing::HasSubstr("{{node gather}}")));
}

TEST(ConstantFoldingTest, SessionResultsAreTheSameWithAndWithout) {
  const GraphDef graph = ParseTextProtoOrDie<GraphDef>(kGraph);
  Tensor x(DT_FLOAT, TensorShape({}));
  x.scalar<float>()() = 1.5f;
  std::vector<float> results;
  for (RewriterConfig::Toggle toggle :
       {RewriterConfig::DEFAULT, RewriterConfig::OFF}) {
    SessionOptions options;
    options.config.mutable_graph_options()
        ->mutable_rewrite_options()
        ->set_constant_folding(toggle);
    auto session = Session::Create(graph, options);
    MF_ASSERT_OK(session.status());
    std::vector<Tensor> out;
    RunMetadata metadata;
    MF_ASSERT_OK((*session)->Run(RunOptions(), {{"x", x}}, {"out"}, {}, &out,
                                 &metadata));
    results.push_back(out[0].scalar<float>()());
    const std::vector<GraphPassRecord> records(metadata.graph_passes().begin(),
                                               metadata.graph_passes().end());
    const GraphPassRecord* record = FoldingRecord(records);
    ASSERT_NE(nullptr, record);
    EXPECT_EQ(toggle == RewriterConfig::DEFAULT, record->ran());
  }
  EXPECT_EQ(21.5f, results[0]);
  EXPECT_EQ(results[0], results[1]);
}

TEST(ConstantFoldingTest, AVariantOutputIsNotFolded) {
  // A TensorList made from constants cannot become a Const: no TensorProto
  // holds it. Its consumer still folds nothing (its input is no Const).
  const std::string text = R"pb(
    node {
      name: "shape"
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
            int_val: -1
          }
        }
      }
    }
    node {
      name: "list"
      op: "EmptyTensorList"
      input: "shape"
      input: "shape"
      attr {
        key: "element_dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "shape_type"
        value { type: DT_INT32 }
      }
    }
    node { name: "length" op: "TensorListLength" input: "list" })pb";
  Prepared p = Prepare(text, {}, {"length"});
  EXPECT_NE(nullptr, p.graph.graph->FindNodeByName("list"));
  EXPECT_EQ(nullptr, p.graph.graph->FindNodeByName("list/folded"));
}

}  // namespace
}  // namespace minflow
